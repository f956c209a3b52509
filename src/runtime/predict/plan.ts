/**
 * What a tenant's request will launch, without a device: the compiler's fusion pass
 * (compile/fusion.ts) and the kernel generators (kernels/, pure descriptions) give the exact
 * launches — composites such as attention and lstm included — with their FLOPs, bytes and
 * workgroup counts. Each launch is assigned a kernel family, the unit the device profile
 * measures. Pure: no webgpu, no fs (the language server imports this).
 */
import type { IrGraph, IrOp, IrOpKind, IrSourceRange } from '../ir/types.js';
import { fuseGraph, type FusedOp } from '../compile/fusion.js';
import { DEFAULT_CAPS, kernelsFor } from '../kernels/index.js';
import type { DeviceCaps, Epilogue, KernelDescription } from '../kernels/kernel.js';
import type { DeviceProfile } from './profile.js';

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
}

/** One op of the plan (a producer plus what fusion folded into it). */
export interface PlannedOp {
    path: string;
    kind: IrOpKind;
    /** Paths of the IR ops fused into this one. */
    fused: string[];
    launches: PlannedLaunch[];
    /** The IR's FLOPs and bytes of the op and everything fused into it (bytes: each tensor once). */
    flops: number;
    bytes: number;
    /** True when the plan derived launches from the op's IR figures because no kernel generator could serve it. */
    estimated: boolean;
    source?: IrSourceRange;
}

/** Options of planGraph. */
export interface PlanOptions {
    /** The variant an op uses (tuning); undefined ⇒ the generator's default. */
    variantFor?: (op: IrOp) => string | undefined;
    /** Limits the kernels are checked against (default: the profile's, else WebGPU's defaults). */
    caps?: DeviceCaps;
    /** Fusion on (default) or off, as the compiler is configured. */
    fusion?: boolean;
    /**
     * Launches already planned, by op signature (a caller that plans often, such as the language
     * server, owns one across calls); undefined ⇒ a memo for this call only.
     */
    memo?: PlanMemo;
}

/**
 * Planned launches by op signature: everything the kernel generators read (kind, attributes,
 * weights, shapes and dtypes, epilogue, variant, limits), never the op's path, so repeated layers
 * and a model used by several tenants or workloads are generated once. The launches are a pure
 * function of the signature, so entries never go stale; the memo is bounded (least recently
 * used entries go first). Owned by its caller: no module state.
 */
export class PlanMemo {
    private readonly entries = new Map<string, { launches: readonly PlannedLaunch[]; estimated: boolean }>();
    /** Whole plans of graphs planned with default variants, by graph object and limits (a graph shared by workloads is planned once). */
    private readonly graphs = new WeakMap<IrGraph, Map<string, readonly PlannedOp[]>>();
    constructor(readonly maxEntries = 10_000) {}

    /** The plan of a graph under the given limits and fusion setting, if planned before. */
    graphPlan(graph: IrGraph, key: string): readonly PlannedOp[] | undefined {
        return this.graphs.get(graph)?.get(key);
    }

    setGraphPlan(graph: IrGraph, key: string, plan: readonly PlannedOp[]): void {
        let byKey = this.graphs.get(graph);
        if (!byKey) this.graphs.set(graph, byKey = new Map());
        byKey.set(key, plan);
    }

    /** Values computed from a graph's default plan on a profile (its timing: workload.ts), by graph, profile and key. */
    private readonly derivedByGraph = new WeakMap<IrGraph, WeakMap<object, Map<string, unknown>>>();

    /**
     * A value derived from a graph's default-variant plan on a profile, computed once per graph,
     * profile object and key (the fusion setting and limits it was planned with). Treat it as read-only.
     */
    derived<T>(graph: IrGraph, profile: object, key: string, compute: () => T): T {
        let byProfile = this.derivedByGraph.get(graph);
        if (!byProfile) this.derivedByGraph.set(graph, byProfile = new WeakMap());
        let byKey = byProfile.get(profile);
        if (!byKey) byProfile.set(profile, byKey = new Map());
        if (byKey.has(key)) return byKey.get(key) as T;
        const value = compute();
        byKey.set(key, value);
        return value;
    }

    /** Values computed from an object the memo handed out (a plan's launches) on a profile, by object and profile. */
    private readonly perProfileValues = new WeakMap<object, WeakMap<object, unknown>>();

    /**
     * A value computed once per owner object and profile object: an op's timing, by the launches
     * array the memo keeps for its signature (an op repeated across layers, tenants or workloads is
     * timed once). Treat it as read-only.
     */
    perProfile<T>(owner: object, profile: object, compute: () => T): T {
        let byProfile = this.perProfileValues.get(owner);
        if (!byProfile) this.perProfileValues.set(owner, byProfile = new WeakMap());
        if (byProfile.has(profile)) return byProfile.get(profile) as T;
        const value = compute();
        byProfile.set(profile, value);
        return value;
    }

    /** Limits seen by this memo, each by a short tag: keys carry the tag, not the limits' JSON. */
    private readonly capsTags = new Map<string, string>();

    /** The short tag of a limits key (stable for this memo's lifetime). */
    capsTag(capsKey: string): string {
        let tag = this.capsTags.get(capsKey);
        if (tag === undefined) this.capsTags.set(capsKey, tag = `c${this.capsTags.size}`);
        return tag;
    }

    get size(): number { return this.entries.size; }

    /** The memoised plan of a signature (refreshes its recency once the memo is half full), or undefined. */
    get(key: string): { launches: readonly PlannedLaunch[]; estimated: boolean } | undefined {
        const hit = this.entries.get(key);
        // Recency matters only near the bound: far below it nothing is evicted, and a refresh costs a delete and a set.
        if (hit && this.entries.size * 2 > this.maxEntries) {
            this.entries.delete(key);
            this.entries.set(key, hit);
        }
        return hit;
    }

    set(key: string, value: { launches: readonly PlannedLaunch[]; estimated: boolean }): void {
        this.entries.delete(key);
        this.entries.set(key, value);
        while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
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
    // reduction, im2col's gather, Winograd's weight, input and output transforms.
    if (part === 'reduce') return 'elementwise.reduce';
    if (part === 'im2col') return 'copy.im2col';
    if (rest[0]?.startsWith('winograd_') && (part === 'weights' || part === 'input' || part === 'output')) return `copy.winograd_${part}`;
    for (const v of rest) {
        if (prefix === 'conv2d' && /^gemm_\d+x\d+$/.test(v)) return 'conv2d';
        if (prefix === 'conv2d' && v === 'direct') return 'conv2d.direct';
        if (prefix === 'conv2d' && /^capped_\d+$/.test(v)) return 'conv2d.capped';
        if (/(^|_)vec4_\d+x\d+$/.test(v)) return 'gemm.vec4';
        if (/(^|_)sgrow_\d+x\d+$/.test(v)) return 'gemm.sgrow';
        if (/(^|_)sg_\d+x\d+$/.test(v)) return 'gemm.sg';
        if (/(^|_)sgsplitk_\d+$/.test(v)) return 'gemm.sgsplitk';
        if (/(^|_)wgmem_\d+x\d+$/.test(v)) return 'gemm.wgmem';
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
 * batch-8 dense on 32-row tiles costs as much as a batch-32 one. Known only when the kernel
 * reports its tile (variant.tileM/tileN, or tile for workgroup-memory kernels) and
 * is not a persistent (capped) kernel. The useful outputs are the GEMM's own (variant.gemmOutputs:
 * Winograd's batched GEMM, split-K's partial slices, any GEMM after im2col) or else, for the launch
 * that writes the op's output, `usefulOutputs`; otherwise the useful FLOPs.
 */
export function launchEffectiveFlops(launch: KernelDescription, usefulOutputs: number | undefined): number {
    const v = launch.variant;
    if (typeof v.gemmOutputs === 'number' && v.gemmOutputs > 0) usefulOutputs = v.gemmOutputs;
    else if (!writesOutput(launch)) usefulOutputs = undefined;
    if (!usefulOutputs || launch.flops <= 0 || (typeof v.cap === 'number' && v.cap > 0)) return launch.flops;
    const perInvocation = typeof v.tileM === 'number' && typeof v.tileN === 'number' ? v.tileM * v.tileN : typeof v.tile === 'number' ? 1 : undefined;
    if (perInvocation === undefined) return launch.flops;
    const [x, y, z] = launch.workgroupSize;
    const padded = launch.dispatch[0] * launch.dispatch[1] * launch.dispatch[2] * x * y * z * perInvocation;
    const ratio = padded / usefulOutputs;
    // Below 1 the assumption (one tile per invocation covering all outputs of the op) does not hold: keep useful
    // FLOPs. Large ratios are real: a batch-1 dense on 32-row tiles computes 32× its useful FLOPs.
    return ratio >= 1 && ratio <= 1024 ? launch.flops * ratio : launch.flops;
}

/** True when a launch writes the op's output (role "out"): its padded tiles are measured against the op's outputs. */
/** A kernel launch as the model times it: its family, work, bytes and workgroups; `outputs` = elements of the op's output. */
export function plannedLaunch(l: KernelDescription, outputs: number | undefined): PlannedLaunch {
    return {
        name: l.name,
        family: familyOf(l.name),
        flops: l.flops,
        bytes: Math.max(l.bytes, 1),
        workgroups: l.dispatch[0] * l.dispatch[1] * l.dispatch[2],
        effectiveFlops: launchEffectiveFlops(l, outputs),
    };
}

export function writesOutput(launch: KernelDescription): boolean {
    return launch.bindings.some(b => b.role === 'out' && b.access === 'read_write');
}

/** Bytes of an op's weights (f32). */
function weightBytesOf(op: IrOp): number {
    let bytes = 0;
    for (const w of op.weights) {
        let n = 4;
        for (const d of w.shape) n *= d;
        bytes += n;
    }
    return bytes;
}

/** The family an op kind's single launch falls in when no generator serves it (estimate). */
function estimatedFamily(kind: IrOpKind): string {
    switch (kind) {
        case 'dense': case 'matmul': case 'attention': case 'lstm': return 'gemm.vec4';
        case 'conv2d': return 'conv2d';
        case 'depthwise_conv2d': return 'depthwise_conv2d';
        case 'max_pool2d': case 'avg_pool2d': return 'pool';
        case 'global_avg_pool': case 'layer_norm': case 'softmax': return 'reduction';
        case 'transpose': case 'concat': case 'embedding': case 'reshape': case 'flatten': return 'copy';
        default: return 'elementwise';
    }
}

/** DeviceCaps with a profile's measured limits over WebGPU's defaults. */
export function capsForProfile(profile: DeviceProfile | undefined): DeviceCaps {
    if (!profile) return DEFAULT_CAPS;
    return {
        ...DEFAULT_CAPS,
        maxStorageBufferBindingSize: profile.limits.maxStorageBufferBindingSize,
        maxBufferSize: profile.limits.maxBufferSize,
        maxComputeWorkgroupsPerDimension: profile.limits.maxComputeWorkgroupsPerDimension,
        // The same default variants as the runtime on that device (subgroup GEMMs need a fixed subgroup size).
        ...(profile.limits.subgroupSize !== undefined ? { subgroupSize: profile.limits.subgroupSize } : {}),
    };
}

/**
 * The memo key of a fused op: everything its kernel generators read (see PlanMemo), as one string
 * built by hand (the language server keys thousands of ops per build; JSON of nested arrays cost
 * several times more). Fields are separated by characters no name, number or dtype contains.
 */
function opSignature(capsTag: string, variant: string | undefined, fop: FusedOp, tensorKey: (id: string) => string, flops: number, bytes: number): string {
    const op = fop.op;
    let key = `${capsTag}\u0001${variant ?? ''}\u0001${op.kind}\u0001`;
    for (const name in op.attrs) key += `${name}=${String(op.attrs[name])};`;
    key += '\u0001';
    for (const w of op.weights) key += `${w.name}:${w.dtype}[${w.shape.join(',')}];`;
    key += '\u0001';
    for (const id of op.inputs) key += `${tensorKey(id)};`;
    key += `\u0001${tensorKey(op.output)}\u0001`;
    // Epilogue entries are flat records of strings: each field by name (JSON.stringify cost more per op).
    for (const e of fop.epilogue) {
        for (const field in e) key += `${field}=${(e as unknown as Record<string, string>)[field]},`;
        key += ';';
    }
    key += '\u0001';
    for (const e of fop.epilogueInputs) key += `${e.role}:${tensorKey(e.tensor)};`;
    return `${key}\u0001${flops}\u0001${bytes}`;
}

/** Plans one tenant's graph: fused ops in execution order with their launches (fresh arrays the caller may change). */
export function planGraph(graph: IrGraph, options: PlanOptions = {}): PlannedOp[] {
    return sharedPlan(graph, options).map(p => ({ ...p, launches: [...p.launches] }));
}

/**
 * The plan of a graph as the memo keeps it: read-only, shared with later calls (each op's
 * `launches` is the memo's array for its signature, so timings can be cached by that array).
 * Default variants: the plan is a function of the graph, the limits and fusion alone, and is
 * kept per graph object (a graph is read-only once lowered: the language server shares one
 * between workloads).
 */
export function sharedPlan(graph: IrGraph, options: PlanOptions = {}): readonly PlannedOp[] {
    const caps = options.caps ?? DEFAULT_CAPS;
    const memo = options.memo ?? new PlanMemo();
    const fusion = options.fusion ?? true;
    const capsTag = memo.capsTag(JSON.stringify(caps));
    const graphKey = options.variantFor ? undefined : `${fusion}|${capsTag}`;
    const known = graphKey !== undefined ? memo.graphPlan(graph, graphKey) : undefined;
    if (known) return known;
    const tensors = graph.tensors;
    const shapeOf = (id: string): number[] => tensors[id]?.shape ?? [];
    const tensorKey = (id: string) => {
        const t = tensors[id];
        return t ? `${t.dtype}[${t.shape.join(',')}]` : '?';
    };
    const elemBytes = (id: string) => {
        const t = tensors[id];
        if (!t) return 4; // an unknown tensor counts as one f32, as an empty shape would
        let n = t.dtype === 'f16' ? 2 : 4;
        for (const d of t.shape) n *= d;
        return n;
    };
    const plan: PlannedOp[] = [];
    for (const fop of fuseGraph(graph, { enabled: fusion })) {
        // FLOPs of the producer and everything fused into it; bytes: what the producer reads plus the
        // extra epilogue operands, its weights and the final write.
        let flops = fop.op.flops;
        let weightBytes = weightBytesOf(fop.op);
        const fused: string[] = [];
        for (const o of fop.fused) {
            flops += o.flops;
            weightBytes += weightBytesOf(o);
            fused.push(o.path);
        }
        let bytes = weightBytes + elemBytes(fop.output);
        for (const id of fop.inputs) bytes += elemBytes(id);
        bytes = Math.max(bytes, 1);
        const variant = options.variantFor?.(fop.op);
        const key = opSignature(capsTag, variant, fop, tensorKey, flops, bytes);
        let planned = memo.get(key);
        if (!planned) {
            planned = planLaunches(fop.op, fop.epilogue, variant, flops, bytes);
            memo.set(key, planned);
        }
        plan.push({ path: fop.op.path, kind: fop.op.kind, fused, flops, bytes, source: fop.op.source, launches: planned.launches as PlannedLaunch[], estimated: planned.estimated });
    }
    if (graphKey !== undefined) memo.setGraphPlan(graph, graphKey, plan);
    return plan;

    function planLaunches(op: IrOp, epilogue: Epilogue[], variant: string | undefined, flops: number, bytes: number): { launches: PlannedLaunch[]; estimated: boolean } {
        try {
            const k = kernelsFor({ op, inputShapes: op.inputs.map(shapeOf), outputShape: shapeOf(op.output), epilogue, variant, caps });
            const outputs = shapeOf(op.output).reduce((a, b) => a * b, 1);
            return { launches: k.aliasesInput ? [] : k.launches.map(l => plannedLaunch(l, outputs)), estimated: false };
        } catch {
            // No generator for this op on these limits (e.g. f16, or a buffer beyond the limit, which
            // validation reports as buffer-too-large): time it from its IR figures as one launch.
            const launches = op.kind === 'reshape' || op.kind === 'flatten' ? [] : [{
                name: `${op.kind}.estimate`, family: estimatedFamily(op.kind), flops, bytes, workgroups: 1, effectiveFlops: flops,
            }];
            return { launches, estimated: true };
        }
    }
}
