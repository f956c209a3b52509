import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAdapter, openKernelDevice, type KernelTestDevice } from '../gpu.js';
import { checkCase, makeOp } from './check.js';
import { kernelsFor, variantsFor } from '../../../src/runtime/kernels/index.js';
import type { Epilogue } from '../../../src/runtime/kernels/kernel.js';

const available = await probeAdapter();

const VARIANTS = variantsFor(makeOp('matmul', {}, 2));
// Parametric spellings of the listed families: the most awkward shapes only (each shape is a
// new pipeline, and a cold LLVM compile on the software adapter costs up to seconds).
const EXTRA_VARIANTS = ['splitk_3', 'capped_3', 'vec4_2x4', 'vec4_1x8', 'sg_3x4', 'sgsplitk_3', 'sgrow_4x4'];

describe.skipIf(!available)('matmul / dense kernels vs reference', () => {
    let dev: KernelTestDevice;
    beforeAll(async () => { dev = await openKernelDevice(); });
    afterAll(() => dev?.close());

    // Awkward shapes: non-multiples of every tile, K not a multiple of 4, N not a multiple of 4, exact fits.
    const shapes: [number, number, number][] = [[1, 1, 1], [5, 7, 3], [33, 65, 17], [64, 64, 64], [32, 128, 96], [3, 10, 257], [70, 36, 12]];
    for (const v of [...VARIANTS, ...EXTRA_VARIANTS]) {
        it(`matmul ${v} on awkward shapes`, async () => {
            for (const [M, N, K] of EXTRA_VARIANTS.includes(v) ? [shapes[1], shapes[2], shapes[5]] : shapes) {
                await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[M, K], [K, N]], outputShape: [M, N], variant: v });
            }
        });
    }

    it('batched matmul broadcasts leading dims (a [2,1,M,K] · b [3,K,N])', async () => {
        for (const v of ['vec4_4x8', 'wgmem_8x8', 'splitk_2', 'capped_2', 'sgrow_8x4']) {
            await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[2, 1, 9, 12], [3, 12, 20]], outputShape: [2, 3, 9, 20], variant: v });
            await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[4, 6, 5], [4, 5, 7]], outputShape: [4, 6, 7], variant: v });
        }
    });

    const epilogues: Epilogue[][] = [
        [{ kind: 'activation', fn: 'relu' }],
        [{ kind: 'bias', tensor: 'extra_bias' }, { kind: 'activation', fn: 'gelu' }],
        [{ kind: 'scale_shift', scale: 'bn_scale', shift: 'bn_shift' }, { kind: 'activation', fn: 'relu6' }],
        [{ kind: 'activation', fn: 'sigmoid' }, { kind: 'add', tensor: 'residual' }],
        [{ kind: 'activation', fn: 'tanh' }, { kind: 'mul', tensor: 'gate' }, { kind: 'activation', fn: 'silu' }],
    ];
    // Every epilogue through the main store path (vec4_4x8); every other store path (the sgrow
    // default, scalar columns, workgroup memory, split-K reduce, persistent loop, subgroup split-K)
    // with two epilogues each, one test per variant so a cold shader cache stays within the time
    // limit (cold, sgrow_8x4 with all five took 53 s on the loaded 2-core host).
    const epilogueVariants = ['vec4_4x8', 'sgrow_8x4', 'vec4_4x4', 'wgmem_16x16', 'splitk_4', 'capped_4', 'sgsplitk_2'];
    for (const [vi, v] of epilogueVariants.entries()) {
        it(`dense with bias and fused epilogues: ${v}`, async () => {
            const which = vi === 0 ? [0, 1, 2, 3, 4] : [vi % 5, (vi + 2) % 5];
            for (const i of which) {
                const shape = i % 2 ? [2, 7, 30] : [1, 40];
                const units = i % 2 ? 21 : 64;
                await checkCase(dev, { op: makeOp('dense', { units, bias: true }), inputShapes: [shape], outputShape: [...shape.slice(0, -1), units], variant: v, epilogue: epilogues[i] });
            }
        });
    }
    it('dense without bias, default variant', async () => {
        await checkCase(dev, { op: makeOp('dense', { units: 12, bias: false }), inputShapes: [[3, 5]], outputShape: [3, 12] });
        await checkCase(dev, { op: makeOp('dense', { units: 36, bias: false }), inputShapes: [[20, 16]], outputShape: [20, 36] });
    });

    // kdot: lanes split K and sum with subgroupAdd where the device has a fixed subgroup size,
    // else in a tree in workgroup memory (caps without subgroupSize; its own cache key). Two
    // tests, few shapes each: every shape is a cold pipeline compile on the software adapter.
    const kdotShapes: [number, number, number][] = [[5, 7, 3], [3, 10, 257], [70, 13, 12], [2, 4, 1024]];
    it('kdot (few columns): K not a multiple of 4, partial row blocks, batched broadcasts, epilogue', async () => {
        for (const [M, N, K] of kdotShapes) await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[M, K], [K, N]], outputShape: [M, N], variant: 'kdot_8' });
        for (const [M, N, K] of kdotShapes.slice(0, 2)) await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[M, K], [K, N]], outputShape: [M, N], variant: 'kdot_1' });
        await checkCase(dev, { op: makeOp('matmul', {}, 2), inputShapes: [[2, 1, 9, 12], [3, 12, 5]], outputShape: [2, 3, 9, 5], variant: 'kdot_8' });
        await checkCase(dev, { op: makeOp('dense', { units: 13, bias: true }), inputShapes: [[2, 7, 30]], outputShape: [2, 7, 13], variant: 'kdot_4', epilogue: epilogues[1] });
        expect(() => kernelsFor({ op: makeOp('matmul', {}, 2), inputShapes: [[4, 8], [8, 17]], outputShape: [4, 17], epilogue: [], variant: 'kdot_4', caps: dev.caps }))
            .toThrow(/'kdot_4' computes at most 16 columns per row; this GEMM has 17/);
        expect(() => kernelsFor({ op: makeOp('matmul', {}, 2), inputShapes: [[4, 8], [8, 4]], outputShape: [4, 4], epilogue: [], variant: 'kdot_3', caps: dev.caps }))
            .toThrow(/unknown variant 'kdot_3'.*kdot_<1\|2\|4\|8>/);
    });
    it('kdot summed in workgroup memory (a device without a fixed subgroup size)', async () => {
        const tree = { ...dev, caps: { ...dev.caps, subgroupSize: undefined } };
        for (const [M, N, K] of kdotShapes.slice(1)) await checkCase(tree, { op: makeOp('matmul', {}, 2), inputShapes: [[M, K], [K, N]], outputShape: [M, N], variant: 'kdot_8' });
        await checkCase(tree, { op: makeOp('dense', { units: 6, bias: true }), inputShapes: [[3, 64]], outputShape: [3, 6], variant: 'kdot_2', epilogue: epilogues[4] });
    });

    it('tall-skinny split-K (M·N small, K large) matches', async () => {
        await checkCase(dev, { op: makeOp('dense', { units: 16, bias: true }), inputShapes: [[1, 3000]], outputShape: [1, 16], variant: 'splitk_8', tol: 1e-5 });
    });

    it('reports a readable error for an unknown variant and for bad shapes', () => {
        const op = makeOp('matmul', {}, 2);
        expect(() => kernelsFor({ op, inputShapes: [[2, 3], [3, 4]], outputShape: [2, 4], epilogue: [], variant: 'vec4_9x9', caps: dev.caps }))
            .toThrow(/unknown variant 'vec4_9x9'.*vec4_4x8/);
        expect(() => kernelsFor({ op, inputShapes: [[2, 3], [5, 4]], outputShape: [2, 4], epilogue: [], caps: dev.caps }))
            .toThrow(/inner dims differ.*k = 3.*k = 5/);
        expect(() => kernelsFor({ op, inputShapes: [[2, 3], [3, 4]], outputShape: [2, 5], epilogue: [], caps: dev.caps }))
            .toThrow(/output shape \[2, 5\] does not match.*\[2, 4\]/);
    });
});
