/**
 * The one planner: what a tenant's request launches, on shapes alone (no device). Fusion
 * (./fusion.ts) groups the IR ops; the kernel generators (src/runtime/kernels, pure descriptions)
 * give each fused op its launches — composites such as attention and lstm included — in the
 * variant the tuning seam (./tuning.ts) chooses. The predictor times these launches, the tuner
 * measures their variants and the GPU compiler builds them (./tenant-plan.ts adds memory and the
 * device's limits): every part reads the same plan. Pure: no webgpu, no fs (the language server
 * imports this).
 */
import type { IrGraph, IrOp, IrOpKind, IrSourceRange } from '../ir/types.js';
import { DEFAULT_CAPS, kernelsFor } from '../kernels/index.js';
import type { DeviceCaps, Epilogue, KernelRequest, OpKernels } from '../kernels/kernel.js';
import { fuseGraph, type FusedOp } from './fusion.js';
import { plannedLaunch, type PlannedLaunch } from './launch.js';
import { opSignature } from './tuning.js';

/** Where kernels come from (src/runtime/kernels; tests inject their own). */
export interface KernelProvider {
    kernelsFor(request: KernelRequest): OpKernels;
}

/** Which variant each op uses: the tuning seam's choice by op signature. */
export interface VariantChoice {
    /** The tuned variant of an op signature (./tuning.ts opSignature); undefined ⇒ the generator's default. */
    variantFor(signature: string): string | undefined;
    /** Told when a chosen variant cannot be built on these limits; the op then uses its default. */
    onUnusable?(message: string): void;
}

/** One op of the plan: an IR op, what fusion folded into it, and the kernels it launches. */
export interface PlannedOp {
    /** The producer's path: names the fused op in predictions, results and reports. */
    readonly path: string;
    readonly kind: IrOpKind;
    /** The producer, the ops fused into it, its input/output tensors and epilogue. */
    readonly fused: FusedOp;
    /** The kernels, or undefined when no generator serves the op on these limits (see `unsupported`). */
    readonly kernels: OpKernels | undefined;
    /** The launches as the prediction model times them (an estimate from IR figures when `unsupported`). */
    readonly launches: readonly PlannedLaunch[];
    /** The variant the kernels use: the tuned one or the generator's default. */
    readonly variant: string | undefined;
    readonly variantSource: 'tuned' | 'default';
    /** The tuning signature (kind, attributes, shapes, epilogue): the key a tuning cache stores. */
    readonly signature: string;
    /** FLOPs of the producer and everything fused into it (IR figures). */
    readonly flops: number;
    /** Bytes the fused op moves: its inputs, extra epilogue operands, weights and final output, each once. */
    readonly bytes: number;
    /** Why no kernel generator serves this op (f16 without the feature, a buffer beyond the limits, …). */
    readonly unsupported: string | undefined;
    readonly source?: IrSourceRange;
}

/** Options of planGraph. */
export interface PlanOptions {
    /** Limits the kernels are checked against (default: WebGPU's defaults). */
    caps?: DeviceCaps;
    /** Fusion on (default) or off. */
    fusion?: boolean;
    /** Tuned variants; undefined ⇒ every op takes its generator's default. */
    variants?: VariantChoice;
    /** Kernel generators (default src/runtime/kernels). A custom provider needs a cache of its own. */
    kernels?: KernelProvider;
    /** Launches already planned (a caller that plans often, such as the language server, owns one); undefined ⇒ one for this call. */
    cache?: PlanCache;
}

/** What the cache keeps per op signature: a pure function of it, so entries never go stale. */
interface PlanEntry {
    kernels: OpKernels | undefined;
    launches: readonly PlannedLaunch[];
    variant: string | undefined;
    unsupported: string | undefined;
}

/**
 * Planned kernels by op cache key: everything the generators read (kind, attributes, weights,
 * shapes and dtypes, epilogue, variant, limits), never the op's path, so repeated layers and a
 * model used by several tenants or workloads are generated once. Bounded (least recently used
 * entries go first). Also keeps whole plans of graphs planned with default variants, and values
 * the predictor derives from them per device profile. Owned by its caller: no module state.
 */
export class PlanCache {
    private readonly entries = new Map<string, PlanEntry>();
    private readonly graphs = new WeakMap<IrGraph, Map<string, readonly PlannedOp[]>>();
    private readonly derivedByGraph = new WeakMap<IrGraph, WeakMap<object, Map<string, unknown>>>();
    private readonly perProfileValues = new WeakMap<object, WeakMap<object, unknown>>();
    private readonly capsTags = new Map<string, string>();

    constructor(readonly maxEntries = 10_000) {}

    /** The plan of a graph under the given key (limits and fusion), if planned before. */
    graphPlan(graph: IrGraph, key: string): readonly PlannedOp[] | undefined {
        return this.graphs.get(graph)?.get(key);
    }

    setGraphPlan(graph: IrGraph, key: string, plan: readonly PlannedOp[]): void {
        let byKey = this.graphs.get(graph);
        if (!byKey) this.graphs.set(graph, byKey = new Map());
        byKey.set(key, plan);
    }

    /**
     * A value derived from a graph's default-variant plan on a profile, computed once per graph,
     * profile object and key (the fusion setting and limits it was planned with). Read-only.
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

    /**
     * A value computed once per owner object and profile object: an op's timing, by the launches
     * array the cache keeps for its signature (an op repeated across layers, tenants or workloads
     * is timed once). Read-only.
     */
    perProfile<T>(owner: object, profile: object, compute: () => T): T {
        let byProfile = this.perProfileValues.get(owner);
        if (!byProfile) this.perProfileValues.set(owner, byProfile = new WeakMap());
        if (byProfile.has(profile)) return byProfile.get(profile) as T;
        const value = compute();
        byProfile.set(profile, value);
        return value;
    }

    /** The short tag of a limits key (stable for this cache's lifetime): keys carry the tag, not the limits' JSON. */
    capsTag(capsKey: string): string {
        let tag = this.capsTags.get(capsKey);
        if (tag === undefined) this.capsTags.set(capsKey, tag = `c${this.capsTags.size}`);
        return tag;
    }

    get size(): number { return this.entries.size; }

    /** The entry of a key (refreshing its recency once the cache is half full), or undefined. */
    get(key: string): PlanEntry | undefined {
        const hit = this.entries.get(key);
        // Recency matters only near the bound: far below it nothing is evicted, and a refresh costs a delete and a set.
        if (hit && this.entries.size * 2 > this.maxEntries) {
            this.entries.delete(key);
            this.entries.set(key, hit);
        }
        return hit;
    }

    set(key: string, value: PlanEntry): void {
        this.entries.delete(key);
        this.entries.set(key, value);
        while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
}

/** A planned op; its tuning signature is built on first read (the language server plans thousands of ops a build and reads none). */
class Planned implements PlannedOp {
    private signatureText: string | undefined;

    constructor(
        readonly fused: FusedOp,
        private readonly graph: IrGraph,
        private readonly entry: PlanEntry,
        readonly variantSource: 'tuned' | 'default',
        readonly flops: number,
        readonly bytes: number,
        signature: string | undefined,
    ) {
        this.signatureText = signature;
    }

    get path(): string { return this.fused.op.path; }
    get kind(): IrOpKind { return this.fused.op.kind; }
    get source(): IrSourceRange | undefined { return this.fused.op.source; }
    get kernels(): OpKernels | undefined { return this.entry.kernels; }
    get launches(): readonly PlannedLaunch[] { return this.entry.launches; }
    get variant(): string | undefined { return this.entry.variant; }
    get unsupported(): string | undefined { return this.entry.unsupported; }
    get signature(): string { return this.signatureText ??= tuningSignature(this.fused, this.graph); }

    /** The op's fields as a plain object (JSON, test equality). */
    toJSON(): Omit<PlannedOp, 'fused' | 'kernels'> & { fused: string[] } {
        return {
            path: this.path, kind: this.kind, fused: this.fused.fused.map(o => o.path), launches: this.launches, variant: this.variant,
            variantSource: this.variantSource, signature: this.signature, flops: this.flops, bytes: this.bytes, unsupported: this.unsupported,
            ...(this.source ? { source: this.source } : {}),
        };
    }
}

/** The tuning signature of a fused op in its graph. */
function tuningSignature(fop: FusedOp, graph: IrGraph): string {
    return opSignature(fop.op, fop.inputs.map(id => graph.tensors[id]?.shape ?? []), graph.tensors[fop.output]?.shape ?? [], fop.epilogue);
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

/** The family an op kind's single launch falls in when no generator serves it (an estimate). */
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

/**
 * The cache key of a fused op: everything its kernel generators read (see PlanCache), as one
 * string built by hand (the language server keys thousands of ops per build; JSON of nested
 * arrays cost several times more). Fields are separated by characters no name, number or dtype contains.
 */
function cacheKey(capsTag: string, variant: string | undefined, fop: FusedOp, tensorKey: (id: string) => string, flops: number, bytes: number): string {
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

/** Plans the fused ops of one graph on one set of limits: the kernels of an op in a variant, through the cache. */
class GraphPlanner {
    private readonly caps: DeviceCaps;
    private readonly cache: PlanCache;
    private readonly provider: KernelProvider;
    private readonly capsTag: string;

    constructor(private readonly graph: IrGraph, options: PlanOptions) {
        this.caps = options.caps ?? DEFAULT_CAPS;
        this.cache = options.cache ?? new PlanCache();
        this.provider = options.kernels ?? { kernelsFor };
        this.capsTag = this.cache.capsTag(JSON.stringify(this.caps));
    }

    private shapeOf(id: string): number[] { return this.graph.tensors[id]?.shape ?? []; }

    private tensorKey = (id: string): string => {
        const t = this.graph.tensors[id];
        return t ? `${t.dtype}[${t.shape.join(',')}]` : '?';
    };

    private elemBytes(id: string): number {
        const t = this.graph.tensors[id];
        if (!t) return 4; // an unknown tensor counts as one f32, as an empty shape would
        let n = t.dtype === 'f16' ? 2 : 4;
        for (const d of t.shape) n *= d;
        return n;
    }

    /**
     * FLOPs of the producer and everything fused into it; bytes: what the producer reads plus the
     * extra epilogue operands, its weights and the final write.
     */
    figures(fop: FusedOp): { flops: number; bytes: number } {
        let flops = fop.op.flops;
        let weightBytes = weightBytesOf(fop.op);
        for (const o of fop.fused) {
            flops += o.flops;
            weightBytes += weightBytesOf(o);
        }
        let bytes = weightBytes + this.elemBytes(fop.output);
        for (const id of fop.inputs) bytes += this.elemBytes(id);
        return { flops, bytes: Math.max(bytes, 1) };
    }

    entryFor(fop: FusedOp, variant: string | undefined, flops: number, bytes: number): PlanEntry {
        const key = cacheKey(this.capsTag, variant, fop, this.tensorKey, flops, bytes);
        let entry = this.cache.get(key);
        if (!entry) this.cache.set(key, entry = this.planKernels(fop.op, fop.epilogue, variant, flops, bytes));
        return entry;
    }

    private planKernels(op: IrOp, epilogue: Epilogue[], variant: string | undefined, flops: number, bytes: number): PlanEntry {
        try {
            const kernels = this.provider.kernelsFor({ op, inputShapes: op.inputs.map(id => this.shapeOf(id)), outputShape: this.shapeOf(op.output), epilogue, variant, caps: this.caps });
            const outputs = this.shapeOf(op.output).reduce((a, b) => a * b, 1);
            const used = kernels.launches[0]?.variant.variant;
            return {
                kernels, unsupported: undefined,
                launches: kernels.aliasesInput ? [] : kernels.launches.map(l => plannedLaunch(l, outputs)),
                variant: variant ?? (typeof used === 'string' ? used : undefined),
            };
        } catch (error) {
            // No generator for this op on these limits (e.g. f16, or a buffer beyond the limit, which
            // validation reports as buffer-too-large): the predictor times it from its IR figures as
            // one launch; the compiler refuses it with this message.
            const launches = op.kind === 'reshape' || op.kind === 'flatten' ? [] : [{
                name: `${op.kind}.estimate`, family: estimatedFamily(op.kind), flops, bytes, workgroups: 1, effectiveFlops: flops,
            }];
            return { kernels: undefined, launches, variant, unsupported: error instanceof Error ? error.message : String(error) };
        }
    }
}

/**
 * Plans one tenant's graph: fused ops in execution order with their kernels and launches.
 * Read-only and shared with later calls on the same cache. With default variants the plan is a
 * function of the graph, the limits and fusion alone, and is kept per graph object (a graph is
 * read-only once lowered: the language server shares one between workloads).
 */
export function planGraph(graph: IrGraph, options: PlanOptions = {}): readonly PlannedOp[] {
    const cache = options.cache ?? new PlanCache();
    const fusion = options.fusion ?? true;
    const graphKey = options.variants ? undefined : `${fusion}|${cache.capsTag(JSON.stringify(options.caps ?? DEFAULT_CAPS))}`;
    const known = graphKey !== undefined ? cache.graphPlan(graph, graphKey) : undefined;
    if (known) return known;
    const planner = new GraphPlanner(graph, { ...options, cache });
    const plan: PlannedOp[] = [];
    for (const fop of fuseGraph(graph, { enabled: fusion })) {
        const { flops, bytes } = planner.figures(fop);
        const signature = options.variants ? tuningSignature(fop, graph) : undefined;
        const tuned = signature !== undefined ? options.variants!.variantFor(signature) : undefined;
        let entry = planner.entryFor(fop, tuned, flops, bytes);
        let variantSource: 'tuned' | 'default' = tuned !== undefined ? 'tuned' : 'default';
        if (tuned !== undefined && entry.unsupported !== undefined) {
            // A cached choice this device or generator version cannot build: the default instead, said so.
            options.variants!.onUnusable?.(`op ${fop.op.path}: tuned variant '${tuned}' unusable (${entry.unsupported.split('\n')[0]}); using the default`);
            entry = planner.entryFor(fop, undefined, flops, bytes);
            variantSource = 'default';
        }
        plan.push(new Planned(fop, graph, entry, variantSource, flops, bytes, signature));
    }
    Object.freeze(plan);
    if (graphKey !== undefined) cache.setGraphPlan(graph, graphKey, plan);
    return plan;
}

/** An op of a graph's plan in another variant (a version of it: multi-version kernels), or undefined when the variant cannot be built for it. */
export function planVariant(op: PlannedOp, graph: IrGraph, variant: string, options: Omit<PlanOptions, 'variants'> = {}): PlannedOp | undefined {
    const planner = new GraphPlanner(graph, options);
    const { flops, bytes } = planner.figures(op.fused);
    const entry = planner.entryFor(op.fused, variant, flops, bytes);
    return entry.unsupported === undefined ? new Planned(op.fused, graph, entry, 'default', flops, bytes, undefined) : undefined;
}
