/** Pure tests of the WGSL template helpers and of what the cache keys promise. No GPU. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPS, kernelsFor, variantsFor } from '../../../src/runtime/kernels/index.js';
import { grid1D, main1D, mainStart, unroll, wgsl } from '../../../src/runtime/kernels/common.js';
import type { Epilogue, KernelRequest } from '../../../src/runtime/kernels/kernel.js';
import { makeOp } from './check.js';

describe('wgsl template tag', () => {
    it('takes the lines flush left and drops the blank lines the template opens and closes with', () => {
        const text = wgsl`
            fn f() -> u32 {
              return 1u;
            }
        `;
        expect(text).toBe('fn f() -> u32 {\nreturn 1u;\n}');
        expect(wgsl`let a = 1u;
            let b = 2u;`).toBe('let a = 1u;\nlet b = 2u;');
    });

    it('inserts values as they are, multi-line ones included', () => {
        const body = 'let a = 1u;\nlet b = a;';
        expect(wgsl`
            fn f() {
              ${body}
              return ${3}u;
            }`).toBe('fn f() {\nlet a = 1u;\nlet b = a;\nreturn 3u;\n}');
    });

    it('drops a line that holds only an empty value, and keeps other blank lines and empty values inside a line', () => {
        expect(wgsl`
            a;
            ${''}

            ${'b;'}`).toBe('a;\n\nb;');
        expect(wgsl`
            x = ${''}0;`).toBe('x = 0;');
        expect(wgsl`
            a;
            ${''}`).toBe('a;');
        expect(wgsl`
            ${''}
            a;`).toBe('a;');
    });

    it('unrolls a body per index, nested templates included', () => {
        expect(unroll(3, i => `let a${i} = ${i}u;`)).toBe('let a0 = 0u;\nlet a1 = 1u;\nlet a2 = 2u;');
        expect(unroll(0, () => 'x')).toBe('');
        expect(wgsl`
            {
              ${unroll(2, r => wgsl`
                {
                  let row = ${r}u;
                }`)}
            }`).toBe('{\n{\nlet row = 0u;\n}\n{\nlet row = 1u;\n}\n}');
    });
});

describe('the shared prologue', () => {
    it('names the builtins alike in every entry point', () => {
        expect(mainStart([8, 4, 1])).toBe('@compute @workgroup_size(8, 4, 1)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {');
    });

    it('recovers the flat index of a folded 1-D dispatch and guards the last workgroup', () => {
        const grid = grid1D(1000, DEFAULT_CAPS, 'test');
        expect(grid).toEqual({ workgroupSize: 64, groups: 16, dispatch: [16, 1, 1] });
        expect(main1D(grid, 'i', 1000).split('\n').slice(2)).toEqual(['let i = (wid.x + wid.y * 16u) * 64u + lid.x;', 'if (i >= 1000u) { return; }']);
        // Past the device's per-dimension limit the groups fold over y; x is the row length of the fold.
        const folded = grid1D(64 * 10, { ...DEFAULT_CAPS, maxComputeWorkgroupsPerDimension: 4 }, 'test');
        expect(folded.dispatch).toEqual([4, 3, 1]);
        expect(main1D(folded, 'j', 640)).toContain('let j = (wid.x + wid.y * 4u) * 64u + lid.x;');
    });
});

describe('cache keys', () => {
    const epilogues: Epilogue[][] = [[], [{ kind: 'activation', fn: 'relu' }], [{ kind: 'bias', tensor: 'extra' }, { kind: 'add', tensor: 'residual' }]];
    const requests: Omit<KernelRequest, 'caps' | 'epilogue' | 'variant'>[] = [
        { op: makeOp('matmul', {}, 2), inputShapes: [[33, 20], [20, 65]], outputShape: [33, 65] },
        { op: makeOp('matmul', {}, 2), inputShapes: [[32, 64], [64, 64]], outputShape: [32, 64] },
        { op: makeOp('dense', { units: 16, bias: true }), inputShapes: [[2, 1030]], outputShape: [2, 16] },
        { op: makeOp('conv2d', { filters: 16, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], bias: true }), inputShapes: [[1, 8, 9, 9]], outputShape: [1, 16, 9, 9] },
        { op: makeOp('conv2d', { filters: 12, kernel: [1, 1], bias: false }), inputShapes: [[1, 16, 7, 7]], outputShape: [1, 12, 7, 7] },
        { op: makeOp('softmax', { axis: 1 }), inputShapes: [[3, 70]], outputShape: [3, 70] },
        { op: makeOp('add', {}, 2), inputShapes: [[2, 3, 4], [3, 1]], outputShape: [2, 3, 4] },
        { op: makeOp('conv2d', { filters: 16, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], bias: true }), inputShapes: [[1, 32, 2, 3]], outputShape: [1, 16, 2, 3] },
    ];
    // Variants outside the lists that some requests take: kdot (at most 16 columns), on and off subgroups.
    const extra = (r: (typeof requests)[number]): string[] => r.op.kind === 'dense' ? ['kdot_2', 'kdot_8'] : r.outputShape[2] * r.outputShape[3] <= 16 ? ['im2col_kdot_1', 'im2col_kdot_8'] : [];

    it('equal keys mean equal code, bindings and workgroup size', () => {
        const seen = new Map<string, string>();
        for (const r of requests) for (const caps of [DEFAULT_CAPS, { ...DEFAULT_CAPS, subgroupSize: 8 }]) for (const variant of [...variantsFor(r.op, caps), ...extra(r)]) for (const epilogue of epilogues) {
            for (const l of kernelsFor({ ...r, epilogue, variant, caps }).launches) {
                const what = JSON.stringify([l.wgsl(), l.bindings, l.workgroupSize]);
                const before = seen.get(l.cacheKey);
                if (before !== undefined) expect(what, `${l.name}: ${l.cacheKey}`).toBe(before);
                seen.set(l.cacheKey, what);
            }
        }
        expect(seen.size).toBeGreaterThan(200);
    });

    it('a split-K partial launch keys on what it computes, not on the epilogue its reduce applies', () => {
        const r = requests[2];
        for (const variant of ['splitk_4', 'sgsplitk_4']) {
            const caps = { ...DEFAULT_CAPS, subgroupSize: 8 };
            const [plain, fused] = [[], epilogues[2]].map(epilogue => kernelsFor({ ...r, epilogue, variant, caps }).launches);
            expect(plain.map(l => l.name)).toEqual([`dense.${variant}.partial`, `dense.${variant}.reduce`]);
            expect(fused[0].cacheKey).toBe(plain[0].cacheKey);
            expect(fused[0].wgsl()).toBe(plain[0].wgsl());
            expect(fused[1].cacheKey).not.toBe(plain[1].cacheKey);
        }
    });
});
