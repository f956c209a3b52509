/// <reference types="@webgpu/types" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shortlistFor, tuneTarget, tuneTargets, type MeasureFn, type TuneTarget } from '../../../src/runtime/tune/tuner.js';
import { tuneTargetsOfPlans, missingTargets } from '../../../src/runtime/tune/plan-tuning.js';
import { loadTuningCache } from '../../../src/runtime/tune/cache.js';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import { capsFromDevice } from '../../../src/runtime/gpu/adapter.js';
import { MemoryTuningCache, opSignature, adapterKey } from '../../../src/runtime/plan/tuning.js';
import { planTenant } from '../../../src/runtime/plan/tenant-plan.js';
import { openGpu, requestTenantDevice, type TenantDevice } from '../../../src/runtime/gpu/adapter.js';
import { makeOp } from '../kernels/check.js';
import { mlpTenant } from '../../fixtures/ir/builders.js';
import { hasAdapter } from '../execute/gpu-helper.js';

function matmulTarget(M: number, N: number, K: number): TuneTarget {
    const op = makeOp('matmul', {}, 2);
    const inputShapes = [[M, K], [K, N]], outputShape = [M, N];
    return { signature: opSignature(op, inputShapes, outputShape, []), op, inputShapes, outputShape, epilogue: [] };
}

/** A fake timer: fixed ms per variant, counting calls. */
function fakeMeasure(ms: Record<string, number>, calls: string[]): MeasureFn {
    return async (k, _run, reps) => {
        const v = String(k.launches[0].variant.variant);
        calls.push(`${v}x${reps}`);
        if (!(v in ms)) throw new Error(`no time for ${v}`);
        return ms[v];
    };
}

// Without verification the tuner never touches the device: these run anywhere.
const noDevice = {} as GPUDevice;

describe('tuner selection (fake timing, no GPU)', () => {
    it('picks the fastest candidate and records every time, fastest first', async () => {
        const calls: string[] = [];
        const e = await tuneTarget(matmulTarget(64, 64, 64), {
            device: noDevice, caps: DEFAULT_CAPS, verify: false, reps: 3, candidates: () => ['vec4_4x8', 'vec4_4x4', 'splitk_4'],
            measure: fakeMeasure({ vec4_4x8: 2, vec4_4x4: 1.2, splitk_4: 2.5 }, calls), loadAverage: () => 1.25,
        });
        expect(e?.variant).toBe('vec4_4x4');
        expect(e?.ms).toBe(1.2);
        expect(e?.candidates.map(c => c.variant)).toEqual(['vec4_4x4', 'vec4_4x8', 'splitk_4']);
        expect(e?.loadAverage).toBe(1.25);
        // One run each, then 3 interleaved rounds over the contenders (all within 3× of the best).
        expect(calls).toEqual(['vec4_4x8x1', 'vec4_4x4x1', 'splitk_4x1', ...Array.from({ length: 3 }, () => ['vec4_4x8x1', 'vec4_4x4x1', 'splitk_4x1']).flat()]);
    });

    it('does not repeat a candidate that loses by 3× on its first run', async () => {
        const calls: string[] = [];
        const e = await tuneTarget(matmulTarget(64, 64, 64), {
            device: noDevice, caps: DEFAULT_CAPS, verify: false, candidates: () => ['vec4_4x8', 'wgmem_16x16'],
            measure: fakeMeasure({ vec4_4x8: 1, wgmem_16x16: 40 }, calls),
        });
        expect(e?.variant).toBe('vec4_4x8');
        expect(calls).toEqual(['vec4_4x8x1', 'wgmem_16x16x1']); // a lone contender needs no rounds
        expect(e?.candidates[1]).toEqual({ variant: 'wgmem_16x16', ms: 40 });
    });

    it('keeps each candidate\'s fastest sample over the rounds (a loaded host only adds time)', async () => {
        const samples: Record<string, number[]> = { vec4_4x8: [5, 1.0, 4, 4], vec4_4x4: [2, 1.5, 1.4, 3] };
        const measure: MeasureFn = async k => samples[String(k.launches[0].variant.variant)].shift()!;
        const e = await tuneTarget(matmulTarget(64, 64, 64), { device: noDevice, caps: DEFAULT_CAPS, verify: false, reps: 3, candidates: () => ['vec4_4x8', 'vec4_4x4'], measure });
        expect(e?.candidates).toEqual([{ variant: 'vec4_4x8', ms: 1.0 }, { variant: 'vec4_4x4', ms: 1.4 }]);
        expect(e?.variant).toBe('vec4_4x8');
    });

    it('records failing candidates with their error and never picks them', async () => {
        const e = await tuneTarget(matmulTarget(64, 64, 64), {
            device: noDevice, caps: DEFAULT_CAPS, verify: false, candidates: () => ['vec4_9x9', 'sg_8x4', 'vec4_4x4'],
            measure: fakeMeasure({ vec4_4x4: 3 }, []),
        });
        expect(e?.variant).toBe('vec4_4x4');
        const failed = e!.candidates.filter(c => c.ms === null);
        expect(failed.map(c => c.variant)).toEqual(['vec4_9x9', 'sg_8x4']);
        expect(failed[0].error).toMatch(/unknown variant 'vec4_9x9'/);
        expect(failed[1].error).toMatch(/needs the 'subgroups' feature/); // DEFAULT_CAPS has no subgroups
    });

    it('has nothing to tune with fewer than two candidates or when none runs', async () => {
        const opts = { device: noDevice, caps: DEFAULT_CAPS, verify: false, measure: fakeMeasure({}, []) };
        expect(await tuneTarget(matmulTarget(8, 8, 8), { ...opts, candidates: () => ['vec4_4x8'] })).toBeUndefined();
        expect(await tuneTarget(matmulTarget(8, 8, 8), { ...opts, candidates: () => ['vec4_4x8', 'vec4_4x4'] })).toBeUndefined();
        const relu = makeOp('relu');
        expect(shortlistFor({ signature: 's', op: relu, inputShapes: [[4]], outputShape: [4], epilogue: [] }, DEFAULT_CAPS)).toEqual(['map4']);
    });

    it('shortlists only variants the device can run (no subgroup variants without a fixed subgroup size)', () => {
        const t = matmulTarget(128, 768, 3072);
        const plain = shortlistFor(t, DEFAULT_CAPS);
        expect(plain).toContain('vec4_4x8');
        expect(plain.some(v => v.startsWith('sg'))).toBe(false);
        expect(plain.some(v => v.startsWith('capped_'))).toBe(false);
        expect(plain).not.toContain('vec4_1x8');
        // A batch-1 dense also times the tiles of one row (its default).
        expect(shortlistFor(matmulTarget(1, 1000, 1280), DEFAULT_CAPS)).toContain('vec4_1x8');
        expect(shortlistFor(matmulTarget(2, 283, 1183), DEFAULT_CAPS)).toContain('vec4_2x8');
        const sg = shortlistFor(t, { ...DEFAULT_CAPS, subgroupSize: 8 });
        expect(sg[0]).toBe('sgrow_8x4');
        const conv = makeOp('conv2d', { filters: 64, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true });
        const cs = shortlistFor({ signature: 'c', op: conv, inputShapes: [[1, 64, 56, 56]], outputShape: [1, 64, 56, 56], epilogue: [] }, { ...DEFAULT_CAPS, subgroupSize: 8 });
        expect(cs).toContain('im2col_sgrow_8x4');
        expect(cs).toContain('winograd_sgrow_8x4');
        for (const v of cs) expect(() => kernelsFor({ op: conv, inputShapes: [[1, 64, 56, 56]], outputShape: [1, 64, 56, 56], epilogue: [], variant: v, caps: { ...DEFAULT_CAPS, subgroupSize: 8 } })).not.toThrow();
        expect(cs.some(v => v.includes('kdot'))).toBe(false);
        // A deep layer on a 2×2 map, and a GEMM of few columns, also time kdot (lanes splitting K).
        const deep = { signature: 'd', op: conv, inputShapes: [[1, 512, 2, 2]], outputShape: [1, 64, 2, 2], epilogue: [] };
        const ds = shortlistFor(deep, DEFAULT_CAPS);
        expect(ds).toContain('im2col_kdot_8');
        for (const v of ds) expect(() => kernelsFor({ ...deep, variant: v, caps: DEFAULT_CAPS })).not.toThrow();
        expect(shortlistFor(matmulTarget(64, 10, 900), DEFAULT_CAPS)).toContain('kdot_8');
        expect(shortlistFor(matmulTarget(64, 17, 900), DEFAULT_CAPS)).not.toContain('kdot_8');
        // Attention's GEMMs are wider than its width (qkv: 3×): a narrow attention does not time kdot.
        const attn = makeOp('attention', { heads: 2 }, 1);
        expect(shortlistFor({ signature: 'a', op: attn, inputShapes: [[1, 8, 12]], outputShape: [1, 8, 12], epilogue: [] }, DEFAULT_CAPS).some(v => v.startsWith('kdot'))).toBe(false);
    });

    it('tunes each missing signature once and skips cached ones', async () => {
        const recorded: string[] = [];
        const cache = { has: (s: string) => s === 'cached', record: (s: string) => { recorded.push(s); } };
        const a = matmulTarget(16, 16, 16), b = matmulTarget(32, 16, 16);
        const progress: string[] = [];
        const r = await tuneTargets([a, a, { ...b }, { ...b, signature: 'cached' }], cache, {
            device: noDevice, caps: DEFAULT_CAPS, verify: false, candidates: () => ['vec4_4x8', 'vec4_4x4'],
            measure: fakeMeasure({ vec4_4x8: 1, vec4_4x4: 2 }, []), onProgress: (d, n) => progress.push(`${d}/${n}`),
        });
        expect(r.tuned).toEqual([a.signature, b.signature]);
        expect(recorded).toEqual([a.signature, b.signature]);
        expect(progress).toEqual(['0/2', '1/2', '2/2']);
    });

    it('plans give one target per distinct signature; missing ones exclude single-variant ops', () => {
        const plan = planTenant(mlpTenant('m', { hidden: 32 }), { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28 } });
        const targets = tuneTargetsOfPlans([plan, plan]);
        expect(new Set(targets.map(t => t.signature)).size).toBe(targets.length);
        const missing = missingTargets([plan], { has: () => false }, { caps: DEFAULT_CAPS });
        expect(missing.length).toBeGreaterThan(0);
        expect(missing.every(t => ['dense', 'matmul', 'conv2d', 'attention', 'lstm', 'softmax', 'depthwise_conv2d'].includes(t.op.kind))).toBe(true);
        expect(plan.ops.every(o => o.variantSource === 'default')).toBe(true);
    });
});

describe('plans take tuned variants from the cache', () => {
    const limits = { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28 };
    it('marks ops tuned or default, and falls back (with a warning) when a cached variant cannot be built', () => {
        const tenant = mlpTenant('m', { hidden: 32 });
        const base = planTenant(tenant, { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits });
        const dense = base.ops.filter(o => o.kind === 'dense');
        expect(dense.length).toBeGreaterThanOrEqual(2);
        expect(dense[0].variant).toBe('vec4_4x8');
        const key = 'mesa/software/llvmpipe/x';
        const cache = new MemoryTuningCache();
        cache.set(key, dense[0].signature, 'vec4_4x4');
        cache.set(key, dense[1].signature, 'sg_8x4'); // DEFAULT_CAPS has no subgroups: unusable here
        const warnings: string[] = [];
        const plan = planTenant(tenant, { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits, tuning: cache, adapterKey: key, onTuningWarning: w => warnings.push(w) });
        const [d0, d1] = plan.ops.filter(o => o.kind === 'dense');
        expect([d0.variant, d0.variantSource]).toEqual(['vec4_4x4', 'tuned']);
        expect(d0.kernels.launches[0].name).toBe('dense.vec4_4x4');
        expect([d1.variantSource, d1.variant]).toEqual(['default', 'vec4_4x8']);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/tuned variant 'sg_8x4' unusable .*subgroups.*; using the default/);
        // Another adapter's choices do not apply.
        const otherPlan = planTenant(tenant, { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits, tuning: cache, adapterKey: 'nvidia/x/y/z' });
        expect(otherPlan.ops.every(o => o.variantSource === 'default')).toBe(true);
    });
});

const available = await hasAdapter();

describe.skipIf(!available)('tuning on the GPU', () => {
    let gpu: GPU | undefined;
    let dev: TenantDevice;
    let dir: string;
    beforeAll(async () => {
        gpu = openGpu();
        dev = await requestTenantDevice(gpu, 'auto', 'tune-test');
        dir = await mkdtemp(join(tmpdir(), 'tenancy-tune-gpu-'));
    });
    afterAll(async () => {
        dev?.device.destroy();
        gpu = undefined;
        await rm(dir, { recursive: true, force: true });
    });

    it('picks the measured-fastest of two candidates, verifies outputs, and the saved choice is found again', async () => {
        const caps = capsFromDevice(dev.device);
        const fast = caps.subgroupSize !== undefined ? 'sgrow_8x4' : 'vec4_4x8';
        // wgmem_16x16 is ~30× slower than the register-blocked tiles on a CPU adapter, so the
        // choice is clear even on a loaded host; on a real GPU it may win, which the entry shows.
        const t = matmulTarget(64, 128, 96);
        const cache = await loadTuningCache({ adapter: dev.adapter, userDir: dir });
        const r = await tuneTargets([t], cache, { device: dev.device, caps, reps: 3, candidates: () => [fast, 'wgmem_16x16'] });
        expect(r.tuned).toEqual([t.signature]);
        const e = cache.entry(t.signature)!;
        expect(e.candidates).toHaveLength(2);
        expect(e.candidates.every(c => c.ms !== null && c.ms > 0)).toBe(true);
        expect(e.variant).toBe(e.candidates[0].variant);
        expect(e.ms).toBeLessThanOrEqual(e.candidates[1].ms!);
        if (dev.adapter.architecture === 'software' || /llvmpipe|swiftshader/i.test(dev.adapter.device)) expect(e.variant).toBe(fast);
        await cache.save();
        // The saved choice steers planning on this adapter.
        const again = await loadTuningCache({ adapter: dev.adapter, userDir: dir });
        expect(again.variantFor(adapterKey(dev.adapter), t.signature)).toBe(e.variant);
    });

    it('rejects a candidate whose output differs from the default variant', async () => {
        const caps = capsFromDevice(dev.device);
        const t = matmulTarget(24, 36, 20);
        const wrong = {
            kernelsFor: (req: Parameters<typeof kernelsFor>[0]) => req.variant === 'vec4_4x4'
                // Same launches on the transposed problem: right shape, wrong numbers.
                ? kernelsFor({ ...req, inputShapes: [[24, 20], [20, 36]], outputShape: [24, 36], epilogue: [{ kind: 'activation', fn: 'relu' }] })
                : kernelsFor(req),
        };
        const e = await tuneTarget(t, { device: dev.device, caps, kernels: wrong, candidates: () => ['vec4_4x8', 'vec4_4x4'] });
        expect(e?.variant).toBe('vec4_4x8');
        expect(e?.candidates.find(c => c.variant === 'vec4_4x4')?.error).toMatch(/wrong result: relative error/);
    });
});
