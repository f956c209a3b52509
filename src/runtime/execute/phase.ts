/**
 * One measurement phase: tenants' arrival processes feed per-tenant FIFO queues; the schedule
 * policy decides what goes to the GPU after every arrival and completion; each request's
 * latency runs from its (scheduled) arrival to the completion of its last op, so queueing is
 * included. Every wait is bounded; cancellation stops the phase promptly.
 */
import type { IrArrival, IrPriority, IrSlo } from '../ir/types.js';
import type { Random } from '../plan/random.js';
import type { OpView, SchedulePolicy, TenantView } from '../schedule/policy.js';
import type { OpIntervals, StepLayout, TenantRunner } from '../gpu/tenant-runner.js';
import { withTimeout } from '../gpu/wait.js';
import { createArrivalProcess, type ArrivalLimit, type ArrivalProcess } from '../schedule/arrivals.js';

export interface PhaseTenant {
    name: string;
    priority: IrPriority;
    arrival: IrArrival;
    /** The tenant's latency SLOs (what deadline-driven schedules budget by). */
    slos: readonly IrSlo[];
    random: Random;
    runner: TenantRunner;
    /** Per step of a request (per op of the runner's plan, or per step of `layout`), what schedules read (FLOPs, launches, predicted time); built once per run. */
    ops: readonly OpView[];
    /** The steps a request runs in when the schedule splits ops into chunks (absent: one step per op). */
    layout?: StepLayout;
    /** Per version of its multi-version kernels (index 0: `ops`), the views as that version runs them (absent: one version). */
    versionOps?: readonly (readonly OpView[])[];
}

/** One finished request. */
export interface RequestRecord {
    id: number;
    /** ms since the phase started. */
    arrivalMs: number;
    doneMs: number;
    measured: boolean;
    /** Op intervals of each step of this request (device time base). */
    steps: Promise<OpIntervals | undefined>[];
    /** Wall time each step spent submitted (ms since the phase started): what is not queueing. */
    submittedMs: number;
    /** Per step, the version its ops ran in and the interference level that chose it (multi-version kernels). */
    versions: StepVersion[];
    /** performance.now() when its last step completed (aligns the device clock with wall time). */
    doneAt: number;
}

export interface PhaseRecord {
    /** performance.now() at the phase start. */
    startedAt: number;
    limit: ArrivalLimit;
    /** Per tenant, completed requests in completion order. */
    completed: RequestRecord[][];
    /** Per tenant, measured requests that arrived but did not finish before the phase ended. */
    unfinished: number[];
    /** How the phase ended. */
    ending: 'complete' | 'time-limit' | 'cancelled' | 'failed';
    error?: unknown;
}

export interface PhaseOptions {
    tenants: PhaseTenant[];
    policy: SchedulePolicy;
    limit: ArrivalLimit;
    signal?: AbortSignal;
    /** Hard end of the phase in ms since its start (overload, request-count mode). */
    maxPhaseMs: number;
    /** Called at most every ~200 ms with the phase's fraction done. */
    onProgress?: (fraction: number) => void;
}

interface LiveRequest {
    id: number;
    arrivalMs: number;
    nextOp: number;
    steps: Promise<OpIntervals | undefined>[];
    submittedMs: number;
    versions: StepVersion[];
}

/** A step's version (multi-version kernels): the first op it ran, the version, and the interference level the policy saw. */
export interface StepVersion {
    fromOp: number;
    version: number;
    level?: number;
}

/** Runs a phase to its end (or cancellation / failure); never throws for GPU failures — see `ending`. */
export async function runPhase(options: PhaseOptions): Promise<PhaseRecord> {
    const { tenants, policy, limit, signal } = options;
    const startedAt = performance.now();
    const now = () => performance.now() - startedAt;
    const processes: ArrivalProcess[] = tenants.map(t => createArrivalProcess(t.arrival, t.random, limit));
    // One array per tenant and phase: a policy keys what it learns of blocks in flight (and their
    // clock, which restarts with every phase) on it.
    const opViews = tenants.map(t => t.ops.slice());
    const versionOps = tenants.map((t, i) => t.versionOps && t.versionOps.length > 1 ? [opViews[i], ...t.versionOps.slice(1)] : undefined);
    const future: number[][] = processes.map(p => p.initial());
    const waiting: LiveRequest[][] = tenants.map(() => []);
    const busy = tenants.map(() => false);
    const completed: RequestRecord[][] = tenants.map(() => []);
    let nextId = 0;
    let failure: unknown;
    let dirty = false;
    let wake: (() => void) | undefined;
    const notify = () => { dirty = true; wake?.(); };
    const inFlight = new Set<Promise<void>>();
    let lastProgress = 0;
    const measuredTarget = limit.requests !== undefined ? limit.requests * tenants.length : undefined;
    let measuredDone = 0;
    const progress = () => {
        if (!options.onProgress || performance.now() - lastProgress < 200) return;
        lastProgress = performance.now();
        // By requests where the phase measures some; else by time (a request-count run's warm-up round measures none).
        const fraction = measuredTarget !== undefined && measuredTarget > 0
            ? Math.min(1, (Math.min(now(), limit.warmupMs) / Math.max(1, limit.warmupMs) * 0.1) + 0.9 * measuredDone / measuredTarget)
            : Math.min(1, now() / Math.max(1, limit.warmupMs + limit.durationMs));
        options.onProgress(fraction);
    };

    const insertSorted = (list: number[], t: number) => {
        let i = list.length;
        while (i > 0 && list[i - 1] > t) i--;
        list.splice(i, 0, t);
    };

    const start = (ti: number, opEnd: number, version = 0, level?: number) => {
        const request = waiting[ti][0];
        const { runner, layout } = tenants[ti];
        const stepCount = runner.stepCount(layout);
        if (busy[ti] || !request || opEnd <= request.nextOp || opEnd > stepCount) {
            throw new Error(`schedule ${policy.name} submitted an invalid step for tenant ${tenants[ti].name} (ops ${request?.nextOp}..${opEnd}, busy ${busy[ti]})`);
        }
        busy[ti] = true;
        request.versions.push({ fromOp: runner.opOfStep(request.nextOp, layout), version, ...(level !== undefined ? { level } : {}) });
        const task = runner.run(request.nextOp, opEnd, signal, version, layout).then(result => {
            request.steps.push(result.intervals);
            request.submittedMs += result.doneAt - result.submittedAt;
            request.nextOp = opEnd;
            busy[ti] = false;
            if (request.nextOp === stepCount) {
                waiting[ti].shift();
                const doneMs = result.doneAt - startedAt;
                const measured = processes[ti].isMeasured(request.arrivalMs);
                if (measured) measuredDone++;
                completed[ti].push({ id: request.id, arrivalMs: request.arrivalMs, doneMs, measured, steps: request.steps, submittedMs: request.submittedMs, versions: request.versions, doneAt: result.doneAt });
                const next = processes[ti].onCompletion(doneMs);
                if (next !== undefined) insertSorted(future[ti], next);
            }
        }, error => {
            busy[ti] = false;
            failure ??= error;
        }).finally(() => {
            inFlight.delete(task);
            notify();
        });
        inFlight.add(task);
    };

    let ending: PhaseRecord['ending'] = 'complete';
    const onAbort = () => notify();
    signal?.addEventListener('abort', onAbort);
    try {
        for (;;) {
            dirty = false;
            if (signal?.aborted) { ending = 'cancelled'; break; }
            if (failure !== undefined) { ending = 'failed'; break; }
            const t = now();
            if (t > options.maxPhaseMs) { ending = 'time-limit'; break; }
            for (let ti = 0; ti < tenants.length; ti++) {
                while (future[ti].length > 0 && future[ti][0] <= t) {
                    waiting[ti].push({ id: nextId++, arrivalMs: future[ti].shift()!, nextOp: 0, steps: [], submittedMs: 0, versions: [] });
                }
            }
            const view: TenantView[] = tenants.map((tenant, index) => ({
                index, name: tenant.name, priority: tenant.priority, opCount: tenant.runner.stepCount(tenant.layout), busy: busy[index],
                waiting: waiting[index], ops: opViews[index], slos: tenant.slos, versions: tenant.runner.versions,
                ...(versionOps[index] ? { versionOps: versionOps[index] } : {}),
            }));
            for (const s of policy.decide({ nowMs: t, tenants: view })) start(s.tenant, s.opEnd, s.version, s.level);
            progress();
            const idle = tenants.every((_, ti) => future[ti].length === 0 && waiting[ti].length === 0 && !busy[ti]);
            if (idle) break;
            if (dirty) continue;
            const nextArrival = Math.min(...future.map(f => f[0] ?? Infinity));
            await new Promise<void>(resolve => {
                // Wake for the next arrival, a completion, abort, a progress tick, or the phase limit.
                const delay = Math.max(0, Math.min(nextArrival, options.maxPhaseMs + 1) - now());
                const timer = setTimeout(done, Math.min(delay, options.onProgress ? 250 : delay));
                function done() { clearTimeout(timer); wake = undefined; resolve(); }
                wake = done;
                if (dirty) done();
            });
        }
    } catch (error) {
        failure ??= error;
        ending = 'failed';
    } finally {
        signal?.removeEventListener('abort', onAbort);
    }
    // In-flight work: wait briefly so timings of finished requests are kept; never hang.
    if (inFlight.size > 0) {
        await withTimeout(Promise.allSettled([...inFlight]), ending === 'cancelled' ? 500 : 5000, 'in-flight GPU work').catch(() => undefined);
    }
    const unfinished = tenants.map((_, ti) => waiting[ti].filter(r => processes[ti].isMeasured(r.arrivalMs)).length);
    options.onProgress?.(1);
    return { startedAt, limit, completed, unfinished, ending, error: failure };
}
