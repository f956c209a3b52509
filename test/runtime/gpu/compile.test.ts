import { describe, expect, it } from 'vitest';
import { compileTenant, readGraphOutput } from '../../../src/runtime/gpu/compile.js';
import { planTenant } from '../../../src/runtime/plan/tenant-plan.js';
import { tolerantVariants } from '../../../src/runtime/plan/versions.js';
import { splitLimits } from '../../../src/runtime/plan/split.js';
import { SPLIT_AXES } from '../../../src/runtime/kernels/kernel.js';
import { TenantRunner } from '../../../src/runtime/gpu/tenant-runner.js';
import { MemoryLimitError } from '../../../src/runtime/plan/memory.js';
import { kernelsFor } from '../../../src/runtime/kernels/index.js';
import { capsFromDevice } from '../../../src/runtime/gpu/adapter.js';
import { openGpu, requestTenantDevice } from '../../../src/runtime/gpu/adapter.js';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import type { IrTenant } from '../../../src/runtime/ir/types.js';
import { GraphBuilder, cnnTenant, mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const gpu = await hasAdapter();

describe.skipIf(!gpu)('compile on the software adapter', () => {
    async function outputOf(tenant: IrTenant, seed: number, fusion = true): Promise<Float32Array> {
        const handle = openGpu();
        const { device } = await requestTenantDevice(handle, 'auto', 'test');
        try {
            const caps = capsFromDevice(device);
            const plan = planTenant(tenant, { kernels: { kernelsFor }, caps, limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize }, fusion });
            const compiled = await compileTenant(device, plan, seed);
            try {
                return await readGraphOutput(compiled);
            } finally {
                compiled.destroy();
            }
        } finally {
            device.destroy();
        }
    }

    it('computes finite, seed-deterministic outputs; fusion does not change them', async () => {
        const tenant = cnnTenant('v', { res: 16, channels: 8 });
        const a = await outputOf(tenant, 5);
        expect(a.every(Number.isFinite)).toBe(true);
        expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(1e-3);
        expect(Array.from(await outputOf(tenant, 5))).toEqual(Array.from(a));
        expect(Array.from(await outputOf(tenant, 6))).not.toEqual(Array.from(a));
        const unfused = await outputOf(tenant, 5, false);
        for (let i = 0; i < a.length; i++) expect(unfused[i]).toBeCloseTo(a[i], 3);
    });

    it('compiles hot ops in several versions that compute the same function (multi-version kernels)', async () => {
        const handle = openGpu();
        const { device } = await requestTenantDevice(handle, 'auto', 'test');
        try {
            const caps = capsFromDevice(device);
            // The first dense in its own variant and two tolerant ones (few pipelines: a software adapter's shader JIT takes seconds each).
            const tenant = mlpTenant('m', { hidden: 32 });
            const plan = planTenant(tenant, {
                kernels: { kernelsFor }, caps, limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
                versions: ops => ops.map((op, i) => i === 0 ? tolerantVariants(op).slice(0, 2) : []),
            });
            const withVersions = plan.versions.filter(v => v !== undefined);
            expect(withVersions.length).toBeGreaterThan(0);
            const compiled = await compileTenant(device, plan, 5);
            const runner = new TenantRunner(compiled, 'gpu-timestamps', 60_000);
            try {
                expect(runner.versions).toBe(3);
                const outputs: Float32Array[] = [];
                for (let version = 0; version < runner.versions; version++) {
                    await runner.run(0, runner.opCount, undefined, version);
                    outputs.push(await readGraphOutput(compiled));
                }
                for (const out of outputs.slice(1)) for (let i = 0; i < out.length; i++) expect(out[i]).toBeCloseTo(outputs[0][i], 3);
            } finally {
                runner.destroy();
                compiled.destroy();
            }
        } finally {
            device.destroy();
        }
    }, 240_000);

    it('runs ops split into chunks (each step its own submission) to the outputs of the unsplit ops', async () => {
        const handle = openGpu();
        const { device } = await requestTenantDevice(handle, 'auto', 'test');
        try {
            const caps = capsFromDevice(device);
            const tenant = mlpTenant('m', { batch: 200, hidden: 96 });
            // Each dense along the first axis its grid offers, into up to 3 chunks.
            const plan = planTenant(tenant, {
                kernels: { kernelsFor }, caps, limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
                splits: op => {
                    const limits = splitLimits(op);
                    return SPLIT_AXES.filter(a => (limits[a] ?? 0) >= 2).slice(0, 1).map(axis => ({ axis, chunks: Math.min(3, limits[axis]!) }));
                },
            });
            const split = plan.ops.flatMap((op, i) => plan.chunked[i].map(c => ({ path: op.path, split: c.split })));
            expect(split.length).toBeGreaterThanOrEqual(2);
            const compiled = await compileTenant(device, plan, 5);
            const runner = new TenantRunner(compiled, 'gpu-timestamps', 60_000);
            try {
                await runner.run(0, runner.opCount);
                const whole = await readGraphOutput(compiled);
                const layout = runner.layoutFor(Object.fromEntries(split.map(s => [s.path, s.split])))!;
                expect(layout.steps.length).toBe(plan.ops.length + split.reduce((n, s) => n + s.split.chunks - 1, 0));
                expect(layout.splits).toEqual(Object.fromEntries(split.map(s => [s.path, s.split])));
                const times: number[] = new Array(plan.ops.length).fill(0);
                for (let step = 0; step < layout.steps.length; step++) {
                    const result = await runner.run(step, step + 1, undefined, 0, layout);
                    const intervals = await result.intervals;
                    expect(Array.from(intervals!.ops!)).toEqual([layout.steps[step].op]);
                    times[layout.steps[step].op] += intervals!.endMs[0] - intervals!.startMs[0];
                }
                const chunked = await readGraphOutput(compiled);
                expect(chunked.some(x => x !== 0)).toBe(true);
                for (let i = 0; i < whole.length; i++) expect(chunked[i]).toBeCloseTo(whole[i], 4);
                for (const [i, op] of plan.ops.entries()) if (op.launches.length > 0) expect(times[i]).toBeGreaterThan(0);
                // An asked split the compiled plan lacks runs whole.
                expect(runner.layoutFor({ [plan.ops[0].path]: { axis: 'batch', chunks: 7 } })!.splits).toEqual({});
            } finally {
                runner.destroy();
                compiled.destroy();
            }
        } finally {
            device.destroy();
        }
    }, 240_000);

    it('keeps a deep MLP finite (He-scaled weights)', async () => {
        const b = new GraphBuilder('deep', 'deep_mlp');
        let x = b.input('x', [4, 256]);
        for (let i = 0; i < 12; i++) x = b.unary('relu', `relu${i}`, b.dense(`fc${i}`, x, 256));
        b.output(x);
        const out = await outputOf({ name: 'deep', graph: b.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' }, 1);
        const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / out.length);
        expect(rms).toBeGreaterThan(0.01);
        expect(rms).toBeLessThan(100);
    });

    it('rejects a too-large tensor in a run before allocating anything', async () => {
        await expect(runWorkload({ ir: workloadOf('huge', [mlpTenant('ok'), hugeTenantBig()]) })).rejects.toThrow(MemoryLimitError);
    });
});

/** Larger than any 32-bit binding limit: 4 GiB. */
function hugeTenantBig(): IrTenant {
    const b = new GraphBuilder('big', 'huge');
    b.output(b.dense('fc', b.input('x', [65536, 1024]), 16384));
    return { name: 'big', graph: b.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
}
