/// <reference types="@webgpu/types" />
/**
 * Op times through the runtime's own request path, for the runtime-path factor
 * (profile.runtimePath): a synthetic tenant (synthetic.ts runtimePathProbeTenant) planned, fused
 * and compiled as `tenancy run` does (plan/tenant-plan.ts, gpu/compile.ts) on a device requested
 * as a tenant's, run by TenantRunner inside the phase loop (execute/phase.ts), closed loop back to
 * back; each op's GPU time is read from the runner's timestamps, as results files' per-op figures
 * are. Calibration runs one such phase in every round through the ladders (calibrate.ts), so the
 * ladders and the runtime path see the same host states; estimators.ts
 * runtimePathFactorFromRounds compares them.
 *
 * Why: with Dawn's polling paced the accuracy benchmark measured every op slower than the profile
 * predicted (bias −34 %, 9540ae1). The same ops timed in one process through calibration's
 * sequence and through the runtime agreed within a few percent (bench/accuracy/path-gap.ts), so
 * the gap lies between the ladders' curves and what a model's request runs (the op's neighbours,
 * fused epilogues, the host's state when the ladders ran) rather than in one timing call. The
 * factor measures that whole difference on shapes the evaluation never uses.
 */
import type { IrTenant } from '../ir/types.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { kernelsFor } from '../kernels/index.js';
import { planTenant, type TenantPlan } from '../plan/tenant-plan.js';
import { compileTenant, type CompiledTenant } from '../gpu/compile.js';
import { createRandom } from '../plan/random.js';
import { policyFor } from '../schedule/policy.js';
import { runPhase } from '../execute/phase.js';
import { TenantRunner } from '../gpu/tenant-runner.js';
import { launchesTiming } from '../predict/latency.js';
import type { DeviceProfile } from '../predict/profile.js';
import { medianOf } from './estimators.js';

const STEP_TIMEOUT_MS = 60_000;

/** A probe tenant ready to run: `round()` times one closed-loop phase; `predicted()` the curves' figures for its ops. */
export interface RuntimePathProbe {
    /** Ops that launch kernels (what is timed). */
    readonly ops: number;
    /** One closed-loop phase of `requests` measured requests: each timed op's median GPU time (ms), in plan order. */
    round(requests: number, label: string, signal?: AbortSignal): Promise<number[]>;
    /** The typical time (ms) a profile's curves give each timed op, without any runtime-path factor. */
    predicted(profile: DeviceProfile): number[];
    destroy(): void;
}

/** Plans and compiles `tenant` on `device` as the runtime does and warms it (pipelines compile at first dispatch). */
export async function prepareRuntimePathProbe(device: GPUDevice, caps: DeviceCaps, tenant: IrTenant, signal?: AbortSignal): Promise<RuntimePathProbe> {
    const plan: TenantPlan = planTenant(tenant, {
        kernels: { kernelsFor }, caps, fusion: true,
        limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
    });
    let compiled: CompiledTenant | undefined;
    let runner: TenantRunner | undefined;
    try {
        compiled = await compileTenant(device, plan, 13, { signal, timeoutMs: STEP_TIMEOUT_MS });
        runner = new TenantRunner(compiled, 'gpu-timestamps', STEP_TIMEOUT_MS);
        for (let i = 0; i < 3; i++) await (await runner.run(0, runner.opCount, signal)).intervals;
    } catch (error) {
        runner?.destroy();
        compiled?.destroy();
        throw error;
    }
    const r = runner, c = compiled;
    const timed = plan.ops.map((op, i) => ({ op, i })).filter(x => x.op.launches.length > 0);
    const views = plan.ops.map(op => ({ flops: op.flops, launches: op.launches.length }));
    const policy = policyFor({ policy: 'concurrent' });
    return {
        ops: timed.length,
        async round(requests, label, roundSignal) {
            const record = await runPhase({
                tenants: [{ name: tenant.name, priority: 'normal', arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], random: createRandom(13, label), runner: r, ops: views }],
                // The first request (arrival 0) is warm-up; the rest arrive at completions, back to back.
                policy, limit: { warmupMs: 0.001, durationMs: 0, requests }, signal: roundSignal, maxPhaseMs: 60_000,
                onProgress: () => undefined, // as runWorkload does (its wake-up timer is then capped at 250 ms)
            });
            if (record.ending !== 'complete') {
                throw new Error(`the runtime-path measurement ended '${record.ending}'${record.error ? `: ${record.error instanceof Error ? record.error.message : String(record.error)}` : ''}`);
            }
            const per: number[][] = timed.map(() => []);
            for (const request of record.completed[0].filter(x => x.measured)) {
                for (const step of request.steps) {
                    const iv = await step;
                    if (!iv) continue;
                    timed.forEach(({ i }, k) => {
                        const j = i - iv.from;
                        if (j >= 0 && j < iv.startMs.length && Number.isFinite(iv.startMs[j])) per[k].push(iv.endMs[j] - iv.startMs[j]);
                    });
                }
            }
            return per.map(xs => (xs.length > 0 ? medianOf(xs) : NaN));
        },
        predicted: profile => timed.map(({ op }) => launchesTiming({ ...profile, runtimePath: undefined }, op.launches).typicalMs),
        destroy: () => { r.destroy(); c.destroy(); },
    };
}
