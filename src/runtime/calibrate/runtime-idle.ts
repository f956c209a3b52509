/// <reference types="@webgpu/types" />
/**
 * The idle penalty measured through the runtime's own execution path: a synthetic tenant
 * (synthetic.ts idleProbeTenant) planned and compiled as `tenancy run` does (compile/plan.ts,
 * compile/compile.ts), run by TenantRunner inside the phase loop (execute/phase.ts: arrival
 * timers, the schedule's decisions, submission with a validation scope, completion through
 * onSubmittedWorkDone, timestamp readback), on a device requested as a tenant's device. Each
 * trial runs the request closed loop back to back, then right after as a low-rate Poisson
 * stream, so almost every open-loop arrival finds the device idle; estimators.ts
 * idlePenaltyFromRuntimeTrials turns the trials into the profile's idle penalty. Where a probe's
 * first pass runs the kernel of later passes (synthetic.ts idleProbeTenant), each request's first
 * pass less the median of those later ones is what being first costs, back to back and idle
 * (profile.ts firstPassMs).
 */
import type { IrTenant } from '../ir/types.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { createRandom } from '../plan/random.js';
import { policyFor } from '../schedule/policy.js';
import { runPhase, type PhaseRecord } from '../execute/phase.js';
import { foundIdle, mean, medianOf, type RuntimeIdleTrial } from './estimators.js';
import type { PlannedOp } from '../plan/plan.js';
import { prepareProbeTenant, type ProbeTenant } from './probe-tenant.js';

export interface RuntimeIdleOptions {
    /** Trials per request length (closed phase then open phase each). */
    trials: number;
    /** Measured requests per closed-loop phase (after one unmeasured). */
    closedRequests: number;
    /** Measured requests per open-loop phase (those that find the device busy are left out of its mean). */
    openRequests: number;
    /** The open-loop phase's Poisson rate (requests per second): low, so arrivals find the device idle. */
    ratePerSecond: number;
    signal?: AbortSignal;
    /** Called after each phase pair. */
    onTrial?: (trial: RuntimeIdleTrial) => void;
}

/**
 * The ops whose launches are those of the request's first pass (same kernels, work and
 * workgroups), after it: the passes its time is set against. Empty when the plan has none.
 */
export function firstPassTwins(ops: readonly Pick<PlannedOp, 'launches'>[]): { first: number; twins: number[] } {
    const first = ops.findIndex(o => o.launches.length > 0);
    if (first < 0) return { first, twins: [] };
    const key = (o: Pick<PlannedOp, 'launches'>) => o.launches.map(l => `${l.name}|${l.flops}|${l.bytes}|${l.workgroups}`).join(';');
    const k0 = key(ops[first]);
    const twins: number[] = [];
    for (let i = first + 1; i < ops.length; i++) if (key(ops[i]) === k0) twins.push(i);
    return { first, twins };
}

/** Mean latency and mean Σ of pass times of a phase's measured requests, and the median extra of their first pass over its twins (undefined without twins). */
async function phaseMeans(record: PhaseRecord, what: string, idleOnly: boolean, passes: { first: number; twins: number[] }): Promise<{ meanMs: number; gpuMs: number; latencies: number[]; allMeanMs: number; firstPassMs?: number }> {
    if (record.ending !== 'complete') {
        throw new Error(`the runtime-path idle measurement's ${what} phase ended '${record.ending}'${record.error ? `: ${record.error instanceof Error ? record.error.message : String(record.error)}` : ''}`);
    }
    // Open loop: only the requests that found the device idle (arrived after the previous one
    // completed), so the figure is what an idle arrival pays, without the queueing behind a slow
    // one (the model adds queueing on its own, with the chance 1 − ρ of finding the device idle).
    const all = record.completed[0], idle = foundIdle(all);
    const measured = all.filter((r, i) => r.measured && (!idleOnly || idle[i]));
    if (measured.length === 0) throw new Error(`the runtime-path idle measurement's ${what} phase completed no measured request`);
    const gpu: number[] = [], firstExtra: number[] = [];
    for (const r of measured) {
        let sum = 0;
        const byOp = new Map<number, number>();
        for (const step of r.steps) {
            const iv = await step;
            if (!iv) continue;
            for (let i = 0; i < iv.startMs.length; i++) {
                if (!Number.isFinite(iv.startMs[i])) continue;
                const ms = iv.endMs[i] - iv.startMs[i];
                sum += ms;
                const op = iv.ops ? iv.ops[i] : iv.from + i;
                byOp.set(op, (byOp.get(op) ?? 0) + ms);
            }
        }
        gpu.push(sum);
        const firstMs = byOp.get(passes.first);
        const twinMs = passes.twins.flatMap(i => byOp.get(i) ?? []);
        if (firstMs !== undefined && twinMs.length > 0) firstExtra.push(firstMs - medianOf(twinMs));
    }
    const latencies = measured.map(r => r.doneMs - r.arrivalMs);
    const allMeanMs = mean(all.filter(r => r.measured).map(r => r.doneMs - r.arrivalMs));
    return { meanMs: mean(latencies), gpuMs: mean(gpu), latencies, allMeanMs, ...(firstExtra.length ? { firstPassMs: medianOf(firstExtra) } : {}) };
}

/**
 * Runs the trials on `device` (a tenant-style device with timestamp queries) for each tenant
 * (request length), alternating the lengths within every trial so drifting load hits both alike.
 */
export async function measureRuntimeIdle(device: GPUDevice, caps: DeviceCaps, tenants: readonly IrTenant[], options: RuntimeIdleOptions): Promise<RuntimeIdleTrial[]> {
    const probes: ProbeTenant[] = [];
    try {
        for (const tenant of tenants) probes.push(await prepareProbeTenant(device, caps, tenant, options.signal));
        const compiled = probes.map(p => p.compiled), runners = probes.map(p => p.runner), views = probes.map(p => p.views);
        const twins = compiled.map(c => firstPassTwins(c.plan.ops));
        const policy = policyFor({ policy: 'concurrent' });
        const trials: RuntimeIdleTrial[] = [];
        const phase = (k: number, arrival: IrTenant['arrival'], requests: number, warmupMs: number, label: string) => runPhase({
            tenants: [{ name: tenants[k].name, priority: 'normal', arrival, slos: [], random: createRandom(7, label), runner: runners[k], ops: views[k] }],
            policy, limit: { warmupMs, durationMs: 0, requests }, signal: options.signal, maxPhaseMs: 30_000,
            onProgress: () => undefined, // as runWorkload does (its wake-up timer is then capped at 250 ms)
        });
        for (let t = 0; t < options.trials; t++) {
            const order = t % 2 === 0 ? tenants.map((_, k) => k) : tenants.map((_, k) => tenants.length - 1 - k);
            for (const k of order) {
                // Closed loop: the first request (arrival 0) is warm-up; the rest arrive at completions, back to back.
                const closed = await phaseMeans(await phase(k, { kind: 'closed', clients: 1, thinkMs: 0 }, options.closedRequests, 0.001, `idle/closed/${t}/${k}`), 'closed-loop', false, twins[k]);
                const open = await phaseMeans(await phase(k, { kind: 'poisson', ratePerSecond: options.ratePerSecond }, options.openRequests, 0, `idle/open/${t}/${k}`), 'open-loop', true, twins[k]);
                const passes = compiled[k].ops.filter(o => o.launches.length > 0).length;
                const trial: RuntimeIdleTrial = {
                    passes, closedMeanMs: closed.meanMs, openMeanMs: open.meanMs, closedGpuMs: closed.gpuMs, openGpuMs: open.gpuMs, openLatenciesMs: open.latencies, openAllMeanMs: open.allMeanMs,
                    ...(closed.firstPassMs !== undefined && open.firstPassMs !== undefined ? { firstPass: { busyMs: closed.firstPassMs, idleMs: open.firstPassMs } } : {}),
                };
                trials.push(trial);
                options.onTrial?.(trial);
            }
        }
        return trials;
    } finally {
        for (const p of probes) p.destroy();
    }
}
