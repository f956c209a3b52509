/**
 * Ops split into chunks of their grid (plan/split.ts, kernels/slice.ts) compute what the op does:
 * on the software adapter, every chunk a dispatch of its own, along each axis a kernel offers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAdapter, openKernelDevice, type KernelTestDevice } from '../gpu.js';
import { makeOp, randomArray, relErr } from './check.js';
import { DEFAULT_CAPS as CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import { runOpKernels } from '../../../src/runtime/gpu/harness.js';
import { numel, type IrAttrs, type IrOpKind } from '../../../src/runtime/ir/types.js';
import type { SplitAxis } from '../../../src/runtime/kernels/kernel.js';
import { plannedLaunch } from '../../../src/runtime/plan/launch.js';
import { splitLimits, splitOp } from '../../../src/runtime/plan/split.js';
import { sliceLaunch } from '../../../src/runtime/kernels/slice.js';

const available = await probeAdapter();

interface SplitCase {
    name: string;
    kind: IrOpKind;
    attrs: IrAttrs;
    inputShapes: number[][];
    outputShape: number[];
    variant?: string;
    axes: SplitAxis[];
}

const conv = (filters: number, kernel: number, padding = 0): IrAttrs => ({ filters, kernel: [kernel, kernel], stride: [1, 1], padding: [padding, padding, padding, padding], dilation: [1, 1], groups: 1, bias: true } as IrAttrs);

const CASES: SplitCase[] = [
    { name: 'dense (register-blocked)', kind: 'dense', attrs: { units: 140 }, inputShapes: [[70, 24]], outputShape: [70, 140], variant: 'vec4_4x8', axes: ['rows', 'channels'] },
    { name: 'dense (workgroup-memory tiles)', kind: 'dense', attrs: { units: 33 }, inputShapes: [[40, 20]], outputShape: [40, 33], variant: 'wgmem_8x8', axes: ['rows', 'channels'] },
    { name: 'batched matmul', kind: 'matmul', attrs: {}, inputShapes: [[3, 70, 12], [3, 12, 36]], outputShape: [3, 70, 36], variant: 'vec4_4x4', axes: ['batch', 'rows', 'channels'] },
    { name: 'conv2d implicit GEMM', kind: 'conv2d', attrs: conv(40, 3, 1), inputShapes: [[3, 4, 18, 18]], outputShape: [3, 40, 18, 18], variant: 'gemm_4x4', axes: ['batch', 'rows', 'channels'] },
    { name: 'conv2d im2col + GEMM', kind: 'conv2d', attrs: conv(40, 3), inputShapes: [[2, 3, 14, 14]], outputShape: [2, 40, 12, 12], variant: 'im2col_vec4_4x8', axes: ['batch', 'rows', 'channels'] },
    { name: 'conv2d pointwise', kind: 'conv2d', attrs: conv(70, 1), inputShapes: [[2, 16, 12, 12]], outputShape: [2, 70, 12, 12], variant: 'pointwise_vec4_4x8', axes: ['batch', 'rows', 'channels'] },
    { name: 'attention', kind: 'attention', attrs: { heads: 2, causal: false }, inputShapes: [[2, 40, 16]], outputShape: [2, 40, 16], variant: 'vec4_4x4', axes: ['rows', 'channels'] },
    // Wide and short: its output projection holds more than a chunk of the QKV projection's work and is cut too.
    { name: 'attention (both projections cut)', kind: 'attention', attrs: { heads: 2, causal: false }, inputShapes: [[1, 8, 64]], outputShape: [1, 8, 64], variant: 'vec4_4x4', axes: ['channels'] },
];

describe('splitting an op into chunks (plan)', () => {
    it('cuts the heaviest launch whose grid covers the axis, the others whole before and after it', () => {
        const op = makeOp('conv2d', conv(40, 3));
        const kernels = kernelsFor({ op, inputShapes: [[2, 3, 14, 14]], outputShape: [2, 40, 12, 12], epilogue: [], variant: 'im2col_vec4_4x8', caps: CAPS });
        const planned = { kernels, launches: kernels.launches.map(l => plannedLaunch(l, 2 * 40 * 12 * 12)) };
        const limits = splitLimits(planned);
        expect(Object.keys(limits).sort()).toEqual(['batch', 'channels', 'rows']);
        expect(limits.batch).toBe(2);
        const c = splitOp(planned, { axis: 'rows', chunks: 3 })!;
        expect(c.launches.map(l => l.map(k => k.name))).toEqual([
            ['conv2d.im2col_vec4_4x8.im2col', 'conv2d.im2col_vec4_4x8'], ['conv2d.im2col_vec4_4x8'], ['conv2d.im2col_vec4_4x8'],
        ]);
        // The GEMM's work is shared out; the weights are read again by every chunk of rows.
        const gemm = planned.launches[1];
        const chunkGemms = c.planned.map(p => p[p.length - 1]);
        expect(chunkGemms.reduce((s, l) => s + l.flops, 0)).toBeCloseTo(gemm.flops, 6);
        expect(chunkGemms.reduce((s, l) => s + l.workgroups, 0)).toBe(gemm.workgroups);
        expect(chunkGemms.reduce((s, l) => s + l.bytes, 0)).toBeGreaterThan(gemm.bytes);
        // Every chunk runs one pipeline: the same code, its grid origin in a uniform.
        const keys = new Set(c.launches.flatMap(l => l.filter(k => k.uniforms).map(k => k.cacheKey)));
        expect(keys.size).toBe(1);
        const columns = kernels.launches[1].dispatch[0];
        expect(c.launches.map(l => Array.from(l[l.length - 1].uniforms!))).toEqual([0, 1, 2].map(j => [Math.floor(j * columns / 3), 0, 0, 0]));
        expect(c.launches.map(l => l[l.length - 1].dispatch[0]).reduce((a, b) => a + b, 0)).toBe(columns);
        expect(splitOp(planned, { axis: 'batch', chunks: 3 })).toBeUndefined();
        expect(splitOp(planned, { axis: 'rows', chunks: 1 })!.launches).toEqual([kernels.launches]);
    });

    it('cuts every other launch longer than one chunk of the heaviest into chunks no longer, the short ones whole with the chunk before them', () => {
        const op = makeOp('attention', { heads: 2, causal: false });
        const kernels = kernelsFor({ op, inputShapes: [[1, 8, 64]], outputShape: [1, 8, 64], epilogue: [], variant: 'vec4_4x4', caps: CAPS });
        const planned = { kernels, launches: kernels.launches.map(l => plannedLaunch(l, 8 * 64)) };
        const names = kernels.launches.map(k => k.name);
        const [qkv, out] = [planned.launches[0], planned.launches[names.length - 1]];
        expect(out.effectiveFlops / qkv.effectiveFlops).toBeCloseTo(1 / 3, 6);
        // Six chunks of the QKV projection: the output projection holds two of them' work, the scores and context less than one.
        const c = splitOp(planned, { axis: 'channels', chunks: 6 })!;
        expect(c.launches.map(l => l.map(k => k.name))).toEqual([
            ...Array.from({ length: 5 }, () => [names[0]]),
            names.slice(0, -1),
            [names[names.length - 1]], [names[names.length - 1]],
        ]);
        const work = (ls: readonly (readonly { effectiveFlops: number }[])[]) => ls.flat().reduce((s, l) => s + l.effectiveFlops, 0);
        expect(work(c.planned)).toBeCloseTo(work([planned.launches]), 3);
        // Three chunks: the output projection holds exactly one chunk's work and runs whole in the last.
        expect(splitOp(planned, { axis: 'channels', chunks: 3 })!.launches.map(l => l.length)).toEqual([1, 1, names.length]);
    });

    it('offsets the kernel\'s workgroup ids by the chunk\'s origin, a uniform bound after its own bindings', () => {
        const op = makeOp('dense', { units: 96 });
        const caps = { ...CAPS, subgroupSize: 8 };
        const [k] = kernelsFor({ op, inputShapes: [[64, 32]], outputShape: [64, 96], epilogue: [], variant: 'sgrow_8x4', caps }).launches;
        const chunks = sliceLaunch(k, 'channels', 3);
        const text = chunks[0].wgsl();
        expect(text.startsWith('enable subgroups;')).toBe(true);
        expect(text).toContain(`@group(0) @binding(${k.bindings.length}) var<uniform> t_chunk_origin: ChunkOrigin;`);
        expect(text).toContain('let wid = chunk_wid + t_chunk_origin.origin.xyz;');
        expect(text.match(/fn main\(/g)).toHaveLength(1);
        expect(chunks.map(c => c.dispatch[0]).reduce((a, b) => a + b, 0)).toBe(k.dispatch[0]);
        expect(chunks.every(c => c.dispatch[1] === k.dispatch[1] && c.dispatch[2] === k.dispatch[2])).toBe(true);
        expect(() => sliceLaunch(k, 'channels', k.dispatch[0] + 1)).toThrow(/need 1 to \d+ \(its workgroups along that axis\)/);
        expect(() => sliceLaunch(k, 'batch', 2)).toThrow(/does not cover the batch axis/);
    });

    it('does not split a persistent (capped) kernel, nor a 1-D grid', () => {
        for (const [kind, attrs, shapes, out, variant] of [
            ['dense', { units: 64 }, [[64, 64]], [64, 64], 'capped_4'],
            ['conv2d', conv(2, 3, 1), [[1, 3, 8, 8]], [1, 2, 8, 8], 'direct'],
        ] as const) {
            const op = makeOp(kind, attrs as IrAttrs);
            const kernels = kernelsFor({ op, inputShapes: shapes.map(s => [...s]), outputShape: [...out], epilogue: [], variant, caps: CAPS });
            const planned = { kernels, launches: kernels.launches.map(l => plannedLaunch(l, numel([...out]))) };
            expect(splitLimits(planned)).toEqual({});
            expect(splitOp(planned, { axis: 'rows', chunks: 2 })).toBeUndefined();
        }
    });
});


describe.skipIf(!available)('chunked ops on the software adapter compute the unsplit op', () => {
    let dev: KernelTestDevice;
    beforeAll(async () => { dev = await openKernelDevice(); });
    afterAll(() => dev?.close());

    for (const c of CASES) {
        it(`${c.name}: along ${c.axes.join(', ')}`, async () => {
            const op = makeOp(c.kind, c.attrs, c.inputShapes.length);
            const kernels = kernelsFor({ op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps: dev.caps });
            const outputs = numel(c.outputShape);
            const planned = { kernels, launches: kernels.launches.map(l => plannedLaunch(l, outputs)) };
            const inputs = c.inputShapes.map((s, i) => randomArray(numel(s), 11 + 7 * i));
            const whole = await runOpKernels(dev.device, dev.pipelines, `${c.name}/whole`, kernels, { inputs, outputElements: outputs, seed: 3 });
            expect(whole.output.some(x => x !== 0)).toBe(true);
            for (const axis of c.axes) {
                const limit = splitLimits(planned)[axis];
                expect(limit, `${c.name} cannot be split along ${axis}`).toBeGreaterThanOrEqual(2);
                for (const chunks of new Set([2, Math.min(limit!, 5)])) {
                    const split = splitOp(planned, { axis, chunks })!;
                    // The heaviest launch in `chunks`; another long launch adds chunks of its own.
                    expect(split.launches.length).toBeGreaterThanOrEqual(chunks);
                    // Every chunk its own dispatch, in order, on the same buffers and weights.
                    const chunked = { ...kernels, launches: split.launches.flat() };
                    const got = await runOpKernels(dev.device, dev.pipelines, `${c.name}/${axis}×${chunks}`, chunked, { inputs, weights: whole.weights, outputElements: outputs, seed: 3 });
                    expect(relErr(got.output, whole.output), `${c.name} split along ${axis} into ${chunks}`).toBeLessThan(1e-6);
                }
            }
        }, 120_000);
    }
});
