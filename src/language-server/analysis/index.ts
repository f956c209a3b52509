/**
 * Shape and cost analysis of `.tenancy` models — the one source of truth for validation,
 * lowering, hover and inlay hints.
 *
 * API summary
 * - `Dim` (./dims.ts): integer polynomial over parameter / dim-variable names. `dim.value` is the
 *   number when constant; `toString()` prints `batch*seq`. `formatShape(shape)` → `[batch, 784]`.
 * - `analyseModel(model, { args?, standalone? })` (./evaluate.ts): pure. Parameters in `args`
 *   are constants, the rest symbols. Returns a `ModelAnalysis` (./types.ts):
 *     expressions: Map<AstNode, ExpressionInfo>   value (tensor type / dim / literal) and cost of
 *                                                every expression of the model's own body
 *     bindings: Map<Binding, Value>               value of each param, dim var, input, let, output
 *     ops: OpRecord[] | undefined                 every op after inlining blocks and unrolling repeats (undefined past
 *                                                limits.ts's maxUnrolledSteps; `size` says how large it is unrolled)
 *     memory: ModelMemory                         peak bytes (only when unrolled), largest tensor (concrete only; what validation reads)
 *     totals: ModelTotals                         flops, params, bytes, activation/weight bytes,
 *                                                peak memory (concrete only), largest tensor
 *     issues: AnalysisIssue[]                     shape-mismatch, bad-argument, repeat-shape, recursion…
 * - `TenancyAnalyzer` (services.analysis.Analyzer), cached until the next document change:
 *     standalone(model)            model on its own, every parameter symbolic (hover inside a model)
 *     atDefaults(model)            parameters with defaults constant, others symbolic
 *     instance(model, args)        concrete instantiation (a tenant's model line; no `expressions`)
 *     tenant(tenant)               the tenant's instance, with its args + defaults resolved
 *     expression(node)             ExpressionInfo of an expression from its model's standalone analysis
 *     binding(node)                Value of a binding (param, dim var, input, let, output)
 *     memo(key, compute)           any derived result cached the same way (lowering uses it)
 *     callGraph()                  the graph of model calls (cycles, heights), explored as asked
 *   A model's own analysis summarises blocks and repeats (evaluate.ts); an instance is unrolled when
 *   within the limit. Both reuse the block analyses of the workspace state.
 * - `tooLargeIssues(workload, reading, instanceOf)` (./limits.ts): what cannot be lowered, and why.
 * - `readWorkload(workload)` (./workload.ts): device, tenants, arrival, slos, priority, schedule,
 *   benchmark with the defaults of docs/language.md#workloads + the issues found (validator and lowering share it).
 * - Formatting: `formatTensor(t)` → `f32[batch, 512]`, `formatBytes`, `formatFlops`, `formatCount`.
 */
import { AstUtils, WorkspaceCache, type AstNode } from 'langium';
import type { LangiumSharedCoreServices } from 'langium';
import { isModel, isModelProp, type Binding, type Model, type Tenant } from '../generated/ast.js';
import { CallGraph } from './calls.js';
import { Dim } from './dims.js';
import { analyseModel, BlockMemo } from './evaluate.js';
import { constantInt } from './workload.js';
import type { ExpressionInfo, ModelAnalysis, Value } from './types.js';

export { Dim } from './dims.js';
export { analyseModel, BlockMemo } from './evaluate.js';
export { formatBytes, formatCount, formatFlops } from './format.js';
export { formatTensor } from './operator-rules.js';
export type * from './types.js';
export { CallGraph } from './calls.js';
export { maxCallDepth, maxUnrolledSteps, tooLargeIssues } from './limits.js';

/** A tenant's model call resolved: the model and its parameter values after defaults. */
export interface TenantModel {
    model: Model;
    args: Map<string, number>;
    /** Parameters without default that the tenant does not give. */
    missing: string[];
}

/** Cached analyses (cleared whenever any document changes). */
export class TenancyAnalyzer {
    private readonly cache: WorkspaceCache<string | AstNode, ModelAnalysis>;
    private readonly instances: WorkspaceCache<Model, Map<string, ModelAnalysis>>;
    private readonly inProgress = new Set<Model>();
    private readonly derived: WorkspaceCache<object, unknown>;

    constructor(services: { shared: LangiumSharedCoreServices }) {
        this.cache = new WorkspaceCache(services.shared);
        this.instances = new WorkspaceCache(services.shared);
        this.derived = new WorkspaceCache(services.shared);
    }

    /** Memoises a result derived from the AST (e.g. a workload's IR) until the next workspace change. */
    memo<T>(key: object, compute: () => T): T {
        if (this.derived.has(key)) return this.derived.get(key) as T;
        const value = compute();
        this.derived.set(key, value);
        return value;
    }

    /** The graph of model calls of this workspace state. */
    callGraph(): CallGraph {
        return this.shared().calls;
    }

    /** What every analysis of this workspace state shares: the call graph and the summarised blocks. */
    private shared(): { calls: CallGraph; blocks: BlockMemo; standalone: (model: Model) => ModelAnalysis } {
        const { calls, blocks } = this.memo(workspaceShared, () => ({ calls: new CallGraph(), blocks: new BlockMemo() }));
        return { calls, blocks, standalone: m => this.standalone(m) };
    }

    /** The model on its own: every parameter symbolic, blocks and repeats summarised. */
    standalone(model: Model): ModelAnalysis {
        const cached = this.cache.get(model);
        if (cached) return cached;
        // A recursive chain asks for a standalone analysis that is being computed: answer none.
        if (this.inProgress.has(model)) return emptyAnalysis(model);
        this.inProgress.add(model);
        try {
            const analysis = analyseModel(model, { ...this.shared(), summarise: true });
            this.cache.set(model, analysis);
            return analysis;
        } finally {
            this.inProgress.delete(model);
        }
    }

    /** Parameters with defaults constant, the others symbolic. */
    atDefaults(model: Model): ModelAnalysis {
        const args = new Map<string, number>();
        for (const p of model.params) if (p.default !== undefined) args.set(p.name, p.default);
        return this.instance(model, args);
    }

    /** A concrete (or partly concrete) instantiation. */
    instance(model: Model, args: ReadonlyMap<string, number>): ModelAnalysis {
        const key = [...args].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(',');
        let byArgs = this.instances.get(model);
        if (!byArgs) {
            byArgs = new Map();
            this.instances.set(model, byArgs);
        }
        let analysis = byArgs.get(key);
        if (!analysis) {
            // The model's own size formula at these arguments says, before evaluating, whether the instance can be unrolled.
            const values = new Map([...args].map(([name, value]) => [name, Dim.of(value)]));
            const estimatedSteps = this.standalone(model).sizeFormula.substitute(values).value;
            // Expression info is read from standalone analyses only (hover, validator): instances skip recording it.
            analysis = analyseModel(model, { ...this.shared(), args, expressions: false, estimatedSteps });
            byArgs.set(key, analysis);
        }
        return analysis;
    }

    /** The model and argument values a tenant's `model` line resolves to (undefined if unresolved); one answer per workspace state. */
    tenantModel(tenant: Tenant): TenantModel | undefined {
        return this.memo(tenant, () => resolveTenantModel(tenant));
    }

    /** The tenant's concrete instance (undefined when its model does not resolve). */
    tenant(tenant: Tenant): ModelAnalysis | undefined {
        const resolved = this.tenantModel(tenant);
        return resolved && this.memo(resolved, () => this.instance(resolved.model, resolved.args));
    }

    /** What an expression evaluates to inside its model (symbolic in the model's parameters). */
    expression(node: AstNode): ExpressionInfo | undefined {
        const model = AstUtils.getContainerOfType(node, isModel);
        return model ? this.standalone(model).expressions.get(node) : undefined;
    }

    /** The value a binding holds inside its model (symbolic in the model's parameters). */
    binding(node: Binding): Value | undefined {
        const model = AstUtils.getContainerOfType(node, isModel);
        return model ? this.standalone(model).bindings.get(node) : undefined;
    }
}

/** The memo key of what the analyses of one workspace state share. */
const workspaceShared = {};

/** A tenant's model call resolved: its model and the argument values after defaults. */
function resolveTenantModel(tenant: Tenant): TenantModel | undefined {
    const prop = tenant.props.find(isModelProp);
    const model = prop?.call?.callee?.ref; // `model` alone, half typed, has no call yet
    if (!prop || !model || !isModel(model)) return undefined;
    const args = new Map<string, number>();
    for (const arg of prop.call.args) {
        const v = arg.name !== undefined ? constantInt(arg.value) : undefined;
        if (arg.name !== undefined && v !== undefined && v >= 1) args.set(arg.name, v);
    }
    const missing: string[] = [];
    for (const p of model.params) {
        if (args.has(p.name)) continue;
        if (p.default !== undefined) args.set(p.name, p.default);
        else missing.push(p.name);
    }
    return { model, args, missing };
}

function emptyAnalysis(model: Model): ModelAnalysis {
    return analyseModel({ ...model, statements: [], params: [] } as unknown as Model);
}
