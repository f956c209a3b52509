/**
 * A kernel launch as the prediction model and calibration see it: its kernel family (the unit a
 * device profile measures), work, bytes and workgroups. Derived from the kernel generators'
 * descriptions, so the planner, the predictor and calibration name and count launches alike. Pure.
 */
import type { KernelDescription } from '../kernels/kernel.js';

/** One kernel launch of a planned op. */
export interface PlannedLaunch {
    /** Kernel name as the generator reports it (e.g. "conv2d.gemm_4x4"). */
    name: string;
    /** Kernel family (familyOf): the curve of the profile that times it. */
    family: string;
    flops: number;
    bytes: number;
    workgroups: number;
    /** FLOPs executed including the padding of partial tiles (launchEffectiveFlops). */
    effectiveFlops: number;
    /** A GEMM's B row stride alignment in bytes (strideAlignmentOf); absent for other kernels. */
    strideAlignment?: number;
    /** A GEMM's operands loaded as single floats for want of rows in multiples of 4 (scalarLoadsOf); absent for other kernels. */
    scalarLoads?: number;
}

/**
 * The kernel family of a launch, from its name (`<op>.<variant>[.<part>]`): GEMM-shaped parts of
 * any op time alike, so the variant segment decides first (split-K's `.reduce` part is a memory
 * pass); then named parts of composites (attention's scores/context are its own batched
 * per-head GEMM, family attention.bmm; its softmax a reduction; an lstm step is a small GEMM plus the cell); then the
 * op kind.
 */
export function familyOf(launchName: string): string {
    const segments = launchName.split('.');
    const prefix = segments[0];
    const rest = segments.slice(1);
    const part = rest.length >= 2 ? rest[rest.length - 1] : undefined;
    // Memory passes of multi-launch variants, each its own kernel (its own curve; the stem before the
    // dot is the family an older profile timed it with, latency.ts familyProfile): split-K's
    // reduction, im2col's gather, Winograd's input and output transforms.
    if (part === 'reduce') return 'elementwise.reduce';
    if (part === 'im2col') return 'copy.im2col';
    if (rest[0]?.startsWith('winograd_') && (part === 'input' || part === 'output')) return `copy.winograd_${part}`;
    for (const v of rest) {
        if (prefix === 'conv2d' && /^gemm_\d+x\d+$/.test(v)) return 'conv2d';
        if (prefix === 'conv2d' && v === 'direct') return 'conv2d.direct';
        if (prefix === 'depthwise_conv2d' && v === 'direct') return 'depthwise_conv2d.direct';
        if (prefix === 'global_avg_pool' && v === 'direct') return 'reduction.pool.direct';
        if (prefix === 'conv2d' && /^capped_\d+$/.test(v)) return 'conv2d.capped';
        if (/(^|_)vec4_\d+x\d+$/.test(v)) return 'gemm.vec4';
        if (/(^|_)sgrow_\d+x\d+$/.test(v)) return 'gemm.sgrow';
        if (/(^|_)sg_\d+x\d+$/.test(v)) return 'gemm.sg';
        if (/(^|_)sgsplitk_\d+$/.test(v)) return 'gemm.sgsplitk';
        if (/(^|_)wgmem_\d+x\d+$/.test(v)) return 'gemm.wgmem';
        if (/(^|_)kdot_\d+$/.test(v)) return 'gemm.kdot';
        if (/(^|_)capped_\d+$/.test(v)) return 'gemm.capped';
        if (/(^|_)splitk_\d+$/.test(v)) return 'gemm.splitk';
    }
    // Attention's scores and context are its own batched per-head GEMM kernel (not the regblock GEMM).
    if (prefix === 'attention') return rest[0] === 'softmax' ? 'reduction.attention' : 'attention.bmm';
    if (prefix === 'lstm') return 'gemm.vec4';
    switch (prefix) {
        case 'depthwise_conv2d': return 'depthwise_conv2d';
        case 'max_pool2d': case 'avg_pool2d': return 'pool';
        case 'global_avg_pool': return 'reduction.pool';
        case 'layer_norm': return 'reduction.layer_norm';
        case 'softmax': return 'reduction';
        case 'embedding': return 'copy.gather';
        case 'transpose': case 'concat': case 'reshape': case 'flatten': return 'copy';
        default: return 'elementwise';
    }
}

/**
 * FLOPs a tiled launch executes: its useful FLOPs scaled by padded outputs / useful outputs.
 * Tiled GEMM and convolution kernels compute whole tiles (clamped loads, guarded stores), so a
 * batch-5 dense on 8-row tiles costs as much as a batch-8 one. Known only when the kernel
 * reports its tile (variant.tileM/tileN, or tile for workgroup-memory kernels) and
 * is not a persistent (capped) kernel. The useful outputs are the GEMM's own (variant.gemmOutputs:
 * Winograd's batched GEMM, split-K's partial slices, any GEMM after im2col) or else, for the launch
 * that writes the op's output, `usefulOutputs`; otherwise the useful FLOPs. A kernel may instead
 * report the outputs it computes (variant.paddedOutputs: kdot's rows in blocks of R, columns in vec4s).
 */
export function launchEffectiveFlops(launch: KernelDescription, usefulOutputs: number | undefined): number {
    const v = launch.variant;
    if (typeof v.gemmOutputs === 'number' && v.gemmOutputs > 0) usefulOutputs = v.gemmOutputs;
    else if (!writesOutput(launch)) usefulOutputs = undefined;
    if (!usefulOutputs || launch.flops <= 0 || (typeof v.cap === 'number' && v.cap > 0)) return launch.flops;
    // A kernel whose lanes share outputs (kdot: lanes split K) reports the outputs it computes, padding included.
    if (typeof v.paddedOutputs === 'number' && v.paddedOutputs >= usefulOutputs) return launch.flops * v.paddedOutputs / usefulOutputs;
    const perInvocation = typeof v.tileM === 'number' && typeof v.tileN === 'number' ? v.tileM * v.tileN : typeof v.tile === 'number' ? 1 : undefined;
    if (perInvocation === undefined) return launch.flops;
    const [x, y, z] = launch.workgroupSize;
    const padded = launch.dispatch[0] * launch.dispatch[1] * launch.dispatch[2] * x * y * z * perInvocation;
    const ratio = padded / usefulOutputs;
    // Below 1 the assumption (one tile per invocation covering all outputs of the op) does not hold: keep useful
    // FLOPs. Large ratios are real: a batch-1 dense on 4-row tiles computes 4× its useful FLOPs.
    return ratio >= 1 && ratio <= 1024 ? launch.flops * ratio : launch.flops;
}

/**
 * The alignment of a GEMM launch's B row stride: the largest power of two dividing it, in bytes
 * (at most 4096); undefined for kernels that do not report one. A column walk of B with a
 * stride aligned to 1–4 KB touches few cache sets: on lavapipe (an x86 L1 of 64 sets, 4 KB apart)
 * 16-row denses with N = 768 or 1024 ran 20–35 % slower per column than with N = 736 or 800
 * (2026-12-06), which the model reads off calibration points of like alignment
 * (predict/latency.ts residualFactor).
 */
export function strideAlignmentOf(l: Pick<KernelDescription, 'variant'>): number | undefined {
    const stride = l.variant.ldbBytes;
    if (typeof stride !== 'number' || !(stride > 0) || !Number.isInteger(stride)) return undefined;
    let a = 1;
    while (a < 4096 && stride % (2 * a) === 0) a *= 2;
    return a;
}

/**
 * How many of a GEMM launch's operands (A, B: 0–2) its kernel loads as single floats because their
 * rows are not a multiple of 4 floats long, where it loads vec4s when they are; undefined for
 * kernels that do not report it. On lavapipe a 226³ matmul ran at a third of a 160³ or 320³ one's
 * FLOP rate on the same variant, and attention's projections at d_model 174 were 1.6–1.9× slower
 * than their neighbours in work at 248 (calibration of 2026-12-06 20:32): the model reads it off
 * calibration points that load alike (predict/latency.ts residualFactor).
 */
export function scalarLoadsOf(l: Pick<KernelDescription, 'variant'>): number | undefined {
    const n = l.variant.scalarLoads;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** A kernel launch as the model times it: its family, work, bytes and workgroups; `outputs` = elements of the op's output. */
export function plannedLaunch(l: KernelDescription, outputs: number | undefined): PlannedLaunch {
    const strideAlignment = strideAlignmentOf(l);
    const scalarLoads = scalarLoadsOf(l);
    return {
        name: l.name,
        family: familyOf(l.name),
        flops: l.flops,
        bytes: Math.max(l.bytes, 1),
        workgroups: l.dispatch[0] * l.dispatch[1] * l.dispatch[2],
        effectiveFlops: launchEffectiveFlops(l, outputs),
        ...(strideAlignment !== undefined ? { strideAlignment } : {}),
        ...(scalarLoads !== undefined ? { scalarLoads } : {}),
    };
}

/** True when a launch writes the op's output (role "out"): its padded tiles are measured against the op's outputs. */
export function writesOutput(launch: KernelDescription): boolean {
    return launch.bindings.some(b => b.role === 'out' && b.access === 'read_write');
}
