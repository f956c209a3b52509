/**
 * Schedules measured against each other, and capacities (`tenancy compare`, `tenancy capacity`).
 *
 * A comparison is one session (./session.ts): the tenants compiled once, every round running
 * each tenant alone and then the co-run under every schedule in turn, with the same arrivals and
 * seed, the order reversed on odd rounds, so that drift of the host hits every schedule alike.
 * A capacity is the highest load (× every tenant's traffic) at which every SLO is met, found by
 * bisection from the load the simulation predicts, each probe a short measurement of the same
 * compiled session (co-runs only) with its share of the budget.
 */
import type { IrSchedule, IrTenant, WorkloadIR } from '../ir/types.js';
import { requestsNeeded } from './rounds.js';
import { policyFor, RUNNABLE_SCHEDULES, scheduleName, ScheduleNotImplementedError, type SchedulePolicy } from '../schedule/policy.js';
import { firstShareVersion } from '../plan/versions.js';
import { CANDIDATE_SCHEDULES, compareSchedules, distinctSchedules, type ResolvedSchedule, type ScheduleEvaluation } from '../predict/schedules.js';
import { defaultProfile } from '../predict/profile.js';
import { buildComparison, predictedOf, probeOf, CAPACITY_SCHEMA_VERSION, type Capacity, type CapacityReport, type Comparison, type ScheduleRunData } from '../report/compare.js';
import type { RunEvent } from './events.js';
import { hostCores } from './host.js';
import { irHash } from '../ir/hash.js';
import { saveCoTunedCache, scheduleContext, selectTenants, sessionResults, type ResultsContext, type RunWorkloadOptions } from './run.js';
import { RunSession, type MeasuredRounds } from './session.js';
import packageJson from '../../../package.json' with { type: 'json' };

export interface CompareOptions extends RunWorkloadOptions {
    /**
     * compareWorkload: the schedules to measure beside the workload's own (the baseline; default:
     * the candidates `auto` chooses among). capacityWorkload: the schedules to search (default: the workload's own).
     */
    schedules?: readonly IrSchedule[];
    /** Also search each schedule's capacity, within this budget per schedule. */
    capacity?: { budgetMs?: number };
}

/** A schedule as compared: as asked, as it runs, and what the simulation said of it. */
interface Candidate {
    asked: IrSchedule;
    resolved: ResolvedSchedule;
    predicted: ScheduleEvaluation;
}

/** The budget of one schedule's capacity search when none is given, ms. */
export const DEFAULT_CAPACITY_BUDGET_MS = 60_000;
/** Most probes of one capacity search, and the bracket (failed / met load) narrow enough to stop. */
const MAX_PROBES = 7, NARROW = 1.15;
/** Loads a search never leaves (× the declared traffic). */
const MIN_LOAD = 1 / 64, MAX_LOAD = 64;

/**
 * The schedules to measure, each resolved on the profile (`auto` and searched arguments) and
 * kept once by what runs, in the order given. A schedule the runtime does not run is refused
 * (ScheduleNotImplementedError) before anything is measured.
 */
function candidatesOf(ir: WorkloadIR, options: CompareOptions, asked: readonly IrSchedule[]): Candidate[] {
    const profile = options.profile ?? defaultProfile();
    for (const s of asked) if (!RUNNABLE_SCHEDULES.includes(s.policy)) throw new ScheduleNotImplementedError(s.policy);
    const kept = distinctSchedules(ir, profile, asked, { coTunedStore: options.coTunedCache?.store });
    const predicted = compareSchedules(ir, profile, kept.map(k => k.resolved.schedule), { coTunedStore: options.coTunedCache?.store });
    return kept.map((k, i) => ({ ...k, predicted: predicted[i] }));
}

/** Maps the session's per-measurement progress into stages of one overall fraction (monotonic). */
class StagedProgress {
    private from = 0;
    private to = 1;
    private last = 0;
    constructor(private readonly emit: (event: RunEvent) => void) {}

    /** The next measurements report within [from, to] of the whole. */
    stage(from: number, to: number): void {
        this.from = from;
        this.to = to;
    }

    readonly onEvent = (event: RunEvent): void => {
        if (event.type !== 'progress') return this.emit(event);
        this.last = Math.min(1, Math.max(this.last, this.from + (this.to - this.from) * event.fraction));
        this.emit({ ...event, fraction: Number(this.last.toFixed(4)) });
    };
}

/** Measures the workload under every schedule in one session and returns the comparison (report/compare.ts). */
export async function compareWorkload(options: CompareOptions): Promise<Comparison> {
    const { ir } = options;
    const profile = options.profile ?? defaultProfile();
    // The workload's own schedule first: the baseline.
    const candidates = candidatesOf(ir, options, [ir.schedule, ...(options.schedules ?? CANDIDATE_SCHEDULES)]);
    const progress = new StagedProgress(event => options.onEvent?.(event));
    const { versions, shareWorkgroups, policies } = sessionSchedules(candidates, options);
    await saveCoTunedCache(options);
    const session = new RunSession({ ...options, profile, versions, shareWorkgroups, onEvent: progress.onEvent }, policies, selectTenants(ir, options.tenants));
    const startedAt = new Date();
    const capacities: (Capacity | null)[] = candidates.map(() => null);
    let measured: MeasuredRounds | undefined;
    const context = (c: Candidate): ResultsContext => ({ ...options, ...scheduleContext(c.resolved, versions) });
    try {
        await session.openDevices();
        await session.plan();
        await session.compile();
        const share = options.capacity ? 0.5 : 1;
        progress.stage(0, share);
        measured = await session.measure();
        if (options.capacity && session.status === 'complete') {
            for (let s = 0; s < candidates.length && session.status === 'complete'; s++) {
                progress.stage(share + (1 - share) * s / candidates.length, share + (1 - share) * (s + 1) / candidates.length);
                capacities[s] = await searchSessionCapacity(session, s, candidates[s].predicted.capacityLoad, options.capacity.budgetMs ?? DEFAULT_CAPACITY_BUDGET_MS, context(candidates[s]));
            }
        }
    } catch (error) {
        session.stoppedBy(error);
    } finally {
        await session.close();
    }
    const outcome = session.outcome();
    const main = measured ?? outcome.measured;
    const schedules: ScheduleRunData[] = candidates.map((c, s) => ({
        name: c.resolved.name, asked: scheduleName(c.asked), ...(c.resolved.why ? { why: c.resolved.why } : {}), baseline: s === 0,
        predicted: predictedOf(c.predicted, session.tenants),
        results: sessionResults(session, main, session.endingOf(main, s), s, context(c)),
        corun: main.corun[s]?.tenants ?? [],
        capacity: capacities[s],
    }));
    return buildComparison({ tenants: session.tenants, seed: session.seed, schedules, solo: main.solo, startedAt, finishedAt: new Date() });
}

/**
 * The versions a session of these schedules compiles (layer_block's tolerant ones, co_tuned's
 * shares) and each schedule's policy on them. Every co_tuned schedule of one session must share
 * its versions (one compiled set per tenant): two with different shares are refused.
 */
function sessionSchedules(candidates: readonly { resolved: ResolvedSchedule }[], options: CompareOptions): { versions: boolean; shareWorkgroups?: readonly number[]; policies: SchedulePolicy[] } {
    const versions = options.versions ?? candidates.some(c => c.resolved.schedule.policy === 'layer_block');
    const coTuned = candidates.flatMap(c => c.resolved.settings.coTuned ? [{ name: c.resolved.name, workgroups: c.resolved.settings.coTuned.workgroups }] : []);
    const other = coTuned.find(c => c.workgroups.join(',') !== coTuned[0].workgroups.join(','));
    if (other) {
        throw new IncompatibleSchedulesError(`${coTuned[0].name} and ${other.name} need different kernel versions (capped at ${coTuned[0].workgroups.join(', ')} and at ${other.workgroups.join(', ')} workgroups); measure one co_tuned(variants: N) at a time`);
    }
    const layout = { firstShareVersion: firstShareVersion({ tolerant: versions }) };
    return { versions, shareWorkgroups: coTuned[0]?.workgroups, policies: candidates.map(c => policyFor(c.resolved.schedule, c.resolved.settings, layout)) };
}

/** One capacity probe as the search reads it: its verdict, and the requests each tenant brought. */
export interface MeasuredProbe {
    probe: Capacity['probes'][number];
    /** Requests per tenant (session order). */
    requests: readonly number[];
    /** Some SLO had too few requests to bound its percentile (its verdict is invalid). */
    tooFew: boolean;
}

/** Measures one probe at `load` within `budgetMs`; undefined when the session failed or was cancelled. */
export type Prober = (load: number, budgetMs: number) => Promise<MeasuredProbe | undefined>;

/** searchCapacity on the session's schedule `s`: each probe a co-run measurement of the compiled session. */
async function searchSessionCapacity(session: RunSession, s: number, predictedLoad: number, budgetMs: number, context: ResultsContext): Promise<Capacity> {
    const prober: Prober = async (load, probeBudgetMs) => {
        // One tenant has no co-run: its capacity is measured alone.
        const m = await session.measure({ load, solo: session.tenants.length === 1, schedules: [s], budgetMs: probeBudgetMs });
        const ending = session.endingOf(m, s);
        if (ending.status === 'failed' || ending.status === 'cancelled') return undefined;
        const results = sessionResults(session, m, ending, s, context);
        return {
            probe: probeOf(results, load, m.elapsedMs),
            requests: results.tenants.map(t => (t.corun ?? t.solo)?.requests ?? 0),
            tooFew: results.tenants.some(t => t.slos.some(x => x.verdict === 'invalid')),
        };
    };
    return searchCapacity(prober, new ProbeCollection(session.tenants), predictedLoad, budgetMs);
}

/**
 * Bisection of the load: start at the predicted capacity; a met probe raises the floor (doubling
 * until one fails), any other lowers the ceiling (halving until one is met); then the geometric
 * middle until the bracket is within NARROW, MAX_PROBES were taken, or the budget is spent.
 *
 * A probe whose interval straddles a target (inconclusive) is measured once more at the same load
 * with twice the time: near an SLO's knee the percentile moves little with the load, and a short
 * probe's bounds straddled the target over a wide range of loads (critical_batch's concurrent
 * capacity came out 0.81×, 1.09× and 2.71× in three sessions). Twice the requests narrow the
 * bounds by about √2; if they still straddle, the load counts as not met: the capacity is one the
 * measurements show. The first probe is marked `remeasured`, and the bracket is the second's.
 *
 * A probe judges a percentile only from the requests it bounds (a p95 needs 59), and an
 * open-loop tenant at a lower load brings them more slowly: each probe is given the time its
 * SLO tenants need at its load to bring them (collectionMs: their rates × the load × the share
 * of a probe's time that requests arrive in, learnt from the probes so far), at least its share
 * of the budget. The search never starts, nor goes, below the lowest load whose requests the
 * budget left can bring (a prediction of 1/64 of the load would otherwise spend the whole
 * budget on probes that decide nothing); it stops there instead, budget reached. A probe that
 * still had too few requests decides nothing: the same load is measured again with twice the
 * time (marked `remeasured`), or the search stops there, budget reached.
 */
export async function searchCapacity(measure: Prober, collecting: ProbeCollection, predictedLoad: number, budgetMs: number, now: () => number = () => performance.now()): Promise<Capacity> {
    const started = now();
    const probes: Capacity['probes'] = [];
    let low = 0, high: number | null = null, throughputAtLow = 0, budgetReached = false;
    const left = () => budgetMs - (now() - started);
    // The first probe takes at most a third of the budget, so that the bisection has room after it.
    let load = clampLoad(Math.max(predictedLoad > 0 ? predictedLoad : 1, collecting.lowestLoad(budgetMs / 3)));
    let stretch = 1, straddledAgain = false;
    for (let n = 0; n < MAX_PROBES; n++) {
        const remaining = left();
        if (n > 0 && (remaining <= 0 || collecting.ms(load) > remaining)) { budgetReached = true; break; }
        const share = stretch * remaining / (MAX_PROBES - n);
        const probeBudget = Math.min(Math.max(1, remaining), Math.max(1, share, stretch * collecting.ms(load)));
        const measured = await measure(load, probeBudget);
        if (!measured) break;
        const { probe } = measured;
        probes.push(probe);
        collecting.learn(load, probe.elapsedMs, measured.requests);
        const last = n + 1 >= MAX_PROBES;
        if (probe.verdict === 'inconclusive' && measured.tooFew) {
            if (probeBudget >= remaining) { budgetReached = true; break; }
            if (last) break;
            probes[probes.length - 1] = { ...probe, remeasured: true };
            stretch *= 2;
            continue;
        }
        if (probe.verdict === 'inconclusive' && !straddledAgain && !last && probeBudget < remaining) {
            probes[probes.length - 1] = { ...probe, remeasured: true };
            straddledAgain = true;
            stretch *= 2;
            continue;
        }
        stretch = 1;
        straddledAgain = false;
        if (probe.verdict === 'met') {
            low = load;
            throughputAtLow = probe.throughputPerSecond;
        } else {
            high = Math.min(high ?? Infinity, load);
        }
        if (high !== null && low > 0 && high / low <= NARROW) break;
        const next = high === null ? load * 2 : low === 0 ? load / 2 : Math.sqrt(low * high);
        if (next < MIN_LOAD || next > MAX_LOAD) break;
        // Below the lowest load the budget left can judge, a probe would decide nothing.
        if (next < load && collecting.ms(next) > left()) { budgetReached = true; break; }
        load = next;
    }
    return { load: low, failedLoad: high, throughputPerSecond: throughputAtLow, predictedLoad, probes, budgetReached };
}

/**
 * How long a probe must run for its open-loop SLO tenants to bring the requests their SLO
 * percentiles need (rounds.ts requestsNeeded), at a load: requests arrive at the tenant's rate
 * × the load, but only during the rounds' measured windows — warm-up, drains and the host's
 * turns take the rest of a probe — so each is divided by the share of a probe's time that
 * brought requests, learnt from the probes measured (before the first, ASSUMED_ARRIVAL_SHARE).
 * Closed-loop tenants bring requests at the pace they are served, whatever the load: not counted.
 */
export class ProbeCollection {
    /** Per tenant, requests a probe brought per ms of probe per request/ms of its arrivals (0 when none measured yet). */
    private readonly arrivalShare: number[];
    constructor(private readonly tenants: readonly IrTenant[]) {
        this.arrivalShare = tenants.map(() => 0);
    }

    /** Open-loop requests per ms of a tenant at load 1 (0: closed loop, or no SLO to judge). */
    private ratePerMs(t: IrTenant): number {
        if (t.slos.length === 0) return 0;
        return t.arrival.kind === 'poisson' ? t.arrival.ratePerSecond / 1000 : t.arrival.kind === 'periodic' ? 1 / t.arrival.everyMs : 0;
    }

    /** Ms a probe needs at `load` for every SLO tenant to bring its requests. */
    ms(load: number): number {
        let most = 0;
        this.tenants.forEach((t, i) => {
            const rate = this.ratePerMs(t) * load;
            if (rate <= 0) return;
            most = Math.max(most, requestsNeeded(t, 0) / (rate * (this.arrivalShare[i] || ASSUMED_ARRIVAL_SHARE)));
        });
        return most;
    }

    /** The lowest load whose probe fits in `budgetMs` (ms(load) is inversely proportional to the load); no budget, no floor. */
    lowestLoad(budgetMs: number): number {
        return budgetMs > 0 ? this.ms(1) / budgetMs : 0;
    }

    /** What a probe at `load` brought in `elapsedMs` (requests per tenant). */
    learn(load: number, elapsedMs: number, requests: readonly number[]): void {
        this.tenants.forEach((t, i) => {
            const rate = this.ratePerMs(t) * load;
            if (rate <= 0 || elapsedMs <= 0 || requests[i] <= 0) return;
            this.arrivalShare[i] = Math.min(1, requests[i] / (rate * elapsedMs));
        });
    }
}

/** The share of a probe's time assumed to bring requests before one was measured (a warm-up round, then windows and drains). */
const ASSUMED_ARRIVAL_SHARE = 0.5;

const clampLoad = (load: number) => Math.min(MAX_LOAD, Math.max(MIN_LOAD, load));

/** Each schedule's capacity (`tenancy capacity`): co-runs only, one search per schedule in one session. */
export async function capacityWorkload(options: CompareOptions): Promise<CapacityReport> {
    const { ir } = options;
    if (!ir.tenants.some(t => t.slos.length > 0)) throw new CapacityInputError(`workload ${ir.workload} has no SLO: a capacity is the highest load at which every SLO holds; add one to a tenant, e.g. slo p99 <= 50ms`);
    const profile = options.profile ?? defaultProfile();
    const candidates = candidatesOf(ir, options, options.schedules ?? [ir.schedule]);
    const progress = new StagedProgress(event => options.onEvent?.(event));
    const { versions, shareWorkgroups, policies } = sessionSchedules(candidates, options);
    await saveCoTunedCache(options);
    const session = new RunSession({ ...options, profile, versions, shareWorkgroups, solo: false, onEvent: progress.onEvent }, policies, selectTenants(ir, options.tenants));
    const startedAt = new Date();
    const capacities: (Capacity | null)[] = candidates.map(() => null);
    const budgetMs = options.capacity?.budgetMs ?? DEFAULT_CAPACITY_BUDGET_MS;
    try {
        await session.openDevices();
        await session.plan();
        await session.compile();
        for (let s = 0; s < candidates.length && session.status === 'complete'; s++) {
            progress.stage(s / candidates.length, (s + 1) / candidates.length);
            const c = candidates[s];
            capacities[s] = await searchSessionCapacity(session, s, c.predicted.capacityLoad, budgetMs, { ...options, ...scheduleContext(c.resolved, versions) });
        }
    } catch (error) {
        session.stoppedBy(error);
    } finally {
        await session.close();
    }
    const { ending, adapter } = session.outcome();
    return {
        schemaVersion: CAPACITY_SCHEMA_VERSION, kind: 'capacity', status: ending.status, ...(ending.reason ? { reason: ending.reason } : {}),
        workload: ir.workload, sourceUri: ir.sourceUri, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(),
        adapter, irHash: irHash(ir), tenancyVersion: packageJson.version, cores: hostCores(), budgetMs,
        schedules: candidates.map((c, s) => ({
            name: c.resolved.name, asked: scheduleName(c.asked), ...(c.resolved.why ? { why: c.resolved.why } : {}),
            predicted: { qosThroughput: c.predicted.qosThroughput, capacityLoad: c.predicted.capacityLoad },
            capacity: capacities[s],
        })),
    };
}

/** Raised before measuring when schedules cannot share one session (they need different kernel versions). */
export class IncompatibleSchedulesError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'IncompatibleSchedulesError';
    }
}

/** A workload a capacity cannot be measured for (no SLO). */

export class CapacityInputError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'CapacityInputError';
    }
}
