/// <reference types="@webgpu/types" />
/**
 * A synthetic tenant (synthetic.ts) made ready to run as `tenancy run` runs a tenant: planned
 * with the default kernels and fusion (plan/tenant-plan.ts), compiled (gpu/compile.ts), with the
 * TenantRunner and the op views the phase loop hands a schedule. Calibration's runtime-path
 * measurements (runtime-idle.ts, corun-probe.ts) run their tenants through it.
 */
import type { IrTenant } from '../ir/types.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { kernelsFor } from '../kernels/index.js';
import { planTenant } from '../plan/tenant-plan.js';
import { compileTenant, type CompiledTenant } from '../gpu/compile.js';
import { TenantRunner } from '../gpu/tenant-runner.js';
import type { OpView } from '../schedule/policy.js';

/** The bound on compiling and on each step of a probe's request. */
const STEP_TIMEOUT_MS = 60_000;

/** A synthetic tenant compiled on a device with its runner and the views schedules read, warmed. */
export interface ProbeTenant {
    compiled: CompiledTenant;
    runner: TenantRunner;
    views: OpView[];
    destroy(): void;
}

/** Plans a synthetic tenant as `tenancy run` does (default kernels, fusion), compiles it on `device` and runs it thrice (pipelines compiled, caches warm). */
export async function prepareProbeTenant(device: GPUDevice, caps: DeviceCaps, tenant: IrTenant, signal?: AbortSignal): Promise<ProbeTenant> {
    const plan = planTenant(tenant, {
        kernels: { kernelsFor }, caps, fusion: true,
        limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
    });
    const compiled = await compileTenant(device, plan, 11, { signal, timeoutMs: STEP_TIMEOUT_MS });
    const runner = new TenantRunner(compiled, 'gpu-timestamps', STEP_TIMEOUT_MS);
    const probe: ProbeTenant = {
        compiled, runner, views: plan.ops.map(op => ({ flops: op.flops, launches: op.launches.length })),
        destroy: () => { runner.destroy(); compiled.destroy(); },
    };
    try {
        for (let i = 0; i < 3; i++) await (await runner.run(0, runner.opCount, signal)).intervals;
    } catch (error) {
        probe.destroy();
        throw error;
    }
    return probe;
}
