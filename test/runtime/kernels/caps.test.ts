/** Pure tests of the kernel descriptions: coverage of every op kind, cache keys, caps checks. No GPU. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPS, KernelError, kernelsFor, variantsFor } from '../../../src/runtime/kernels/index.js';
import { lazyText } from '../../../src/runtime/kernels/common.js';
import type { DeviceCaps, KernelRequest } from '../../../src/runtime/kernels/kernel.js';
import type { IrOpKind } from '../../../src/runtime/ir/types.js';
import { makeOp } from './check.js';

const ALL: Record<IrOpKind, Omit<KernelRequest, 'caps' | 'epilogue'>> = {
    dense: { op: makeOp('dense', { units: 8, bias: true }), inputShapes: [[2, 4]], outputShape: [2, 8] },
    matmul: { op: makeOp('matmul', {}, 2), inputShapes: [[2, 4], [4, 3]], outputShape: [2, 3] },
    conv2d: { op: makeOp('conv2d', { filters: 4, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true }), inputShapes: [[1, 2, 5, 5]], outputShape: [1, 4, 5, 5] },
    depthwise_conv2d: { op: makeOp('depthwise_conv2d', { kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], multiplier: 1 }), inputShapes: [[1, 2, 5, 5]], outputShape: [1, 2, 5, 5] },
    max_pool2d: { op: makeOp('max_pool2d', { kernel: [2, 2], stride: [2, 2], padding: [0, 0, 0, 0] }), inputShapes: [[1, 2, 4, 4]], outputShape: [1, 2, 2, 2] },
    avg_pool2d: { op: makeOp('avg_pool2d', { kernel: [2, 2], stride: [2, 2], padding: [0, 0, 0, 0] }), inputShapes: [[1, 2, 4, 4]], outputShape: [1, 2, 2, 2] },
    global_avg_pool: { op: makeOp('global_avg_pool'), inputShapes: [[1, 2, 4, 4]], outputShape: [1, 2, 1, 1] },
    batch_norm: { op: makeOp('batch_norm'), inputShapes: [[1, 2, 4, 4]], outputShape: [1, 2, 4, 4] },
    layer_norm: { op: makeOp('layer_norm'), inputShapes: [[3, 8]], outputShape: [3, 8] },
    relu: { op: makeOp('relu'), inputShapes: [[5]], outputShape: [5] },
    relu6: { op: makeOp('relu6'), inputShapes: [[5]], outputShape: [5] },
    gelu: { op: makeOp('gelu'), inputShapes: [[5]], outputShape: [5] },
    sigmoid: { op: makeOp('sigmoid'), inputShapes: [[5]], outputShape: [5] },
    tanh: { op: makeOp('tanh'), inputShapes: [[5]], outputShape: [5] },
    silu: { op: makeOp('silu'), inputShapes: [[5]], outputShape: [5] },
    add: { op: makeOp('add', {}, 2), inputShapes: [[2, 3], [3]], outputShape: [2, 3] },
    mul: { op: makeOp('mul', {}, 2), inputShapes: [[2, 3], [3]], outputShape: [2, 3] },
    softmax: { op: makeOp('softmax', { axis: 1 }), inputShapes: [[2, 3]], outputShape: [2, 3] },
    reshape: { op: makeOp('reshape', { shape: [3, 2] }), inputShapes: [[2, 3]], outputShape: [3, 2] },
    transpose: { op: makeOp('transpose', { perm: [1, 0] }), inputShapes: [[2, 3]], outputShape: [3, 2] },
    flatten: { op: makeOp('flatten'), inputShapes: [[2, 3, 2]], outputShape: [2, 6] },
    concat: { op: makeOp('concat', { axis: 0 }, 2), inputShapes: [[2, 3], [1, 3]], outputShape: [3, 3] },
    embedding: { op: makeOp('embedding', { vocab: 10, dim: 4 }), inputShapes: [[2, 3]], outputShape: [2, 3, 4] },
    attention: { op: makeOp('attention', { heads: 2, causal: true }), inputShapes: [[1, 4, 8]], outputShape: [1, 4, 8] },
    lstm: { op: makeOp('lstm', { hidden: 4, layers: 2 }), inputShapes: [[1, 3, 5]], outputShape: [1, 3, 4] },
};

describe('kernel descriptions', () => {
    it('cover every IR op kind and every listed variant, with well-formed launches', () => {
        // Without subgroups (the spec defaults) and with a fixed subgroup size of 8 (lavapipe's).
        for (const [kind, req] of Object.entries(ALL)) for (const caps of [DEFAULT_CAPS, { ...DEFAULT_CAPS, subgroupSize: 8 }]) {
            const listed = variantsFor(req.op, caps);
            if (caps.subgroupSize === undefined) expect(listed.filter(v => /(^|_)sg/.test(v)), kind).toEqual([]);
            for (const variant of [undefined, ...listed]) {
                const k = kernelsFor({ ...req, epilogue: [], caps, variant });
                if (k.aliasesInput) { expect(k.launches, kind).toHaveLength(0); continue; }
                expect(k.launches.length, `${kind}/${variant}`).toBeGreaterThan(0);
                for (const l of k.launches) {
                    expect(l.name).toMatch(/^[a-z0-9_.]+$/);
                    expect(l.wgsl()).toContain('@compute');
                    expect(l.bindings.some(b => b.access === 'read_write'), l.name).toBe(true);
                    expect(l.dispatch.every(d => Number.isInteger(d) && d >= 1), l.name).toBe(true);
                    // every non-input/output/uniform role is declared as a buffer of the op
                    for (const b of l.bindings) {
                        if (b.access === 'uniform' || /^in\d+$/.test(b.role) || b.role === 'out') continue;
                        expect(k.buffers.some(x => x.role === b.role), `${l.name}: role ${b.role}`).toBe(true);
                    }
                }
            }
        }
    });

    it('weights are named as the IR names them and carry init hints', () => {
        const bn = kernelsFor({ ...ALL.batch_norm, epilogue: [], caps: DEFAULT_CAPS });
        expect(bn.buffers.map(b => b.role)).toEqual(['gamma', 'beta', 'mean', 'var']);
        expect(bn.buffers.find(b => b.role === 'var')?.init).toBe('positive');
        const l = kernelsFor({ ...ALL.lstm, epilogue: [], caps: DEFAULT_CAPS });
        expect(l.buffers.filter(b => b.kind === 'weight').map(b => b.role)).toEqual(['w_ih.0', 'w_hh.0', 'b.0', 'w_ih.1', 'w_hh.1', 'b.1']);
        const op = { ...ALL.dense.op, weights: [{ name: 'weight', shape: [4, 9], dtype: 'f32' as const }] };
        expect(() => kernelsFor({ ...ALL.dense, op, epilogue: [], caps: DEFAULT_CAPS })).toThrow(/weight 'weight' has shape \[4, 9\] in the IR, but the kernel binds \[4, 8\]/);
    });

    it('cache keys name every code-changing parameter', () => {
        const key = (r: Partial<KernelRequest>) => kernelsFor({ ...ALL.matmul, epilogue: [], caps: DEFAULT_CAPS, ...r }).launches[0].cacheKey;
        const base = key({});
        expect(key({})).toBe(base);
        expect(key({ variant: 'vec4_4x4' })).not.toBe(base);
        const bigKey = (variant: string) => kernelsFor({ op: makeOp('matmul', {}, 2), inputShapes: [[256, 256], [256, 256]], outputShape: [256, 256], epilogue: [], caps: DEFAULT_CAPS, variant }).launches[0].cacheKey;
        expect(bigKey('capped_2')).not.toBe(bigKey('capped_3'));
        expect(key({ epilogue: [{ kind: 'activation', fn: 'relu' }] })).not.toBe(base);
        expect(key({ inputShapes: [[2, 8], [8, 3]] })).not.toBe(base);
        // the capped variant really caps the workgroup count
        const capped = kernelsFor({ op: makeOp('matmul', {}, 2), inputShapes: [[256, 256], [256, 256]], outputShape: [256, 256], epilogue: [], caps: DEFAULT_CAPS, variant: 'capped_5' });
        expect(capped.launches[0].dispatch).toEqual([5, 1, 1]);
        expect(capped.launches[0].variant.workgroups).toBe(5);
    });

    it('checks parameters against the device caps with readable errors', () => {
        const small: DeviceCaps = { ...DEFAULT_CAPS, maxComputeWorkgroupStorageSize: 1024 };
        expect(() => kernelsFor({ ...ALL.matmul, epilogue: [], caps: small, variant: 'wgmem_16x16' }))
            .toThrow('matmul.wgmem_16x16 needs 2 KiB workgroup storage; this device allows 1 KiB');
        expect(() => kernelsFor({ ...ALL.matmul, epilogue: [], caps: DEFAULT_CAPS, variant: 'wgmem_32x32' }))
            .toThrow('matmul.wgmem_32x32 needs 1024 invocations per workgroup; this device allows 256');
        const fewBuffers: DeviceCaps = { ...DEFAULT_CAPS, maxStorageBuffersPerShaderStage: 3 };
        expect(() => kernelsFor({ ...ALL.dense, epilogue: [{ kind: 'add', tensor: 'residual' }], caps: fewBuffers }))
            .toThrow(/binds 5 storage buffers; this device allows 3 per shader stage/);
        const tinyBinding: DeviceCaps = { ...DEFAULT_CAPS, maxStorageBufferBindingSize: 64 };
        expect(() => kernelsFor({ ...ALL.dense, epilogue: [], caps: tinyBinding }))
            .toThrow(/buffer 'out' needs 64 bytes|buffer 'in0'|buffer '.*' needs \d+ bytes; this device binds at most 64 bytes/);
        const fewGroups: DeviceCaps = { ...DEFAULT_CAPS, maxComputeWorkgroupsPerDimension: 2 };
        expect(() => kernelsFor({ op: makeOp('matmul', {}, 2), inputShapes: [[3, 64, 64], [3, 64, 64]], outputShape: [3, 64, 64], epilogue: [], caps: fewGroups }))
            .toThrow(/dispatches 3 workgroups along z; this device allows 2/);
        // large elementwise launches fold into 2-D dispatch instead of failing
        const big = kernelsFor({ op: makeOp('relu'), inputShapes: [[16, 1024, 1024]], outputShape: [16, 1024, 1024], epilogue: [], caps: DEFAULT_CAPS });
        expect(big.launches[0].dispatch[1]).toBeGreaterThan(1);
        expect(big.launches[0].dispatch[0]).toBeLessThanOrEqual(65535);
    });

    it('rejects unknown variants, bad attributes and clashing epilogue roles', () => {
        expect(() => kernelsFor({ ...ALL.softmax, epilogue: [], caps: DEFAULT_CAPS, variant: 'fast' })).toThrow(/unknown variant 'fast'; this op supports workgroup_reduce, thread_row/);
        expect(() => kernelsFor({ ...ALL.dense, epilogue: [{ kind: 'add', tensor: 'in0' }], caps: DEFAULT_CAPS })).toThrow(/clashes with the op's own input\/output roles/);
        const bad = makeOp('softmax', { axis: 5 });
        expect(() => kernelsFor({ op: bad, inputShapes: [[2, 3]], outputShape: [2, 3], epilogue: [], caps: DEFAULT_CAPS })).toThrow(/softmax axis 5 is out of range for \[2, 3\]/);
        expect(() => kernelsFor({ op: makeOp('attention', { heads: 3, causal: false }), inputShapes: [[1, 4, 8]], outputShape: [1, 4, 8], epilogue: [], caps: DEFAULT_CAPS }))
            .toThrow(/d = 8 must be divisible by heads = 3/);
        const f16op = { ...ALL.dense.op, weights: [{ name: 'weight', shape: [4, 8], dtype: 'f16' as const }] };
        expect(() => kernelsFor({ ...ALL.dense, op: f16op, epilogue: [], caps: DEFAULT_CAPS })).toThrow(/weight 'weight' is f16; these kernels implement f32 only/);
        expect(() => kernelsFor({ op: makeOp('relu'), inputShapes: [[0, 3]], outputShape: [0, 3], epilogue: [], caps: DEFAULT_CAPS })).toThrow(KernelError);
    });
});

describe('lazy WGSL', () => {
    it('builds a kernel text on first use, once', () => {
        let builds = 0;
        const text = lazyText(() => `// build ${++builds}`);
        expect(builds).toBe(0);
        expect(text()).toBe('// build 1');
        expect(text()).toBe('// build 1');
        expect(builds).toBe(1);
    });
    it('gives the same text on every call for GEMM and Winograd launches', () => {
        const conv = kernelsFor({ ...ALL.conv2d, epilogue: [], variant: 'winograd_vec4_4x8', caps: DEFAULT_CAPS });
        const dense = kernelsFor({ ...ALL.dense, epilogue: [], caps: DEFAULT_CAPS });
        for (const l of [...conv.launches, ...dense.launches]) {
            const first = l.wgsl();
            expect(first, l.name).toMatch(/@compute/);
            expect(l.wgsl()).toBe(first);
        }
    });
});
