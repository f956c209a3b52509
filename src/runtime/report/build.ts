/**
 * Assembles a results document (./schema.ts) from what the rounds measured: latency statistics
 * with their bounds and the percentiles the requests can bound, slowdowns (co-run / solo) with
 * intervals, SLO verdicts, where requests' time went, who slowed whom (./attribution.ts), the
 * host's noise, and whether the figures are valid. Pure: no webgpu. docs/measurement.md says
 * what every figure means.
 */
import type { IrPercentile, IrSlo, IrSourceRange, IrTenant, WorkloadIR } from '../ir/types.js';
import type { SplitAxis } from '../kernels/kernel.js';
import { createRandom, type Random } from '../plan/random.js';
import { formatRatio } from '../../protocol/units.js';
import { attribute, type OpRun } from './attribution.js';
import { VERSION_LEVELS } from '../schedule/layer-block.js';
import { RESULTS_SCHEMA_VERSION, type OpResult, type PhaseStats, type Ratio, type Results, type RunStatus, type SloResult, type TenantResult } from './schema.js';
import {
    concat, highestBoundedPercentile, mean, meanBounds, quantileBounds, quantileSorted, ratioInterval, ratioVerdict, requiredSamples, sloVerdict,
    sortedAscending, PERCENTILE_Q, type Bounds,
} from './statistics.js';

/** What one tenant measured in one phase of one round. */
export interface TenantPhaseData {
    /** Latencies of measured requests, ms. */
    latenciesMs: number[];
    /** From the start of the measured window to the last measured completion, ms. */
    windowMs: number;
    /** Measured requests that had arrived but not finished when the phase ended. */
    unfinished: number;
    /** Each plan op's time in every measured request, ms (empty when not measured). */
    opTimesMs: number[][];
    /** Per measured request, where its latency went. */
    breakdown: { queueingMs: number; gpuMs: number; hostMs: number }[];
    /** Multi-version kernels: blocks run in each version, and the first decisions (the block's first op, the version, the interference level). */
    versions?: { blocks: number[]; decisions: { op: string; version: number; level: number | null }[] };
}

/** A plan op as reported. */
export interface OpSummary {
    path: string;
    kind: string;
    fused: string[];
    kernels: { name: string; variant: Record<string, number | string | boolean> }[];
    /** The op's variant and whether the tuning cache chose it or the default rule did. */
    variant?: string;
    variantSource?: 'tuned' | 'default';
    flops: number;
    bytes: number;
    /** How the schedule split the op into chunks (regulated), when it did. */
    split?: { axis: SplitAxis; chunks: number };
    source?: IrSourceRange;
}

export interface TenantRunData {
    tenant: IrTenant;
    ops: OpSummary[];
    /** Ops compiled in several versions, with each version's variant (multi-version kernels). */
    versions?: { path: string; variants: string[] }[];
    memoryBytes: number;
    /** Indexed by measured round; a round a cancellation cut short may lack a phase. */
    solo: readonly (TenantPhaseData | undefined)[];
    corun: readonly (TenantPhaseData | undefined)[];
}

export interface RunData {
    ir: WorkloadIR;
    irHash: string;
    adapter: Results['adapter'];
    /** The schedule that ran, in words (its `auto` arguments resolved), and why when something was chosen. */
    policy: string;
    scheduleWhy?: string;
    /** How the schedule chose the versions blocks ran in (multi-version kernels); default: layer_block's rule. */
    versionRule?: string;
    seed: number;
    /** × every tenant's declared traffic, when not 1. */
    load?: number;
    timing: Results['config']['timing'];
    fusion: boolean;
    tenancyVersion: string;
    startedAt: Date;
    finishedAt: Date;
    status: RunStatus;
    reason?: string;
    failedOp?: string;
    tenants: TenantRunData[];
    /** Per co-run round, every kernel run of the tenants' measured requests (indices into `tenants`). */
    corunRuns: readonly (readonly OpRun[] | undefined)[];
    timeline: Results['timeline'];
    measurement: Results['measurement'];
    host: Pick<Results['host'], 'loadBefore' | 'loadAfter' | 'cores' | 'stealFraction' | 'referenceRequestMs'>;
    /** Requests every tenant needs per phase (`min_requests`). */
    minRequests: number;
    /** Request-count mode: measured requests per tenant and phase. */
    requests?: number;
    /** Measured time per phase over all rounds (time mode), when it is not the benchmark block's. */
    durationMs?: number;
    predictions?: unknown;
}

const SAMPLE_SIZE = 1000;
const STATISTICS: readonly IrPercentile[] = ['mean', 'p50', 'p90', 'p95', 'p99', 'p999'];
/** Bootstrap resamples per interval: enough for the 2.5 % and 97.5 % points to settle to about 1 %. */
const ITERATIONS = 1000;
/** Fewer for per-op intervals (one per op and tenant; their medians are well behaved). */
const OP_ITERATIONS = 400;

/** The rounds of a phase that measured something. */
const present = (rounds: readonly (TenantPhaseData | undefined)[]) => rounds.filter((r): r is TenantPhaseData => r !== undefined);

/** Bounds of one statistic of a phase's rounds. */
function boundsOf(rounds: readonly TenantPhaseData[], sorted: Float64Array, statistic: IrPercentile, random: Random): Bounds {
    return statistic === 'mean'
        ? meanBounds(rounds.map(r => r.latenciesMs), { random, iterations: ITERATIONS })
        : quantileBounds(sorted, PERCENTILE_Q[statistic]);
}

/** Summary statistics of a phase over its rounds, or null if it measured nothing. */
export function phaseStats(roundsOf: readonly (TenantPhaseData | undefined)[], random: Random): PhaseStats | null {
    const rounds = present(roundsOf);
    const sorted = sortedAscending(concat(rounds.map(r => r.latenciesMs)));
    if (sorted.length === 0) return null;
    const sample = sorted.length <= SAMPLE_SIZE
        ? Array.from(sorted)
        : Array.from({ length: SAMPLE_SIZE }, (_, i) => quantileSorted(sorted, i / (SAMPLE_SIZE - 1)));
    const windowMs = rounds.reduce((a, r) => a + r.windowMs, 0);
    const breakdowns = rounds.flatMap(r => r.breakdown);
    const q = (p: number) => quantileSorted(sorted, p);
    return {
        requests: sorted.length,
        rounds: rounds.length,
        windowMs,
        throughputPerSecond: windowMs > 0 ? sorted.length / (windowMs / 1000) : 0,
        unfinished: rounds.reduce((a, r) => a + r.unfinished, 0),
        latencyMs: { mean: mean(sorted), min: sorted[0], max: sorted[sorted.length - 1], p50: q(0.5), p90: q(0.9), p95: q(0.95), p99: q(0.99), p999: q(0.999) },
        boundsMs: Object.fromEntries(STATISTICS.map(s => [s, boundsOf(rounds, sorted, s, random)])) as PhaseStats['boundsMs'],
        boundedUpTo: highestBoundedPercentile(sorted.length) ?? null,
        breakdown: breakdowns.length === 0 ? null : {
            queueingMs: mean(breakdowns.map(b => b.queueingMs)), gpuMs: mean(breakdowns.map(b => b.gpuMs)), hostMs: mean(breakdowns.map(b => b.hostMs)),
        },
        latencySampleMs: sample,
    };
}

/** Rounds where both sides measured something, as paired sample lists. */
function pairedRounds(a: readonly (TenantPhaseData | undefined)[], b: readonly (TenantPhaseData | undefined)[], samples: (d: TenantPhaseData) => number[]): { a: number[][]; b: number[][] } {
    const pairedA: number[][] = [], pairedB: number[][] = [];
    for (let r = 0; r < Math.min(a.length, b.length); r++) {
        const x = a[r], y = b[r];
        if (!x || !y) continue;
        pairedA.push(samples(x));
        pairedB.push(samples(y));
    }
    return { a: pairedA, b: pairedB };
}

/**
 * b / a of a statistic over the rounds both measured, with its interval (two-stage bootstrap),
 * or null when a side is missing or (percentiles) the requests cannot bound it. A slowdown is
 * co-run / solo; a schedule's gain is the baseline's co-run / its own.
 */
export function pairedRatio(a: readonly (TenantPhaseData | undefined)[], b: readonly (TenantPhaseData | undefined)[], statistic: IrPercentile, random: Random,
    iterations = ITERATIONS, samples = (d: TenantPhaseData) => d.latenciesMs): Ratio | null {
    const paired = pairedRounds(a, b, samples);
    const needs = statistic === 'mean' ? 2 : requiredSamples(statistic);
    if (concat(paired.a).length < needs || concat(paired.b).length < needs) return null;
    const interval = ratioInterval(paired.a, paired.b, statistic, { random, iterations });
    return interval ? { ...interval, verdict: ratioVerdict(interval) } : null;
}

/** A co-run / solo ratio of a statistic with its interval (pairedRatio). */
function slowdownOf(t: TenantRunData, statistic: IrPercentile, random: Random, iterations = ITERATIONS, samples = (d: TenantPhaseData) => d.latenciesMs): Ratio | null {
    return pairedRatio(t.solo, t.corun, statistic, random, iterations, samples);
}

/** Mean and median of one op's per-request times over a phase's rounds (null when it measured none). */
function opTimes(rounds: readonly (TenantPhaseData | undefined)[], op: number): { mean: number | null; p50: number | null } {
    const times = concat(present(rounds).map(r => r.opTimesMs[op] ?? []));
    if (times.length === 0) return { mean: null, p50: null };
    return { mean: mean(times), p50: quantileSorted(times.sort(), 0.5) };
}

function sloResult(slo: IrSlo, stats: PhaseStats | null, latencies: ArrayLike<number>): SloResult {
    const bounds = stats ? stats.boundsMs[slo.percentile] ?? null : null;
    const verdict = bounds ? sloVerdict(bounds, slo.ms) : 'invalid';
    const needed = requiredSamples(slo.percentile);
    return {
        percentile: slo.percentile, targetMs: slo.ms,
        measuredMs: stats ? stats.latencyMs[slo.percentile] : null,
        boundsMs: bounds, verdict,
        requestsNeeded: (stats?.requests ?? 0) >= needed ? null : needed,
        attainment: latencies.length > 0 ? Array.prototype.filter.call(latencies, (l: number) => l <= slo.ms).length / latencies.length : null,
    };
}

/** A/A: the tenant's even solo rounds against its odd ones (mean latency): what this host's noise alone gives. */
function soloNoise(t: TenantRunData, random: Random): Ratio | null {
    const rounds = present(t.solo);
    const pairs = Math.floor(rounds.length / 2);
    if (pairs < 1) return null;
    const a = rounds.filter((_, i) => i % 2 === 0).slice(0, pairs).map(r => r.latenciesMs);
    const b = rounds.filter((_, i) => i % 2 === 1).slice(0, pairs).map(r => r.latenciesMs);
    if (concat(a).length < 2 || concat(b).length < 2) return null;
    const interval = ratioInterval(a, b, 'mean', { random, iterations: ITERATIONS });
    return interval ? { ...interval, verdict: ratioVerdict(interval) } : null;
}

/** Builds and returns the results document. */
export function buildResults(run: RunData): Results {
    const random = createRandom(run.seed, 'results/bootstrap');
    const soloP50 = run.tenants.map(t => t.ops.map((_, i) => opTimes(t.solo, i).p50));
    const attribution = attribute(run.corunRuns, run.tenants.map((t, i) => ({ name: t.tenant.name, ops: t.ops.map(o => o.path), soloP50Ms: soloP50[i] })));
    const noises: (Ratio | null)[] = [];
    const tenants: TenantResult[] = run.tenants.map((t, ti) => {
        const solo = phaseStats(t.solo, random.fork(`${t.tenant.name}/solo`));
        const corun = phaseStats(t.corun, random.fork(`${t.tenant.name}/corun`));
        // SLOs are judged on the co-run when one ran, even if the tenant completed nothing in it
        // (starved: too few requests, never the solo figures); on the solo phase otherwise.
        const coran = present(t.corun).length > 0;
        const judged = coran ? corun : solo;
        const judgedLatencies = concat(present(coran ? t.corun : t.solo).map(r => r.latenciesMs));
        const ops: OpResult[] = t.ops.map((op, i) => {
            const s = opTimes(t.solo, i), c = opTimes(t.corun, i);
            return {
                ...op, soloMs: s.mean, corunMs: c.mean, soloP50Ms: s.p50, corunP50Ms: c.p50,
                slowdown: s.p50 !== null && c.p50 !== null ? slowdownOf(t, 'p50', random.fork(`${t.tenant.name}/op/${i}`), OP_ITERATIONS, d => d.opTimesMs[i] ?? []) : null,
                attribution: attribution.ops[ti]?.[i] ?? null,
            };
        });
        const slos = t.tenant.slos.map(slo => sloResult(slo, judged, judgedLatencies));
        const minNeeded = run.minRequests;
        const invalidReasons: string[] = [];
        for (const s of slos) {
            if (s.verdict === 'invalid') {
                invalidReasons.push(`${t.tenant.name}: its ${s.percentile} SLO needs ${s.requestsNeeded ?? requiredSamples(s.percentile)} requests, it has ${judged?.requests ?? 0}` +
                    (judged?.boundedUpTo ? ` (the highest percentile they bound is ${judged.boundedUpTo})` : ''));
            }
        }
        for (const [phase, stats] of [['solo', solo], ['co-run', corun]] as const) {
            if (minNeeded > 0 && stats && stats.requests < minNeeded) invalidReasons.push(`${t.tenant.name}: ${stats.requests} ${phase} requests, fewer than min_requests ${minNeeded}`);
        }
        const noise = soloNoise(t, random.fork(`${t.tenant.name}/noise`));
        noises.push(noise);
        const arrival = Object.fromEntries(Object.entries(t.tenant.arrival)) as Record<string, string | number>;
        return {
            name: t.tenant.name,
            model: t.tenant.graph.model,
            priority: t.tenant.priority,
            arrival,
            memoryBytes: t.memoryBytes,
            solo,
            corun,
            slowdown: {
                mean: slowdownOf(t, 'mean', random.fork(`${t.tenant.name}/slowdown/mean`)),
                p50: slowdownOf(t, 'p50', random.fork(`${t.tenant.name}/slowdown/p50`)),
                p99: slowdownOf(t, 'p99', random.fork(`${t.tenant.name}/slowdown/p99`)),
            },
            noise,
            slos,
            valid: invalidReasons.length === 0,
            invalidReasons,
            interference: attribution.interference[ti] ?? [],
            multiVersion: multiVersionOf(t, run.versionRule),
            ops,
            ...(t.tenant.source ? { source: t.tenant.source } : {}),
        };
    });
    const host = hostReport(run.host, noises);
    const invalidReasons = [
        ...(run.status !== 'complete' ? [`the run is ${run.status}${run.reason ? `: ${run.reason}` : ''}`] : []),
        ...(run.measurement.rounds < 2 && run.status === 'complete' ? [`${run.measurement.rounds} measured round${run.measurement.rounds === 1 ? '' : 's'}: intervals need at least 2`] : []),
        ...tenants.flatMap(t => t.invalidReasons),
    ];
    const schedule = Object.fromEntries(Object.entries(run.ir.schedule)) as Record<string, string | number>;
    return {
        schemaVersion: RESULTS_SCHEMA_VERSION,
        status: run.status,
        ...(run.reason ? { reason: run.reason } : {}),
        ...(run.failedOp ? { failedOp: run.failedOp } : {}),
        workload: run.ir.workload,
        sourceUri: run.ir.sourceUri,
        startedAt: run.startedAt.toISOString(),
        finishedAt: run.finishedAt.toISOString(),
        adapter: run.adapter,
        config: {
            policy: run.policy,
            ...(run.scheduleWhy ? { scheduleWhy: run.scheduleWhy } : {}),
            schedule,
            durationMs: run.durationMs ?? run.ir.benchmark.durationMs,
            warmupMs: run.measurement.warmupMs,
            requests: run.requests ?? null,
            rounds: Math.max(1, run.measurement.plannedRounds),
            seed: run.seed,
            ...(run.load !== undefined && run.load !== 1 ? { load: run.load } : {}),
            irHash: run.irHash,
            timing: run.timing,
            fusion: run.fusion,
            tenancyVersion: run.tenancyVersion,
        },
        measurement: run.measurement,
        host,
        valid: invalidReasons.length === 0,
        invalidReasons,
        tenants,
        timeline: run.timeline,
        ...(run.predictions !== undefined ? { predictions: run.predictions } : {}),
    };
}

/** What the multi-version kernels did in the co-run rounds (null without versions). */
function multiVersionOf(t: TenantRunData, versionRule: string | undefined): TenantResult['multiVersion'] {
    if (!t.versions || t.versions.length === 0) return null;
    const rounds = present(t.corun).filter(r => r.versions);
    const blocks = rounds.reduce<number[]>((sum, r) => r.versions!.blocks.map((b, v) => b + (sum[v] ?? 0)), []);
    return {
        ops: t.versions,
        blocks,
        rule: versionRule ?? `each block in a version its tenant's interference level allows (measured / predicted alone over recent co-running blocks, at the version's own times): below ${VERSION_LEVELS[0]} version 0, from ${VERSION_LEVELS.join(', then ')} the next; of those, a version not yet run first, else the one expected fastest (predicted time × the level measured in it)`,
        decisions: rounds.flatMap(r => r.versions!.decisions).slice(0, 100),
    };
}

/** Loads above this share of the cores, or steal above this, make the host busy. */
const BUSY_LOAD_PER_CORE = 1, BUSY_STEAL = 0.05;

/** The host section: the load and steal measured, the widest A/A interval among the tenants, and whether (and why) the host was busy. */
function hostReport(host: RunData['host'], noises: readonly (Ratio | null)[]): Results['host'] {
    const widest = noises.filter((n): n is Ratio => n !== null && n.low !== null && n.high !== null)
        .sort((a, b) => Math.log(b.high! / b.low!) - Math.log(a.high! / a.low!))[0] ?? null;
    const why: string[] = [];
    const load = Math.max(host.loadBefore ?? 0, host.loadAfter ?? 0);
    if (load > BUSY_LOAD_PER_CORE * host.cores) why.push(`load ${load.toFixed(1)} on ${host.cores} cores`);
    if (host.stealFraction !== null && host.stealFraction > BUSY_STEAL) why.push(`${(host.stealFraction * 100).toFixed(0)} % of CPU time stolen`);
    const drifting = noises.find(n => n !== null && (n.verdict === 'slower' || n.verdict === 'faster'));
    if (drifting) why.push(`solo rounds differ from each other (A/A ${formatRatio(drifting.estimate)})`);
    return { ...host, noise: widest, busy: why.length > 0, ...(why.length ? { warning: `the host was busy (${why.join('; ')}): figures may not repeat` } : {}) };
}
