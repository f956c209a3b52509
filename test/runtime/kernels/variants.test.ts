/** Pure tests of variant names, the edge format, and the typed values the generators use. No GPU. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPS, kernelsFor, variantsFor, weightValues } from '../../../src/runtime/kernels/index.js';
import { winogradWeights } from '../../../src/runtime/kernels/winograd.js';
import type { LaunchBuffer } from '../../../src/runtime/kernels/kernel.js';
import { GEMM_VARIANTS, defaultGemmVariant, gemmVariantName, needsSubgroups, parseGemmVariant } from '../../../src/runtime/kernels/matmul.js';
import { CONV_VARIANTS, WINOGRAD_VARIANTS, convVariantName, defaultDepthwiseVariant, parseConvVariant } from '../../../src/runtime/kernels/conv2d.js';
import { defaultGlobalPoolVariant, GLOBAL_POOL_DIRECT_PIXELS } from '../../../src/runtime/kernels/pool.js';
import { makeOp } from './check.js';

describe('GEMM variant names', () => {
    it('parse to typed values and print back to the same name', () => {
        for (const name of [...GEMM_VARIANTS, 'vec4_1x4', 'vec4_8x8', 'sg_16x8', 'sgrow_4x4', 'capped_3', 'splitk_7', 'sgsplitk_2', 'wgmem_4x4', 'kdot_1', 'kdot_8']) {
            const v = parseGemmVariant(name);
            expect(v, name).toBeDefined();
            expect(gemmVariantName(v!)).toBe(name);
        }
        expect(parseGemmVariant('sgrow_8x4')).toEqual({ family: 'sgrow', tm: 8, tn: 4 });
        expect(parseGemmVariant('capped_16')).toEqual({ family: 'capped', workgroups: 16 });
        expect(parseGemmVariant('kdot_4')).toEqual({ family: 'kdot', rows: 4 });
    });

    it('reject names outside each family\'s range', () => {
        for (const name of ['vec4_9x4', 'vec4_4x5', 'vec4_0x4', 'sg_17x4', 'sgrow_8x2', 'wgmem_8x4', 'splitk_1', 'sgsplitk_1', 'capped_0', 'kdot_3', 'kdot_16', 'bogus', 'im2col_vec4_4x8']) {
            expect(parseGemmVariant(name), name).toBeUndefined();
        }
    });

    it('say which need subgroups, for every op that takes a GEMM variant', () => {
        for (const name of ['sg_8x4', 'sgrow_8x4', 'sgsplitk_4', 'im2col_sg_4x4', 'pointwise_sgrow_8x4', 'winograd_sgrow_8x4']) expect(needsSubgroups(name), name).toBe(true);
        for (const name of ['vec4_4x8', 'splitk_4', 'capped_4', 'wgmem_16x16', 'kdot_8', 'im2col_kdot_8', 'im2col_vec4_4x8', 'winograd_vec4_4x8', 'gemm_4x4', 'direct', 'pix4', 'map4']) expect(needsSubgroups(name), name).toBe(false);
    });
});

describe('few-row GEMMs', () => {
    it('default to tiles of as many rows as they have (one, two, else four), subgroup tiles from 8 rows', () => {
        expect(defaultGemmVariant(1, 1000, 1280, 1, DEFAULT_CAPS)).toEqual({ family: 'vec4', tm: 1, tn: 8 });
        expect(defaultGemmVariant(2, 283, 1183, 1, DEFAULT_CAPS)).toEqual({ family: 'vec4', tm: 2, tn: 8 });
        expect(defaultGemmVariant(3, 283, 1183, 1, DEFAULT_CAPS)).toEqual({ family: 'vec4', tm: 4, tn: 8 });
        expect(defaultGemmVariant(1, 1000, 1280, 1, { ...DEFAULT_CAPS, subgroupSize: 8 })).toEqual({ family: 'vec4', tm: 1, tn: 8 });
        expect(defaultGemmVariant(8, 512, 512, 1, { ...DEFAULT_CAPS, subgroupSize: 8 })).toEqual({ family: 'sgrow', tm: 8, tn: 4 });
    });

    it('shrink the workgroup\'s rows of lanes to the rows there are (no lane computes a clamped duplicate row)', () => {
        const dense = (m: number, variant?: string) => kernelsFor({ op: makeOp('dense', { units: 1000, bias: true }), inputShapes: [[m, 1280]], outputShape: [m, 1000], epilogue: [], ...(variant ? { variant } : {}), caps: DEFAULT_CAPS }).launches[0];
        const gemv = dense(1);
        expect(gemv.name).toBe('dense.vec4_1x8');
        expect(gemv.workgroupSize).toEqual([8, 1, 1]);
        // vec4_4x8: 1 row on one row of lanes (4 rows computed, not 32); 7 rows on two; 64 rows on eight.
        expect(dense(1, 'vec4_4x8').workgroupSize).toEqual([8, 1, 1]);
        expect(dense(7, 'vec4_4x8').workgroupSize).toEqual([8, 2, 1]);
        expect(dense(64, 'vec4_4x8').workgroupSize).toEqual([8, 8, 1]);
    });
});

describe('conv2d variant names', () => {
    it('parse to typed values and print back to the same name', () => {
        const pointwise = GEMM_VARIANTS.map(v => `pointwise_${v}`);
        for (const name of [...CONV_VARIANTS, ...WINOGRAD_VARIANTS, ...pointwise, 'gemm_1x4', 'gemm_8x8', 'capped_1', 'im2col_wgmem_8x8', 'im2col_splitk_2', 'winograd_splitk_2', 'winograd_capped_3']) {
            const v = parseConvVariant(name);
            expect(v, name).toBeDefined();
            expect(convVariantName(v!)).toBe(name);
        }
        expect(parseConvVariant('im2col_sgsplitk_4')).toEqual({ family: 'im2col', gemm: { family: 'sgsplitk', splits: 4 } });
        expect(parseConvVariant('im2col_kdot_8')).toEqual({ family: 'im2col', gemm: { family: 'kdot', rows: 8 } });
        expect(convVariantName(parseConvVariant('pointwise_kdot_2')!)).toBe('pointwise_kdot_2');
    });

    it('reject unknown tiles, unknown GEMM parts and a Winograd GEMM without register tiles', () => {
        for (const name of ['gemm_3x4', 'gemm_4x5', 'capped_0', 'im2col_bogus', 'pointwise_vec4_9x9', 'winograd_wgmem_8x8', 'winograd_kdot_4', 'im2col_kdot_3', 'pix4', 'bogus']) {
            expect(parseConvVariant(name), name).toBeUndefined();
        }
    });

    it('explain a bad name by what its prefix asks of the conv, before what is unknown in it', () => {
        const conv3x3 = makeOp('conv2d', { filters: 8, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], bias: false });
        const conv5x5 = makeOp('conv2d', { filters: 8, kernel: [5, 5], stride: [1, 1], padding: [2, 2, 2, 2], bias: false });
        const request = (op: typeof conv3x3, variant: string) => () => kernelsFor({ op, inputShapes: [[1, 4, 8, 8]], outputShape: [1, 8, 8, 8], epilogue: [], variant, caps: DEFAULT_CAPS });
        expect(request(conv5x5, 'winograd_bogus')).toThrow(/variant 'winograd_bogus' needs a 3×3, stride-1, undilated, ungrouped conv2d; this one has kernel \[5, 5\]/);
        expect(request(conv3x3, 'winograd_bogus')).toThrow(/variant 'winograd_bogus': 'bogus' is not a register-blocked GEMM variant/);
        expect(request(conv3x3, 'winograd_wgmem_8x8')).toThrow(/'wgmem_8x8' is not a register-blocked GEMM variant/);
        expect(request(conv3x3, 'pointwise_bogus')).toThrow(/variant 'pointwise_bogus' needs a 1×1, stride-1, unpadded, ungrouped conv2d/);
        expect(request(conv3x3, 'im2col_bogus')).toThrow(/unknown variant 'im2col_bogus'; this op supports gemm_4x4, .*winograd_vec4_4x8/);
    });

    it('label launches with the name the request gave, and the default by its name', () => {
        const op = makeOp('conv2d', { filters: 32, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], bias: true });
        const names = (variant?: string, caps = DEFAULT_CAPS) => kernelsFor({ op, inputShapes: [[1, 16, 14, 14]], outputShape: [1, 32, 14, 14], epilogue: [], variant, caps }).launches.map(l => [l.name, l.variant.variant]);
        expect(names('im2col_splitk_2')).toEqual([
            ['conv2d.im2col_splitk_2.im2col', 'im2col_splitk_2'], ['conv2d.im2col_splitk_2.partial', 'im2col_splitk_2'], ['conv2d.im2col_splitk_2.reduce', 'im2col_splitk_2'],
        ]);
        expect(names(undefined, { ...DEFAULT_CAPS, subgroupSize: 8 }).map(([n]) => n)).toEqual([
            'conv2d.winograd_sgrow_8x4.input', 'conv2d.winograd_sgrow_8x4', 'conv2d.winograd_sgrow_8x4.output',
        ]);
        for (const variant of variantsFor(op, { ...DEFAULT_CAPS, subgroupSize: 8 })) expect(names(variant, { ...DEFAULT_CAPS, subgroupSize: 8 })[0][1]).toBe(variant);
    });
});

describe('depthwise variants', () => {
    it('default to pix4 where a channel\'s map fills one of its workgroups (256 pixels), else direct', () => {
        const op = (stride: number) => makeOp('depthwise_conv2d', { kernel: [3, 3], stride: [stride, stride], padding: [1, 1, 1, 1], multiplier: 1 });
        const name = (c: number, hw: number, stride = 1, variant?: string) => {
            const ho = Math.floor((hw - 1) / stride) + 1;
            return kernelsFor({ op: op(stride), inputShapes: [[1, c, hw, hw]], outputShape: [1, c, ho, ho], epilogue: [], variant, caps: DEFAULT_CAPS }).launches.map(l => l.name);
        };
        expect(name(960, 3)).toEqual(['depthwise_conv2d.direct']);
        expect(name(192, 15)).toEqual(['depthwise_conv2d.direct']);
        expect(name(192, 16)).toEqual(['depthwise_conv2d.pix4']);
        expect(name(32, 48)).toEqual(['depthwise_conv2d.pix4']);
        // The output's map decides: 32² at stride 2 is 16² out.
        expect(name(144, 32, 2)).toEqual(['depthwise_conv2d.pix4']);
        expect(name(144, 30, 2)).toEqual(['depthwise_conv2d.direct']);
        // A variant asked for is kept.
        expect(name(960, 3, 1, 'pix4')).toEqual(['depthwise_conv2d.pix4']);
        expect(defaultDepthwiseVariant(255)).toBe('direct');
        expect(defaultDepthwiseVariant(256)).toBe('pix4');
    });
});

describe('global average pool variants', () => {
    it('default to one invocation per plane on small planes, a workgroup per plane on large ones', () => {
        const name = (c: number, hw: number, variant?: string) =>
            kernelsFor({ op: makeOp('global_avg_pool'), inputShapes: [[1, c, hw, hw]], outputShape: [1, c, 1, 1], epilogue: [], variant, caps: DEFAULT_CAPS }).launches.map(l => l.name);
        expect(name(1280, 3)).toEqual(['global_avg_pool.direct']);
        expect(name(16, 2 * Math.floor(Math.sqrt(GLOBAL_POOL_DIRECT_PIXELS) / 2))).toEqual(['global_avg_pool.direct']);
        expect(name(16, 33)).toEqual(['global_avg_pool.workgroup_reduce']);
        expect(name(1280, 3, 'workgroup_reduce')).toEqual(['global_avg_pool.workgroup_reduce']);
        expect(defaultGlobalPoolVariant(GLOBAL_POOL_DIRECT_PIXELS)).toBe('direct');
        expect(defaultGlobalPoolVariant(GLOBAL_POOL_DIRECT_PIXELS + 1)).toBe('workgroup_reduce');
        expect(variantsFor(makeOp('global_avg_pool'))).toEqual(['workgroup_reduce', 'direct']);
        expect(() => name(8, 4, 'bogus')).toThrow(/unknown variant 'bogus'; this op supports workgroup_reduce, direct/);
    });
});

describe('Winograd weights on the host', () => {
    it('are U = G g Gᵀ per filter and channel, stored [16, F, C]', () => {
        const F = 3, C = 2;
        const g = Float32Array.from({ length: F * C * 9 }, (_, i) => Math.sin(1 + 7 * i));
        const U = winogradWeights(F, C, g);
        const G = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]];
        for (let f = 0; f < F; f++) for (let c = 0; c < C; c++) for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) {
            let v = 0;
            for (let k = 0; k < 3; k++) for (let j = 0; j < 3; j++) v += G[a][k] * g[(f * C + c) * 9 + 3 * k + j] * G[b][j];
            expect(U[(4 * a + b) * F * C + f * C + c]).toBeCloseTo(v, 6);
        }
        expect(() => winogradWeights(F, C, new Float32Array(5))).toThrow(/need 54 values, got 5/);
    });
    it('are derived from the op\'s seeded weight by weightValues, once per role', () => {
        const weight: LaunchBuffer = { role: 'weight', kind: 'weight', shape: [2, 1, 3, 3], dtype: 'f32' };
        const u: LaunchBuffer = { role: 'wino_u', kind: 'weight', shape: [16, 2, 1], dtype: 'f32', derived: { from: 'weight', transform: 'winograd_f2x3' } };
        let seeded = 0;
        const init = (b: LaunchBuffer) => { seeded++; return Float32Array.from({ length: 18 }, (_, i) => i + (b.role === 'weight' ? 0 : 100)); };
        const known = new Map<string, Float32Array>();
        const values = weightValues(u, [weight, u], init, known);
        expect(values).toEqual(winogradWeights(2, 1, init(weight)));
        expect(weightValues(weight, [weight, u], init, known)).toBe(known.get('weight'));
        expect(seeded).toBe(2); // once for the source, once above for the expectation
        expect(() => weightValues(u, [u], init)).toThrow(/derived from 'weight', which is not a seeded weight of the op/);
    });
});


describe('pool launches as the model reads them', () => {
    it('count every window\'s reads: a 2×2/2 pool reads its input once, a 3×3/2 one about 2.25 times', () => {
        const pool = (k: number, p: number) => kernelsFor({
            op: makeOp('max_pool2d', { kernel: [k, k], stride: [2, 2], padding: [p, p, p, p] }), inputShapes: [[1, 8, 16, 16]], outputShape: [1, 8, 8, 8], epilogue: [], caps: DEFAULT_CAPS,
        }).launches[0];
        expect(pool(2, 0).bytes).toBe(4 * (8 * 16 * 16 + 8 * 8 * 8));
        expect(pool(3, 1).bytes).toBe(4 * (8 * 8 * 8 * 9 + 8 * 8 * 8));
    });
});
