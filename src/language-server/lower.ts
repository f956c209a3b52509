/**
 * Lowering: a checked workload → Workload IR (src/runtime/ir/types.ts). Blocks are inlined and
 * `repeat` unrolled by the analysis (every op of a tenant's concrete instance, refused past
 * analysis/limits.ts's maxUnrolledSteps with the `too-large` messages validation reports); here the ops get
 * their workload-wide paths and tensor ids, concrete attributes, weights, FLOPs, bytes and source
 * ranges, and the workload's settings their defaults (via readWorkload).
 *
 * Paths: `<tenant>/<model>/<segments…>` where the segments name inlined block calls and then
 * the op. A block call is `<model>.<n>`, counted per model within its caller
 * (`resnet_bottleneck.2`); each iteration of `repeat` is one more call (`bert_encoder_layer.11`).
 * An op bound by a let/output takes the tensor's name (rebinding: `y`, `y.1`, …), any other op
 * is `<op>.<n>` counted per operator within its block (`relu.0`). Tensor ids are the path of
 * the op that produces them (inputs: `<tenant>/<model>/<input>`).
 */
import { AstUtils, type AstNode } from 'langium';
import { IR_VERSION, type IrAttrs, type IrGraph, type IrOp, type IrSourceRange, type IrTenant, type IrWeight, type WorkloadIR } from '../runtime/ir/types.js';
import type { TenancyAnalyzer } from './analysis/index.js';
import { Dim, concreteShape } from './analysis/dims.js';
import type { AttrValue, ModelAnalysis, OpRecord, TensorValue } from './analysis/types.js';
import { describeSize, formatSize, maxUnrolledSteps, tooLargeIssues } from './analysis/limits.js';
import { readWorkload } from './analysis/workload.js';
import type { Tenant, Workload } from './generated/ast.js';

/** Thrown when a workload cannot be lowered; `problems` say what and where. */
export class LoweringError extends Error {
    constructor(readonly problems: string[]) {
        super(`cannot lower the workload:\n  ${problems.join('\n  ')}`);
        this.name = 'LoweringError';
    }
}

/**
 * Lowers a workload whose document has no errors. Throws LoweringError otherwise. The result is
 * cached until the next document change and shared between callers: treat it as read-only.
 */
export function lowerWorkload(workload: Workload, analyzer: TenancyAnalyzer): WorkloadIR {
    const result = analyzer.memo(workload, () => {
        try {
            return { ir: lower(workload, analyzer) };
        } catch (error) {
            if (error instanceof LoweringError) return { error };
            throw error;
        }
    });
    if ('error' in result) throw result.error;
    return result.ir;
}

function lower(workload: Workload, analyzer: TenancyAnalyzer): WorkloadIR {
    const reading = readWorkload(workload);
    const problems = reading.issues.filter(i => i.severity === 'error').map(i => `${where(i.node)}: ${i.message}`);
    // Refused before any op is listed: the messages validation reports on the tenant or workload line.
    const tooLarge = tooLargeIssues(workload, reading, t => analyzer.tenant(t));
    if (tooLarge.length > 0) throw new LoweringError([...problems, ...tooLarge.map(i => `${where(i.node)}: ${i.message}`)]);
    const tenants: IrTenant[] = [];
    for (const t of reading.tenants) {
        if (!t.name) { problems.push(`${where(t.node)}: a tenant needs a name`); continue; }
        const lowered = lowerTenant(t.node, analyzer, problems);
        if (lowered) tenants.push({ name: t.name, graph: lowered, arrival: t.arrival, slos: t.slos.map(s => ({ percentile: s.percentile, ms: s.ms })), priority: t.priority, source: sourceRange(t.node) });
    }
    if (problems.length > 0) throw new LoweringError(problems);
    const device: WorkloadIR['device'] = { preference: reading.device.preference };
    if (reading.device.memoryBytes !== undefined) device.memoryBytes = reading.device.memoryBytes;
    const ir: WorkloadIR = {
        irVersion: IR_VERSION,
        workload: workload.name,
        sourceUri: AstUtils.getDocument(workload).uri.toString(),
        device,
        tenants,
        schedule: reading.schedule,
        benchmark: reading.benchmark,
    };
    const source = sourceRange(workload);
    if (source) ir.source = source;
    return ir;
}

function lowerTenant(tenant: Tenant, analyzer: TenancyAnalyzer, problems: string[]): IrGraph | undefined {
    const resolved = analyzer.tenantModel(tenant);
    if (!resolved) {
        problems.push(`${where(tenant)}: tenant ${tenant.name} has no resolvable model`);
        return undefined;
    }
    if (resolved.missing.length > 0) {
        problems.push(`${where(tenant)}: tenant ${tenant.name}: ${resolved.model.name} needs ${resolved.missing.join(', ')}`);
        return undefined;
    }
    const analysis = analyzer.instance(resolved.model, resolved.args);
    if (analysis.unboundDims.length > 0 || analysis.issues.length > 0) {
        const first = analysis.issues[0];
        problems.push(`${where(tenant)}: tenant ${tenant.name}: ${first ? `${where(first.node)}: ${first.message}` : `unbound dims ${analysis.unboundDims.join(', ')}`}`);
        return undefined;
    }
    // Tenants of the same name running the same instance (common across workloads) share one graph.
    const prefix = `${tenant.name}/${resolved.model.name}`;
    const graphs = analyzer.memo(analysis, () => new Map<string, { graph?: IrGraph; problems: string[] }>());
    let entry = graphs.get(prefix);
    if (!entry) {
        const own: string[] = [];
        entry = { graph: lowerGraph(prefix, analysis, Object.fromEntries(resolved.args), own), problems: own };
        graphs.set(prefix, entry);
    }
    problems.push(...entry.problems);
    return entry.graph;
}

/** The IR graph of a concrete model instance; every id and path is prefixed with `prefix/`. */
export function lowerGraph(prefix: string, analysis: ModelAnalysis, args: Record<string, number>, problems: string[] = []): IrGraph | undefined {
    // One id string per tensor (the analysis's tensor object is the key), reused wherever the tensor
    // is named (its producer, its consumers, the graph's inputs and outputs): the planner's maps hash
    // each id once, not once per mention.
    const ids = new Map<TensorValue, string>();
    const id = (t: TensorValue) => {
        let global = ids.get(t);
        if (global === undefined) ids.set(t, global = `${prefix}/${t.id}`);
        return global;
    };
    const ops = analysis.ops;
    if (!ops) {
        problems.push(`${prefix}: unrolls to ${describeSize(analysis.size)}, more than lowering lists (${formatSize(maxUnrolledSteps)} steps)`);
        return undefined;
    }
    const graph: IrGraph = { model: analysis.model.name, args, tensors: {}, inputs: [], outputs: [], ops: [] };
    for (const t of analysis.inputs) {
        const shape = concreteShape(t.shape);
        if (!shape) { problems.push(`${prefix}: input ${t.id} has a symbolic shape`); return undefined; }
        const tensorId = id(t);
        graph.tensors[tensorId] = { id: tensorId, dtype: t.dtype, shape };
        graph.inputs.push(tensorId);
    }
    for (const op of ops) {
        const lowered = lowerOp(op, id);
        if (typeof lowered === 'string') { problems.push(`${prefix}/${op.path.join('/')}: ${lowered}`); return undefined; }
        graph.tensors[lowered.output] = { id: lowered.output, dtype: op.output.dtype, shape: concreteShape(op.output.shape)! };
        graph.ops.push(lowered);
    }
    for (const t of analysis.outputs) {
        if (graph.inputs.includes(id(t))) {
            problems.push(`${prefix}: output ${t.id} is an input unchanged; a model run by a tenant must compute something`);
            return undefined;
        }
        if (!graph.outputs.includes(id(t))) graph.outputs.push(id(t));
    }
    if (graph.ops.length === 0) problems.push(`${prefix}: the model has no operators`);
    return graph;
}

function lowerOp(op: OpRecord, id: (tensor: TensorValue) => string): IrOp | string {
    if (op.count.value !== 1) return 'a symbolic repeat count (lower a concrete instance)';
    const attrs: IrAttrs = {};
    for (const key in op.attrs) {
        const value = op.attrs[key];
        const v = attrValue(value);
        if (v === undefined) return `attribute ${key} is symbolic (${String(value)})`;
        attrs[key] = v;
    }
    const weights: IrWeight[] = new Array(op.weights.length);
    for (let i = 0; i < weights.length; i++) {
        const w = op.weights[i];
        const shape = concreteShape(w.shape);
        if (!shape) return `weight ${w.name} has a symbolic shape`;
        weights[i] = { name: w.name, shape, dtype: w.dtype };
    }
    if (op.kind === 'lstm') runtimeLstmLayout(weights);
    const flops = op.cost.flops.value;
    const bytes = op.cost.bytesRead.add(op.cost.bytesWritten).value;
    if (flops === undefined || bytes === undefined || !concreteShape(op.output.shape)) return 'symbolic shape or cost';
    // The analysis names an op's output tensor by the op's path (evaluate.ts): one string for both.
    const path = id(op.output);
    const lowered: IrOp = {
        path,
        kind: op.kind,
        inputs: op.inputs.map(id),
        output: path,
        attrs,
        weights,
        flops,
        bytes,
    };
    const source = sourceRange(op.node);
    if (source) lowered.source = source;
    return lowered;
}

/**
 * The analysis lists an LSTM's parameters as PyTorch does (w_ih.l [4h, in], w_hh.l [4h, h],
 * b_ih.l and b_hh.l [4h]: the published parameter counts); the IR carries the runtime's layout
 * (ir/types.ts): w_ih.l [in, 4h], w_hh.l [h, 4h] and one bias b.l [4h] (= b_ih + b_hh).
 */
function runtimeLstmLayout(weights: IrWeight[]): void {
    for (let i = weights.length - 1; i >= 0; i--) {
        const w = weights[i];
        const [kind, layer] = w.name.split('.');
        if (kind === 'w_ih' || kind === 'w_hh') w.shape = [w.shape[1], w.shape[0]];
        else if (kind === 'b_hh') weights.splice(i, 1);
        else if (kind === 'b_ih') w.name = `b.${layer}`;
    }
}

function attrValue(value: AttrValue): number | boolean | number[] | undefined {
    if (typeof value === 'boolean') return value;
    if (value instanceof Dim) return value.value;
    return concreteShape(value);
}

/** The source range of a node, with its document URI. */
export function sourceRange(node: AstNode): IrSourceRange | undefined {
    const cst = node.$cstNode;
    if (!cst) return undefined;
    const range = cst.range; // computed by the getter on every read
    return { uri: AstUtils.getDocument(node).uri.toString(), start: { ...range.start }, end: { ...range.end } };
}

/** `file.tenancy:12:5` for messages. */
function where(node: AstNode): string {
    const doc = AstUtils.findRootNode(node).$document;
    const file = doc ? doc.uri.path.split('/').pop() : '?';
    const start = node.$cstNode?.range.start;
    return start ? `${file}:${start.line + 1}:${start.character + 1}` : String(file);
}
