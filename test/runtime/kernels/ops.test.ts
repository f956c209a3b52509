import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAdapter, openKernelDevice, type KernelTestDevice } from '../gpu.js';
import { checkCase, makeOp } from './check.js';
import { kernelsFor } from '../../../src/runtime/kernels/index.js';
import type { Epilogue } from '../../../src/runtime/kernels/kernel.js';

const available = await probeAdapter();

describe.skipIf(!available)('elementwise, norm, softmax, layout, embedding, attention and lstm kernels vs reference', () => {
    let dev: KernelTestDevice;
    beforeAll(async () => { dev = await openKernelDevice(); });
    afterAll(() => dev?.close());

    it('activations on odd sizes, with large magnitudes (no NaN from tanh/exp)', async () => {
        for (const kind of ['relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu'] as const) {
            await checkCase(dev, { op: makeOp(kind), inputShapes: [[3, 5, 7]], outputShape: [3, 5, 7] });
            const big = Float32Array.from({ length: 13 }, (_, i) => (i - 6) * 20);
            await checkCase(dev, { op: makeOp(kind), inputShapes: [[13]], outputShape: [13], inputs: [big] });
        }
    });

    it('add / mul broadcast with NumPy rules', async () => {
        const cases: [number[], number[], number[]][] = [
            [[2, 3, 4], [2, 3, 4], [2, 3, 4]],
            [[2, 3, 4], [4], [2, 3, 4]],
            [[2, 1, 5], [3, 1], [2, 3, 5]],
            [[1], [6, 7], [6, 7]],
            [[1, 8, 3, 3], [1, 8, 1, 1], [1, 8, 3, 3]],
        ];
        for (const kind of ['add', 'mul'] as const) {
            for (const [a, b, o] of cases) await checkCase(dev, { op: makeOp(kind, {}, 2), inputShapes: [a, b], outputShape: o });
        }
        await checkCase(dev, { op: makeOp('add', {}, 2), inputShapes: [[4, 6], [6]], outputShape: [4, 6], epilogue: [{ kind: 'activation', fn: 'relu' }] });
    });

    it('batch_norm (inference) and layer_norm with epilogue', async () => {
        await checkCase(dev, { op: makeOp('batch_norm'), inputShapes: [[2, 5, 3, 3]], outputShape: [2, 5, 3, 3] });
        await checkCase(dev, { op: makeOp('batch_norm'), inputShapes: [[3, 7]], outputShape: [3, 7], epilogue: [{ kind: 'activation', fn: 'relu' }] });
        await checkCase(dev, { op: makeOp('layer_norm'), inputShapes: [[3, 4, 100]], outputShape: [3, 4, 100] });
        await checkCase(dev, { op: makeOp('layer_norm'), inputShapes: [[5, 7]], outputShape: [5, 7], epilogue: [{ kind: 'add', tensor: 'residual' }] });
    });

    it('softmax over every axis, both variants', async () => {
        const shape = [3, 70, 5];
        for (const v of ['workgroup_reduce', 'thread_row']) {
            for (const axis of [0, 1, 2]) {
                await checkCase(dev, { op: makeOp('softmax', { axis }), inputShapes: [shape], outputShape: shape, variant: v });
            }
        }
        await checkCase(dev, { op: makeOp('softmax', { axis: 1 }), inputShapes: [[2, 130]], outputShape: [2, 130], epilogue: [{ kind: 'mul', tensor: 'mask' }] });
    });

    it('reshape/flatten alias the input; transpose and concat copy', async () => {
        const r = kernelsFor({ op: makeOp('reshape', { shape: [6, 4] }), inputShapes: [[2, 3, 4]], outputShape: [6, 4], epilogue: [], caps: dev.caps });
        expect(r.aliasesInput).toBe(true);
        expect(r.launches).toHaveLength(0);
        const f = kernelsFor({ op: makeOp('flatten'), inputShapes: [[2, 3, 4]], outputShape: [2, 12], epilogue: [], caps: dev.caps });
        expect(f.aliasesInput).toBe(true);
        await checkCase(dev, { op: makeOp('reshape', { shape: [6, 4] }), inputShapes: [[2, 3, 4]], outputShape: [6, 4] });
        await checkCase(dev, { op: makeOp('flatten'), inputShapes: [[2, 3, 4]], outputShape: [2, 12], epilogue: [{ kind: 'activation', fn: 'relu' }] });
        await checkCase(dev, { op: makeOp('transpose', { perm: [0, 2, 1, 3] }), inputShapes: [[2, 3, 5, 7]], outputShape: [2, 5, 3, 7] });
        await checkCase(dev, { op: makeOp('transpose', { perm: [2, 0, 1] }), inputShapes: [[3, 4, 5]], outputShape: [5, 3, 4], epilogue: [{ kind: 'activation', fn: 'tanh' }] });
        await checkCase(dev, { op: makeOp('concat', { axis: 1 }, 3), inputShapes: [[2, 3, 4], [2, 1, 4], [2, 5, 4]], outputShape: [2, 9, 4] });
        await checkCase(dev, { op: makeOp('concat', { axis: 0 }, 2), inputShapes: [[1, 5], [3, 5]], outputShape: [4, 5] });
        await checkCase(dev, { op: makeOp('concat', { axis: 2 }, 2), inputShapes: [[2, 2, 3], [2, 2, 1]], outputShape: [2, 2, 4], epilogue: [{ kind: 'bias', tensor: 'b' }] });
    });

    it('embedding gathers rows for i32 ids (out-of-range ids clamp)', async () => {
        const ids = Int32Array.from([0, 3, 9, 2, 2, 7, -5, 40]);
        await checkCase(dev, { op: makeOp('embedding', { vocab: 10, dim: 6 }), inputShapes: [[2, 4]], outputShape: [2, 4, 6], inputs: [ids] });
    });

    it('attention (composite), causal and not, several GEMM variants', async () => {
        for (const [v, causal, shape, heads] of [
            ['vec4_4x8', false, [1, 9, 16], 2], ['vec4_4x4', true, [2, 7, 12], 3], ['wgmem_8x8', true, [1, 70, 8], 1], ['splitk_2', false, [1, 5, 8], 4],
        ] as [string, boolean, number[], number][]) {
            await checkCase(dev, { op: makeOp('attention', { heads, causal }), inputShapes: [shape], outputShape: shape, variant: v, tol: 2e-5 });
        }
        const epi: Epilogue[] = [{ kind: 'add', tensor: 'residual' }];
        await checkCase(dev, { op: makeOp('attention', { heads: 2, causal: true }), inputShapes: [[1, 6, 8]], outputShape: [1, 6, 8], epilogue: epi, tol: 2e-5 });
    });

    it('lstm (composite) with 1 and 3 stacked layers', async () => {
        await checkCase(dev, { op: makeOp('lstm', { hidden: 10, layers: 1 }), inputShapes: [[2, 5, 7]], outputShape: [2, 5, 10], tol: 2e-5 });
        await checkCase(dev, { op: makeOp('lstm', { hidden: 70, layers: 3 }), inputShapes: [[1, 4, 9]], outputShape: [1, 4, 70], variant: 'vec4_4x4', tol: 2e-5 });
        await checkCase(dev, { op: makeOp('lstm', { hidden: 6, layers: 2 }), inputShapes: [[1, 3, 4]], outputShape: [1, 3, 6], epilogue: [{ kind: 'activation', fn: 'relu' }], tol: 2e-5 });
    });
});
