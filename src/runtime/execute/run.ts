/**
 * Runs a workload: one device per tenant (its own adapter and queue), compile, a SOLO phase per
 * tenant (alone on the GPU), then a CO-RUN phase (all tenants under the workload's schedule),
 * and the results document. GPU failures and cancellation end the run with partial results
 * marked (status failed / cancelled); problems with the input (no kernel for an op, a tensor
 * that cannot fit, an unimplemented schedule) and a missing adapter are thrown before any
 * measurement. Every GPU object is released in `finally`.
 */
import { createHash } from 'node:crypto';
import type { IrTenant, WorkloadIR } from '../ir/types.js';
import type { ProgressEvent, RunPhase } from '../../protocol/progress.js';
import { PROGRESS_PROTOCOL_VERSION } from '../../protocol/progress.js';
import { capsFromDevice, kernelsFor } from '../kernels/index.js';
import { createRandom } from '../compile/random.js';
import { planWorkload, type KernelProvider, type TenantPlan } from '../compile/plan.js';
import { compileTenant, type CompiledTenant } from '../compile/compile.js';
import { adapterKey, type AdapterIdentity, type TuningCache } from '../compile/tuning.js';
import type { AdapterTuningCache } from '../tune/cache.js';
import { missingTargets } from '../tune/plan-tuning.js';
import { tuneTargets, type TuneOptions } from '../tune/tuner.js';
import { readFileSync } from 'node:fs';
import { openGpu, requestTenantDevice, type AdapterPreference, type TenantDevice } from '../gpu/adapter.js';
import { policyFor, scheduleName } from '../schedule/policy.js';
import { buildResults, type OpSummary, type TenantPhaseData, type TenantRunData } from '../report/build.js';
import type { Results, RunStatus } from '../report/schema.js';
import type { ArrivalLimit } from './arrivals.js';
import { runPhase, type PhaseRecord } from './phase.js';
import { GpuRunError, TenantRunner } from './tenant-runner.js';
import { withTimeout } from './wait.js';
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
    onEvent?: (event: ProgressEvent) => void;
    tuning?: TuningCache;
    /**
     * Added (tuning): the measured tuning cache. `load` returns the cache of the run's adapter
     * (it replaces `tuning`); with `measure`, signatures the cache lacks are timed on the first
     * tenant's device before compiling (phase 'tune') and the cache is saved.
     */
    tune?: {
        load: (adapter: AdapterIdentity) => Promise<AdapterTuningCache>; measure: boolean; onWarning?: (message: string) => void;
        /** Candidate variants per op (default tune/tuner.ts shortlistFor; tests narrow it). */
        candidates?: TuneOptions['candidates'];
    };
    /** Fusion pass on (default) or off. */
    fusion?: boolean;
    /** 'auto' uses GPU timestamps when the adapter has them; 'cpu' forces per-op CPU timing. */
    timing?: 'auto' | 'cpu';
    /** Kernel generators (default src/runtime/kernels). */
    kernels?: KernelProvider;
    /** Limit for one submission to finish (default 60 s). */
    stepTimeoutMs?: number;
    /** Overrides the benchmark's `repetitions` (default 1). */
    repetitions?: number;
    /** Reserved: predictions shown when the run started, copied into the results. */
    predictions?: unknown;
}

/** One phase's data over repetitions: samples (latencies, op times) concatenated, windows and unfinished summed. */
export function mergePhaseData(a: TenantPhaseData | undefined, b: TenantPhaseData | undefined): TenantPhaseData | undefined {
    if (!a || !b) return b ?? a;
    return {
        latenciesMs: [...a.latenciesMs, ...b.latenciesMs],
        windowMs: a.windowMs + b.windowMs,
        unfinished: a.unfinished + b.unfinished,
        opTimesMs: a.opTimesMs.map((x, k) => [...x, ...(b.opTimesMs[k] ?? [])]),
    };
}

/** sha256 of the IR's canonical JSON (keys sorted), identifying what was compiled. */
export function irHash(ir: WorkloadIR): string {
    const canonical = (v: unknown): unknown => Array.isArray(v) ? v.map(canonical)
        : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map(k => [k, canonical((v as Record<string, unknown>)[k])])) : v;
    return createHash('sha256').update(JSON.stringify(canonical(ir))).digest('hex');
}

const TIMELINE_REQUESTS = 50;
const TIMELINE_MAX_INTERVALS = 4000;

/** Runs the workload and returns its results (see the module comment for what throws). */
export async function runWorkload(options: RunWorkloadOptions): Promise<Results> {
    const { ir } = options;
    const emit = (event: ProgressEvent) => options.onEvent?.(event);
    const policy = policyFor(ir.schedule);
    const tenants = selectTenants(ir, options.tenants);
    const durationMs = options.durationMs ?? ir.benchmark.durationMs;
    const warmupMs = options.warmupMs ?? ir.benchmark.warmupMs;
    const requests = options.requests ?? (options.durationMs !== undefined ? undefined : ir.benchmark.requests);
    const limit: ArrivalLimit = { warmupMs, durationMs, requests };
    const maxPhaseMs = requests !== undefined ? warmupMs + Math.max(120_000, 20 * durationMs) : warmupMs + durationMs + Math.max(2_000, durationMs);
    const doSolo = options.solo ?? true;
    const doCorun = (options.corun ?? true) && tenants.length > 1;
    // `benchmark { repetitions N }`: the solo phases and the co-run phase run N times in turn
    // (solo, co-run, solo, co-run, …, so drifting load hits both alike), each repetition with
    // its own arrival sequence, and their samples are merged.
    const repetitions = options.repetitions ?? ir.benchmark.repetitions ?? 1;
    const stepTimeoutMs = options.stepTimeoutMs ?? 60_000;
    const preference = options.adapter ?? ir.device.preference;
    const startedAt = new Date();

    // Overall progress: compile 5 %, each phase an equal share, report the rest.
    const phaseUnits = repetitions * ((doSolo ? tenants.length : 0) + (doCorun ? 1 : 0));
    let unitsDone = 0, lastFraction = 0;
    const progress = (phase: RunPhase, fraction: number, tenant?: string) => {
        const overall = Math.min(1, Math.max(lastFraction, 0.05 + 0.93 * (unitsDone + fraction) / Math.max(1, phaseUnits)));
        lastFraction = overall;
        emit({ type: 'progress', fraction: Number(overall.toFixed(4)), phase, ...(tenant ? { tenant } : {}) });
    };

    const internal = new AbortController();
    const onUserAbort = () => internal.abort(new Error('cancelled'));
    if (options.signal?.aborted) onUserAbort();
    options.signal?.addEventListener('abort', onUserAbort);
    let status = 'complete' as RunStatus;
    let reason: string | undefined, failedOp: string | undefined;
    const fail = (error: unknown) => {
        if (status === 'failed') return;
        status = 'failed';
        reason = error instanceof Error ? error.message : String(error);
        failedOp = (error as { opPath?: string }).opPath;
        internal.abort(error);
    };

    const devices: TenantDevice[] = [];
    const compiled: CompiledTenant[] = [];
    const runners: TenantRunner[] = [];
    let plans: TenantPlan[] = [];
    const soloData: (TenantPhaseData | undefined)[] = tenants.map(() => undefined);
    const corunData: (TenantPhaseData | undefined)[] = tenants.map(() => undefined);
    let timeline: Results['timeline'] = null;
    let closing = false;
    let timing: Results['config']['timing'] = options.timing === 'cpu' ? 'cpu-per-op' : 'gpu-timestamps';
    let gpu: GPU | undefined = openGpu();
    /** Times the variants of signatures the cache lacks (before compile, within the first 5 % of progress). */
    const tuneMissing = async (pre: TenantPlan[], cache: AdapterTuningCache) => {
        const caps = capsFromDevice(devices[0].device);
        const missing = missingTargets(pre, cache, { caps, candidates: options.tune?.candidates });
        if (missing.length === 0) return;
        emit({ type: 'phase', phase: 'tune' });
        try {
            await tuneTargets(missing, cache, {
                device: devices[0].device, caps, kernels: options.kernels, signal: internal.signal, loadAverage: hostLoad, candidates: options.tune?.candidates,
                onProgress: (done, total) => {
                    lastFraction = Math.max(lastFraction, Number((0.05 * done / total).toFixed(4)));
                    emit({ type: 'progress', fraction: lastFraction, phase: 'tune' });
                },
            });
        } catch (error) {
            if (internal.signal.aborted) throw error;
            options.tune?.onWarning?.(`tuning stopped (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); ops not yet tuned use their default variants`);
        } finally {
            emit({ type: 'phase', phase: 'compile' }); // back to compiling, now with the tuned choices
            try {
                await cache.save();
            } catch (error) {
                options.tune?.onWarning?.(`could not save the tuning cache ${cache.path}: ${error instanceof Error ? error.message : String(error)}`);
            }
        }
    };
    try {
        emit({ type: 'phase', phase: 'compile' });
        for (const tenant of tenants) {
            const d = await withTimeout(requestTenantDevice(gpu, preference, `tenancy/${tenant.name}`, { timestamps: options.timing !== 'cpu' }),
                30_000, `requesting a device for tenant ${tenant.name}`, options.signal);
            devices.push(d);
            void d.device.lost.then(info => {
                if (!closing) fail(new GpuRunError(`the device of tenant ${tenant.name} was lost (${info.reason}): ${info.message}`, undefined, tenant.name));
            });
            d.device.addEventListener('uncapturederror', event => {
                fail(new GpuRunError(`tenant ${tenant.name}: GPU error outside any checked scope: ${(event as GPUUncapturedErrorEvent).error.message}`, undefined, tenant.name));
            });
        }
        if (devices.some(d => !d.timestamps)) timing = 'cpu-per-op';
        const caps = capsFromDevice(devices[0].device);
        for (const d of devices.slice(1)) {
            const c = capsFromDevice(d.device);
            caps.maxStorageBufferBindingSize = Math.min(caps.maxStorageBufferBindingSize, c.maxStorageBufferBindingSize);
            caps.maxBufferSize = Math.min(caps.maxBufferSize, c.maxBufferSize);
        }
        const kernels = options.kernels ?? { kernelsFor };
        const key = adapterKey(devices[0].adapter);
        let tuning = options.tuning;
        const planOptions = () => ({
            kernels, caps, tuning, adapterKey: key, fusion: options.fusion ?? true, onTuningWarning: options.tune?.onWarning,
            limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
        });
        if (options.tune) {
            const cache = await options.tune.load(devices[0].adapter);
            tuning = cache;
            if (options.tune.measure) await tuneMissing(planWorkload(tenants, planOptions, ir.device.memoryBytes), cache);
        }
        // Planned on shapes: a tensor or plan that cannot fit is rejected before any allocation.
        plans = planWorkload(tenants, planOptions, ir.device.memoryBytes);
        for (let i = 0; i < tenants.length; i++) {
            try {
                compiled.push(await compileTenant(devices[i].device, plans[i], ir.benchmark.seed, { signal: internal.signal, timeoutMs: stepTimeoutMs }));
            } catch (error) {
                if (internal.signal.aborted) throw error;
                // The plan was accepted; a failure here is the GPU's (validation, memory): a failed run.
                fail(error);
                throw error;
            }
            runners.push(new TenantRunner(compiled[i], timing, stepTimeoutMs));
            progress('compile', 0);
        }

        const phaseTenant = (i: number, rep: number) => ({
            name: tenants[i].name, priority: tenants[i].priority, arrival: tenants[i].arrival,
            // Same arrival sequence solo and co-run within a repetition, so slowdowns compare like with like.
            random: createRandom(ir.benchmark.seed, rep === 0 ? `arrivals/${tenants[i].name}` : `arrivals/${tenants[i].name}/${rep}`),
            runner: runners[i],
        });
        const finishPhase = (record: PhaseRecord, what: string) => {
            if (record.ending === 'failed') fail(record.error);
            else if (record.ending === 'cancelled') status = status === 'failed' ? status : 'cancelled';
            else if (record.ending === 'time-limit' && status === 'complete') {
                status = 'partial';
                reason = `${what} hit its time limit of ${(maxPhaseMs / 1000).toFixed(1)} s with requests still queued (overloaded)`;
            }
            return record.ending === 'failed' || record.ending === 'cancelled';
        };
        let stopped = false;
        for (let rep = 0; rep < repetitions && !stopped; rep++) {
            if (doSolo) {
                for (let i = 0; i < tenants.length && !stopped; i++) {
                    emit({ type: 'phase', phase: 'solo', tenant: tenants[i].name });
                    const record = await runPhase({
                        tenants: [phaseTenant(i, rep)], policy, limit, signal: internal.signal, maxPhaseMs,
                        onProgress: f => progress('solo', f, tenants[i].name),
                    });
                    soloData[i] = mergePhaseData(soloData[i], (await summarizePhase(record, [runners[i]], false)).tenants[0]);
                    stopped = finishPhase(record, `solo phase of ${tenants[i].name}`);
                    unitsDone++;
                }
            }
            if (doCorun && !stopped) {
                emit({ type: 'phase', phase: 'corun' });
                const record = await runPhase({
                    tenants: tenants.map((_, i) => phaseTenant(i, rep)), policy, limit, signal: internal.signal, maxPhaseMs,
                    onProgress: f => progress('corun', f),
                });
                const summary = await summarizePhase(record, runners, true);
                summary.tenants.forEach((d, i) => { corunData[i] = mergePhaseData(corunData[i], d); });
                if (rep === 0) timeline = summary.timeline;
                stopped = finishPhase(record, 'co-run phase');
                unitsDone++;
            }
        }
    } catch (error) {
        if (status !== 'failed') {
            if (internal.signal.aborted && options.signal?.aborted) status = 'cancelled';
            else throw error; // input or environment problems: nothing was measured
        }
    } finally {
        closing = true;
        options.signal?.removeEventListener('abort', onUserAbort);
        // Free nothing the queues may still be using: a cancelled phase stops waiting for its in-flight
        // requests after 500 ms, and destroying buffers and devices under running work has aborted the
        // process inside the software driver. Bounded, so a wedged queue cannot hang the run.
        await Promise.all(devices.map(d => withTimeout(d.device.queue.onSubmittedWorkDone(), 2000, 'the queue to drain').catch(() => undefined)));
        for (const r of runners) r.destroy();
        for (const c of compiled) c.destroy();
        for (const d of devices) d.device.destroy();
        gpu = undefined;
    }
    if (status === 'cancelled') reason ??= 'cancelled (SIGINT/SIGTERM or the caller\'s signal)';
    emit({ type: 'phase', phase: 'report' });
    return buildResults({
        ir, irHash: irHash(ir), adapter: devices[0]?.adapter ?? null, policy: scheduleName(ir.schedule),
        durationMs, warmupMs, requests, repetitions, seed: ir.benchmark.seed, timing, fusion: options.fusion ?? true,
        tenancyVersion: packageJson.version, startedAt, finishedAt: new Date(), status, reason, failedOp,
        tenants: tenants.map((tenant, i): TenantRunData => ({
            tenant,
            ops: plans[i] ? opSummaries(plans[i]) : [],
            memoryBytes: plans[i]?.totalBytes ?? 0,
            solo: soloData[i],
            corun: corunData[i],
        })),
        timeline,
        predictions: options.predictions,
    });
}

/** The start event for a run (the CLI emits it once the IR is loaded). */
export function startEvent(ir: WorkloadIR, tenants: string[], adapter?: string): ProgressEvent {
    return { type: 'start', version: PROGRESS_PROTOCOL_VERSION, workload: ir.workload, tenants, policy: scheduleName(ir.schedule), ...(adapter ? { adapter } : {}) };
}

function selectTenants(ir: WorkloadIR, names: string[] | undefined): IrTenant[] {
    if (!names || names.length === 0) return ir.tenants;
    return names.map(name => {
        const t = ir.tenants.find(x => x.name === name);
        if (!t) throw new Error(`workload ${ir.workload} has no tenant "${name}"; its tenants are ${ir.tenants.map(x => x.name).join(', ')}`);
        return t;
    });
}

function opSummaries(plan: TenantPlan): OpSummary[] {
    return plan.ops.map(op => ({
        path: op.path,
        kind: op.kind,
        fused: op.fused.fused.map(f => f.path),
        kernels: op.kernels.launches.map(l => ({ name: l.name, variant: l.variant })),
        ...(op.variantName !== undefined ? { variant: op.variantName } : {}),
        variantSource: op.variantSource,
        flops: op.flops,
        bytes: op.bytes,
        ...(op.source ? { source: op.source } : {}),
    }));
}

/** Latencies, per-op times and (co-run) the aligned kernel timeline of a phase. */
async function summarizePhase(record: PhaseRecord, runners: TenantRunner[], withTimeline: boolean): Promise<{ tenants: TenantPhaseData[]; timeline: Results['timeline'] }> {
    const measuredStart = record.startedAt + record.limit.warmupMs;
    const intervals: NonNullable<Results['timeline']>['intervals'] = [];
    let truncated = false;
    const tenants: TenantPhaseData[] = [];
    for (let ti = 0; ti < runners.length; ti++) {
        const runner = runners[ti];
        const done = record.completed[ti];
        const measured = done.filter(r => r.measured);
        const steps = await withTimeout(Promise.all(done.map(r => Promise.all(r.steps))), 10_000, 'reading GPU timestamps').catch(() => done.map(() => []));
        const opCount = runner.opCount;
        const times: number[][] = Array.from({ length: opCount }, () => []);
        // Device clock → wall clock: the earliest (completion − last kernel end) over all requests.
        let offset = Infinity;
        done.forEach((r, ri) => {
            let lastEnd = -Infinity;
            for (const s of steps[ri]) if (s) for (const e of s.endMs) if (Number.isFinite(e)) lastEnd = Math.max(lastEnd, e);
            if (Number.isFinite(lastEnd)) offset = Math.min(offset, r.doneAt - lastEnd);
            if (!r.measured) return;
            for (const s of steps[ri]) {
                if (!s) continue;
                for (let k = 0; k < s.startMs.length; k++) {
                    const d = s.endMs[k] - s.startMs[k];
                    if (Number.isFinite(d) && d >= 0) times[s.from + k].push(d);
                }
            }
        });
        if (withTimeline && Number.isFinite(offset)) {
            let taken = 0;
            done.forEach((r, ri) => {
                if (!r.measured || taken >= TIMELINE_REQUESTS) return;
                taken++;
                for (const s of steps[ri]) {
                    if (!s) continue;
                    for (let k = 0; k < s.startMs.length; k++) {
                        if (!Number.isFinite(s.startMs[k])) continue;
                        if (intervals.length >= TIMELINE_MAX_INTERVALS) { truncated = true; return; }
                        intervals.push({
                            tenant: runner.compiled.name, request: r.id, op: runner.compiled.ops[s.from + k].planned.path,
                            startMs: s.startMs[k] + offset - measuredStart, endMs: s.endMs[k] + offset - measuredStart,
                        });
                    }
                }
            });
            if (measured.length > TIMELINE_REQUESTS) truncated = true;
        }
        const lastDone = measured.reduce((m, r) => Math.max(m, r.doneMs), record.limit.warmupMs);
        tenants.push({
            latenciesMs: measured.map(r => r.doneMs - r.arrivalMs),
            windowMs: lastDone - record.limit.warmupMs,
            unfinished: record.unfinished[ti],
            opTimesMs: times,
        });
    }
    intervals.sort((a, b) => a.startMs - b.startMs);
    return { tenants, timeline: withTimeline ? { phase: 'corun', intervals, truncated } : null };
}

/** The host's 1-minute load average (Linux), recorded with tuned entries; undefined elsewhere. */
function hostLoad(): number | undefined {
    try {
        return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    } catch {
        return undefined;
    }
}
