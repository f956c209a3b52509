/**
 * Assembles a results document (./schema.ts) from plain measurement data: latency statistics,
 * SLO attainment, slowdowns (co-run / solo), per-op times. Pure: no webgpu.
 */
import type { IrSlo, IrSourceRange, IrTenant, WorkloadIR } from '../ir/types.js';
import { RESULTS_SCHEMA_VERSION, type OpResult, type PhaseStats, type Results, type RunStatus, type TenantResult } from './schema.js';
import { quantileSorted, sortedAscending, summarizeLatencies } from './statistics.js';

/** What one tenant measured in one phase. */
export interface TenantPhaseData {
    /** Latencies of measured (post-warm-up) requests, ms. */
    latenciesMs: number[];
    /** From the start of the measured window to the last measured completion, ms. */
    windowMs: number;
    /** Measured requests that had arrived but not finished when the phase ended. */
    unfinished: number;
    /** Each plan op's time in every measured request, ms (empty when not measured): the mean and median are taken from these. */
    opTimesMs: number[][];
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
    source?: IrSourceRange;
}

export interface TenantRunData {
    tenant: IrTenant;
    ops: OpSummary[];
    memoryBytes: number;
    solo?: TenantPhaseData;
    corun?: TenantPhaseData;
}

export interface RunData {
    ir: WorkloadIR;
    irHash: string;
    adapter: Results['adapter'];
    policy: string;
    durationMs: number;
    warmupMs: number;
    requests?: number;
    repetitions: number;
    seed: number;
    timing: Results['config']['timing'];
    fusion: boolean;
    tenancyVersion: string;
    startedAt: Date;
    finishedAt: Date;
    status: RunStatus;
    reason?: string;
    failedOp?: string;
    tenants: TenantRunData[];
    timeline: Results['timeline'];
    predictions?: unknown;
}

const SAMPLE_SIZE = 1000;

/** Summary statistics of a phase, or null if it measured nothing. */
export function phaseStats(data: TenantPhaseData | undefined): PhaseStats | null {
    if (!data) return null;
    const summary = summarizeLatencies(data.latenciesMs);
    if (!summary) return null;
    const sorted = sortedAscending(data.latenciesMs);
    const sample = sorted.length <= SAMPLE_SIZE
        ? Array.from(sorted)
        : Array.from({ length: SAMPLE_SIZE }, (_, i) => quantileSorted(sorted, i / (SAMPLE_SIZE - 1)));
    const { count, p99Interval, ...latency } = summary;
    return {
        requests: count,
        windowMs: data.windowMs,
        throughputPerSecond: data.windowMs > 0 ? count / (data.windowMs / 1000) : 0,
        unfinished: data.unfinished,
        latencyMs: { ...latency, p99Interval },
        latencySampleMs: sample,
    };
}

/** Mean and median of one op's per-request times in a phase (null when it measured none). */
function opTimes(data: TenantPhaseData | undefined, op: number): { mean: number | null; p50: number | null } {
    const times = data?.opTimesMs[op];
    if (!times || times.length === 0) return { mean: null, p50: null };
    let sum = 0;
    for (const x of times) sum += x;
    return { mean: sum / times.length, p50: quantileSorted(sortedAscending(times), 0.5) };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a === null || a === undefined || b === null || b === undefined || b <= 0 ? null : a / b;

function sloResult(slo: IrSlo, stats: PhaseStats | null, latencies: number[] | undefined) {
    const measuredMs = stats ? stats.latencyMs[slo.percentile] : null;
    const within = latencies && latencies.length > 0 ? latencies.filter(l => l <= slo.ms).length / latencies.length : null;
    return { percentile: slo.percentile, targetMs: slo.ms, measuredMs, met: measuredMs === null ? null : measuredMs <= slo.ms, attainment: within };
}

/** Builds and returns the results document. */
export function buildResults(run: RunData): Results {
    const tenants: TenantResult[] = run.tenants.map(t => {
        const solo = phaseStats(t.solo);
        const corun = phaseStats(t.corun);
        const judged = corun ?? solo;
        const judgedLatencies = corun ? t.corun?.latenciesMs : t.solo?.latenciesMs;
        const ops: OpResult[] = t.ops.map((op, i) => {
            const solo = opTimes(t.solo, i), corun = opTimes(t.corun, i);
            return { ...op, soloMs: solo.mean, corunMs: corun.mean, slowdown: ratio(corun.mean, solo.mean), soloP50Ms: solo.p50, corunP50Ms: corun.p50 };
        });
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
                mean: ratio(corun?.latencyMs.mean, solo?.latencyMs.mean),
                p99: ratio(corun?.latencyMs.p99, solo?.latencyMs.p99),
            },
            slos: t.tenant.slos.map(slo => sloResult(slo, judged, judgedLatencies)),
            ops,
            ...(t.tenant.source ? { source: t.tenant.source } : {}),
        };
    });
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
            schedule,
            durationMs: run.durationMs,
            warmupMs: run.warmupMs,
            requests: run.requests ?? null,
            repetitions: run.repetitions,
            seed: run.seed,
            irHash: run.irHash,
            timing: run.timing,
            fusion: run.fusion,
            tenancyVersion: run.tenancyVersion,
        },
        tenants,
        timeline: run.timeline,
        ...(run.predictions !== undefined ? { predictions: run.predictions } : {}),
    };
}
