/**
 * Runs a workload: one device per tenant (its own adapter and queue), compile, a SOLO phase per
 * tenant (alone on the GPU), then a CO-RUN phase (all tenants under the workload's schedule),
 * and the results document. The steps are a RunSession's (./session.ts). GPU failures and
 * cancellation end the run with partial results marked (status failed / cancelled); problems
 * with the input (no kernel for an op, a tensor that cannot fit, an unimplemented schedule) and
 * a missing adapter are thrown before any measurement. Every GPU object is released.
 */
import type { IrTenant, WorkloadIR } from '../ir/types.js';
import { irHash } from '../ir/hash.js';
import type { KernelProvider } from '../plan/plan.js';
import type { AdapterIdentity, TuningCache } from '../plan/tuning.js';
import type { AdapterPreference } from '../../protocol/adapter.js';
import { policyFor, RUNNABLE_SCHEDULES, ScheduleNotImplementedError } from '../schedule/policy.js';
import { firstShareVersion } from '../plan/versions.js';
import { resolveSchedule, type ResolvedSchedule } from '../predict/schedules.js';
import type { CoTunedStore } from '../predict/co-tuned.js';
import { coTunedVersionRule } from '../schedule/co-tuned.js';
import { defaultProfile, type DeviceProfile } from '../predict/profile.js';
import { buildResults, type TenantPhaseData } from '../report/build.js';
import type { Results } from '../report/schema.js';
import type { AdapterTuningCache } from '../tune/cache.js';
import type { TuneOptions } from '../tune/tuner.js';
import type { RunEvent } from './events.js';
import { RunSession, type MeasuredRounds, type SessionEnding } from './session.js';
import { opSummaries, versionVariants } from './summarize.js';
import { hostCores, stealBetween } from './host.js';
import { timeReferenceRequest } from '../calibrate/calibrate.js';
import packageJson from '../../../package.json' with { type: 'json' };

export interface RunWorkloadOptions {
    ir: WorkloadIR;
    /** Overrides the workload's `device` preference. */
    adapter?: AdapterPreference;
    /** Override the benchmark's measured duration, warm-up, or switch to request-count mode. */
    durationMs?: number;
    warmupMs?: number;
    requests?: number;
    /** Run only these tenants (a single one runs solo only). */
    tenants?: string[];
    /** Phases to run (default: solo, and co-run when there are two or more tenants). */
    solo?: boolean;
    corun?: boolean;
    signal?: AbortSignal;
    onEvent?: (event: RunEvent) => void;
    /** Tuned variant choices (ignored when `tune` is given: it loads the run adapter's cache). */
    tuning?: TuningCache;
    /**
     * The measured tuning cache. `load` returns the cache of the run's adapter (it replaces
     * `tuning`); with `measure`, signatures the cache lacks are timed on the first tenant's
     * device before compiling (phase 'tune') and the cache is saved.
     */
    tune?: {
        load: (adapter: AdapterIdentity) => Promise<AdapterTuningCache>; measure: boolean; onWarning?: (message: string) => void;
        /** Candidate variants per op (default tune/tuner.ts shortlistFor; tests narrow it). */
        candidates?: TuneOptions['candidates'];
    };
    /** The device profile schedules predict op times with (`layer_block(size: auto)`); default: the uncalibrated default. */
    profile?: DeviceProfile;
    /** Fusion pass on (default) or off. */
    fusion?: boolean;
    /** 'auto' uses GPU timestamps when the adapter has them; 'cpu' forces per-op CPU timing. */
    timing?: 'auto' | 'cpu';
    /** Kernel generators (default src/runtime/kernels). */
    kernels?: KernelProvider;
    /** Limit for one submission to finish (default 60 s). */
    stepTimeoutMs?: number;
    /** Compile hot ops in layer_block's tolerant versions and let the schedule switch them (default: under layer_block). */
    versions?: boolean;
    /**
     * co_tuned's searched configurations for the profile's adapter (tune/co-tuned-cache.ts): a
     * stored one skips the search; a new one is recorded and the cache saved (a failure to save
     * goes to `onWarning`).
     */
    coTunedCache?: { store: CoTunedStore; save: () => Promise<unknown>; onWarning?: (message: string) => void };
    /** Compile hot ops in co_tuned's share versions too, capped at these workgroups (set from the resolved co_tuned schedule). */
    shareWorkgroups?: readonly number[];
    /** Overrides of the benchmark block: measured rounds, the budget of the whole measurement, requests each tenant needs per phase. */
    rounds?: number;
    budgetMs?: number;
    minRequests?: number;
    /** The predictions shown when the run started, copied into the results. */
    predictions?: unknown;
    /** × every tenant's declared traffic (default 1): a sweep's cell at another load. */
    load?: number;
    /**
     * Time the calibration's reference request before measuring and record it in the results
     * (host.referenceRequestMs, about half a second on a software adapter): how fast the host ran
     * against the profile the predictions were made on, so a comparison can tell the model's
     * error from the host's speed that day. Default off.
     */
    timeHostSpeed?: boolean;
    /**
     * The seed of arrivals and weights (default the benchmark block's). The schedule is still
     * resolved on the IR as written, so runs with different seeds run the same schedule.
     */
    seed?: number;
}

/** Runs the workload and returns its results (see the module comment for what throws). */
export async function runWorkload(options: RunWorkloadOptions): Promise<Results> {
    return (await runWorkloadRounds(options)).results;
}

/** What each tenant measured, round by round (solo and co-run), beside the results built from it. */
export interface TenantRounds {
    name: string;
    solo: readonly (TenantPhaseData | undefined)[];
    corun: readonly (TenantPhaseData | undefined)[];
}

/** Runs the workload like runWorkload and also returns the rounds its results were built from (a sweep's cell keeps them to pool repeats). */
export async function runWorkloadRounds(options: RunWorkloadOptions): Promise<{ results: Results; rounds: TenantRounds[] }> {
    const { ir } = options;
    // `auto` and a schedule's `auto` arguments, resolved on the profile the editor predicts with: the runtime runs what it predicted.
    const profile = options.profile ?? defaultProfile();
    if (!RUNNABLE_SCHEDULES.includes(ir.schedule.policy)) throw new ScheduleNotImplementedError(ir.schedule.policy);
    const resolved = resolveSchedule(ir, profile, { coTunedStore: options.coTunedCache?.store });
    await saveCoTunedCache(options);
    const versions = options.versions ?? resolved.schedule.policy === 'layer_block';
    const shareWorkgroups = resolved.settings.coTuned?.workgroups;
    const policy = policyFor(resolved.schedule, resolved.settings, { firstShareVersion: firstShareVersion({ tolerant: versions }) });
    const session = new RunSession({ ...options, profile, versions, shareWorkgroups }, [policy], selectTenants(ir, options.tenants));
    let referenceRequestMs: number | undefined;
    try {
        if (options.timeHostSpeed) referenceRequestMs = await hostReference(options.adapter ?? ir.device.preference, session.signal);
        await session.openDevices();
        await session.plan();
        await session.compile();
        await session.measure({ load: options.load });
    } catch (error) {
        session.stoppedBy(error);
    } finally {
        await session.close();
    }
    const { ending, measured } = session.outcome();
    const results = sessionResults(session, measured, ending, 0, { ...options, ir, ...scheduleContext(resolved, versions), referenceRequestMs });
    const rounds = session.tenants.map((t, i) => ({ name: t.name, solo: measured.solo[i] ?? [], corun: measured.corun[0]?.tenants[i] ?? [] }));
    return { results, rounds };
}

/**
 * The reference request's time before a run (RunWorkloadOptions.timeHostSpeed), on a device of
 * its own before the tenants' open, on the host as the run finds it. Best effort: a figure beside
 * the measurement, so an adapter that cannot time it (no GPU timestamps) runs without it; a
 * cancellation still stops the run.
 */
async function hostReference(preference: AdapterPreference, signal: AbortSignal): Promise<number | undefined> {
    try {
        return await timeReferenceRequest(preference, signal);
    } catch (error) {
        if (signal.aborted) throw error;
        return undefined;
    }
}

/** Saves the co_tuned cache after schedules were resolved (a failure is a warning: the cache only saves a search). */
export async function saveCoTunedCache(options: Pick<RunWorkloadOptions, 'coTunedCache'>): Promise<void> {
    const cache = options.coTunedCache;
    if (!cache) return;
    try {
        await cache.save();
    } catch (error) {
        cache.onWarning?.(`could not save the co_tuned cache: ${error instanceof Error ? error.message : String(error)}`);
    }
}

/** What a results document needs beyond the session's measurement: the run's options and the schedule that ran. */
export interface ResultsContext extends Pick<RunWorkloadOptions, 'ir' | 'fusion' | 'durationMs' | 'predictions'> {
    policy: string;
    scheduleWhy?: string;
    versionRule?: string;
    /** The reference request timed before the measurement (RunWorkloadOptions.timeHostSpeed), ms. */
    referenceRequestMs?: number;
}

/** What the results say of a resolved schedule: its name, why it runs so, and (co_tuned) the versions it runs; `tolerant`: the session compiles layer_block's versions too. */
export function scheduleContext(resolved: ResolvedSchedule, tolerant: boolean): Pick<ResultsContext, 'policy' | 'scheduleWhy' | 'versionRule'> {
    const coTuned = resolved.settings.coTuned;
    return {
        policy: resolved.name, ...(resolved.why ? { scheduleWhy: resolved.why } : {}),
        ...(coTuned ? { versionRule: coTunedVersionRule(coTuned, firstShareVersion({ tolerant })) } : {}),
    };
}

/** The results document of a session's measurement: its solo phases and the co-runs of schedule `s` (report/build.ts). */
export function sessionResults(session: RunSession, measured: MeasuredRounds, ending: SessionEnding, s: number, context: ResultsContext): Results {
    const { plans, adapter } = session.outcome(false);
    const { ir } = context;
    const { hostBefore: before, hostAfter: after } = measured;
    const corun = measured.corun[s];
    const splits = session.opSplitsRan(s);
    return buildResults({
        ir, irHash: irHash(ir), adapter, policy: context.policy, ...(context.scheduleWhy ? { scheduleWhy: context.scheduleWhy } : {}),
        ...(context.versionRule ? { versionRule: context.versionRule } : {}),
        seed: session.seed, ...(measured.load !== 1 ? { load: measured.load } : {}), timing: session.timing, fusion: context.fusion ?? true,
        tenancyVersion: packageJson.version, startedAt: session.startedAt, finishedAt: new Date(),
        status: ending.status, reason: ending.reason, failedOp: ending.failedOp,
        tenants: session.tenants.map((tenant, i) => ({
            tenant,
            ops: plans[i] ? opSummaries(plans[i], splits[i]) : [],
            versions: plans[i] ? versionVariants(plans[i]) : [],
            memoryBytes: plans[i]?.totalBytes ?? 0,
            solo: measured.solo[i],
            corun: corun?.tenants[i] ?? [],
        })),
        corunRuns: corun?.runs ?? [],
        timeline: corun?.timeline ?? null,
        measurement: {
            plannedRounds: session.protocol.rounds, rounds: measured.rounds,
            roundMs: session.protocol.roundMs ?? null,
            warmupMs: session.protocol.warmup.warmupMs, budgetMs: session.protocol.budgetMs, budgetReached: measured.budgetReached,
            extendedRounds: measured.extendedRounds, ...(measured.note ? { note: measured.note } : {}), elapsedMs: measured.elapsedMs,
        },
        host: {
            loadBefore: before?.load ?? null, loadAfter: after?.load ?? null, cores: hostCores(),
            stealFraction: before && after ? stealBetween(before, after) : null,
            ...(context.referenceRequestMs !== undefined ? { referenceRequestMs: context.referenceRequestMs } : {}),
        },
        minRequests: session.protocol.minRequests,
        requests: session.protocol.requests,
        durationMs: context.durationMs,
        predictions: context.predictions,
    });
}

/** The tenants a run measures: all, or those named (in that order). */
export function selectTenants(ir: WorkloadIR, names: string[] | undefined): IrTenant[] {
    if (!names || names.length === 0) return ir.tenants;
    return names.map(name => {
        const t = ir.tenants.find(x => x.name === name);
        if (!t) throw new Error(`workload ${ir.workload} has no tenant "${name}"; its tenants are ${ir.tenants.map(x => x.name).join(', ')}`);
        return t;
    });
}
