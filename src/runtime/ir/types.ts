/**
 * Workload IR — the contract between the language server (which produces it from a checked
 * `.tenancy` document, see src/language-server/lower.ts) and the runtime (which validates it
 * on entry, compiles it to kernels and runs it). Plain JSON: no classes, no functions, no
 * undefined-vs-missing distinctions that JSON would lose. Bump IR_VERSION on any change that
 * an older reader would misread.
 */

export const IR_VERSION = 1;

export type DType = 'f32' | 'f16' | 'i32';

/** Zero-based LSP-style position. */
export interface IrPosition {
    line: number;
    character: number;
}

/** Where an element came from in the source text (document URI + range). */
export interface IrSourceRange {
    uri: string;
    start: IrPosition;
    end: IrPosition;
}

/** A tensor with a concrete shape. Ids are unique within one tenant's graph. */
export interface IrTensor {
    id: string;
    dtype: DType;
    shape: number[];
}

/** The operators of LANGUAGE.md, one IR op kind each. */
export type IrOpKind =
    | 'dense' | 'matmul' | 'conv2d' | 'depthwise_conv2d'
    | 'max_pool2d' | 'avg_pool2d' | 'global_avg_pool'
    | 'batch_norm' | 'layer_norm'
    | 'relu' | 'relu6' | 'gelu' | 'sigmoid' | 'tanh' | 'silu'
    | 'add' | 'mul' | 'softmax'
    | 'reshape' | 'transpose' | 'flatten' | 'concat'
    | 'embedding' | 'attention' | 'lstm';

/**
 * Attributes per op kind, all resolved to concrete numbers by lowering (no defaults left for
 * the runtime to guess, no negative axes, no "same" padding):
 * - dense: { units, bias }
 * - matmul: {}
 * - conv2d: { filters, kernel: [kh, kw], stride: [sh, sw], padding: [top, left, bottom, right],
 *             dilation: [dh, dw], groups, bias }
 * - depthwise_conv2d: { kernel, stride, padding (4-tuple as conv2d), multiplier }
 * - max_pool2d, avg_pool2d: { kernel, stride, padding (4-tuple) }   (avg excludes padding)
 * - global_avg_pool, batch_norm, layer_norm, relu, relu6, gelu, sigmoid, tanh, silu, add, mul,
 *   flatten: {}
 * - softmax: { axis }                         (non-negative)
 * - reshape: { shape }                        (concrete, no -1)
 * - transpose: { perm }
 * - concat: { axis }                          (non-negative)
 * - embedding: { vocab, dim }
 * - attention: { heads, causal }
 * - lstm: { hidden, layers }
 *
 * Weight layouts the runtime expects (row-major): dense weight [k, units]; conv2d weight
 * [filters, c/groups, kh, kw] (OIHW); lstm per layer l: w_ih.l [in, 4h], w_hh.l [h, 4h],
 * b.l [4h], gates i | f | g | o.
 */
export type IrAttrValue = number | boolean | string | number[];
export type IrAttrs = Record<string, IrAttrValue>;

/** An implicit parameter owned by an op (weights are filled from the benchmark seed). */
export interface IrWeight {
    /** e.g. "weight", "bias", "gamma", "beta", "mean", "var", "w_qkv", "w_ih.0". */
    name: string;
    shape: number[];
    dtype: DType;
}

export interface IrOp {
    /** Stable path, unique within the workload: `tenant/model/block.2/conv1`. */
    path: string;
    kind: IrOpKind;
    /** Tensor ids, positional as in LANGUAGE.md (e.g. add: [a, b]; concat: [t0, t1, …]). */
    inputs: string[];
    /** The tensor id this op produces. */
    output: string;
    attrs: IrAttrs;
    weights: IrWeight[];
    /** Floating-point operations (a multiply-add counts 2). */
    flops: number;
    /** Bytes read (inputs + weights) plus bytes written (output), each once. */
    bytes: number;
    source?: IrSourceRange;
}

/** One tenant's model, flattened: blocks inlined, `repeat` expanded, shapes concrete. */
export interface IrGraph {
    /** The model called, with its arguments after defaults. */
    model: string;
    args: Record<string, number>;
    tensors: Record<string, IrTensor>;
    /** Graph inputs (fed with seeded random data; i32 ids drawn within the consuming op's range). */
    inputs: string[];
    outputs: string[];
    /** Topologically ordered. */
    ops: IrOp[];
}

export type IrArrival =
    | { kind: 'poisson'; ratePerSecond: number }
    | { kind: 'closed'; clients: number; thinkMs: number }
    | { kind: 'periodic'; everyMs: number };

export type IrPercentile = 'mean' | 'p50' | 'p90' | 'p95' | 'p99' | 'p999';

export interface IrSlo {
    percentile: IrPercentile;
    ms: number;
}

export type IrPriority = 'high' | 'normal' | 'low';

export interface IrTenant {
    name: string;
    graph: IrGraph;
    arrival: IrArrival;
    slos: IrSlo[];
    priority: IrPriority;
    source?: IrSourceRange;
}

export type IrDevicePreference = 'auto' | 'high_performance' | 'low_power' | 'fallback';

export type IrSchedule =
    | { policy: 'sequential' }
    | { policy: 'concurrent' }
    | { policy: 'layer_block'; size: number | 'auto' }
    | { policy: 'regulated'; split: number | 'auto'; sync: 'auto' | 'none' }
    | { policy: 'co_tuned'; variants: number }
    | { policy: 'auto' };

export interface IrBenchmark {
    durationMs: number;
    warmupMs: number;
    requests?: number;
    repetitions?: number;
    seed: number;
}

export interface WorkloadIR {
    irVersion: typeof IR_VERSION;
    /** Workload name as written. */
    workload: string;
    /** URI of the document that defines the workload. */
    sourceUri: string;
    device: { preference: IrDevicePreference; memoryBytes?: number };
    tenants: IrTenant[];
    schedule: IrSchedule;
    benchmark: IrBenchmark;
    source?: IrSourceRange;
}

/** Bytes per element of a dtype. */
export function dtypeBytes(dtype: DType): number {
    return dtype === 'f16' ? 2 : 4;
}

/** Elements of a tensor of this shape (1 for a scalar). */
export function numel(shape: readonly number[]): number {
    let n = 1;
    for (const d of shape) n *= d;
    return n;
}
