/**
 * Predictions for a whole workload: per op, per tenant (solo and co-run latency figures,
 * utilisation, SLO verdicts) and the device's load. Pure; the language server, `tenancy
 * predict` and `tenancy run` (which stores what was shown in the results) all call this.
 *
 *   S_solo(i) = Σ_ops t_op + launches·d + submits·u     (d, u: dispatch and submit overheads;
 *              scaled by the host's mean factor and, for requests that find the device idle,
 *              its idle factor: latency.ts requestServiceMs, idleAdjustment)
 *   solo figures: queueing.ts with S_solo and the tenant's own arrivals
 *   co-run:  the workload's schedule run by the one schedule simulation (predict/schedules.ts,
 *            simulate.ts) — the figures the editor's hints and hover on `schedule`, `auto`,
 *            `tenancy compare`'s predictions and `tenancy predict` show for that schedule: the
 *            tenants' queues under the schedule's own policy, their kernels taking turns on a
 *            non-preemptive device (a kernel waits for the co-runner's kernel in service), with
 *            the host's jitter and tail. A tenant's slowdown
 *            (and its ops' co-run times) is how much co-runners stretched its time in flight.
 *   device utilisation U = Σ_open λ_i · S_solo(i): U > 1 ⇒ the open-loop demand exceeds what
 *            the device can serve even without interference (overloaded).
 *   bands (band.ts): each op carries its launches' 90 % error band combined; a tenant the band
 *            of all its launches combined (the same rule), applied as a relative band to its
 *            latency figures — it covers the op-time model, the host's noise and, where the
 *            profile remembers earlier calibrations, how far the host's speed drifts (band.ts
 *            hostDrift, added once per figure); a co-run
 *            figure's band adds its sampling spread over the run's requests and the co-run
 *            model's error that calibration measured on co-runs of its own (corunBands).
 *   verdicts per SLO, with the tenant's band h (a figure x spans [x/(1+h), x/(1−h)]):
 *            even the band's low end of the solo service quantile > target ⇒ infeasible;
 *            else the band's high end of the co-run figure or of the solo service quantile >
 *            target ⇒ at risk (the band straddles the target, or lies above it); else ok.
 */
import type { IrOpKind, IrSchedule, IrSlo, IrSourceRange, IrTenant, WorkloadIR } from '../ir/types.js';
import { demandMix, type DemandMix } from './contention.js';
import { firstPassExtra, idleAdjustment, opTiming, requestServiceMs, serviceCvFor, type OpTiming } from './latency.js';
import { PlanCache, planGraph, type PlannedOp, type PlanOptions } from '../plan/plan.js';
import type { OpSplit } from '../plan/split.js';
import { capsForProfile, type DeviceProfile } from './profile.js';
import { chooseOpSplits, layerBlockOpSplits, opViews, splitStepViews } from './op-views.js';
import { bandRange, combineBands, hostDrift, hostDriftPending, widenBand, type ErrorBand } from './band.js';
import { submissionsPerRequest } from '../schedule/policy.js';
import {
    PERCENTILE_Q, closedLoopLatency, openLoopLatency, serviceMoments, serviceQuantileMs, tailFrom, type LatencyFigures, type Percentile, type ServiceTail,
} from './queueing.js';
import { declaredEvaluation, type ScheduleEvaluation, type ScheduledTenant } from './schedules.js';

export const PREDICTION_VERSION = 2;

export interface OpPrediction {
    path: string;
    kind: IrOpKind;
    fused: string[];
    launches: { name: string; family: string; flops: number; bytes: number; ms: number; bound: 'compute' | 'memory'; band: ErrorBand }[];
    flops: number;
    bytes: number;
    /** FLOPs per byte. */
    intensity: number;
    bound: 'compute' | 'memory';
    /** GPU time per request, solo: the mean (a host's stalls included, via its mean/median factor). */
    soloMs: number;
    /**
     * The median GPU time per request, solo: the launches' typical times, plus the idle penalty's
     * time per pass when most requests find the device idle. A mean moves with a few stalled passes; this does not.
     */
    soloP50Ms: number;
    /** GPU time per request under the workload's co-run (solo × the tenant's slowdown in the simulation). */
    corunMs: number;
    /** The 90 % error band of the op's times (band.ts): relative half-width, and whether calibration evidence backs it. */
    band: ErrorBand;
    /** The 90 % band of its co-run time: `band` widened by its tenant's opCorunTerm (band.ts widenBand). */
    corunBand: ErrorBand;
    estimated: boolean;
    source?: IrSourceRange;
}

export type SloVerdict = 'ok' | 'infeasible' | 'at-risk';

export interface SloPrediction {
    percentile: Percentile;
    targetMs: number;
    /** The percentile of the solo service time (no queueing): what slo-infeasible compares. */
    soloServiceMs: number;
    soloMs: number;
    corunMs: number;
    /** The 90 % bands of soloServiceMs (the tenant's band) and corunMs (its co-run band, corunBands). */
    soloServiceBandMs: { low: number; high: number };
    corunBandMs: { low: number; high: number };
    verdict: SloVerdict;
}

export interface TenantPrediction {
    name: string;
    /** Mean service time of one request alone on the device (no queueing), ms. */
    serviceMs: number;
    /** GPU time of one request, ms (the sum of its ops). */
    gpuMs: number;
    launches: number;
    submits: number;
    solo: LatencyFigures;
    corun: LatencyFigures;
    /** The 90 % error band of the tenant's figures: its launches' bands combined (band.ts), relative to each figure. */
    band: ErrorBand;
    /** Each co-run figure's 90 % band, relative: the tenant's band, the figure's sampling spread where the simulation gave it, and the profile's co-run model error where the tenant co-runs (corunBands). */
    corunBand: Record<Percentile, number>;
    /**
     * What each of its ops' co-run band adds to the op's band, once, in quadrature (0 alone): an op's co-run time is
     * its solo time × the tenant's slowdown, so the band of that scaling, the co-run mean's (corunBand.mean, the band
     * `meanRatio` shows), and how far an op's co-run median moves between short co-runs (profile.ts corunOpNoise).
     */
    opCorunTerm: number;
    /** The band of the mean, p50 and p99 figures, ms (∞ for an unbounded figure): solo the tenant's band, co-running each figure's corunBand. */
    bandMs: Record<'solo' | 'corun', Record<'mean' | 'p50' | 'p99', { low: number; high: number }>>;
    /** Time in flight co-running over its solo work (the simulation's; 1 alone, and under a schedule that never overlaps tenants). */
    slowdown: number;
    /**
     * The co-run mean latency over the solo mean (1 alone; ∞ where a queue does not drain): what a
     * run measures as the tenant's co-run / solo mean (results' `slowdown.mean`), with its 90 % band
     * (bandRange of the co-run mean's relative band, corunBand.mean). The kernels' model error
     * cancels in the ratio, but the host's noise between a run's solo and co-run phases does not,
     * nor the drift: measured ratios moved 8–39 % between two runs back to back, and bands without
     * the kernels' term held too few of them (BENCHMARKS.md, "The co-run / solo ratio's band").
     */
    meanRatio: { estimate: number; low: number; high: number };
    /** Busy fraction of this tenant's queue solo and co-run (≥ 1 ⇒ its queue grows without bound). */
    soloUtilisation: number;
    corunUtilisation: number;
    /** Requests per second the stream offers (open loop) or achieves (closed loop, co-run). */
    throughputPerSecond: number;
    openLoop: boolean;
    mix: DemandMix;
    slos: SloPrediction[];
    /**
     * Per op figures, built on first read (a getter: predictWorkload's callers that want only the
     * tenant's figures, such as validation, never build them). Read-only; JSON and spreads see it.
     */
    readonly ops: OpPrediction[];
    source?: IrSourceRange;
}

export interface WorkloadPrediction {
    predictionVersion: typeof PREDICTION_VERSION;
    workload: string;
    /**
     * The profile predicted on; `corunModelError`: the co-run model's error calibration measured (profile.ts), in every
     * co-run band (corunBands); `corunOpNoise`: how far an op's co-run time moves between short co-runs (profile.ts), in every op's co-run band where tenants co-run (opCorunTerm); `hostDrift`: how far the host's speed moved between this adapter's calibrations here
     * (band.ts hostDrift), in every op's and tenant's band; `hostDriftPending`: a calibrated profile whose drift is not
     * known yet, with how many earlier calibrations it has (band.ts hostDriftPending): its bands leave the drift out;
     * `usualSpeed`: the factor its times were scaled by to the host's usual speed (profile.ts atUsualSpeed);
     * `usualTails`: its tails are the median of that many calibrations' (profile.ts usualTail);
     * `referenceRequestMs`: the reference request's time on it (hostSpeedProbeMs), which a run's own (results' host) is compared with.
     */
    profile: { key: string; uncalibrated: boolean; device: string; createdAt: string; corunModelError?: number; corunOpNoise?: number; hostDrift?: { p90: number; points: number }; hostDriftPending?: { calibrations: number }; usualSpeed?: NonNullable<DeviceProfile['usualSpeed']>; usualTails?: NonNullable<DeviceProfile['usualTails']>; referenceRequestMs?: number };
    policy: IrSchedule['policy'];
    /** What the co-run figures are the simulation of (`auto` and searched arguments resolved); null with one tenant or while pending. */
    corunSchedule: string | null;
    /** The co-run figures await the schedule's simulation (the editor computes it off the typing path): until then they are the solo ones. */
    corunPending: boolean;
    /** Why the schedule could not be simulated (the co-run figures are then unbounded). */
    corunError?: string;
    /** Σ over open-loop tenants of λ · solo service: the device's load before interference. */
    deviceUtilisation: number;
    /**
     * Its 90 % band (bandRange of deviceUtilisation, a fraction like it): the open-loop tenants' bands weighted by their share of it,
     * added as one (their kernels' errors and the host's speed move every tenant's service alike far more than apart).
     */
    deviceUtilisationBand: { low: number; high: number };
    overloaded: boolean;
    tenants: TenantPrediction[];
}

export interface PredictOptions extends Pick<PlanOptions, 'variants' | 'fusion' | 'cache'> {
    /**
     * The workload's own schedule as the simulation evaluated it (schedules.ts; the editor passes the one its schedule
     * hints computed, `tenancy predict` its comparison's): the co-run figures are its tenants'. Absent: simulated here
     * (schedules.ts declaredEvaluation). 'pending': not simulated yet; the co-run figures are the solo ones meanwhile.
     */
    schedule?: ScheduleEvaluation | 'pending';
}

interface TenantBase {
    tenant: IrTenant;
    /** Per op solo predictions, built on first read: validation reads only the sums. */
    ops: () => readonly OpPrediction[];
    gpuMs: number;
    band: ErrorBand;
    /** Mean service time (idle-adjusted: latency.ts idleAdjustment). */
    serviceMs: number;
    launches: number;
    submits: number;
    mix: DemandMix;
}

/** A planned graph timed on a profile: the request's sums, and per op solo times (before any idle adjustment) when read. */
interface TimedGraph {
    /** Built on first read and then kept (shared by every tenant of the graph: read-only). */
    ops: () => readonly OpPrediction[];
    gpuMs: number;
    launches: number;
    demand: { compute: number; memory: number; capped: number };
    /** Ops with launches (one pass each). */
    passes: number;
    /** The band of the request's GPU time: every launch's band combined. */
    band: ErrorBand;
}

/** The 90 % band of a request's GPU time on a plan (its launches' bands combined, the host's drift added): a tenant's band h. */
export function requestBand(profile: DeviceProfile, plan: readonly PlannedOp[], cache: PlanCache): ErrorBand {
    return timeGraph(profile, plan, cache).band;
}

function timeGraph(profile: DeviceProfile, plan: readonly PlannedOp[], cache: PlanCache): TimedGraph {
    const demand = { compute: 0, memory: 0, capped: 0 };
    let gpuMs = 0, launches = 0, passes = 0;
    const timings: OpTiming[] = [];
    const bandParts: { family: string; ms: number; band: ErrorBand }[] = [];
    for (const p of plan) {
        // An op's timing depends on its launches alone: timed once per signature (the cache's launches array).
        const t = cache.perProfile(p.launches, profile, () => opTiming(profile, p));
        timings.push(t);
        gpuMs += t.ms;
        launches += p.launches.length;
        if (p.launches.length > 0) passes++;
        demand.compute += t.demandMs.compute;
        demand.memory += t.demandMs.memory;
        demand.capped += t.demandMs.capped;
        p.launches.forEach((l, k) => bandParts.push({ family: l.family, ms: t.launches[k].ms, band: t.launches[k].band }));
    }
    // The host's drift moves a whole figure alike: added once to each op's and the request's band (band.ts widenBand).
    const drift = hostDrift(profile)?.p90;
    let ops: OpPrediction[] | undefined;
    const opsOf = () => (ops ??= plan.map((p, i) => {
        const t = timings[i];
        const band = widenBand(t.band, drift);
        return {
            path: p.path, kind: p.kind, fused: p.fused.fused.map(o => o.path),
            launches: p.launches.map((l, k) => ({ name: l.name, family: l.family, flops: l.flops, bytes: l.bytes, ms: t.launches[k].ms, bound: t.launches[k].bound, band: t.launches[k].band })),
            flops: p.flops, bytes: p.bytes, intensity: p.flops / p.bytes, bound: t.bound,
            soloMs: t.ms, soloP50Ms: t.typicalMs, corunMs: t.ms, band, corunBand: band, estimated: p.unsupported !== undefined, source: p.source,
        };
    }));
    return { ops: opsOf, gpuMs, launches, demand, passes, band: widenBand(combineBands(bandParts), drift) };
}

/**
 * The views a schedule cuts a request by: per op, or per step where it splits ops within as the
 * runtime splits them (a regulated split N; layer_block's `blockSplits`, op-views.ts layerBlockOpSplits).
 */
function scheduleViews(schedule: IrSchedule, plan: readonly PlannedOp[], profile: DeviceProfile, blockSplits: Readonly<Record<string, OpSplit>> | undefined) {
    const whole = opViews(plan, profile);
    if (schedule.policy === 'layer_block') return blockSplits ? splitStepViews(plan, blockSplits, profile, whole).views : whole;
    if (schedule.policy !== 'regulated' || schedule.split === 'auto') return whole;
    return splitStepViews(plan, chooseOpSplits(plan, profile, schedule.split, whole), profile, whole).views;
}

/** Predicts a workload on a device profile. */
export function predictWorkload(ir: WorkloadIR, profile: DeviceProfile, options: PredictOptions = {}): WorkloadPrediction {
    const caps = capsForProfile(profile);
    // One cache for all tenants: a model in several tenants, or repeated layers, is planned once.
    const cache = options.cache ?? new PlanCache();
    // A graph's timing on the profile with default variants is cached with its plan (a graph shared by tenants of
    // several workloads, as the language server shares them, is timed once).
    const timingKey = options.variants ? undefined : `${options.fusion ?? true}|${JSON.stringify(caps)}`;
    const planOf = (tenant: IrTenant) => planGraph(tenant.graph, { caps, variants: options.variants, fusion: options.fusion, cache });
    // layer_block splits the long ops of tenants outranked by a tenant with an SLO: a choice over all tenants, made once.
    const blockSplits = ir.schedule.policy === 'layer_block'
        ? layerBlockOpSplits(ir.tenants.map(t => { const plan = planOf(t); return { name: t.name, priority: t.priority, slos: t.slos, plan, views: opViews(plan, profile) }; }), profile, ir.schedule.size).opSplits
        : undefined;
    const bases: TenantBase[] = ir.tenants.map(tenant => {
        const time = () => timeGraph(profile, planGraph(tenant.graph, { caps, variants: options.variants, fusion: options.fusion, cache }), cache);
        const timed = timingKey !== undefined ? cache.derived(tenant.graph, profile, timingKey, time) : time();
        const { launches, demand, passes } = timed;
        let gpuMs = timed.gpuMs;
        // The blocks the schedule cuts a request into, by the same rule the runtime cuts them (the schedule's own).
        const submits = ir.schedule.policy === 'layer_block' || ir.schedule.policy === 'regulated'
            ? submissionsPerRequest(ir.schedule, scheduleViews(ir.schedule, planOf(tenant), profile, blockSplits?.[tenant.name]))
            : 1;
        // Requests that find the device idle run slower on some hosts (latency.ts idleAdjustment). Each tenant has its
        // own device (its own queue and driver threads), so co-runners do not keep it awake: the same solo and co-running.
        const busyServiceMs = requestServiceMs(profile, gpuMs, launches, submits);
        const idle = idleAdjustment(profile, busyServiceMs, tenant.arrival, passes);
        const serviceMs = idle.serviceMs;
        let ops = timed.ops;
        // A request's first pass takes longer than its curve (latency.ts firstPassExtra): on the first op with launches.
        const first = firstPassExtra(profile, idle.idleProbability);
        const firstPays = passes > 0 && (first.meanMs > 0 || first.p50Ms > 0);
        if (firstPays) gpuMs += first.meanMs;
        if (idle.extraPassMs > 0 || firstPays) {
            // One pass per op with launches; the extra time is the pass's, spread over its launches by their share.
            const extra = idle.extraPassMs;
            // Once per pass, as a loop over the ops with launches would add it (the same sum, to the last bit).
            for (let k = 0; k < passes; k++) gpuMs += extra;
            // The median request pays the whole per-pass penalty when most requests find the device idle, else none.
            const medianPays = idle.idleProbability >= 0.5;
            let adjusted: OpPrediction[] | undefined;
            // The cached ops are shared: adjusted copies, built when read.
            const adjust = (base: readonly OpPrediction[]) => {
                const firstOp = firstPays ? base.findIndex(o => o.launches.length > 0) : -1;
                return base.map((o, i) => {
                    if (o.launches.length === 0) return { ...o };
                    const mean = extra + (i === firstOp ? first.meanMs : 0);
                    const p50 = (medianPays ? profile.idlePenalty?.gpuMsPerPass ?? 0 : 0) + (i === firstOp ? first.p50Ms : 0);
                    const f = o.soloMs > 0 ? (o.soloMs + mean) / o.soloMs : 1;
                    const soloMs = o.soloMs + mean;
                    return {
                        ...o, soloMs, corunMs: soloMs,
                        soloP50Ms: o.soloP50Ms + p50,
                        launches: o.launches.map(l => ({ ...l, ms: l.ms * f })),
                    };
                });
            };
            ops = () => (adjusted ??= adjust(timed.ops()));
        }
        return { tenant, ops, gpuMs, band: timed.band, serviceMs, launches, submits, mix: demandMix(demand) };
    });

    // CV of a request's service time by its length (latency.ts serviceCvFor).
    const cvOf = (serviceMs: number) => serviceCvFor(profile, serviceMs);
    const tail = tailFrom(profile.serviceTailMs);
    const solo = bases.map(b => {
        const a = b.tenant.arrival;
        if (a.kind === 'closed') {
            const r = closedLoopLatency(a.clients, a.thinkMs, b.serviceMs, cvOf(b.serviceMs), tail);
            return { figures: r.figures, utilisation: r.utilisation, throughput: r.throughputPerSecond };
        }
        const rate = openRatePerSecond(a);
        const r = openLoopLatency(b.serviceMs, cvOf(b.serviceMs), rate, a.kind === 'poisson' ? 1 : 0, tail);
        return { figures: r.figures, utilisation: r.utilisation, throughput: rate };
    });
    const deviceUtilisation = bases.reduce((s, b, i) => s + (b.tenant.arrival.kind === 'closed' ? 0 : solo[i].utilisation), 0);
    const utilisationBand = deviceUtilisation > 0 && Number.isFinite(deviceUtilisation)
        ? bases.reduce((s, b, i) => s + (b.tenant.arrival.kind === 'closed' ? 0 : solo[i].utilisation * b.band.relative), 0) / deviceUtilisation
        : 0;

    // Co-run: the workload's schedule as the one simulation runs it (alone, a tenant's co-run is its solo).
    let corun = solo;
    let slow = bases.map(() => 1);
    let sampling: (Pick<ScheduledTenant, 'sampling' | 'sampledRequests'> | undefined)[] = bases.map(() => undefined);
    let corunSchedule: string | null = null;
    let corunPending = false;
    let corunError: string | undefined;
    if (bases.length > 1) {
        let evaluation: ScheduleEvaluation | 'pending' | undefined = options.schedule;
        try {
            evaluation ??= declaredEvaluation(ir, profile, { cache });
        } catch (error) {
            // The simulation refuses what it cannot run (arrivals too many to simulate): no bounded co-run figure, and why.
            corunError = error instanceof Error ? error.message : String(error);
        }
        const simulated = evaluation === undefined || evaluation === 'pending' ? undefined : bases.map(b => evaluation.tenants.find(t => t.name === b.tenant.name));
        if (corunError !== undefined) {
            corun = solo.map(s => ({ figures: unbounded(), utilisation: Infinity, throughput: s.throughput }));
            slow = bases.map(() => Infinity);
        } else if (evaluation !== undefined && evaluation !== 'pending' && simulated?.every(t => t !== undefined)) {
            corunSchedule = evaluation.resolved.name;
            corun = bases.map((b, i) => corunFigures(b.tenant.arrival, simulated[i]!));
            slow = simulated.map(t => t!.slowdown);
            sampling = simulated.map(t => ({ sampling: t!.sampling, sampledRequests: t!.sampledRequests }));
        } else {
            corunPending = true;
        }
    }

    const drift = hostDrift(profile);
    const driftPending = profile.uncalibrated ? undefined : hostDriftPending(profile);
    const tenants: TenantPrediction[] = bases.map((b, i) => {
        const s = slow[i];
        let corunOps: OpPrediction[] | undefined;
        const h = b.band.relative;
        const corunBand = corunBands(h, sampling[i], runRequests(ir.benchmark, corun[i].throughput), corunModelErrorOf(profile, bases.length));
        const opCorunTerm = bases.length > 1 ? Math.hypot(corunBand.mean, profile.corunOpNoise?.p90 ?? 0) : 0;
        const slos = b.tenant.slos.map(slo => sloPrediction(slo, b.serviceMs, cvOf(b.serviceMs), tail, solo[i].figures, corun[i].figures, h, corunBand[slo.percentile]));
        const rangeOf = (f: LatencyFigures, band: (p: Percentile) => number) => ({ mean: bandRange(f.mean, band('mean')), p50: bandRange(f.p50, band('p50')), p99: bandRange(f.p99, band('p99')) });
        return {
            name: b.tenant.name,
            serviceMs: b.serviceMs,
            gpuMs: b.gpuMs,
            launches: b.launches,
            submits: b.submits,
            solo: solo[i].figures,
            corun: corun[i].figures,
            band: b.band,
            corunBand,
            opCorunTerm,
            bandMs: { solo: rangeOf(solo[i].figures, () => h), corun: rangeOf(corun[i].figures, p => corunBand[p]) },
            slowdown: slow[i],
            meanRatio: meanRatioOf(solo[i].figures.mean, corun[i].figures.mean, corunBand.mean),
            soloUtilisation: solo[i].utilisation,
            corunUtilisation: corun[i].utilisation,
            throughputPerSecond: corun[i].throughput,
            openLoop: b.tenant.arrival.kind !== 'closed',
            mix: b.mix,
            slos,
            // Per op figures when read (hover, inlay hints, reports): validation reads the tenant's figures alone.
            get ops() { return (corunOps ??= b.ops().map(o => ({ ...o, corunMs: o.soloMs * s, corunBand: o.launches.length > 0 ? widenBand(o.band, opCorunTerm) : o.band }))); }, // an op without kernels takes no time either way
            source: b.tenant.source,
        };
    });

    return {
        predictionVersion: PREDICTION_VERSION,
        workload: ir.workload,
        profile: {
            key: profile.key, uncalibrated: profile.uncalibrated, device: profile.adapter.device, createdAt: profile.createdAt,
            ...(profile.corunModelError ? { corunModelError: profile.corunModelError.excessP90 } : {}),
            ...(profile.corunOpNoise ? { corunOpNoise: profile.corunOpNoise.p90 } : {}),
            ...(drift ? { hostDrift: drift } : {}),
            ...(driftPending !== undefined ? { hostDriftPending: { calibrations: driftPending } } : {}),
            ...(profile.usualSpeed ? { usualSpeed: profile.usualSpeed } : {}),
            ...(profile.usualTails ? { usualTails: profile.usualTails } : {}),
            ...(profile.hostSpeedProbeMs !== undefined ? { referenceRequestMs: profile.hostSpeedProbeMs } : {}),
        },
        policy: ir.schedule.policy,
        corunSchedule,
        corunPending,
        ...(corunError !== undefined ? { corunError } : {}),
        deviceUtilisation,
        deviceUtilisationBand: bandRange(deviceUtilisation, utilisationBand),
        overloaded: deviceUtilisation > 1,
        tenants,
    };
}

/** The co-run mean over the solo mean with its band (∞ where either queue does not drain). */
function meanRatioOf(soloMean: number, corunMean: number, band: number): TenantPrediction['meanRatio'] {
    const estimate = Number.isFinite(soloMean) && soloMean > 0 && Number.isFinite(corunMean) ? corunMean / soloMean : Infinity;
    return Number.isFinite(estimate) ? { estimate, ...bandRange(estimate, band) } : { estimate, low: Infinity, high: Infinity };
}

/** A tenant's co-run figures from the simulation of its workload's schedule. */
function corunFigures(arrival: IrTenant['arrival'], t: ScheduledTenant): { figures: LatencyFigures; utilisation: number; throughput: number } {
    const figures: LatencyFigures = { mean: t.meanMs, p50: t.p50Ms, p90: t.p90Ms, p95: t.p95Ms, p99: t.p99Ms, p999: t.p999Ms };
    const throughput = corunThroughput(arrival, t);
    // Offered load at the co-run service time; a queue that did not drain in the simulation is at least full.
    const utilisation = (throughput * t.serviceMs) / 1000;
    return { figures, utilisation: Number.isFinite(t.meanMs) ? utilisation : Math.max(1, utilisation), throughput };
}

function unbounded(): LatencyFigures {
    return { mean: Infinity, p50: Infinity, p90: Infinity, p95: Infinity, p99: Infinity, p999: Infinity };
}

/** A tenant's requests per second under a simulated schedule: an open-loop stream's declared rate, a closed loop's simulated throughput. */
export function corunThroughput(arrival: IrTenant['arrival'], t: Pick<ScheduledTenant, 'throughputPerSecond'>): number {
    return arrival.kind === 'closed' ? t.throughputPerSecond : openRatePerSecond(arrival);
}

/** Requests per second of an open-loop stream. */
function openRatePerSecond(arrival: Exclude<IrTenant['arrival'], { kind: 'closed' }>): number {
    return arrival.kind === 'poisson' ? arrival.ratePerSecond : 1000 / arrival.everyMs;
}

/**
 * The 90 % band of each co-run figure: the tenant's band h (the kernels' times); where the
 * simulation gave the figure, how far the figure and a measured one differ by sampling alone, s;
 * and the co-run model's error beyond both, c, measured by calibration on co-runs of its own
 * (profile.ts corunModelError; 0 for a tenant that runs alone or a profile without it):
 * √(h² + s² + c²), the sources being independent. The simulated figure is read off n_sim
 * requests and scatters by its sampling half-width s_sim (statistics.ts samplingHalfWidth); a
 * measured one is read off the n_run requests a run of the workload's benchmark brings the tenant
 * (runRequests), and scatters by s_sim·√(n_sim / n_run) (a half-width goes with 1/√n); their
 * difference by s = s_sim·√(1 + n_sim / n_run). A 2.5 s run of a tenant at 40/s measures its p99
 * from 100 requests where the simulation drew 600: √7 ≈ 2.6 × s_sim, not the √2 of equal counts.
 */
export function corunBands(h: number, simulated: Pick<ScheduledTenant, 'sampling' | 'sampledRequests'> | undefined, nRun: number, c: number): Record<Percentile, number> {
    const spread = simulated ? Math.sqrt(1 + simulated.sampledRequests / nRun) : 0;
    const of = (p: Percentile) => Math.hypot(h, simulated ? spread * simulated.sampling[p] : 0, c);
    return { mean: of('mean'), p50: of('p50'), p90: of('p90'), p95: of('p95'), p99: of('p99'), p999: of('p999') };
}

/** The co-run model's error a workload's co-run bands add (profile.ts corunModelError): none for a tenant alone, whose co-run figures are its solo ones. */
export function corunModelErrorOf(profile: DeviceProfile, tenants: number): number {
    return tenants > 1 ? profile.corunModelError?.excessP90 ?? 0 : 0;
}

/** Requests a measured run of the benchmark brings a tenant: its request count, else its throughput over the measured time (at least 2). */
export function runRequests(benchmark: WorkloadIR['benchmark'], throughputPerSecond: number): number {
    const n = benchmark.requests ?? (throughputPerSecond * benchmark.durationMs) / 1000;
    return Number.isFinite(n) ? Math.max(2, n) : 2;
}

/** An SLO's verdict from the tenant's figures, their band h and the co-run figure's band (see the module comment). */
export function sloPrediction(slo: IrSlo, serviceMs: number, cv: number, tail: ServiceTail, solo: LatencyFigures, corun: LatencyFigures, band: number, corunBand = band): SloPrediction {
    const p = slo.percentile as Percentile;
    const soloServiceMs = p === 'mean' ? serviceMoments(serviceMs, cv, tail).meanMs : serviceQuantileMs(PERCENTILE_Q[p], serviceMs, cv, tail);
    const soloServiceBandMs = bandRange(soloServiceMs, band);
    const corunBandMs = bandRange(corun[p], corunBand);
    const verdict: SloVerdict = soloServiceBandMs.low > slo.ms ? 'infeasible'
        : corunBandMs.high > slo.ms || soloServiceBandMs.high > slo.ms ? 'at-risk' : 'ok';
    return { percentile: p, targetMs: slo.ms, soloServiceMs, soloMs: solo[p], corunMs: corun[p], soloServiceBandMs, corunBandMs, verdict };
}

/** An op's predicted typical (median) time per request, solo and co-run (the co-run one scaled by the op's slowdown): what the op hints, hovers and `tenancy predict` show. */
export function typicalOpMs(op: OpPrediction): { solo: number; corun: number } {
    return { solo: op.soloP50Ms, corun: op.soloMs > 0 ? op.soloP50Ms * (op.corunMs / op.soloMs) : op.soloP50Ms };
}
