/**
 * The contract between kernel generators (this folder) and the compiler/executor
 * (src/runtime/compile, src/runtime/execute). A kernel is a pure description: WGSL text,
 * bindings and a dispatch size for concrete shapes. It never touches a GPUDevice.
 */
import type { DType, IrOp } from '../ir/types.js';

/** What a generator may rely on about the device (a subset of GPUSupportedLimits + features). */
export interface DeviceCaps {
    maxComputeWorkgroupSizeX: number;
    maxComputeWorkgroupSizeY: number;
    maxComputeWorkgroupSizeZ: number;
    maxComputeInvocationsPerWorkgroup: number;
    maxComputeWorkgroupStorageSize: number;
    maxComputeWorkgroupsPerDimension: number;
    maxStorageBufferBindingSize: number;
    maxStorageBuffersPerShaderStage: number;
    maxBufferSize: number;
    shaderF16: boolean;
    /**
     * The subgroup size when the device has the `subgroups` feature and one fixed size (adapter
     * subgroupMinSize = subgroupMaxSize); undefined otherwise. The `sg*` GEMM variants need it.
     */
    subgroupSize?: number;
}

/**
 * An elementwise step applied to a producer's output before it is stored (fusion, decided by
 * src/runtime/compile). Applied in order. `tensor` names a buffer role (see LaunchBuffer).
 */
export type Epilogue =
    | { kind: 'bias'; tensor: string }                      // + bias[channel]
    | { kind: 'scale_shift'; scale: string; shift: string } // folded batch_norm: y*scale[c]+shift[c]
    | { kind: 'activation'; fn: 'relu' | 'relu6' | 'gelu' | 'sigmoid' | 'tanh' | 'silu' }
    | { kind: 'add'; tensor: string }                       // residual add, same shape as output
    | { kind: 'mul'; tensor: string };                      // elementwise mul, same shape as output

export type BindingAccess = 'read' | 'read_write' | 'uniform';

/** An axis of an op's output along which its work can be cut into chunks (./slice.ts). */
export type SplitAxis = 'batch' | 'rows' | 'channels';

/** The split axes, in the order a tie between them is broken. */
export const SPLIT_AXES: readonly SplitAxis[] = ['batch', 'rows', 'channels'];

/**
 * Which dimension of a launch's workgroup grid covers an axis of the op's output, and the bytes
 * every chunk along it reads in full (the operand the axis does not cut: a GEMM's weights when
 * its rows are cut).
 */
export interface GridAxis {
    dim: 0 | 1 | 2;
    sharedBytes: number;
}

/** One compute dispatch. */
export interface KernelDescription {
    /** e.g. "matmul.vec4_4x8", "conv2d.implicit_gemm". */
    name: string;
    /** Names every parameter that changes the WGSL text; equal keys ⇒ equal code. */
    cacheKey: string;
    /** The variant parameters chosen (tile sizes, workgroup cap, …), for reports and tuning. */
    variant: Record<string, number | string | boolean>;
    workgroupSize: [number, number, number];
    /** Group 0 bindings in @binding order. `role` is resolved by the compiler to a buffer. */
    bindings: { role: string; access: BindingAccess }[];
    /**
     * Uniform data, if a binding has access 'uniform' (packed per WGSL layout rules). Each launch
     * gets its own uniform buffer with these bytes: lstm's step launches share one pipeline and
     * differ only here.
     */
    uniforms?: Uint32Array;
    wgsl: () => string;
    dispatch: [number, number, number];
    flops: number;
    bytes: number;
    /**
     * The op axes its workgroup grid covers, one workgroup id per tile (no persistent loop, no
     * folded 1-D grid): a launch that has them can run as chunks of its grid (./slice.ts).
     */
    grid?: Partial<Record<SplitAxis, GridAxis>>;
}

/** A buffer an op needs besides its inputs/output: weights (filled from the seed) or scratch. */
export interface LaunchBuffer {
    /** Role name used in KernelDescription.bindings; unique within the op. */
    role: string;
    kind: 'weight' | 'scratch';
    shape: number[];
    dtype: DType;
    /** How the compiler fills a weight (deterministic from the seed); scratch is uninitialised. */
    init?: 'normal' | 'uniform' | 'ones' | 'zeros' | 'positive';
    /**
     * A weight computed on the host from another weight of the op (listed before it) when the op
     * is compiled, instead of by a launch on every run: Winograd's transformed filters.
     */
    derived?: { from: string; transform: WeightTransform };
}

/** The host-side transforms of a weight (kernels/index.ts deriveWeight). */
type WeightTransform = 'winograd_f2x3';

/**
 * The kernels for one (possibly fused) op: launches in order. Binding roles "in0", "in1", …
 * are the op's inputs, "out" its output; other roles are named in `buffers`.
 */
export interface OpKernels {
    launches: KernelDescription[];
    buffers: LaunchBuffer[];
    /** True if the output aliases input 0 (reshape/flatten): no launch, no allocation. */
    aliasesInput?: boolean;
}

/** What a generator is asked to produce. */
export interface KernelRequest {
    op: IrOp;
    inputShapes: number[][];
    outputShape: number[];
    epilogue: Epilogue[];
    /**
     * A variant name (see `variantsFor`), or undefined for the default. Names are the edge
     * format (tuning caches and results files store them); each generator parses one once.
     */
    variant?: string;
    caps: DeviceCaps;
}
