/**
 * Entry point of the kernel generators: `kernelsFor(request)` returns the launches and extra
 * buffers of one (possibly fused) op, `variantsFor(op)` the named variants it supports (a
 * device's DeviceCaps come from src/runtime/gpu/adapter.ts capsFromDevice).
 *
 * Buffers and roles (binding roles "in0", "in1", … are the op's inputs, "out" its output):
 * - dense: weight [k, units] (x·W), bias [units] when attrs.bias.
 * - conv2d: weight [filters, c/groups, kh, kw] (OIHW), bias [filters] when attrs.bias.
 * - depthwise_conv2d: weight [c·multiplier, 1, kh, kw]; output channel o reads input channel
 *   floor(o / multiplier). No bias.
 * - batch_norm: gamma, beta, mean, var [C] (C = dim 1); y = (x − mean)/√(var + 1e-5)·gamma + beta.
 * - layer_norm: gamma, beta [D] over the last dim; eps 1e-5.
 * - embedding: weight [vocab, dim]; ids are i32, clamped into [0, vocab − 1].
 * - attention: w_qkv [d, 3d] (columns q | k | v, head h uses columns h·dh … h·dh+dh−1 of each),
 *   b_qkv [3d], w_out [d, d], b_out [d]; scores scaled by 1/√dh; causal masks j > i.
 * - lstm: per layer l: w_ih.l [in_l, 4h], w_hh.l [h, 4h], b.l [4h]; gate columns in order
 *   i | f | g | o (PyTorch's order), c' = σ(f)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c'); h0 = c0 = 0.
 * Activations: gelu is the tanh approximation. Epilogues: the op's own bias is added first,
 * then the request's epilogue in order; ops that cannot fuse one (pools, norms, softmax,
 * layout copies, embedding, lstm) append an in-place epilogue launch on "out".
 * Only f32 kernels are implemented (no `enable f16;` variants): every tensor is computed and
 * stored as f32 (embedding ids as i32). An op whose IR weights are declared f16 is rejected.
 * Storage buffers should be allocated with sizes rounded up to a multiple of 16 bytes (some
 * kernels bind tensors whose element count is a multiple of 4 as array<vec4<f32>>).
 */
import type { IrOp, IrOpKind } from '../ir/types.js';
import type { DeviceCaps, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import { KernelError, at, fmtShape } from './common.js';
import { winogradWeights } from './winograd.js';
import { GEMM_VARIANTS, denseKernels, matmulKernels, needsSubgroups } from './matmul.js';
import { activationKernels, batchNormKernels, binaryKernels } from './elementwise.js';
import { CONV_VARIANTS, DEPTHWISE_VARIANTS, WINOGRAD_VARIANTS, conv2dKernels, depthwiseKernels, isPointwise, isWinogradShape } from './conv2d.js';
import { GLOBAL_POOL_VARIANTS, globalAvgPoolKernels, poolKernels } from './pool.js';
import { layerNormKernels } from './norm.js';
import { SOFTMAX_VARIANTS, softmaxKernels } from './softmax.js';
import { concatKernels, reshapeKernels, transposeKernels } from './layout.js';
import { embeddingKernels } from './embedding.js';
import { attentionKernels } from './attention.js';
import { lstmKernels } from './lstm.js';

export type { DeviceCaps, KernelRequest, OpKernels } from './kernel.js';
export { KernelError } from './common.js';

type Generator = (req: KernelRequest) => OpKernels;

const GENERATORS: Record<IrOpKind, Generator> = {
    dense: denseKernels,
    matmul: matmulKernels,
    conv2d: conv2dKernels,
    depthwise_conv2d: depthwiseKernels,
    max_pool2d: poolKernels,
    avg_pool2d: poolKernels,
    global_avg_pool: globalAvgPoolKernels,
    batch_norm: batchNormKernels,
    layer_norm: layerNormKernels,
    relu: activationKernels,
    relu6: activationKernels,
    gelu: activationKernels,
    sigmoid: activationKernels,
    tanh: activationKernels,
    silu: activationKernels,
    add: binaryKernels,
    mul: binaryKernels,
    softmax: softmaxKernels,
    reshape: reshapeKernels,
    flatten: reshapeKernels,
    transpose: transposeKernels,
    concat: concatKernels,
    embedding: embeddingKernels,
    attention: attentionKernels,
    lstm: lstmKernels,
};

/** The launches and buffers that compute one op (with its fused epilogue) on a device. */
export function kernelsFor(request: KernelRequest): OpKernels {
    const { op } = request;
    const gen = GENERATORS[op.kind];
    if (!gen) throw new KernelError(`${op.path}: unknown op kind '${String(op.kind)}'; expected one of ${Object.keys(GENERATORS).join(', ')}`);
    for (const [i, s] of request.inputShapes.entries()) {
        if (!Array.isArray(s) || s.some(d => !Number.isInteger(d) || d < 1)) {
            throw new KernelError(`${at(op)}: input ${i} has shape ${JSON.stringify(s)}; every dim must be a positive integer`);
        }
    }
    const f16 = (op.weights ?? []).find(w => w.dtype === 'f16');
    if (f16) throw new KernelError(`${at(op)}: weight '${f16.name}' is f16; these kernels implement f32 only (lower the model in f32)`);
    const result = gen(request);
    checkWeightsAgainstIr(op, result);
    return result;
}

/**
 * The values of a derived weight (LaunchBuffer.derived) from those of its source, as the
 * compiler uploads them: the one place a weight transform is chosen by name.
 */
function deriveWeight(b: LaunchBuffer, source: Float32Array): Float32Array {
    if (!b.derived) throw new KernelError(`internal: weight '${b.role}' is not derived`);
    switch (b.derived.transform) {
        case 'winograd_f2x3': return winogradWeights(b.shape[1], b.shape[2], source);
    }
}

/** A weight's values: seeded by `init` for a weight of its own, derived from its source's (found by role in `buffers`) otherwise. */
export function weightValues(b: LaunchBuffer, buffers: readonly LaunchBuffer[], init: (b: LaunchBuffer) => Float32Array, known = new Map<string, Float32Array>()): Float32Array {
    let values = known.get(b.role);
    if (values) return values;
    if (b.derived) {
        const source = buffers.find(x => x.kind === 'weight' && x.role === b.derived!.from);
        if (!source || source.derived) throw new KernelError(`internal: weight '${b.role}' is derived from '${b.derived.from}', which is not a seeded weight of the op`);
        values = deriveWeight(b, weightValues(source, buffers, init, known));
    } else {
        values = init(b);
    }
    known.set(b.role, values);
    return values;
}

/** Weights the IR names must have the shapes the kernels bind (names the kernels do not use are ignored). */
function checkWeightsAgainstIr(op: IrOp, k: OpKernels): void {
    for (const w of op.weights ?? []) {
        const b = k.buffers.find(x => x.kind === 'weight' && x.role === w.name);
        if (b && (b.shape.length !== w.shape.length || b.shape.some((d, i) => d !== w.shape[i]))) {
            throw new KernelError(`${at(op)}: weight '${w.name}' has shape ${fmtShape(w.shape)} in the IR, but the kernel binds ${fmtShape(b.shape)}`);
        }
    }
}

const MAP = ['map4'];

/**
 * The named variants an op supports (the first is the generic default; defaults may also depend
 * on shapes). With `caps`, variants the device cannot run (subgroup variants without a fixed
 * subgroup size) are left out.
 */
export function variantsFor(op: IrOp, caps?: DeviceCaps): string[] {
    const all = allVariantsFor(op);
    return caps && caps.subgroupSize === undefined ? all.filter(v => !needsSubgroups(v)) : all;
}

function allVariantsFor(op: IrOp): string[] {
    switch (op.kind) {
        case 'dense': case 'matmul': case 'attention': case 'lstm':
            return [...GEMM_VARIANTS];
        case 'conv2d': {
            const pw = isPointwise(op);
            return pw ? [...CONV_VARIANTS, ...GEMM_VARIANTS.map(v => `pointwise_${v}`)] : [...CONV_VARIANTS, ...(isWinogradShape(op) ? WINOGRAD_VARIANTS : [])];
        }
        case 'depthwise_conv2d': return [...DEPTHWISE_VARIANTS];
        case 'softmax': return [...SOFTMAX_VARIANTS];
        case 'reshape': case 'flatten': return ['alias'];
        case 'max_pool2d': case 'avg_pool2d': return ['direct'];
        case 'global_avg_pool': return [...GLOBAL_POOL_VARIANTS];
        case 'layer_norm': return ['workgroup_reduce'];
        case 'transpose': case 'concat': case 'embedding': return ['copy'];
        default: return MAP;
    }
}

/** The WebGPU spec's default limits (what every device supports), for tests and offline planning. */
export const DEFAULT_CAPS: DeviceCaps = {
    maxComputeWorkgroupSizeX: 256,
    maxComputeWorkgroupSizeY: 256,
    maxComputeWorkgroupSizeZ: 64,
    maxComputeInvocationsPerWorkgroup: 256,
    maxComputeWorkgroupStorageSize: 16384,
    maxComputeWorkgroupsPerDimension: 65535,
    maxStorageBufferBindingSize: 134217728,
    maxStorageBuffersPerShaderStage: 8,
    maxBufferSize: 268435456,
    shaderF16: false,
};
