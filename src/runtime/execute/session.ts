/**
 * One run of a workload as a session with named steps, each reading what the one before left:
 *
 *   openDevices → plan (and tune) → compile → measure (rounds of solo and co-run phases) → close → results
 *
 * The session owns the run's state (devices, plans, compiled tenants, the phases' data, how the
 * run ended) so that no step shares loose locals with another. A GPU failure or a cancellation
 * during a step ends the run with what was measured so far (status failed / cancelled); a problem
 * with the input or the environment before anything was measured is thrown to the caller.
 */
import { readFileSync } from 'node:fs';
import type { IrTenant } from '../ir/types.js';
import { kernelsFor } from '../kernels/index.js';
import { capsFromDevice } from '../gpu/adapter.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { createRandom } from '../plan/random.js';
import type { KernelProvider } from '../plan/plan.js';
import { planWorkload, type RunnableOp, type TenantPlan, type TenantPlanOptions } from '../plan/tenant-plan.js';
import { adapterKey, type TuningCache } from '../plan/tuning.js';
import { compileTenant, type CompiledTenant } from '../gpu/compile.js';
import { openGpu, requestTenantDevice, type AdapterPreference, type TenantDevice } from '../gpu/adapter.js';
import { GpuRunError, TenantRunner, type StepLayout } from '../gpu/tenant-runner.js';
import { withTimeout } from '../gpu/wait.js';
import { defaultProfile } from '../predict/profile.js';
import { opViews, stepViews, versionViews } from '../predict/op-views.js';
import type { OpSplit } from '../plan/split.js';
import { opServiceMs } from '../predict/latency.js';
import { versionsOfHotOps } from '../plan/versions.js';
import type { OpView, SchedulePolicy } from '../schedule/policy.js';
import type { Results, RunStatus } from '../report/schema.js';
import type { TenantPhaseData } from '../report/build.js';
import type { AdapterTuningCache } from '../tune/cache.js';
import { missingTargets } from '../tune/plan-tuning.js';
import { tuneTargets } from '../tune/tuner.js';
import type { RunEvent, RunPhase } from './events.js';
import { runPhase, type PhaseRecord, type PhaseTenant } from './phase.js';
import { summarizePhase, type OpRun } from './summarize.js';
import { scaledArrival } from '../predict/simulate.js';
import { hostSnapshot, type HostSnapshot } from './host.js';
import { measurementPlan, requestsNeeded, roundsToAdd, MIN_ROUNDS, type MeasurementPlan } from './rounds.js';
import { formatMs } from '../../protocol/units.js';
import type { RunWorkloadOptions } from './run.js';

/** What one measurement runs (RunSession.measure). */
export interface MeasureOptions {
    /** × every tenant's declared traffic (default 1). */
    load?: number;
    /** Measure each tenant alone too (default: the run's option). */
    solo?: boolean;
    /** The cap on this measurement, ms (default: the run's budget). */
    budgetMs?: number;
    /** The schedules (indices into the session's) whose co-runs it measures (default: all). */
    schedules?: readonly number[];
}

/** How a session's run ended so far, and why when it did not complete. */
export interface SessionEnding {
    status: RunStatus;
    reason?: string;
    failedOp?: string;
}

/** What one schedule's co-run phases gave over the rounds. */
export interface MeasuredCorun {
    /** Per tenant, indexed by measured round. */
    tenants: (TenantPhaseData | undefined)[][];
    /** Per round, every kernel run of every tenant's measured requests (attribution). */
    runs: (OpRun[] | undefined)[];
    /** The kernel timeline of the first measured round (what the report draws). */
    timeline: Results['timeline'];
    /** Why one of its phases stopped at its time limit with requests still queued (overload), if one did. */
    overloaded?: string;
}

/** What the measured rounds gave: per tenant, one entry per round of its solo phase; per schedule, its co-run phases. */
export interface MeasuredRounds {
    /** The load the tenants ran at (× their declared traffic). */
    load: number;
    /** Indexed by measured round (a round a cancellation cut short may lack one side). */
    solo: (TenantPhaseData | undefined)[][];
    /** One per schedule measured, in the session's order. */
    corun: MeasuredCorun[];
    /** Why a solo phase stopped at its time limit with requests still queued (overload), if one did. */
    overloaded?: string;
    /** Rounds measured, added beyond the plan, and whether the budget stopped the run short. */
    rounds: number;
    extendedRounds: number;
    budgetReached: boolean;
    note?: string;
    elapsedMs: number;
    hostBefore?: HostSnapshot;
    hostAfter?: HostSnapshot;
}

/** Overall progress: compile 5 %, each phase of each round an equal share of 93 %, the report the rest. Monotonic. */
class RunProgress {
    private unitsDone = 0;
    private last = 0;
    /** The round under way (0: the warm-up round) and the rounds planned. */
    round = 0;
    constructor(private units: number, private rounds: number, private readonly emit: (event: RunEvent) => void) {}

    /** A fraction of the current phase is done. */
    phase(phase: RunPhase, fraction: number, tenant?: string): void {
        this.report(0.05 + 0.93 * (this.unitsDone + fraction) / Math.max(1, this.units), phase, tenant);
    }

    /** Rounds were added (their phases join the total). */
    extend(rounds: number, unitsPerRound: number): void {
        this.rounds += rounds;
        this.units += rounds * unitsPerRound;
    }

    /** A fraction of the compile step is done (its 5 %). */
    compiling(fraction: number): void {
        this.report(0.05 * fraction, 'compile');
    }

    /** A fraction of tuning is done (tuning shares compile's 5 %). */
    tuning(fraction: number): void {
        this.report(0.05 * fraction, 'tune');
    }

    /** One measured phase is finished. */
    phaseDone(): void { this.unitsDone++; }

    private report(fraction: number, phase: RunPhase, tenant?: string): void {
        if (!Number.isFinite(fraction)) return; // one NaN would hold every later fraction at NaN (Math.max)
        this.last = Math.min(1, Math.max(this.last, fraction));
        const round = phase === 'solo' || phase === 'corun' ? { round: this.round, rounds: this.rounds } : {};
        this.emit({ type: 'progress', fraction: Number(this.last.toFixed(4)), phase, ...(tenant ? { tenant } : {}), ...round });
    }
}

export class RunSession {
    readonly startedAt = new Date();
    readonly tenants: readonly IrTenant[];
    /** The rounds, their arrivals and the budget (./rounds.ts). */
    readonly protocol: MeasurementPlan;
    /**
     * Hard end of a phase, ms since its start (overload, request-count mode): its arrivals' window,
     * plus room for the requests in flight at its end to finish (the longest predicted request
     * several times over, at least 2 s). Set once the plans are known.
     */
    private maxPhaseMs = Infinity;
    readonly measureSolo: boolean;
    readonly measureCorun: boolean;
    /** The seed of arrivals and weights: the caller's, else the benchmark block's. */
    readonly seed: number;
    timing: Results['config']['timing'];

    private readonly emit: (event: RunEvent) => void;
    private progress: RunProgress;
    /** Aborted by the caller's signal, or by a failure (so every wait stops). */
    private readonly internal = new AbortController();
    private readonly onCallerAbort = () => this.internal.abort(new Error('cancelled'));
    private readonly ending: SessionEnding = { status: 'complete' };
    private gpu: GPU | undefined;
    private closing = false;
    private devices: TenantDevice[] = [];
    private caps: DeviceCaps | undefined;
    private plans: TenantPlan[] = [];
    private compiled: CompiledTenant[] = [];
    private runners: TenantRunner[] = [];
    /** Per tenant, what schedules read of its plan (built once, on the profile the run predicts with). */
    private views: OpView[][] = [];
    /** Per tenant, per version of its multi-version kernels, the views as that version runs them (index 0: `views`). */
    private versionOps: OpView[][][] = [];
    /** Per schedule and tenant, its step layout and step views (per version) when the schedule splits that tenant's ops (built on first use). */
    private readonly stepPlans = new Map<SchedulePolicy, ({ layout: StepLayout; views: OpView[]; versionOps: OpView[][] } | undefined)[]>();
    private measured: MeasuredRounds;
    /** What the measurement under way runs: solo phases or not, and its budget. */
    private current: { solo: boolean; budgetMs: number; schedules: readonly number[] };
    private measurements = 0;

    /**
     * `schedules`: the schedules whose co-run phases each round runs (one for a run; several for
     * `tenancy compare`, interleaved so that host drift hits them alike).
     */
    constructor(private readonly options: RunWorkloadOptions, private readonly schedules: readonly SchedulePolicy[], tenants: readonly IrTenant[]) {
        const { ir } = options;
        this.tenants = tenants;
        this.seed = options.seed ?? ir.benchmark.seed;
        this.measureSolo = options.solo ?? true;
        this.measureCorun = (options.corun ?? true) && tenants.length > 1;
        this.protocol = measurementPlan(ir.benchmark, options, this.phasesPerRound);
        this.timing = options.timing === 'cpu' ? 'cpu-per-op' : 'gpu-timestamps';
        this.emit = event => options.onEvent?.(event);
        this.current = { solo: this.measureSolo, budgetMs: this.protocol.budgetMs, schedules: schedules.map((_, i) => i) };
        this.progress = this.newProgress();
        this.measured = this.freshMeasurement(1);
        if (options.signal?.aborted) this.onCallerAbort();
        options.signal?.addEventListener('abort', this.onCallerAbort);
    }

    get signal(): AbortSignal { return this.internal.signal; }
    get status(): RunStatus { return this.ending.status; }

    /** Step 1: one device per tenant (its own adapter and queue), each watched for loss and stray errors. */
    async openDevices(): Promise<void> {
        this.emit({ type: 'phase', phase: 'compile' });
        this.gpu = openGpu();
        const preference: AdapterPreference = this.options.adapter ?? this.options.ir.device.preference;
        for (const tenant of this.tenants) {
            const d = await withTimeout(requestTenantDevice(this.gpu, preference, `tenancy/${tenant.name}`, { timestamps: this.options.timing !== 'cpu' }),
                30_000, `requesting a device for tenant ${tenant.name}`, this.options.signal);
            this.devices.push(d);
            void d.device.lost.then(info => {
                if (!this.closing) this.fail(new GpuRunError(`the device of tenant ${tenant.name} was lost (${info.reason}): ${info.message}`, undefined, tenant.name));
            });
            d.device.addEventListener('uncapturederror', event => {
                this.fail(new GpuRunError(`tenant ${tenant.name}: GPU error outside any checked scope: ${(event as GPUUncapturedErrorEvent).error.message}`, undefined, tenant.name));
            });
        }
        if (this.devices.some(d => !d.timestamps)) this.timing = 'cpu-per-op';
        // Kernels are planned once for every tenant's device: the smallest buffer limits of them all.
        const caps = capsFromDevice(this.devices[0].device);
        for (const d of this.devices.slice(1)) {
            const c = capsFromDevice(d.device);
            caps.maxStorageBufferBindingSize = Math.min(caps.maxStorageBufferBindingSize, c.maxStorageBufferBindingSize);
            caps.maxBufferSize = Math.min(caps.maxBufferSize, c.maxBufferSize);
        }
        this.caps = caps;
    }

    /**
     * Step 2: every tenant's plan on shapes (a tensor or plan that cannot fit is rejected before
     * any allocation), with the adapter's tuned variants; with `tune.measure`, the variants of
     * signatures the cache lacks are timed first on the first tenant's device and the cache saved.
     */
    async plan(): Promise<void> {
        const tune = this.options.tune;
        let tuning: TuningCache | undefined = this.options.tuning;
        if (tune) {
            const cache = await tune.load(this.devices[0].adapter);
            tuning = cache;
            if (tune.measure) await this.tuneMissing(this.planAll(tuning), cache);
        }
        this.plans = this.planAll(tuning);
        const profile = this.options.profile ?? defaultProfile();
        this.views = this.plans.map(p => opViews(p.ops, profile));
        this.versionOps = this.plans.map((p, i) => versionViews(p.ops, p.versions, profile, undefined, this.views[i]));
        const { roundMs, warmup } = this.protocol;
        const window = Math.max(roundMs ?? 0, warmup.warmupMs);
        const longestRequestMs = Math.max(0, ...this.views.map(v => v.reduce((s, o) => s + (o.predictedMs ?? 0), 0)));
        const drain = Math.max(2_000, window, 5 * longestRequestMs);
        this.maxPhaseMs = roundMs === undefined ? warmup.warmupMs + Math.max(120_000, 20 * this.options.ir.benchmark.durationMs, 20 * drain) : window + drain;
    }

    /**
     * Step 3: GPU objects per tenant (weights, buffers, pipelines), each op run once under error
     * scopes. The tenants compile at once, each on its own device: a software adapter compiles a
     * pipeline at its first dispatch, on its device's thread, so a first run of two tenants
     * compiles on two cores.
     */
    async compile(): Promise<void> {
        const stepTimeoutMs = this.stepTimeoutMs;
        const total = this.plans.reduce((s, p) => s + p.ops.length, 0);
        const done = this.plans.map(() => 0);
        const settled = await Promise.allSettled(this.plans.map(async (plan, i) => {
            try {
                return await compileTenant(this.devices[i].device, plan, this.seed, {
                    signal: this.signal, timeoutMs: stepTimeoutMs,
                    onOp: n => {
                        done[i] = n;
                        if (!this.signal.aborted) this.progress.compiling(done.reduce((s, d) => s + d, 0) / Math.max(1, total));
                    },
                });
            } catch (error) {
                // The plan was accepted; a failure here is the GPU's (validation, memory): a failed run, which stops the other tenants' compiles.
                if (!this.signal.aborted) this.fail(error);
                throw error;
            }
        }));
        const failed = settled.find(r => r.status === 'rejected');
        if (failed) {
            for (const r of settled) if (r.status === 'fulfilled') r.value.destroy();
            throw failed.reason;
        }
        for (const r of settled as PromiseFulfilledResult<CompiledTenant>[]) {
            this.compiled.push(r.value);
            this.runners.push(new TenantRunner(r.value, this.timing, stepTimeoutMs));
        }
        this.progress.compiling(1);
    }

    private freshMeasurement(load: number): MeasuredRounds {
        return {
            load, solo: this.tenants.map(() => []), corun: this.schedules.map(() => ({ tenants: this.tenants.map(() => []), runs: [], timeline: null })),
            rounds: 0, extendedRounds: 0, budgetReached: false, elapsedMs: 0,
        };
    }

    /**
     * Step 4: the rounds (./rounds.ts): a warm-up round whose requests are discarded, the planned
     * rounds, then rounds added until every tenant has the requests its SLOs need, within the
     * budget. Stops early when cancelled or failed. Each call starts a fresh measurement of the
     * compiled tenants: capacity probes measure one session at several loads (`load` scales every
     * tenant's traffic), co-run phases only, each probe with its share of the budget.
     */
    async measure(options: MeasureOptions = {}): Promise<MeasuredRounds> {
        const started = performance.now();
        const m = this.measured = this.freshMeasurement(options.load ?? 1);
        this.current = { solo: options.solo ?? this.measureSolo, budgetMs: options.budgetMs ?? this.protocol.budgetMs, schedules: options.schedules ?? this.schedules.map((_, i) => i) };
        if (this.measurements++ > 0) this.progress = this.newProgress();
        m.hostBefore = hostSnapshot();
        try {
            await this.measureRounds(m, started);
        } finally {
            m.elapsedMs = performance.now() - started;
            m.hostAfter = hostSnapshot();
        }
        return m;
    }

    private async measureRounds(m: MeasuredRounds, started: number): Promise<void> {
        // A warm-up of no length is no warm-up round: `benchmark { warmup 0 }` skips it.
        if (this.protocol.warmup.warmupMs > 0 && await this.round(-1)) return;
        const roundTimes: number[] = [];
        const overBudget = () => {
            const spent = performance.now() - started;
            const next = roundTimes.length ? roundTimes.reduce((a, b) => a + b, 0) / roundTimes.length : 0;
            return m.rounds >= MIN_ROUNDS && spent + next > this.current.budgetMs;
        };
        const measureRound = async () => {
            const t0 = performance.now();
            const stop = await this.round(m.rounds);
            roundTimes.push(performance.now() - t0);
            m.rounds++;
            return stop;
        };
        for (let r = 0; r < this.protocol.rounds; r++) {
            if (overBudget()) {
                m.budgetReached = true;
                m.note = `the budget of ${formatMs(this.current.budgetMs)} stopped the run after ${m.rounds} of ${this.protocol.rounds} rounds`;
                return;
            }
            if (await measureRound()) return;
        }
        const needs = () => this.tenants.map((t, i) => {
            // The judged phase: every schedule's co-run (its fewest requests), or solo for one tenant.
            const phases = this.measureCorun ? this.current.schedules.map(s => m.corun[s].tenants[i]) : [m.solo[i]];
            const phase = phases.reduce((a, b) => (b.reduce((x, d) => x + (d?.latenciesMs.length ?? 0), 0) < a.reduce((x, d) => x + (d?.latenciesMs.length ?? 0), 0) ? b : a));
            return { tenant: t.name, needed: requestsNeeded(t, this.protocol.minRequests), measured: phase.reduce((a, d) => a + (d?.latenciesMs.length ?? 0), 0), rounds: m.rounds };
        });
        const wanted = roundsToAdd(needs());
        if (wanted === 0) return;
        const short = needs().filter(n => n.measured < n.needed).map(n => `${n.tenant} had ${n.measured} of the ${n.needed} requests it needs`).join('; ');
        this.progress.extend(Number.isFinite(wanted) ? wanted : 1, this.phasesPerRound);
        while (roundsToAdd(needs()) > 0) {
            if (overBudget()) {
                m.budgetReached = true;
                break;
            }
            if (await measureRound()) return;
            m.extendedRounds++;
        }
        const still = needs().filter(n => n.measured < n.needed);
        m.note = `extended by ${m.extendedRounds} round${m.extendedRounds === 1 ? '' : 's'} (${short})` +
            (still.length ? `; the budget of ${formatMs(this.current.budgetMs)} stopped it with ${still.map(n => `${n.tenant} at ${n.measured} of ${n.needed}`).join(', ')}` : '');
    }

    /**
     * One round: every tenant alone, then all co-running under each schedule. Round −1 is the
     * warm-up (nothing kept). Odd rounds run their phases in reverse order. True when the run must stop.
     */
    private async round(round: number): Promise<boolean> {
        this.progress.round = round + 1;
        const phases: (() => Promise<boolean>)[] = [];
        if (this.current.solo) for (let i = 0; i < this.tenants.length; i++) phases.push(() => this.soloPhase(i, round));
        if (this.measureCorun) for (const s of this.current.schedules) phases.push(() => this.corunPhase(s, round));
        if (round % 2 === 1) phases.reverse();
        for (const phase of phases) if (await phase()) return true;
        return false;
    }

    /**
     * Records why a step threw: a GPU failure or cancellation ends the run with partial results;
     * anything else before measurement (input, environment) is rethrown.
     */
    stoppedBy(error: unknown): void {
        if (this.ending.status === 'failed') return;
        if (this.signal.aborted && this.options.signal?.aborted) {
            this.ending.status = 'cancelled';
            return;
        }
        throw error;
    }

    /**
     * Step 5: release every GPU object. Nothing the queues may still use is freed first: a
     * cancelled phase stops waiting for its in-flight requests after 500 ms, and destroying
     * buffers and devices under running work has aborted the process inside the software driver.
     * Bounded, so a wedged queue cannot hang the run.
     */
    async close(): Promise<void> {
        this.closing = true;
        this.options.signal?.removeEventListener('abort', this.onCallerAbort);
        await Promise.all(this.devices.map(d => withTimeout(d.device.queue.onSubmittedWorkDone(), 2000, 'the queue to drain').catch(() => undefined)));
        for (const r of this.runners) r.destroy();
        for (const c of this.compiled) c.destroy();
        for (const d of this.devices) d.device.destroy();
        this.gpu = undefined;
    }

    /** What the run measured, per tenant and phase, and how it ended (for report/build.ts); `report`: say that the report phase began. */
    outcome(report = true): { ending: Readonly<SessionEnding>; plans: readonly TenantPlan[]; measured: Readonly<MeasuredRounds>; adapter: TenantDevice['adapter'] | null } {
        if (report) this.emit({ type: 'phase', phase: 'report' });
        return { ending: this.endingOf(this.measured), plans: this.plans, measured: this.measured, adapter: this.devices[0]?.adapter ?? null };
    }

    /** How a measurement ended (for schedule `s`): the run's failure or cancellation, else partial when one of its phases was overloaded. */
    endingOf(m: MeasuredRounds, s = 0): SessionEnding {
        if (this.ending.status === 'cancelled') return { ...this.ending, reason: this.ending.reason ?? 'cancelled (SIGINT/SIGTERM or the caller\'s signal)' };
        if (this.ending.status === 'failed') return this.ending;
        const overloaded = m.overloaded ?? m.corun[s]?.overloaded;
        return overloaded ? { status: 'partial', reason: overloaded } : { status: 'complete' };
    }

    /** Phases in one round of the measurement under way: each tenant alone (when measured solo) and a co-run per schedule. */
    get phasesPerRound(): number {
        return ((this.current?.solo ?? this.measureSolo) ? this.tenants.length : 0) + (this.measureCorun ? (this.current?.schedules.length ?? this.schedules.length) : 0);
    }

    /** Progress of one measurement: its warm-up round and planned rounds of phases. */
    private newProgress(): RunProgress {
        return new RunProgress(((this.protocol.warmup.warmupMs > 0 ? 1 : 0) + this.protocol.rounds) * this.phasesPerRound, this.protocol.rounds, this.emit);
    }

    /** The load of the measurement under way, for its phase events, when it is not the declared one. */
    private get loadField(): { load?: number } {
        return this.measured.load !== 1 ? { load: Number(this.measured.load.toFixed(4)) } : {};
    }

    private get stepTimeoutMs(): number { return this.options.stepTimeoutMs ?? 60_000; }

    private planAll(tuning: TuningCache | undefined): TenantPlan[] {
        const caps = this.caps!;
        const kernels: KernelProvider = this.options.kernels ?? { kernelsFor };
        const profile = this.options.profile ?? defaultProfile();
        const options: TenantPlanOptions = {
            kernels, caps, tuning, adapterKey: adapterKey(this.devices[0].adapter), fusion: this.options.fusion ?? true, onTuningWarning: this.options.tune?.onWarning,
            limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
            // Multi-version kernels where a schedule switches them (layer_block's tolerant versions, co_tuned's shares): the hot ops by predicted time.
            ...(this.options.versions || this.options.shareWorkgroups ? {
                versions: versionsOfHotOps(ops => ops.map(op => opServiceMs(profile, op) ?? 0), { tolerant: this.options.versions ?? false, shareWorkgroups: this.options.shareWorkgroups }),
            } : {}),
        };
        // Ops the session's schedules split into chunks: each distinct split of an op compiled once.
        const splitsOf = (tenant: string) => (op: RunnableOp): OpSplit[] => {
            const asked = this.schedules.flatMap(p => {
                const s = p.opSplits?.[tenant]?.[op.path];
                return s && s.chunks > 1 ? [s] : [];
            });
            return asked.filter((s, k) => asked.findIndex(o => o.axis === s.axis && o.chunks === s.chunks) === k);
        };
        return planWorkload(this.tenants, t => ({ ...options, splits: splitsOf(t.name), onSplitWarning: this.options.tune?.onWarning }), this.options.ir.device.memoryBytes);
    }

    /** Times the variants of signatures the cache lacks (before compile, within the first 5 % of progress); never stops the run. */
    private async tuneMissing(plans: TenantPlan[], cache: AdapterTuningCache): Promise<void> {
        const caps = this.caps!;
        const onWarning = this.options.tune?.onWarning;
        const missing = missingTargets(plans, cache, { caps, candidates: this.options.tune?.candidates });
        if (missing.length === 0) return;
        this.emit({ type: 'phase', phase: 'tune' });
        try {
            await tuneTargets(missing, cache, {
                device: this.devices[0].device, caps, kernels: this.options.kernels, signal: this.signal, loadAverage: hostLoad,
                candidates: this.options.tune?.candidates, onProgress: (done, total) => this.progress.tuning(done / total),
            });
        } catch (error) {
            if (this.signal.aborted) throw error;
            onWarning?.(`tuning stopped (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); ops not yet tuned use their default variants`);
        } finally {
            this.emit({ type: 'phase', phase: 'compile' }); // back to compiling, now with the tuned choices
            try {
                await cache.save();
            } catch (error) {
                onWarning?.(`could not save the tuning cache ${cache.path}: ${error instanceof Error ? error.message : String(error)}`);
            }
        }
    }

    /** Tenant i alone for one round; true when the run must stop. */
    private async soloPhase(i: number, round: number): Promise<boolean> {
        const name = this.tenants[i].name;
        this.emit({ type: 'phase', phase: 'solo', tenant: name, round: round + 1, ...this.loadField });
        const record = await this.runPhase([i], round, f => this.progress.phase('solo', f, name));
        if (round >= 0) this.measured.solo[i][round] = (await summarizePhase(record, [this.runners[i]], false)).tenants[0];
        return this.finishPhase(record, `solo phase of ${name}`);
    }

    /** All tenants co-running under schedule s for one round; true when the run must stop. */
    private async corunPhase(s: number, round: number): Promise<boolean> {
        this.emit({ type: 'phase', phase: 'corun', round: round + 1, ...(this.schedules.length > 1 ? { schedule: this.schedules[s].name } : {}), ...this.loadField });
        const record = await this.runPhase(this.tenants.map((_, i) => i), round, f => this.progress.phase('corun', f), this.schedules[s]);
        if (round >= 0) {
            const summary = await summarizePhase(record, this.runners, true);
            const c = this.measured.corun[s];
            summary.tenants.forEach((d, i) => { c.tenants[i][round] = d; });
            c.runs[round] = summary.runs;
            c.timeline ??= summary.timeline;
        }
        return this.finishPhase(record, this.schedules.length > 1 ? `co-run phase under ${this.schedules[s].name}` : 'co-run phase', this.measured.corun[s]);
    }

    private runPhase(indices: number[], round: number, onProgress: (fraction: number) => void, policy = this.schedules[0]): Promise<PhaseRecord> {
        const tenants: PhaseTenant[] = indices.map(i => {
            const t = this.tenants[i];
            const steps = this.stepPlan(policy, i);
            return {
                name: t.name, priority: t.priority, arrival: scaledArrival(t.arrival, this.measured.load), slos: t.slos, runner: this.runners[i],
                ops: steps?.views ?? this.views[i], ...(steps ? { layout: steps.layout } : {}), versionOps: steps?.versionOps ?? this.versionOps[i],
                // Same arrival sequence solo and co-run within a round, so slowdowns compare like with like.
                random: createRandom(this.seed, round < 0 ? `arrivals/${t.name}/warmup` : `arrivals/${t.name}/${round}`),
            };
        });
        const limit = round < 0 ? this.protocol.warmup : this.protocol.round(round);
        return runPhase({ tenants, policy, limit, signal: this.signal, maxPhaseMs: this.maxPhaseMs, onProgress });
    }

    /** The step layout and views of tenant i under a policy that splits its ops (undefined: it runs whole ops). */
    private stepPlan(policy: SchedulePolicy, i: number): { layout: StepLayout; views: OpView[]; versionOps: OpView[][] } | undefined {
        let perTenant = this.stepPlans.get(policy);
        if (!perTenant) this.stepPlans.set(policy, perTenant = this.tenants.map(() => undefined));
        if (perTenant[i] === undefined) {
            const layout = this.runners[i].layoutFor(policy.opSplits?.[this.tenants[i].name]);
            if (!layout) return undefined;
            const plan = this.plans[i];
            const profile = this.options.profile ?? defaultProfile();
            const steps = stepViews(plan.ops, op => layout.chunking[op] >= 0 ? plan.chunked[op][layout.chunking[op]] : undefined, profile, this.views[i]);
            perTenant[i] = { layout, views: steps.views, versionOps: versionViews(plan.ops, plan.versions, profile, steps, this.views[i]) };
        }
        return perTenant[i];
    }

    /** Per tenant, the ops schedule s ran in chunks and how (by op path; what the results record). */
    opSplitsRan(s: number): Readonly<Record<string, OpSplit>>[] {
        const policy = this.schedules[s];
        return this.tenants.map((_, i) => (policy && this.runners[i] ? this.stepPlan(policy, i)?.layout.splits : undefined) ?? {});
    }

    /** Folds a phase's ending into the run's (an overload into the schedule's co-runs, or the measurement's for solo phases); true when the run must stop (failed or cancelled). */
    private finishPhase(record: PhaseRecord, what: string, overloadOf: { overloaded?: string } = this.measured): boolean {
        this.progress.phaseDone();
        if (record.ending === 'failed') this.fail(record.error);
        else if (record.ending === 'cancelled') {
            if (this.ending.status !== 'failed') this.ending.status = 'cancelled';
        } else if (record.ending === 'time-limit') {
            overloadOf.overloaded ??= `${what} hit its time limit of ${(this.maxPhaseMs / 1000).toFixed(1)} s with requests still queued (overloaded)`;
        }
        return record.ending === 'failed' || record.ending === 'cancelled';
    }

    /** The run failed (first failure wins): every wait stops. */
    private fail(error: unknown): void {
        if (this.ending.status === 'failed') return;
        this.ending.status = 'failed';
        this.ending.reason = error instanceof Error ? error.message : String(error);
        this.ending.failedOp = (error as { opPath?: string } | undefined)?.opPath;
        this.internal.abort(error);
    }
}

/** The host's 1-minute load average (Linux), recorded with tuned entries; undefined elsewhere. */
function hostLoad(): number | undefined {
    try {
        return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    } catch {
        return undefined;
    }
}
