import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAdapter, openKernelDevice, type KernelTestDevice } from '../gpu.js';
import { checkCase, makeOp } from './check.js';
import { kernelsFor, variantsFor } from '../../../src/runtime/kernels/index.js';
import type { IrAttrs } from '../../../src/runtime/ir/types.js';
import type { Epilogue } from '../../../src/runtime/kernels/kernel.js';

const available = await probeAdapter();

function outHW(h: number, w: number, a: { kernel: number[]; stride: number[]; padding: number[]; dilation?: number[] }): [number, number] {
    const d = a.dilation ?? [1, 1];
    return [
        Math.floor((h + a.padding[0] + a.padding[2] - d[0] * (a.kernel[0] - 1) - 1) / a.stride[0]) + 1,
        Math.floor((w + a.padding[1] + a.padding[3] - d[1] * (a.kernel[1] - 1) - 1) / a.stride[1]) + 1,
    ];
}

interface ConvCase { x: number[]; filters: number; kernel: number[]; stride: number[]; padding: number[]; dilation: number[]; groups: number; bias: boolean }
const CONVS: ConvCase[] = [
    { x: [1, 3, 11, 13], filters: 8, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true },
    { x: [2, 6, 9, 10], filters: 9, kernel: [3, 2], stride: [2, 1], padding: [0, 1, 1, 0], dilation: [1, 2], groups: 3, bias: false },
    { x: [1, 16, 7, 7], filters: 12, kernel: [1, 1], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: true },
    { x: [1, 5, 12, 12], filters: 7, kernel: [5, 5], stride: [3, 3], padding: [2, 2, 2, 2], dilation: [2, 2], groups: 1, bias: true },
    { x: [1, 40, 6, 6], filters: 36, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 4, bias: true },
];

const convOp = (c: ConvCase) => makeOp('conv2d', { filters: c.filters, kernel: c.kernel, stride: c.stride, padding: c.padding, dilation: c.dilation, groups: c.groups, bias: c.bias } as IrAttrs);

// Each case compiles its pipelines; with Mesa's shader cache empty (a fresh machine) lavapipe's LLVM compiles every
// one: two of these tests took 60 and 50 s on a fresh 2-core host, the first 0.5 s once the cache held them. The limit
// guards against a hang, not speed.
describe.skipIf(!available)('conv2d / depthwise / pooling kernels vs reference', { timeout: 180_000 }, () => {
    let dev: KernelTestDevice;
    beforeAll(async () => { dev = await openKernelDevice(); });
    afterAll(() => dev?.close());

    // Each code path on every geometry; parametric siblings of a path (other tile sizes, caps)
    // on the two most awkward ones only — each case is a new pipeline, and cold LLVM compiles
    // on the software adapter are slow.
    const SIBLINGS = ['gemm_8x4', 'gemm_4x8', 'capped_4', 'im2col_vec4_4x4', 'im2col_sg_8x4'];
    for (const v of ['gemm_4x4', 'direct', 'capped_1', 'im2col_vec4_4x8', 'im2col_wgmem_8x8', 'im2col_splitk_2', 'im2col_sgrow_8x4', 'im2col_sgsplitk_2', ...SIBLINGS]) {
        it(`conv2d ${v}: strides, dilation, padding, groups`, async () => {
            for (const c of SIBLINGS.includes(v) ? [CONVS[1], CONVS[4]] : CONVS) {
                const [ho, wo] = outHW(c.x[2], c.x[3], c);
                await checkCase(dev, { op: convOp(c), inputShapes: [c.x], outputShape: [c.x[0], c.filters, ho, wo], variant: v });
            }
        });
    }

    it('pointwise (1×1) conv2d through every GEMM variant, batch 2, large channels', async () => {
        const c: ConvCase = { x: [2, 96, 5, 6], filters: 70, kernel: [1, 1], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: true };
        const pw = variantsFor(convOp(c), dev.caps).filter(v => v.startsWith('pointwise_'));
        expect(pw.length).toBeGreaterThanOrEqual(5);
        // One variant per GEMM family (the families' tile spellings are covered in matmul.test.ts).
        const family = (v: string) => v.replace(/_\d+(x\d+)?$/, '');
        const one = pw.filter((v, i) => pw.findIndex(w => family(w) === family(v)) === i);
        expect(one.length).toBeGreaterThanOrEqual(5);
        for (const v of one) await checkCase(dev, { op: convOp(c), inputShapes: [c.x], outputShape: [2, 70, 5, 6], variant: v });
    });

    it('conv2d on few pixels with a long K runs kdot by default (im2col, strided, grouped, pointwise), epilogue fused', async () => {
        const cases: ConvCase[] = [
            { x: [2, 40, 3, 3], filters: 20, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true },
            { x: [1, 64, 4, 4], filters: 24, kernel: [3, 3], stride: [2, 2], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: false },
            { x: [1, 64, 3, 3], filters: 32, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 2, bias: true },
            { x: [2, 300, 3, 3], filters: 16, kernel: [1, 1], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: true },
        ];
        const epi: Epilogue[] = [{ kind: 'scale_shift', scale: 'bn_scale', shift: 'bn_shift' }, { kind: 'activation', fn: 'relu' }, { kind: 'add', tensor: 'residual' }];
        for (const c of cases) {
            const [ho, wo] = outHW(c.x[2], c.x[3], c);
            const request = { op: convOp(c), inputShapes: [c.x], outputShape: [c.x[0], c.filters, ho, wo] };
            const launches = kernelsFor({ ...request, epilogue: [], caps: dev.caps }).launches;
            expect(launches.at(-1)!.name, JSON.stringify(c)).toMatch(/^conv2d\.(im2col|pointwise)_kdot_8$/);
            await checkCase(dev, request);
            await checkCase(dev, { ...request, epilogue: epi });
        }
        // Many pixels keep the register tiles.
        const wide = kernelsFor({ op: convOp(cases[0]), inputShapes: [[1, 40, 5, 5]], outputShape: [1, 20, 5, 5], epilogue: [], caps: dev.caps }).launches;
        expect(wide.at(-1)!.name).not.toMatch(/kdot/);
    });

    it('conv2d with fused folded batch_norm, relu and residual add', async () => {
        const epi: Epilogue[] = [{ kind: 'scale_shift', scale: 'bn_scale', shift: 'bn_shift' }, { kind: 'activation', fn: 'relu' }, { kind: 'add', tensor: 'residual' }];
        const c = CONVS[0];
        for (const v of ['gemm_4x4', 'direct', 'capped_2']) {
            await checkCase(dev, { op: convOp(c), inputShapes: [c.x], outputShape: [1, 8, 11, 13], variant: v, epilogue: epi });
        }
        const gc = CONVS[4]; // grouped: the bias/scale channel is global across groups
        for (const v of ['im2col_vec4_4x8', 'im2col_splitk_3', 'im2col_wgmem_8x8', 'gemm_4x4', 'im2col_sg_8x4']) {
            await checkCase(dev, { op: convOp(gc), inputShapes: [gc.x], outputShape: [1, 36, 6, 6], variant: v, epilogue: epi });
        }
        const p = CONVS[2];
        await checkCase(dev, { op: convOp(p), inputShapes: [p.x], outputShape: [1, 12, 7, 7], variant: 'pointwise_splitk_2', epilogue: epi });
        await checkCase(dev, { op: convOp(p), inputShapes: [p.x], outputShape: [1, 12, 7, 7], variant: 'pointwise_vec4_4x8', epilogue: [{ kind: 'activation', fn: 'silu' }] });
    });

    it('Winograd F(2×2, 3×3): odd and even outputs, asymmetric padding, batch 2, fused epilogue', async () => {
        const cases: ConvCase[] = [
            CONVS[0],
            { x: [2, 5, 8, 7], filters: 6, kernel: [3, 3], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: false },
            { x: [1, 6, 9, 9], filters: 9, kernel: [3, 3], stride: [1, 1], padding: [2, 0, 1, 1], dilation: [1, 1], groups: 1, bias: true },
        ];
        for (const v of ['winograd_sgrow_8x4', 'winograd_sg_8x4', 'winograd_vec4_4x8', 'winograd_splitk_2']) {
            for (const c of cases) {
                const [ho, wo] = outHW(c.x[2], c.x[3], c);
                await checkCase(dev, { op: convOp(c), inputShapes: [c.x], outputShape: [c.x[0], c.filters, ho, wo], variant: v });
            }
        }
        const epi: Epilogue[] = [{ kind: 'scale_shift', scale: 'bn_scale', shift: 'bn_shift' }, { kind: 'activation', fn: 'relu' }, { kind: 'add', tensor: 'residual' }];
        await checkCase(dev, { op: convOp(cases[2]), inputShapes: [cases[2].x], outputShape: [1, 9, 10, 8], variant: 'winograd_sg_8x4', epilogue: epi });
        // Three launches a run: the filters' transform is a weight derived on the host when the op is compiled.
        const w = kernelsFor({ op: convOp(cases[1]), inputShapes: [cases[1].x], outputShape: [2, 6, 6, 5], epilogue: [], variant: 'winograd_sgrow_8x4', caps: dev.caps });
        expect(w.launches.map(l => l.name)).toEqual(['conv2d.winograd_sgrow_8x4.input', 'conv2d.winograd_sgrow_8x4', 'conv2d.winograd_sgrow_8x4.output']);
        expect(w.buffers.find(b => b.role === 'wino_u')).toMatchObject({ kind: 'weight', shape: [16, 6, 5], derived: { from: 'weight', transform: 'winograd_f2x3' } });
        expect(variantsFor(convOp(cases[1]))).toContain('winograd_sg_8x4');
        expect(variantsFor(convOp(CONVS[1]))).not.toContain('winograd_sg_8x4');
        expect(() => kernelsFor({ op: convOp(CONVS[1]), inputShapes: [CONVS[1].x], outputShape: [2, 9, 4, 9], epilogue: [], variant: 'winograd_vec4_4x8', caps: dev.caps }))
            .toThrow(/winograd_vec4_4x8' needs a 3×3, stride-1, undilated, ungrouped conv2d; this one has kernel \[3, 2\], stride \[2, 1\]/);
    });

    it('depthwise_conv2d pix4 and direct, multiplier 1 and 2, with epilogue', async () => {
        for (const v of ['pix4', 'direct']) {
            for (const [x, mult, kernel, stride, padding] of [
                [[1, 8, 10, 9], 1, [3, 3], [1, 1], [1, 1, 1, 1]],
                [[2, 3, 11, 11], 2, [5, 3], [2, 2], [2, 1, 2, 1]],
            ] as [number[], number, number[], number[], number[]][]) {
                const op = makeOp('depthwise_conv2d', { kernel, stride, padding, multiplier: mult });
                const [ho, wo] = outHW(x[2], x[3], { kernel, stride, padding });
                await checkCase(dev, { op, inputShapes: [x], outputShape: [x[0], x[1] * mult, ho, wo], variant: v, epilogue: [{ kind: 'bias', tensor: 'b' }, { kind: 'activation', fn: 'relu6' }] });
            }
        }
    });

    it('max/avg pooling (avg excludes padding) and global avg pool', async () => {
        for (const kind of ['max_pool2d', 'avg_pool2d'] as const) {
            for (const [x, kernel, stride, padding] of [
                [[1, 3, 9, 9], [3, 3], [2, 2], [1, 1, 1, 1]],
                [[2, 4, 8, 7], [2, 2], [2, 2], [0, 0, 0, 0]],
                [[1, 2, 6, 10], [3, 2], [1, 3], [1, 0, 0, 1]],
            ] as [number[], number[], number[], number[]][]) {
                const [ho, wo] = outHW(x[2], x[3], { kernel, stride, padding });
                await checkCase(dev, { op: makeOp(kind, { kernel, stride, padding }), inputShapes: [x], outputShape: [x[0], x[1], ho, wo] });
            }
        }
        for (const variant of ['workgroup_reduce', 'direct']) {
            await checkCase(dev, { op: makeOp('global_avg_pool'), inputShapes: [[2, 70, 7, 7]], outputShape: [2, 70, 1, 1], variant });
            await checkCase(dev, { op: makeOp('global_avg_pool'), inputShapes: [[1, 5, 13, 11]], outputShape: [1, 5, 1, 1], variant, epilogue: [{ kind: 'bias', tensor: 'b' }] });
            await checkCase(dev, { op: makeOp('global_avg_pool'), inputShapes: [[1, 3, 1, 1]], outputShape: [1, 3, 1, 1], variant, epilogue: [{ kind: 'activation', fn: 'sigmoid' }] });
        }
    });

    it('rejects bad conv geometry with readable errors', () => {
        const op = makeOp('conv2d', { filters: 6, kernel: [3, 3], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 4, bias: true });
        expect(() => kernelsFor({ op, inputShapes: [[1, 8, 5, 5]], outputShape: [1, 6, 3, 3], epilogue: [], caps: dev.caps }))
            .toThrow(/channels 8 and filters 6 must both be divisible by groups 4/);
        const op2 = makeOp('conv2d', { filters: 4, kernel: [7, 7], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: true });
        expect(() => kernelsFor({ op: op2, inputShapes: [[1, 2, 5, 5]], outputShape: [1, 4, 1, 1], epilogue: [], caps: dev.caps }))
            .toThrow(/smaller than the \(dilated\) kernel/);
        const op3 = makeOp('conv2d', { filters: 4, kernel: [3, 3], stride: [1, 1], padding: [0, 0, 0, 0], dilation: [1, 1], groups: 1, bias: true });
        expect(() => kernelsFor({ op: op3, inputShapes: [[1, 2, 5, 5]], outputShape: [1, 4, 3, 3], epilogue: [], variant: 'pointwise_vec4_4x8', caps: dev.caps }))
            .toThrow(/needs a 1×1, stride-1/);
    });
});
