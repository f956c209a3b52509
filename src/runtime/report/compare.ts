/**
 * The comparison file (`.tenancy/results/<file-stem>.<workload>.compare.json`, written by
 * `tenancy compare`): a workload measured under several schedules in one session — the same
 * arrivals and seed, each round running every schedule's co-run in turn (order reversed on
 * odd rounds) so that drift of the host hits them alike — and optionally each schedule's
 * capacity. Every figure carries its interval, as in a results file (./schema.ts), whose
 * pieces it reuses; docs/measurement.md says what each means. Pure: no webgpu.
 */
import { z } from 'zod';
import type { IrPercentile, IrTenant } from '../ir/types.js';
import { createRandom, type Random } from '../plan/random.js';
import { formatBoundedMs, formatGain } from '../../protocol/figures.js';
import { formatMs } from '../../protocol/units.js';
import type { ScheduleEvaluation } from '../predict/schedules.js';
import { pairedRatio, type TenantPhaseData } from './build.js';
import {
    adapterInfoSchema, boundsSchema, hostSchema, measurementSchema, parseVersioned, runStatusSchema, sloResultSchema, slowdownSchema,
    type Ratio, type Results, type SloResult,
} from './schema.js';

export const COMPARISON_SCHEMA_VERSION = 1;

const num = z.number();
const nullableNum = z.number().nullable();
const count = z.number().int().nonnegative();
const statisticSchema = z.enum(['mean', 'p50', 'p90', 'p95', 'p99', 'p999']);

/**
 * How much better a schedule did than the baseline, with its 95 % interval: above 1 is better
 * (a latency: the baseline's / this one's; a capacity: this one's / the baseline's). `better` or
 * `worse` when the interval excludes 1, `no-change` when it holds 1, `unknown` without one.
 */
export const gainSchema = z.object({
    estimate: num,
    low: nullableNum,
    high: nullableNum,
    verdict: z.enum(['better', 'worse', 'no-change', 'unknown']),
});
export type Gain = z.infer<typeof gainSchema>;

/** One tenant under one schedule. */
export const comparedTenantSchema = z.object({
    name: z.string(),
    priority: z.enum(['high', 'normal', 'low']),
    /** Co-run requests measured over all rounds, and completions per second. */
    requests: count,
    throughputPerSecond: num,
    latencyMs: z.object({ mean: num, p50: num, p95: num, p99: num }).nullable(),
    boundsMs: z.record(statisticSchema, boundsSchema).nullable(),
    slos: z.array(sloResultSchema),
    /** Against this tenant alone (the same rounds' solo phases). */
    slowdown: slowdownSchema,
    /**
     * The tenant alone in the same rounds (shared by every schedule of the comparison; absent
     * where the solo phases were not measured, e.g. a merged sweep): its latency and bounds, and
     * `floor`, its solo / the baseline's co-run on `gainStatistic` with its interval — the lowest
     * ratio to the baseline any schedule could give this tenant, as alone is the best it can run.
     */
    solo: z.object({
        latencyMs: z.object({ mean: num, p50: num, p95: num, p99: num }),
        boundsMs: z.record(statisticSchema, boundsSchema),
        floor: z.object({ estimate: num, low: nullableNum, high: nullableNum }).nullable(),
    }).optional(),
    /** Against the baseline schedule, on `gainStatistic` (null for the baseline itself). */
    gain: gainSchema.nullable(),
    /** The tenant's first SLO statistic, else p99. */
    gainStatistic: statisticSchema,
});
export type ComparedTenant = z.infer<typeof comparedTenantSchema>;

/** One capacity probe: every tenant's traffic × `load`, co-running under the schedule. */
export const probeSchema = z.object({
    load: num,
    /** met: every SLO met (its upper bound within the target); violated: one's lower bound is beyond it, or the phase overloaded; inconclusive: neither. */
    verdict: z.enum(['met', 'violated', 'inconclusive']),
    /** What decided a verdict other than met. */
    reason: z.string().optional(),
    throughputPerSecond: num,
    requests: count,
    elapsedMs: num,
    /** The search measured this load again with twice the time (too few requests, or bounds straddling a target): the next probe decides it. */
    remeasured: z.boolean().optional(),
    /** The SLO whose bounds straddled its target, when that is what left the probe inconclusive. */
    straddles: z.object({ tenant: z.string(), percentile: z.string(), targetMs: num }).optional(),
});

/**
 * The highest load at which every SLO held (VELTAIR's QoS-satisfied throughput): bisection over
 * a factor on every tenant's traffic, each probe a short measurement (rounds, bounds, budget).
 */
export const capacitySchema = z.object({
    /** The highest load probed at which every SLO was met (0: none was), and the lowest at which one was not (null: none failed). */
    load: num,
    failedLoad: nullableNum,
    /** Completions per second over all tenants at `load` (0 when no load met the SLOs). */
    throughputPerSecond: num,
    /** Where the bisection started: the load the simulation predicts. */
    predictedLoad: num,
    probes: z.array(probeSchema),
    /** The budget stopped the search before the bracket was narrow enough. */
    budgetReached: z.boolean(),
});
export type Capacity = z.infer<typeof capacitySchema>;

/** What the simulation (predict/schedules.ts) said of the schedule before it ran. */
export const predictedScheduleSchema = z.object({
    sloMet: z.boolean(),
    qosThroughput: num,
    capacityLoad: num,
    tenants: z.array(z.object({ name: z.string(), p50Ms: num, p99Ms: num, statisticMs: num })),
});

export const comparedScheduleSchema = z.object({
    /** What ran, its `auto` arguments resolved. */
    name: z.string(),
    /** As asked for (`layer_block(size: auto)`). */
    asked: z.string(),
    why: z.string().optional(),
    /** The workload's own schedule: the others' gains are against it. */
    baseline: z.boolean(),
    predicted: predictedScheduleSchema,
    valid: z.boolean(),
    invalidReasons: z.array(z.string()),
    tenants: z.array(comparedTenantSchema),
    /**
     * The headline against the baseline (null for the baseline): with capacity, the capacity
     * ratio; else the gain of the tenant whose SLO the baseline missed by most (the worst
     * measured / target), or the highest-priority tenant's p99 without SLOs. `predicted` is the
     * same ratio from the simulation, so the two read side by side.
     */
    gain: z.object({
        metric: z.enum(['latency', 'capacity']),
        tenant: z.string().optional(),
        statistic: statisticSchema.optional(),
        measured: gainSchema.nullable(),
        predicted: nullableNum,
    }).nullable(),
    capacity: capacitySchema.nullable(),
    /** `tenancy merge`: the sweep's cells whose rounds these figures pool (their repeats). */
    cells: z.array(z.number().int().nonnegative()).optional(),
});
export type ComparedSchedule = z.infer<typeof comparedScheduleSchema>;

export const comparisonSchema = z.object({
    schemaVersion: z.literal(COMPARISON_SCHEMA_VERSION),
    kind: z.literal('comparison'),
    status: runStatusSchema,
    reason: z.string().optional(),
    workload: z.string(),
    sourceUri: z.string(),
    /** `tenancy merge`: the sweep's load axis, × every tenant's declared traffic (absent: 1, as declared). */
    load: z.number().positive().optional(),
    /** `tenancy merge`: the sweep's device axis, the adapter the cells ran on (`vendor device`). */
    device: z.string().optional(),
    startedAt: z.string(),
    finishedAt: z.string(),
    adapter: adapterInfoSchema.nullable(),
    config: z.object({ seed: z.number().int(), irHash: z.string(), timing: z.enum(['gpu-timestamps', 'cpu-per-op']), tenancyVersion: z.string() }),
    measurement: measurementSchema,
    host: hostSchema,
    valid: z.boolean(),
    invalidReasons: z.array(z.string()),
    /** The workload's schedule (the others' gains are against it). */
    baseline: z.string(),
    /** The schedule that did best as measured (null: none beat the baseline beyond its interval), and why. */
    best: z.string().nullable(),
    bestWhy: z.string(),
    schedules: z.array(comparedScheduleSchema),
});
export type Comparison = z.infer<typeof comparisonSchema>;

/** Validates a parsed comparison file; throws a readable error naming the field (or the version) on mismatch. */
export function parseComparison(value: unknown): Comparison {
    return parseVersioned(value, comparisonSchema, COMPARISON_SCHEMA_VERSION, { name: 'comparison', again: 'compare the schedules again' });
}

export const CAPACITY_SCHEMA_VERSION = 1;

/** What `tenancy capacity --json` prints: each schedule's measured capacity beside the predicted one. */
export const capacityReportSchema = z.object({
    schemaVersion: z.literal(CAPACITY_SCHEMA_VERSION),
    kind: z.literal('capacity'),
    status: runStatusSchema,
    reason: z.string().optional(),
    workload: z.string(),
    sourceUri: z.string(),
    startedAt: z.string(),
    finishedAt: z.string(),
    adapter: adapterInfoSchema.nullable(),
    irHash: z.string(),
    tenancyVersion: z.string(),
    cores: z.number().int().positive(),
    /** The budget of each schedule's search, ms. */
    budgetMs: num,
    schedules: z.array(z.object({
        name: z.string(),
        asked: z.string(),
        why: z.string().optional(),
        predicted: z.object({ qosThroughput: num, capacityLoad: num }),
        /** Null when the run stopped before this schedule's search. */
        capacity: capacitySchema.nullable(),
    })),
});
export type CapacityReport = z.infer<typeof capacityReportSchema>;

/** What one schedule gave, as the comparison builds it. */
export interface ScheduleRunData {
    name: string;
    asked: string;
    why?: string;
    baseline: boolean;
    predicted: z.infer<typeof predictedScheduleSchema>;
    /** The results document of this schedule's co-runs beside the shared solo phases (report/build.ts). */
    results: Results;
    /** Per tenant, its co-run rounds (for gains against the baseline's). */
    corun: readonly (readonly (TenantPhaseData | undefined)[])[];
    capacity: Capacity | null;
    /** The sweep's cells pooled into `results` (tenancy merge). */
    cells?: readonly number[];
}

export interface ComparisonData {
    tenants: readonly IrTenant[];
    seed: number;
    schedules: readonly ScheduleRunData[];
    /** Per tenant, its solo rounds, shared by every schedule (absent: no solo figures in the comparison). */
    solo?: readonly (readonly (TenantPhaseData | undefined)[])[];
    startedAt: Date;
    finishedAt: Date;
    /** A sweep's axes (tenancy merge): the load and the device the schedules were measured at. */
    load?: number;
    device?: string;
}

const gainVerdict = (r: Pick<Ratio, 'low' | 'high'>): Gain['verdict'] =>
    r.low === null || r.high === null ? 'unknown' : r.low > 1 ? 'better' : r.high < 1 ? 'worse' : 'no-change';

/** The statistic a tenant is compared on: its first SLO's, else p99. */
export function gainStatisticOf(tenant: IrTenant): IrPercentile {
    return tenant.slos[0]?.percentile ?? 'p99';
}

/** A capacity probe's verdict from its results at `load`: every SLO met, or what kept it from being met (an overload, a violated SLO, one the requests cannot decide). */
export function probeOf(results: Results, load: number, elapsedMs: number): Capacity['probes'][number] {
    const judged = results.tenants.map(t => t.corun ?? t.solo);
    const throughput = judged.reduce((a, p) => a + (p?.throughputPerSecond ?? 0), 0);
    const requests = judged.reduce((a, p) => a + (p?.requests ?? 0), 0);
    const base = { load, throughputPerSecond: throughput, requests, elapsedMs };
    if (results.status === 'partial') return { ...base, verdict: 'violated', reason: results.reason ?? 'overloaded' };
    const slos = results.tenants.flatMap(t => t.slos.map(slo => ({ tenant: t.name, slo })));
    const violated = slos.find(x => x.slo.verdict === 'violated');
    if (violated) return { ...base, verdict: 'violated', reason: `${violated.tenant} ${violated.slo.percentile} ${violated.slo.measuredMs?.toFixed(1)} ms > ${violated.slo.targetMs} ms` };
    const open = slos.find(x => x.slo.verdict !== 'met');
    if (open) {
        const straddles = open.slo.verdict === 'inconclusive' ? { straddles: { tenant: open.tenant, percentile: open.slo.percentile, targetMs: open.slo.targetMs } } : {};
        return { ...base, verdict: 'inconclusive', reason: openReason(open.tenant, open.slo), ...straddles };
    }
    return { ...base, verdict: 'met' };
}

/**
 * Why an SLO decided nothing: too few requests (how many it needs), or bounds that straddle the
 * target, with the value and the bounds — probes whose percentile sits at the target over a range
 * of loads show that the co-runner, not the load, decides it there.
 */
function openReason(tenant: string, slo: SloResult): string {
    const b = slo.boundsMs;
    if (slo.verdict === 'inconclusive' && slo.measuredMs !== null && b) return `${tenant} ${slo.percentile} ${formatBoundedMs(slo.measuredMs, b.low, b.high)} straddles ${formatMs(slo.targetMs)}`;
    return `${tenant} ${slo.percentile} is ${slo.verdict}${slo.requestsNeeded ? ` (needs ${slo.requestsNeeded} requests)` : ''}`;
}

/** What the simulation said of a schedule, per tenant on its compared statistic (as the comparison records it). */
export function predictedOf(e: ScheduleEvaluation, tenants: readonly IrTenant[]): ScheduleRunData['predicted'] {
    return {
        sloMet: e.sloMet, qosThroughput: e.qosThroughput, capacityLoad: e.capacityLoad,
        tenants: tenants.map(t => {
            const f = e.tenants.find(x => x.name === t.name);
            const statistic = gainStatisticOf(t);
            const ms = f ? (f.slos.find(s => s.percentile === statistic)?.predictedMs ?? f.p99Ms) : NaN;
            return { name: t.name, p50Ms: f?.p50Ms ?? NaN, p99Ms: f?.p99Ms ?? NaN, statisticMs: ms };
        }),
    };
}

/** Builds the comparison document from the per-schedule results (each built by report/build.ts from the same solo phases). */
export function buildComparison(data: ComparisonData): Comparison {
    const random = createRandom(data.seed, 'comparison/bootstrap');
    const baseIndex = Math.max(0, data.schedules.findIndex(s => s.baseline));
    const base = data.schedules[baseIndex];
    const headline = headlineTenant(data.tenants, base.results);
    const solo = data.solo ? soloFigures(data.tenants, data.solo, base, random.fork('solo')) : undefined;
    const schedules: ComparedSchedule[] = data.schedules.map((s, si) => {
        const tenants: ComparedTenant[] = s.results.tenants.map((t, ti) => {
            const statistic = gainStatisticOf(data.tenants[ti]);
            const ratio = si === baseIndex ? null : pairedRatio(s.corun[ti], base.corun[ti], statistic, random.fork(`${s.name}/${t.name}`));
            return {
                name: t.name, priority: t.priority,
                requests: t.corun?.requests ?? 0, throughputPerSecond: t.corun?.throughputPerSecond ?? 0,
                latencyMs: t.corun ? { mean: t.corun.latencyMs.mean, p50: t.corun.latencyMs.p50, p95: t.corun.latencyMs.p95, p99: t.corun.latencyMs.p99 } : null,
                boundsMs: t.corun?.boundsMs ?? null,
                slos: t.slos, slowdown: t.slowdown,
                ...(solo?.[ti] ? { solo: solo[ti] } : {}),
                gain: ratio ? { estimate: ratio.estimate, low: ratio.low, high: ratio.high, verdict: gainVerdict(ratio) } : null,
                gainStatistic: statistic,
            };
        });
        return {
            name: s.name, asked: s.asked, ...(s.why ? { why: s.why } : {}), baseline: si === baseIndex, predicted: s.predicted,
            valid: s.results.valid, invalidReasons: s.results.invalidReasons, tenants,
            gain: si === baseIndex ? null : headlineGain(s, base, tenants, headline),
            capacity: s.capacity,
            ...(s.cells ? { cells: [...s.cells] } : {}),
        };
    });
    const { best, why } = measuredBest(schedules);
    const first = base.results;
    // The worst status of any schedule's figures: a failure or cancellation is the run's, an overload one schedule's.
    const order = ['complete', 'partial', 'cancelled', 'failed'] as const;
    const worst = data.schedules.map(s => s.results).reduce((a, b) => (order.indexOf(b.status) > order.indexOf(a.status) ? b : a));
    const runWide = (r: string) => /^the run is (failed|cancelled)/.test(r);
    const invalidReasons = [...new Set(schedules.flatMap(s => s.invalidReasons.map(r => (runWide(r) ? r : `${s.name}: ${r}`))))];
    return {
        schemaVersion: COMPARISON_SCHEMA_VERSION,
        kind: 'comparison',
        status: worst.status,
        ...(worst.reason ? { reason: worst.reason } : {}),
        workload: first.workload,
        sourceUri: first.sourceUri,
        ...(data.load !== undefined ? { load: data.load } : {}),
        ...(data.device !== undefined ? { device: data.device } : {}),
        startedAt: data.startedAt.toISOString(),
        finishedAt: data.finishedAt.toISOString(),
        adapter: first.adapter,
        config: { seed: first.config.seed, irHash: first.config.irHash, timing: first.config.timing, tenancyVersion: first.config.tenancyVersion },
        measurement: first.measurement,
        host: first.host,
        valid: invalidReasons.length === 0,
        invalidReasons,
        baseline: base.name,
        best, bestWhy: why,
        schedules,
    };
}

/**
 * Each tenant alone (the shared solo phases): its latency figures, and solo / the baseline's
 * co-run on its gain statistic (pairedRatio gives the baseline's co-run / solo: its inverse,
 * bounds swapped). Null per tenant without a solo phase.
 */
function soloFigures(tenants: readonly IrTenant[], solo: NonNullable<ComparisonData['solo']>, base: ScheduleRunData, random: Random): (ComparedTenant['solo'] | null)[] {
    return base.results.tenants.map((t, ti) => {
        const stats = t.solo;
        if (!stats || !solo[ti]) return null;
        const r = pairedRatio(solo[ti], base.corun[ti], gainStatisticOf(tenants[ti]), random.fork(t.name));
        const floor = r && r.estimate > 0 ? { estimate: 1 / r.estimate, low: r.high ? 1 / r.high : null, high: r.low ? 1 / r.low : null } : null;
        return {
            latencyMs: { mean: stats.latencyMs.mean, p50: stats.latencyMs.p50, p95: stats.latencyMs.p95, p99: stats.latencyMs.p99 },
            boundsMs: stats.boundsMs, floor,
        };
    });
}

/** The tenant a latency headline is about: the SLO the baseline missed by most (measured / target), else the highest-priority tenant. */
function headlineTenant(tenants: readonly IrTenant[], base: Results): number {
    let pick = -1, worst = -Infinity;
    base.tenants.forEach((t, i) => {
        const slo = t.slos[0];
        if (!slo || slo.measuredMs === null) return;
        const ratio = slo.measuredMs / slo.targetMs;
        if (ratio > worst) { worst = ratio; pick = i; }
    });
    if (pick >= 0) return pick;
    const rank = { high: 0, normal: 1, low: 2 } as const;
    return tenants.reduce((best, t, i) => (rank[t.priority] < rank[tenants[best].priority] ? i : best), 0);
}

function headlineGain(s: ScheduleRunData, base: ScheduleRunData, tenants: readonly ComparedTenant[], headline: number): ComparedSchedule['gain'] {
    if (s.capacity && base.capacity) {
        const measured = base.capacity.load > 0 ? {
            estimate: s.capacity.load / base.capacity.load,
            // The bracket of each search: this one's lowest possible against the baseline's highest, and the reverse.
            low: base.capacity.failedLoad !== null ? s.capacity.load / base.capacity.failedLoad : null,
            high: s.capacity.failedLoad !== null ? s.capacity.failedLoad / base.capacity.load : null,
        } : null;
        return {
            metric: 'capacity',
            measured: measured ? { ...measured, verdict: gainVerdict(measured) } : null,
            predicted: base.predicted.qosThroughput > 0 ? s.predicted.qosThroughput / base.predicted.qosThroughput : null,
        };
    }
    const t = tenants[headline];
    const predictedBase = base.predicted.tenants[headline]?.statisticMs, predictedThis = s.predicted.tenants[headline]?.statisticMs;
    return {
        metric: 'latency', tenant: t.name, statistic: t.gainStatistic, measured: t.gain,
        predicted: predictedBase !== undefined && predictedThis !== undefined && predictedThis > 0 ? predictedBase / predictedThis : null,
    };
}

/**
 * The measured best: with capacities, the highest capacity whose bracket clears the baseline's;
 * else the fewest SLOs violated, then the headline gain whose interval lies above 1 (the
 * largest lower bound). None when nothing beats the baseline beyond its interval.
 */
function measuredBest(schedules: readonly ComparedSchedule[]): { best: string | null; why: string } {
    const violated = (s: ComparedSchedule) => s.tenants.reduce((a, t) => a + t.slos.filter(x => x.verdict === 'violated').length, 0);
    const base = schedules.find(s => s.baseline)!;
    const better = schedules.filter(s => !s.baseline && s.gain?.measured?.verdict === 'better' && violated(s) <= violated(base));
    if (better.length === 0) {
        const fewer = schedules.filter(s => !s.baseline && violated(s) < violated(base));
        if (fewer.length === 0) return { best: null, why: `no schedule did better than ${base.name} beyond its interval` };
        const top = fewer.sort((a, b) => violated(a) - violated(b))[0];
        return { best: top.name, why: `${top.name} violated ${violated(top)} SLO${violated(top) === 1 ? '' : 's'}, ${base.name} ${violated(base)}` };
    }
    const top = better.sort((a, b) => violated(a) - violated(b) || (b.gain!.measured!.low ?? 0) - (a.gain!.measured!.low ?? 0))[0];
    const g = top.gain!;
    const what = g.metric === 'capacity' ? 'capacity' : `${g.tenant}'s ${g.statistic}`;
    return { best: top.name, why: `${top.name}: ${what} ${formatGain(g.measured!)} than under ${base.name}` };
}
