/**
 * Schedules compared by simulation (./simulate.ts): per schedule, each tenant's predicted
 * latency figures and SLO verdicts at the declared load, and the QoS-satisfied throughput —
 * VELTAIR's metric: the most requests per second the tenants complete at the highest load (all
 * open-loop rates scaled alike) at which every SLO still holds. `auto`, the editor's schedule
 * hints, its hover on `schedule` and `tenancy predict` all read these figures. Pure.
 *
 * Each computation also has a stepwise form (`…Steps`, a generator that yields after every
 * simulation, a few milliseconds of work): the editor runs it between other requests and stops
 * it when the text changes. The plain functions run the same steps to the end, so both give the
 * same figures.
 */
import type { IrSchedule, IrSlo, WorkloadIR } from '../ir/types.js';
import { PlanCache, planGraph, planVariant, type PlannedOp } from '../plan/plan.js';
import { versionsOfHotOps } from '../plan/versions.js';
import { splitLabel, type OpSplit } from '../plan/split.js';
import { policyFor, scheduleName, type SchedulePolicy, type ScheduleSettings } from '../schedule/policy.js';
import { cutChunks, type RegulatedOptions } from '../schedule/regulated.js';
import { PERCENTILE_Q, samplingHalfWidth } from '../report/statistics.js';
import { demandMix, pairCoefficients, type DemandMix } from './contention.js';
import { opServiceMs, opTiming, requestServiceMs, submissionMs } from './latency.js';
import { tailFrom, type ServiceTail } from './queueing.js';
import { chooseOpSplits, layerBlockOpSplits, opViews, splitStepViews, versionViews } from './op-views.js';
import { capsForProfile, type DeviceProfile } from './profile.js';
import { boundedStatistic, scaledArrival, simulate, simulatedStatistic, type SimulatedFigures, type SimulatedTenant } from './simulate.js';
import { cachedCoTunedSteps, simulateCoTuned, type CoTunedStore } from './co-tuned.js';
import { completeSteps } from './steps.js';

export { completeSteps } from './steps.js';

/** A tenant's figures under one schedule. */
export interface ScheduledTenant {
    name: string;
    p50Ms: number;
    p90Ms: number;
    p95Ms: number;
    p99Ms: number;
    p999Ms: number;
    meanMs: number;
    throughputPerSecond: number;
    /** Mean time a request is in flight on the device (its co-run service, own-queue waits excluded), ms. */
    serviceMs: number;
    /** How much the co-runners stretched its service (simulate.ts SimulatedFigures.slowdown). */
    slowdown: number;
    slos: { percentile: IrSlo['percentile']; targetMs: number; predictedMs: number; met: boolean }[];
    /**
     * Per statistic, how far it would move were the simulated requests drawn again (the relative
     * half-width of its 90 % sampling interval, statistics.ts samplingHalfWidth): a run of the
     * benchmark's length measures a tail from as few requests, and its figure scatters as much.
     */
    sampling: Record<IrSlo['percentile'], number>;
    /** How many simulated requests the figures (and `sampling`) were read off. */
    sampledRequests: number;
}

/** One schedule evaluated on a workload. */
export interface ScheduleEvaluation {
    schedule: IrSchedule;
    /** What it runs as: `auto` arguments resolved. */
    resolved: ResolvedSchedule;
    /** `layer_block(size: auto)`. */
    name: string;
    tenants: ScheduledTenant[];
    /** Every SLO holds at the declared load (evaluateResolved: at the load it was asked for). */
    sloMet: boolean;
    /** Requests per second over all tenants at `capacityLoad` (0 when no load meets the SLOs). */
    qosThroughput: number;
    /** The highest load factor (× the declared traffic) at which every SLO holds, to the search's resolution. */
    capacityLoad: number;
    /**
     * The loads the capacity search simulated with each one's figures, the declared load's first (empty without a
     * search): what a range of the capacity is read off (language-server schedule-comparison.ts capacityRange). A
     * probe's figures are built on first read.
     */
    capacityProbes: { load: number; readonly tenants: ScheduledTenant[] }[];
}

/** The schedules `tenancy compare` measures beside the workload's own by default. */
export const CANDIDATE_SCHEDULES: readonly IrSchedule[] = [
    { policy: 'concurrent' },
    { policy: 'sequential' },
    { policy: 'layer_block', size: 'auto' },
    { policy: 'regulated', split: 'auto', sync: 'auto' },
];

/**
 * The schedules `auto` (and the editor's hints) choose among on a profile: compare's, and on a
 * calibrated profile co_tuned with 3 versions (its search is bounded like regulated's; compare
 * leaves it out by default because its versions add pipelines to compile, seconds each on a
 * software adapter). On the built-in default profile a capped kernel's interference is an
 * assumption, not a measurement, and it alone would make co_tuned look best for every workload.
 */
export function autoCandidates(profile: DeviceProfile): readonly IrSchedule[] {
    return profile.uncalibrated ? CANDIDATE_SCHEDULES : [...CANDIDATE_SCHEDULES, { policy: 'co_tuned', variants: 3 }];
}

/** A schedule as it runs: `auto` replaced by the schedule it chose, `auto` arguments by the values the search found, and why. */
export interface ResolvedSchedule {
    /** The schedule that runs (never `auto`). */
    schedule: IrSchedule;
    settings: ScheduleSettings;
    /** What runs, in words: `regulated(split: {"a":4,"b":8}, sync: 2.10 ms)`. */
    name: string;
    /** Why (for `auto` and searched arguments). */
    why?: string;
}

/**
 * Resolves a workload's schedule on a device profile: `auto` becomes the best candidate
 * (bestSchedule, with why), a regulated schedule's `auto` split and sync the values the search
 * finds. Deterministic (seeded simulations, a fixed number of them), so the runtime and the
 * editor resolve a workload alike on one profile.
 */
export function resolveSchedule(ir: WorkloadIR, profile: DeviceProfile, options: EvaluateOptions = {}): ResolvedSchedule {
    if (ir.schedule.policy !== 'auto') return resolveWith(simulationInput(ir, profile, options), ir.schedule, options);
    const { best, why } = bestSchedule(compareSchedules(ir, profile, autoCandidates(profile), { ...options, capacity: options.capacity ?? true }));
    return { ...best.resolved, why: `auto chose ${best.resolved.name}: ${why}${best.resolved.why ? `; ${best.resolved.why}` : ''}` };
}

/**
 * The workload's own schedule evaluated at the declared load (resolved as resolveSchedule does; no
 * capacity search): the figures its tenants' co-run predictions are (workload.ts), equal to its
 * row in compareSchedules (same input, seed and resolution).
 */
export function declaredEvaluation(ir: WorkloadIR, profile: DeviceProfile, options: EvaluateOptions = {}): ScheduleEvaluation {
    const input = simulationInput(ir, profile, options);
    const resolved = ir.schedule.policy === 'auto' ? resolveSchedule(ir, profile, options) : resolveWith(input, ir.schedule, options);
    return evaluateResolved(input, ir.schedule, resolved, { ...options, capacity: false });
}

/**
 * Schedules as asked, each resolved on the profile, kept once by what runs (the first asked
 * wins), in the order given: `layer_block(size: auto)` that resolves like one already listed
 * is measured once.
 */
export function distinctSchedules(ir: WorkloadIR, profile: DeviceProfile, asked: readonly IrSchedule[], options: EvaluateOptions = {}): { asked: IrSchedule; resolved: ResolvedSchedule }[] {
    const seen = new Set<string>();
    const kept: { asked: IrSchedule; resolved: ResolvedSchedule }[] = [];
    for (const s of asked) {
        const resolved = resolveSchedule({ ...ir, schedule: s }, profile, options);
        if (seen.has(resolved.name)) continue;
        seen.add(resolved.name);
        kept.push({ asked: s, resolved });
    }
    return kept;
}

/** Whether resolving a schedule searches (several simulations: `auto`, co_tuned, a regulated `auto` argument) rather than runs as written. */
export function resolvesBySearch(schedule: IrSchedule): boolean {
    return schedule.policy === 'auto' || schedule.policy === 'co_tuned' || (schedule.policy === 'regulated' && (schedule.split === 'auto' || schedule.sync === 'auto'));
}

/** Resolves one (non-auto) schedule on a simulation input. */
function resolveWith(input: SimulationInput, schedule: IrSchedule, options: EvaluateOptions): ResolvedSchedule {
    return completeSteps(resolveWithSteps(input, schedule, options));
}

/** resolveWith, stepwise. */
function* resolveWithSteps(input: SimulationInput, schedule: IrSchedule, options: EvaluateOptions): Generator<void, ResolvedSchedule> {
    if (schedule.policy === 'co_tuned') {
        const { coTuned, why } = yield* cachedCoTunedSteps(input, schedule.variants, options.coTunedStore);
        return { schedule, settings: { coTuned }, name: policyFor(schedule, { coTuned }).name, why };
    }
    // Every regulated schedule is resolved: its ops to split within are chosen on the profile, `auto` arguments searched.
    if (schedule.policy === 'regulated') {
        const { regulated, why } = yield* searchRegulated(input, schedule);
        const resolved = { schedule, settings: { regulated }, name: '', why };
        return { ...resolved, name: policyFor(schedule, resolved.settings).name };
    }
    if (schedule.policy === 'layer_block') return resolveLayerBlock(input, schedule);
    return { schedule, settings: {}, name: scheduleName(schedule) };
}

/** layer_block with the ops it splits within on the profile (op-views.ts layerBlockOpSplits: a rule, no search), and why. */
function resolveLayerBlock(input: SimulationInput, schedule: Extract<IrSchedule, { policy: 'layer_block' }>): ResolvedSchedule {
    const { opSplits, reasons } = layerBlockOpSplits(input.ir.tenants.map((t, i) => ({ name: t.name, priority: t.priority, slos: t.slos, plan: input.plans[i], views: input.tenants[i].ops })), input.profile, schedule.size);
    const within = opSplitList(opSplits);
    if (within.length === 0) return { schedule, settings: {}, name: scheduleName(schedule) };
    const settings = { layerBlock: { opSplits } };
    const yields = Object.entries(reasons).map(([tenant, r]) => `${tenant}'s long ops in chunks of ≤ ${r.targetMs.toFixed(1)} ms, so that ${r.protects} waits for at most about half its slack`).join('; ');
    return { schedule, settings, name: policyFor(schedule, settings).name, why: `${yields}; ops split within: ${within.join(', ')}` };
}

/** "batch batch/mlp/fc1 rows × 4" per op split within. */
function opSplitList(opSplits: Readonly<Record<string, Readonly<Record<string, OpSplit>>>>): string[] {
    return Object.entries(opSplits).flatMap(([tenant, ops]) => Object.entries(ops).filter(([, split]) => split.chunks > 1).map(([path, split]) => `${tenant} ${path} ${splitLabel(split)}`));
}

/** Splits a regulated search tries per tenant, and most configurations it may score (a count, not a clock: results must not depend on the machine's speed). */
const SPLITS = [1, 2, 4, 8, 16], SEARCH_SIMULATIONS = 40;

/**
 * GACER's search, as coordinate descent over the simulation: per tenant the split, then the
 * exclusive threshold among quantiles of the chunks' predicted times and the thresholds between
 * one tenant's chunks and the longer ones of the others (thresholds that make the same chunks
 * exclusive are one configuration, simulated once); then each tenant's neighbouring splits with
 * every threshold of their own chunks, the tenant with the longest chunk first. Each candidate
 * simulated at the declared load on a shortened window. The score (regulatedScore): whether an
 * SLO is missed, then the worst predicted / target over SLO tenants, then the tenants' total
 * throughput (higher is better).
 */
function* searchRegulated(input: SimulationInput, schedule: Extract<IrSchedule, { policy: 'regulated' }>): Generator<void, { regulated: RegulatedOptions; why: string }> {
    const splits = schedule.split === 'auto' ? SPLITS : [schedule.split];
    const names = input.tenants.map(t => t.name);
    // A tenant's ops split within for a split: chosen once per tenant and split (the same choice whenever the search returns to it).
    const opSplitsFor = new Map<string, Record<string, OpSplit>>();
    const withOpSplits = (options: Omit<RegulatedOptions, 'opSplits'>): RegulatedOptions => ({
        ...options,
        opSplits: Object.fromEntries(input.tenants.map((t, i) => {
            const split = options.splits[t.name] ?? options.defaultSplit;
            const key = `${i}/${split}`;
            let chosen = opSplitsFor.get(key);
            if (!chosen) opSplitsFor.set(key, chosen = chooseOpSplits(input.plans[i], input.profile, split, t.ops));
            return [t.name, chosen];
        })),
    });
    const first = schedule.split === 'auto' ? 4 : schedule.split;
    let current: RegulatedOptions = withOpSplits({ splits: Object.fromEntries(names.map(n => [n, first])), defaultSplit: first, heavyMs: Infinity });
    // Configurations scored, the search's bound. The neighbour step below comes back to configurations the descent
    // scored: the simulation is deterministic, so each is simulated once and its score kept. A kept score still counts
    // against the bound, so the search takes the path (and finds the options) it took when it simulated them again.
    let scored = 0;
    const scores = new Map<string, number[]>();
    let everyMissed = true;
    const missedBy = new Map<number[], number>();
    // Per tenant, its chunks' predicted times under a configuration's splits (the ops split within follow from them).
    const splitsKey = (options: RegulatedOptions) => names.map(n => options.splits[n] ?? options.defaultSplit).join(',');
    const chunkTimes = new Map<string, number[][]>();
    const chunksOf = (options: RegulatedOptions): number[][] => {
        const key = splitsKey(options);
        let times = chunkTimes.get(key);
        if (!times) {
            times = simulatedTenants(input, options.opSplits, false).map(t => [...cutChunks(t.ops.length, t.ops, options.splits[t.name] ?? options.defaultSplit).predictedMs]);
            chunkTimes.set(key, times);
        }
        return times;
    };
    // A configuration is its splits and which chunks are exclusive: thresholds that make the same chunks exclusive
    // (none: as no sync at all) run alike (the policy reads the threshold only as chunk ≥ threshold).
    const configKey = (options: RegulatedOptions) => {
        const exclusive = Number.isFinite(options.heavyMs) ? chunksOf(options).map(t => t.map(ms => (ms >= options.heavyMs ? 1 : 0)).join('')).join('/') : '';
        return `${splitsKey(options)}|${exclusive.includes('1') ? exclusive : 'none'}`;
    };
    function* scoreOf(options: RegulatedOptions): Generator<void, number[]> {
        scored++;
        const key = configKey(options);
        const kept = scores.get(key);
        if (kept) return kept;
        const figures = simulateSchedule(input, { schedule, settings: { regulated: options }, name: '' }, 1, 0.5);
        yield;
        const { rank, missed } = regulatedScore(input.tenants, figures);
        if (missed === 0) everyMissed = false;
        missedBy.set(rank, missed);
        scores.set(key, rank);
        return rank;
    }
    const better = (a: number[], b: number[]) => {
        for (let k = 0; k < a.length; k++) {
            const tolerance = 1e-3 * Math.max(Math.abs(a[k]), Math.abs(b[k]));
            if (a[k] < b[k] - tolerance) return true;
            if (a[k] > b[k] + tolerance) return false;
        }
        return false;
    };
    let best = yield* scoreOf(current);
    for (const name of names) {
        for (const split of splits) {
            if (split === current.splits[name] || scored >= SEARCH_SIMULATIONS) continue;
            const candidate = withOpSplits({ ...current, splits: { ...current.splits, [name]: split } });
            const score = yield* scoreOf(candidate);
            if (better(score, best)) { best = score; current = candidate; }
        }
    }
    if (schedule.sync === 'auto') {
        const tried = new Set([configKey(current)]);
        for (const heavyMs of syncThresholds(chunksOf(current))) {
            const candidate = { ...current, heavyMs };
            const key = configKey(candidate);
            if (tried.has(key) || scored >= SEARCH_SIMULATIONS) continue;
            tried.add(key);
            const score = yield* scoreOf(candidate);
            if (better(score, best)) { best = score; current = candidate; }
        }
    }
    // Splits and thresholds interact: a finer split shortens the chunks a threshold divides, so the descent, one
    // coordinate at a time, can stop at a split whose neighbour wins only with a threshold of its own (critical_batch:
    // batch in 8 chunks, two of them exclusive, where 16 chunks with every one longer than the critical request
    // exclusive simulated 8 % lower in the critical tenant's p95 on five seeds). So each tenant's neighbouring splits
    // are tried with every threshold of their own chunks, within the bound: first the tenant with the longest chunk,
    // the one the others wait behind. (A second pass of the descent, every split again at the chosen threshold in
    // ms, spent the bound before this step on heavy: no split far from the first pass's improved, and bert's
    // neighbours were never tried — the worst ratio 0.25 where this step finds 0.21.) With `sync: none` the step
    // tries the neighbouring splits alone: what a second pass would retry after another tenant's split moved.
    const longest = chunksOf(current).map(times => Math.max(0, ...times));
    const byLongest = names.map((name, i) => ({ name, ms: longest[i] })).sort((a, b) => b.ms - a.ms).map(t => t.name);
    for (const name of byLongest) {
        // From the best so far: a tenant's move that won stands when the next tenant's neighbours are tried.
        const base = current;
        const at = splits.indexOf(base.splits[name] ?? base.defaultSplit);
        for (const split of [splits[at - 1], splits[at + 1]]) {
            if (split === undefined) continue;
            const neighbour = withOpSplits({ ...base, splits: { ...base.splits, [name]: split } });
            for (const heavyMs of schedule.sync === 'auto' ? syncThresholds(chunksOf(neighbour)) : [Infinity]) {
                const candidate = { ...neighbour, heavyMs };
                if (scores.has(configKey(candidate)) || scored >= SEARCH_SIMULATIONS) continue;
                const score = yield* scoreOf(candidate);
                if (better(score, best)) { best = score; current = candidate; }
            }
        }
    }
    const bestMissed = missedBy.get(best) ?? 0;
    const within = opSplitList(current.opSplits ?? {});
    const missed = `${bestMissed} SLO${bestMissed === 1 ? '' : 's'} missed, the worst at ${best[1].toFixed(2)}× its target`;
    const ranked = everyMissed
        ? `${missed}: every split it tried misses an SLO, so it ranked them by the worst predicted / target ratio (requests still queued when a simulation stopped counted at their wait so far), then by throughput`
        : missed;
    const why = `the search (${scores.size} simulation${scores.size === 1 ? '' : 's'}) found ${ranked}` + (within.length ? `; ops split within: ${within.join(', ')}` : '');
    return { regulated: current, why };
}

/**
 * The exclusive thresholds the regulated search tries, given each tenant's chunks' predicted
 * times (ms): the 0.9, 0.75 and 0.5 quantiles of all chunks; per tenant, halfway from its longest
 * chunk to the next longer chunk of another, where every longer chunk of the others is exclusive
 * and none of its own, so its requests start beside a long chunk but never wait for one to start
 * (GACER's sync points between two queues; with one batch tenant of many long chunks the
 * quantiles all fall among its chunks, and some of them were never exclusive); and none
 * (Infinity). On critical_batch the simulation puts the threshold between the tenants 8 % lower
 * in the critical tenant's p95; measured, alternated with the quantile's, it was within the
 * noise (BENCHMARKS.md, "Sync thresholds between tenants' chunks").
 */
export function syncThresholds(byTenant: readonly (readonly number[])[]): number[] {
    const all = byTenant.flat().sort((a, b) => a - b);
    if (all.length === 0) return [Infinity];
    const quantile = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))];
    const between = byTenant.flatMap(own => {
        if (own.length === 0) return [];
        const longest = Math.max(...own), next = all.find(ms => ms > longest);
        return next === undefined ? [] : [(longest + next) / 2];
    });
    return [quantile(0.9), quantile(0.75), quantile(0.5), ...between, Infinity];
}

/**
 * How good a candidate's simulated figures are (`rank`: lower first, compared element by
 * element) and how many SLOs it misses. The rank: [1 when an SLO is missed else 0, the worst
 * predicted / target over the tenants' SLOs, −the tenants' total throughput]. The ratio comes
 * before throughput even when every SLO is met with room: a lower ratio at the declared load is
 * room to scale the load, so it ranks candidates as QoS-satisfied throughput (auto's metric)
 * would: ranking by throughput once every SLO is within 0.75× its target gains a closed-loop
 * tenant a few percent at the declared load and can cost the schedule much of its QoS-satisfied
 * throughput (43 % on the editor's rescue workload). The ratio uses boundedStatistic, finite
 * under overload: when every candidate misses an SLO (a mix overloaded at every split) the
 * ratio still ranks them — the one whose worst tenant is closest to its target first — where
 * counting missed SLOs, or an infinite "overloaded", could not.
 */
export function regulatedScore(tenants: readonly Pick<SimulatedTenant, 'slos'>[], figures: readonly SimulatedFigures[]): { rank: number[]; missed: number } {
    let missed = 0, worst = 0, throughput = 0;
    tenants.forEach((t, i) => {
        throughput += figures[i].throughputPerSecond;
        for (const s of t.slos) {
            const q = s.percentile === 'mean' ? undefined : PERCENTILE_Q[s.percentile];
            if (!(simulatedStatistic(figures[i], s.percentile, q) <= s.ms)) missed++;
            worst = Math.max(worst, boundedStatistic(figures[i], s.percentile, q) / s.ms);
        }
    });
    return { rank: [missed > 0 ? 1 : 0, worst, -throughput], missed };
}

export interface EvaluateOptions {
    cache?: PlanCache;
    /** Seed of the simulated arrivals and jitter (the same for every schedule, so they compare like with like). */
    seed?: number;
    /** Search the QoS-satisfied throughput (several simulations; default true). */
    capacity?: boolean;
    /** Configurations co_tuned's search found before (the runtime's per-adapter cache); absent: always search. */
    coTunedStore?: CoTunedStore;
}

/** What simulating a workload on a profile needs, computed once for all schedules compared. */
export interface SimulationInput {
    /** The workload, profile and plan cache it was built from (co_tuned plans its versions from them). */
    ir: WorkloadIR;
    profile: DeviceProfile;
    cache: PlanCache;
    /** Each tenant's plan (default variants on the profile's limits): what regulated splits ops of. */
    plans: (readonly PlannedOp[])[];
    /** Per tenant, its ops with their predicted times (one view per op). */
    tenants: SimulatedTenant[];
    contention: number[][];
    serviceCv: number;
    /** The host's heavy tail per request, alone and beside a co-runner in flight (calibration's; queueing.ts tailFrom). */
    tail: ServiceTail;
    corunTail: ServiceTail;
    /** How long a kernel holds the device while another tenant's waits (profile.ts corunQuantumMs; absent: to its end). */
    quantumMs?: number;
    warmupMs: number;
    /** The window of searches and capacity probes, ms. */
    durationMs: number;
    /** The window of the figures a schedule is reported with (simulateSchedule's `'figures'`), ms: at least durationMs. */
    figuresMs: number;
    seed: number;
}

/** Requests the simulated window aims for per open-loop tenant (enough to place a p99). */
const TARGET_REQUESTS = 600;
/** The simulated window's bounds, ms. */
const MIN_WINDOW_MS = 2_000, MAX_WINDOW_MS = 60_000;
/** Requests a closed-loop tenant completes alone in the window, at most. */
const CLOSED_REQUESTS = 3_000;
/**
 * The figures' window (SimulationInput.figuresMs): long enough for the slowest open-loop stream to
 * bring FIGURE_REQUESTS, where its closed loops run at most FIGURE_KERNELS kernels (or
 * CLOSED_REQUESTS requests, if more). Beside a fast closed loop the searches' window is short: in
 * the accuracy benchmark's zoo_triple_open (a 1.3 ms closed loop beside streams of 2.5 and 3/s) it
 * held 5–13 mobilenet requests, whose co-run slowdown read 1.8–2.1× against 1.2–1.4× measured in
 * every run; over 40 s, 1.33–1.37×. Searching over such windows too made the editor's hints
 * 3.5–4.9 s late; one simulation per schedule at the declared load costs little when its kernels
 * are bounded (a step of the editor's comparison held the event loop 110–125 ms where a loop of
 * 36-kernel requests ran ten times its searches' requests).
 */
const FIGURE_REQUESTS = 100, FIGURE_KERNELS = 60_000;
/** Load factors the capacity search tries between, and its steps. */
const MAX_LOAD = 16, SEARCH_STEPS = 7;
/**
 * Open-loop requests one simulation may hold: each is an event and a latency kept in memory, so
 * an absurd rate (`poisson(rate: 99999999999/s)`) is refused, not simulated (it would exhaust
 * the process's memory). 2 s at 16× the load of 60,000 requests/s fit.
 */
export const MAX_SIMULATED_REQUESTS = 2_000_000;

/** The tenants of a workload as the simulation runs them: planned ops with predicted times, contention between their demand mixes. */
export function simulationInput(ir: WorkloadIR, profile: DeviceProfile, options: EvaluateOptions = {}): SimulationInput {
    const cache = options.cache ?? new PlanCache();
    const caps = capsForProfile(profile);
    const mixes: DemandMix[] = [];
    const plans: (readonly PlannedOp[])[] = [];
    const tenants: SimulatedTenant[] = ir.tenants.map(t => {
        const planned = planGraph(t.graph, { caps, cache });
        plans.push(planned);
        const demand = { compute: 0, memory: 0, capped: 0 };
        let gpuMs = 0, launches = 0, passes = 0;
        for (const op of planned) {
            const timing = cache.perProfile(op.launches, profile, () => opTiming(profile, op));
            demand.compute += timing.demandMs.compute;
            demand.memory += timing.demandMs.memory;
            demand.capped += timing.demandMs.capped;
            gpuMs += timing.ms;
            launches += op.launches.length;
            if (op.launches.length > 0) passes++;
        }
        mixes.push(demandMix(demand));
        const ops = opViews(planned, profile);
        // A request's time as the solo prediction has it (the host's mean factors) over the ops' predicted times.
        const submitMs = submissionMs(profile);
        const opsMs = ops.reduce((sum, o) => sum + (o.predictedMs ?? 0), submitMs);
        const hostMs = requestServiceMs(profile, gpuMs, launches, 1);
        const penalty = profile.idlePenalty;
        return {
            name: t.name, priority: t.priority, arrival: t.arrival, slos: t.slos, ops, submitMs,
            workScale: opsMs > 0 && Number.isFinite(hostMs) ? hostMs / opsMs : 1,
            idlePenaltyMs: penalty ? Math.max(0, penalty.wallMs + passes * penalty.gpuMsPerPass) : 0,
        };
    });
    // Long enough for the slowest open-loop stream to bring TARGET_REQUESTS, and for the longest request many times over.
    const requestMs = Math.max(...tenants.map(t => t.ops.reduce((s, o) => s + (o.predictedMs ?? 0), 0)));
    const rates = ir.tenants.flatMap(t => t.arrival.kind === 'poisson' ? [t.arrival.ratePerSecond] : t.arrival.kind === 'periodic' ? [1000 / t.arrival.everyMs] : []);
    const openMs = rates.length ? TARGET_REQUESTS / Math.min(...rates) * 1000 : 0;
    const durationMs = Math.min(MAX_WINDOW_MS, closedLoopWindowMs(tenants, 1), Math.max(MIN_WINDOW_MS, openMs, 200 * requestMs));
    const figuresMs = Math.max(durationMs, Math.min(MAX_WINDOW_MS, closedLoopWindowMs(tenants, 1, figureRequests), rates.length ? FIGURE_REQUESTS / Math.min(...rates) * 1000 : 0));
    return {
        ir, profile, cache, plans, tenants, contention: pairCoefficients(profile, mixes), serviceCv: profile.serviceCv,
        tail: tailFrom(profile.serviceTailMs), corunTail: tailFrom(profile.corunTailMs ?? profile.serviceTailMs),
        ...(profile.corunQuantumMs !== undefined ? { quantumMs: profile.corunQuantumMs } : {}),
        warmupMs: Math.min(1000, durationMs / 10), durationMs, figuresMs, seed: options.seed ?? ir.benchmark.seed,
    };
}

/**
 * The longest window in which no closed loop completes more than `requests` of its requests
 * (default CLOSED_REQUESTS: the events a simulation takes) at `load` times its clients, ms
 * (Infinity without closed loops). Alone a loop
 * completes one request per (request + think) time per client, and at most one per request time
 * (its queue runs one request at a time). Think time counts: bounding the window by the request
 * time alone left zoo-mix's open-loop tenants (2–3/s, beside two clients thinking 20 ms) a 2.3 s
 * window, 2 and 9 requests to place a p99 on. Clients scaled by the load count too: a capacity
 * probe at 16× the clients of a thinking loop would otherwise simulate 16× its requests.
 */
function closedLoopWindowMs(tenants: readonly SimulatedTenant[], load: number, requests: (t: SimulatedTenant) => number = () => CLOSED_REQUESTS): number {
    let windowMs = Infinity;
    for (const t of tenants) {
        const arrival = scaledArrival(t.arrival, load);
        if (arrival.kind !== 'closed') continue;
        const serviceMs = t.ops.reduce((s, o) => s + (o.predictedMs ?? 0), t.submitMs);
        windowMs = Math.min(windowMs, requests(t) * Math.max(serviceMs, (serviceMs + arrival.thinkMs) / arrival.clients));
    }
    return windowMs;
}

/** Requests a closed loop may complete in the figures' window: FIGURE_KERNELS of its kernels, at least CLOSED_REQUESTS. */
function figureRequests(t: SimulatedTenant): number {
    const kernels = t.ops.reduce((s, o) => s + Math.max(1, o.launches), 0);
    return Math.max(CLOSED_REQUESTS, FIGURE_KERNELS / kernels);
}

/** A load factor for a message: `1`, `0.25`, `16`. */
function significantLoad(load: number): string {
    return String(Number(load.toPrecision(3)));
}

/** Open-loop requests per second of a simulated tenant (0 for a closed loop). */
function openRate(t: SimulatedTenant): number {
    return t.arrival.kind === 'poisson' ? t.arrival.ratePerSecond : t.arrival.kind === 'periodic' ? 1000 / t.arrival.everyMs : 0;
}

/**
 * Simulates a resolved schedule at a load factor over `window` × the searches' window (a shorter one
 * for searches), or over the figures' window (`'figures'`: what a schedule is reported with);
 * refuses more than MAX_SIMULATED_REQUESTS open-loop requests.
 */
export function simulateSchedule(input: SimulationInput, resolved: ResolvedSchedule, load = 1, window: number | 'figures' = 1): SimulatedFigures[] {
    // At a load above the declared one either window shrinks with the closed loops' completions (closedLoopWindowMs): an open
    // stream scaled as much brings as many requests in it.
    const part = window === 'figures'
        ? Math.min(input.figuresMs, closedLoopWindowMs(input.tenants, load, figureRequests)) / input.durationMs
        : Math.min(window, closedLoopWindowMs(input.tenants, load) / input.durationMs);
    const perSecond = input.tenants.reduce((sum, t) => sum + openRate(t), 0) * load;
    const seconds = (input.durationMs * part + input.warmupMs) / 1000;
    if (perSecond * seconds > MAX_SIMULATED_REQUESTS) {
        const fastest = input.tenants.reduce((a, b) => (openRate(b) > openRate(a) ? b : a));
        const rate = perSecond >= 1e6 ? perSecond.toExponential(2) : String(Math.round(perSecond));
        throw new Error(`the open-loop arrivals (${rate} requests/s at ${significantLoad(load)}× the load; tenant ${fastest.name} the fastest) are too many to simulate: `
            + `over ${MAX_SIMULATED_REQUESTS.toLocaleString('en-US')} requests in ${seconds} s; lower the rates`);
    }
    // co_tuned runs its tenants' chosen versions, with their own times and contention.
    if (resolved.settings.coTuned) return simulateCoTuned(input, resolved.settings.coTuned, load, part);
    return simulate(simulatedTenants(input, resolved.settings.regulated?.opSplits ?? resolved.settings.layerBlock?.opSplits, resolved.settings.layerBlock !== undefined), {
        policy: policyFor(resolved.schedule, resolved.settings), contention: input.contention, serviceCv: input.serviceCv, tail: input.tail, corunTail: input.corunTail,
        quantumMs: input.quantumMs, seed: input.seed, warmupMs: input.warmupMs, durationMs: input.durationMs * part, load,
    });
}

/**
 * The tenants as a schedule runs them: under a schedule that splits ops within (regulated,
 * layer_block), one view per step (whole ops and chunks), as the runtime gives its policy; with
 * `tolerant` (layer_block, whose runs compile them), the hot ops' tolerant versions too, each at its own predicted times.
 */
function simulatedTenants(input: SimulationInput, opSplits: SchedulePolicy['opSplits'], tolerant: boolean): SimulatedTenant[] {
    if (!opSplits && !tolerant) return input.tenants;
    return input.tenants.map((t, i) => {
        const splits = opSplits?.[t.name];
        const steps = splits && Object.keys(splits).length > 0 ? splitStepViews(input.plans[i], splits, input.profile, t.ops) : undefined;
        const versions = tolerant ? versionViews(input.plans[i], tolerantVersions(input)[i], input.profile, steps, t.ops) : [];
        return { ...t, ...(steps ? { ops: steps.views } : {}), ...(versions.length > 1 ? { versions } : {}) };
    });
}

const tolerantPlans = new WeakMap<SimulationInput, (PlannedOp[] | undefined)[][]>();

/** Per tenant, per op, its layer_block versions as the runtime plans them (plan/versions.ts: the hot ops' tolerant variants; one that cannot be built runs as the op). Memoised per input. */
function tolerantVersions(input: SimulationInput): (PlannedOp[] | undefined)[][] {
    let versions = tolerantPlans.get(input);
    if (versions) return versions;
    const caps = capsForProfile(input.profile);
    versions = input.plans.map((planned, i) => {
        const wanted = versionsOfHotOps(ops => ops.map(op => opServiceMs(input.profile, op) ?? 0))(planned);
        return planned.map((op, k) => {
            const alternatives = (wanted[k] ?? []).map(v => v === op.variant ? op : planVariant(op, input.ir.tenants[i].graph, v, { caps, cache: input.cache }) ?? op);
            return alternatives.length > 0 ? alternatives : undefined;
        });
    });
    tolerantPlans.set(input, versions);
    return versions;
}

function tenantFigures(t: SimulatedTenant, f: SimulatedFigures): ScheduledTenant {
    const stat = (p: IrSlo['percentile']) => simulatedStatistic(f, p, p === 'mean' ? undefined : PERCENTILE_Q[p]);
    return {
        name: t.name, p50Ms: stat('p50'), p90Ms: stat('p90'), p95Ms: stat('p95'), p99Ms: stat('p99'), p999Ms: stat('p999'), meanMs: stat('mean'),
        throughputPerSecond: f.throughputPerSecond, serviceMs: f.serviceMs, slowdown: f.slowdown,
        slos: t.slos.map(s => {
            const predictedMs = stat(s.percentile);
            return { percentile: s.percentile, targetMs: s.ms, predictedMs, met: predictedMs <= s.ms };
        }),
        sampledRequests: f.latenciesMs.length,
        // O(n) per statistic, less than the simulation that drew the n requests.
        sampling: {
            mean: samplingHalfWidth(f.latenciesMs, 'mean'), p50: samplingHalfWidth(f.latenciesMs, 'p50'), p90: samplingHalfWidth(f.latenciesMs, 'p90'),
            p95: samplingHalfWidth(f.latenciesMs, 'p95'), p99: samplingHalfWidth(f.latenciesMs, 'p99'), p999: samplingHalfWidth(f.latenciesMs, 'p999'),
        },
    };
}

/** Whether every SLO of every tenant holds in simulated figures. */
function allSlosMet(input: SimulationInput, figures: readonly SimulatedFigures[]): boolean {
    return input.tenants.every((t, i) => t.slos.every(s => simulatedStatistic(figures[i], s.percentile, s.percentile === 'mean' ? undefined : PERCENTILE_Q[s.percentile]) <= s.ms));
}

/** Evaluates one schedule on a workload: figures at the declared load, and (unless asked not to) the QoS-satisfied throughput. */
export function evaluateSchedule(ir: WorkloadIR, profile: DeviceProfile, schedule: IrSchedule, options: EvaluateOptions = {}, input = simulationInput(ir, profile, options)): ScheduleEvaluation {
    return completeSteps(evaluateScheduleSteps(schedule, input, options));
}

/** evaluateSchedule on a simulation input, stepwise (a step per simulation). */
export function* evaluateScheduleSteps(schedule: IrSchedule, input: SimulationInput, options: EvaluateOptions = {}): Generator<void, ScheduleEvaluation> {
    const resolved = yield* resolveWithSteps(input, schedule, options);
    return yield* evaluateResolvedSteps(input, schedule, resolved, options);
}

/**
 * Evaluates a resolved schedule: figures (and `sloMet`) at `load` × the declared traffic, and
 * (unless asked not to) the QoS-satisfied throughput, whose `capacityLoad` is × the declared
 * traffic whatever `load` is. A sweep predicts each of its loads with the schedule resolved at
 * the declared load, as its cells run it.
 */
export function evaluateResolved(input: SimulationInput, schedule: IrSchedule, resolved: ResolvedSchedule, options: EvaluateOptions = {}, load = 1): ScheduleEvaluation {
    return completeSteps(evaluateResolvedSteps(input, schedule, resolved, options, load));
}

/** evaluateResolved, stepwise (a step per simulation). */
function* evaluateResolvedSteps(input: SimulationInput, schedule: IrSchedule, resolved: ResolvedSchedule, options: EvaluateOptions = {}, load = 1): Generator<void, ScheduleEvaluation> {
    const figuresAt = (l: number) => {
        const figures = simulateSchedule(input, resolved, l, 'figures');
        return input.tenants.map((t, i) => tenantFigures(t, figures[i]));
    };
    const tenants = figuresAt(load);
    yield;
    const met = (list: readonly ScheduledTenant[]) => list.every(t => t.slos.every(s => s.met));
    const sloMet = met(tenants);
    const declared = load === 1 ? tenants : figuresAt(1);
    const declaredMet = met(declared);
    let capacityLoad = declaredMet ? 1 : 0, qosThroughput = declaredMet ? declared.reduce((s, t) => s + t.throughputPerSecond, 0) : 0;
    const capacityProbes: ScheduleEvaluation['capacityProbes'] = [];
    if (options.capacity ?? true) {
        capacityProbes.push({ load: 1, tenants: declared });
        // Bisection on the load factor (geometric: the answer spans orders of magnitude); a load whose SLOs hold raises the floor.
        let low = declaredMet ? 1 : 0, high = declaredMet ? MAX_LOAD : 1;
        for (let step = 0; step < SEARCH_STEPS; step++) {
            const probe = low > 0 ? Math.sqrt(low * high) : high / 4;
            const at = simulateSchedule(input, resolved, probe);
            // Figures built when read (a hover, the CLI), not on the hints' path: a search reads only its SLOs' statistics.
            let figures: ScheduledTenant[] | undefined;
            capacityProbes.push({ load: probe, get tenants() { return (figures ??= input.tenants.map((t, i) => tenantFigures(t, at[i]))); } });
            yield;
            if (allSlosMet(input, at)) {
                low = probe;
                capacityLoad = probe;
                qosThroughput = at.reduce((s, f) => s + f.throughputPerSecond, 0);
            } else {
                high = probe;
            }
            if (low > 0 && high / low < 1.05) break;
        }
    }
    return { schedule, resolved, name: scheduleName(schedule), tenants, sloMet, qosThroughput, capacityLoad, capacityProbes };
}

/** A worst p99 for a message: `12.3 ms`, or why there is none (an overloaded queue never drains). */
function p99Text(ms: number): string {
    return Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'none: overloaded';
}

/** Every candidate schedule evaluated on the workload (one simulation input, one seed: like with like). */
export function compareSchedules(ir: WorkloadIR, profile: DeviceProfile, candidates: readonly IrSchedule[] = CANDIDATE_SCHEDULES, options: EvaluateOptions = {}): ScheduleEvaluation[] {
    const input = simulationInput(ir, profile, options);
    return candidates.map(s => completeSteps(evaluateScheduleSteps(s, input, options)));
}

/**
 * The best of compared schedules: the highest QoS-satisfied throughput; among equals (within
 * 5 %), the one that meets the SLOs at the declared load, then the lowest worst p99 over SLO
 * tenants. With `why`, in words.
 */
export function bestSchedule(evaluations: readonly ScheduleEvaluation[]): { best: ScheduleEvaluation; why: string } {
    const worstP99 = (e: ScheduleEvaluation) => Math.max(...e.tenants.map(t => t.p99Ms));
    const sorted = [...evaluations].sort((a, b) => {
        const top = Math.max(a.qosThroughput, b.qosThroughput);
        if (top > 0 && Math.abs(a.qosThroughput - b.qosThroughput) > 0.05 * top) return b.qosThroughput - a.qosThroughput;
        if (a.sloMet !== b.sloMet) return a.sloMet ? -1 : 1;
        // Two overloaded schedules (each worst p99 infinite) tie, where Infinity − Infinity would make the order NaN.
        const pa = worstP99(a), pb = worstP99(b);
        return pa === pb ? 0 : pa < pb ? -1 : 1;
    });
    const best = sorted[0];
    const next = sorted[1];
    const why = !next ? `the only schedule compared`
        : best.qosThroughput > 0 && best.qosThroughput > 1.05 * next.qosThroughput
            ? next.qosThroughput > 0
                ? `${(best.qosThroughput / next.qosThroughput).toFixed(2)}× the QoS-satisfied throughput of ${next.name} (the next best)`
                : `the only one whose SLOs hold at some load (${next.name}, the next best, meets them at none)`
            : best.sloMet && !next.sloMet ? `it meets every SLO at the declared load and ${next.name} does not`
                : !Number.isFinite(worstP99(best)) ? `no schedule compared keeps up with the declared load (each leaves a tenant's queue growing, so none has a p99); ${best.name} is the first compared`
                    : `the lowest worst p99 (${worstP99(best).toFixed(1)} ms against ${p99Text(worstP99(next))} under ${next.name})`;
    return { best, why };
}
