/**
 * Validation of Workload IR read from outside the process: structure (./schema.ts) plus the
 * semantic rules the runtime relies on — IR version, unique names, tensor references, op order,
 * and cheap per-kind shape rules. Every issue names where it is (tenant, op path, field) and
 * what was expected vs found. Pure: no webgpu, no fs.
 */
import type { z } from 'zod';
import { attrSchemas, workloadSchema } from './schema.js';
import { IR_VERSION, type IrGraph, type IrOp, type WorkloadIR } from './types.js';

/** One problem found in an IR document. */
export interface IrIssue {
    /** e.g. "tenant vision, op vision/resnet18/layer1.0/conv1" or "benchmark". */
    where: string;
    /** e.g. "attrs.stride must be [number, number], found 2". */
    message: string;
    tenant?: string;
    opPath?: string;
}

/** Thrown by parseWorkloadIr; `issues` lists every problem found (message lists the first ones). */
export class IrValidationError extends Error {
    constructor(readonly issues: IrIssue[]) {
        const shown = issues.slice(0, 20).map(formatIrIssue);
        const more = issues.length > shown.length ? `\n… and ${issues.length - shown.length} more` : '';
        super(`invalid workload IR (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n  ${shown.join('\n  ')}${more}`);
        this.name = 'IrValidationError';
    }
}

/** "where: message". */
export function formatIrIssue(issue: IrIssue): string {
    return `${issue.where}: ${issue.message}`;
}

export type IrValidation = { ok: true; ir: WorkloadIR } | { ok: false; issues: IrIssue[] };

/** Checks structure and semantics of an IR value (e.g. from JSON.parse); never throws. */
export function validateWorkloadIr(value: unknown): IrValidation {
    if (typeof value === 'object' && value !== null && 'irVersion' in value) {
        const version = (value as { irVersion: unknown }).irVersion;
        if (version !== IR_VERSION) {
            return {
                ok: false, issues: [{
                    where: 'irVersion',
                    message: `this runtime reads IR version ${IR_VERSION}, found ${describe(version)}; regenerate the IR with the same version of tenancy (tenancy ir <file>)`,
                }],
            };
        }
    }
    const parsed = workloadSchema.safeParse(value);
    if (!parsed.success) {
        return { ok: false, issues: parsed.error.issues.map(issue => zodIssueToIrIssue(issue, value, [])) };
    }
    const ir = parsed.data as WorkloadIR;
    const issues = checkSemantics(ir);
    return issues.length === 0 ? { ok: true, ir } : { ok: false, issues };
}

/** Validates and returns the IR, or throws IrValidationError. */
export function parseWorkloadIr(value: unknown): WorkloadIR {
    const result = validateWorkloadIr(value);
    if (!result.ok) throw new IrValidationError(result.issues);
    return result.ir;
}

// ---------------------------------------------------------------------------------------------

type PathKey = PropertyKey;

function zodIssueToIrIssue(issue: z.core.$ZodIssue, root: unknown, prefix: PathKey[]): IrIssue {
    const path = [...prefix, ...issue.path];
    const { where, field, tenant, opPath } = locate(root, path);
    const found = valueAt(root, path);
    let message = issue.message;
    if (message.startsWith('Invalid input') || message.startsWith('Too ') || message.startsWith('Unrecognized')) {
        if (issue.code === 'invalid_type') message = `must be ${issue.expected}`;
        else if (issue.code === 'unrecognized_keys') message = `has unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    }
    const text = issue.code === 'unrecognized_keys'
        ? `${field || 'object'} ${message}`
        : `${field || 'value'} ${message}, found ${describe(found)}`;
    return { where, message: text, tenant, opPath };
}

/** Turns a value path into "tenant T, op P" + the remaining field path "attrs.stride". */
function locate(root: unknown, path: PathKey[]): { where: string; field: string; tenant?: string; opPath?: string } {
    let tenant: string | undefined;
    let opPath: string | undefined;
    let rest = path;
    const whereParts: string[] = [];
    if (path[0] === 'tenants' && typeof path[1] === 'number') {
        const t = valueAt(root, path.slice(0, 2)) as { name?: unknown } | undefined;
        tenant = typeof t?.name === 'string' ? t.name : `#${path[1]}`;
        whereParts.push(`tenant ${tenant}`);
        rest = path.slice(2);
        if (rest[0] === 'graph' && rest[1] === 'ops' && typeof rest[2] === 'number') {
            const op = valueAt(root, path.slice(0, 5)) as { path?: unknown } | undefined;
            opPath = typeof op?.path === 'string' ? op.path : undefined;
            whereParts.push(opPath ? `op ${opPath}` : `op #${rest[2]}`);
            rest = rest.slice(3);
        } else if (rest[0] === 'graph' && rest[1] === 'tensors' && typeof rest[2] === 'string') {
            whereParts.push(`tensor ${rest[2]}`);
            rest = rest.slice(3);
        }
    } else if (path.length > 0 && typeof path[0] === 'string') {
        whereParts.push(path[0]);
        rest = path.slice(1);
    }
    return { where: whereParts.join(', ') || 'workload', field: formatPath(rest), tenant, opPath };
}

function formatPath(path: PathKey[]): string {
    let out = '';
    for (const key of path) {
        if (typeof key === 'number') out += `[${key}]`;
        else out += out ? `.${String(key)}` : String(key);
    }
    return out;
}

function valueAt(root: unknown, path: PathKey[]): unknown {
    let v: unknown = root;
    for (const key of path) {
        if (v === null || typeof v !== 'object') return undefined;
        v = (v as Record<PropertyKey, unknown>)[key];
    }
    return v;
}

/** A short, readable rendering of a found value for error messages. */
export function describe(value: unknown): string {
    if (value === undefined) return 'nothing';
    if (value === null) return 'null';
    const json = JSON.stringify(value);
    return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

// ---------------------------------------------------------------------------------------------

function checkSemantics(ir: WorkloadIR): IrIssue[] {
    const issues: IrIssue[] = [];
    const tenantNames = new Set<string>();
    const opPaths = new Set<string>();
    if (ir.benchmark.warmupMs < 0) issues.push({ where: 'benchmark', message: `warmupMs must be ≥ 0, found ${ir.benchmark.warmupMs}` });
    ir.tenants.forEach((tenant, ti) => {
        const where = `tenant ${tenant.name}`;
        if (tenantNames.has(tenant.name)) issues.push({ where, tenant: tenant.name, message: `duplicate tenant name "${tenant.name}"` });
        tenantNames.add(tenant.name);
        const seen = new Set<string>();
        for (const slo of tenant.slos) {
            if (seen.has(slo.percentile)) issues.push({ where, tenant: tenant.name, message: `more than one slo for ${slo.percentile}` });
            seen.add(slo.percentile);
        }
        checkGraph(ir, ti, tenant.graph, opPaths, issues);
    });
    return issues;
}

function checkGraph(ir: WorkloadIR, ti: number, graph: IrGraph, opPaths: Set<string>, issues: IrIssue[]): void {
    const tenant = ir.tenants[ti].name;
    const tWhere = `tenant ${tenant}`;
    for (const [key, tensor] of Object.entries(graph.tensors)) {
        if (key !== tensor.id) issues.push({ where: `${tWhere}, tensor ${key}`, tenant, message: `tensors key "${key}" differs from its id "${tensor.id}"` });
    }
    const available = new Set<string>();
    for (const id of graph.inputs) {
        if (!graph.tensors[id]) issues.push({ where: tWhere, tenant, message: `graph.inputs names tensor "${id}", which is not in graph.tensors` });
        available.add(id);
    }
    const produced = new Set<string>();
    graph.ops.forEach((op, oi) => {
        const where = `${tWhere}, op ${op.path}`;
        const add = (message: string) => issues.push({ where, tenant, opPath: op.path, message });
        if (opPaths.has(op.path)) add(`duplicate op path "${op.path}" (paths must be unique within the workload)`);
        opPaths.add(op.path);
        const attrResult = attrSchemas[op.kind].safeParse(op.attrs);
        if (!attrResult.success) {
            for (const issue of attrResult.error.issues) {
                issues.push(zodIssueToIrIssue(issue, ir, ['tenants', ti, 'graph', 'ops', oi, 'attrs']));
            }
        }
        let refsOk = true;
        op.inputs.forEach((id, i) => {
            if (!graph.tensors[id]) { add(`inputs[${i}] names tensor "${id}", which is not in graph.tensors`); refsOk = false; }
            else if (!available.has(id)) {
                add(`inputs[${i}] "${id}" is used before it is produced (ops must be in topological order)`);
                refsOk = false;
            }
        });
        if (!graph.tensors[op.output]) { add(`output names tensor "${op.output}", which is not in graph.tensors`); refsOk = false; }
        else if (produced.has(op.output) || graph.inputs.includes(op.output)) {
            add(`output "${op.output}" is produced more than once`);
        }
        produced.add(op.output);
        available.add(op.output);
        if (refsOk && attrResult.success) {
            const problem = checkOpShapes(op, op.inputs.map(id => graph.tensors[id].shape), graph.tensors[op.output].shape,
                op.inputs.map(id => graph.tensors[id].dtype));
            if (problem) add(problem);
        }
    });
    for (const id of graph.outputs) {
        if (!graph.tensors[id]) issues.push({ where: tWhere, tenant, message: `graph.outputs names tensor "${id}", which is not in graph.tensors` });
        else if (!available.has(id)) issues.push({ where: tWhere, tenant, message: `graph.outputs names tensor "${id}", which no op produces` });
    }
}

const shapeText = (s: readonly number[]) => `[${s.join(', ')}]`;

/** NumPy broadcast of two shapes, or undefined if they do not broadcast. */
export function broadcastShapes(a: readonly number[], b: readonly number[]): number[] | undefined {
    const rank = Math.max(a.length, b.length);
    const out: number[] = [];
    for (let i = 0; i < rank; i++) {
        const x = a[a.length - rank + i] ?? 1;
        const y = b[b.length - rank + i] ?? 1;
        if (x !== y && x !== 1 && y !== 1) return undefined;
        out.push(Math.max(x, y));
    }
    return out;
}

const unary = new Set(['relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu', 'batch_norm', 'layer_norm', 'softmax']);

/** Output spatial size of a window op (floor mode, as PyTorch's default). */
export function windowOutput(size: number, kernel: number, stride: number, padBefore: number, padAfter: number, dilation = 1): number {
    return Math.floor((size + padBefore + padAfter - dilation * (kernel - 1) - 1) / stride) + 1;
}

/** Cheap shape rules per op kind; returns a message naming expected vs found, or undefined. */
export function checkOpShapes(op: IrOp, ins: number[][], out: number[], inDtypes: string[] = []): string | undefined {
    const a = op.attrs as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const arity = (n: number) => ins.length === n ? undefined : `${op.kind} takes ${n} input${n > 1 ? 's' : ''}, found ${ins.length}`;
    const expectOut = (expected: number[]) => expected.length === out.length && expected.every((d, i) => d === out[i])
        ? undefined : `output shape must be ${shapeText(expected)} for ${op.kind} of ${ins.map(shapeText).join(', ')}, found ${shapeText(out)}`;
    const x = ins[0];
    switch (op.kind) {
        case 'dense': return arity(1) ?? expectOut([...x.slice(0, -1), a.units]);
        case 'matmul': {
            const bad = arity(2); if (bad) return bad;
            const [p, q] = ins;
            if (p.length < 2 || q.length < 2) return `matmul inputs must have rank ≥ 2, found ${shapeText(p)}, ${shapeText(q)}`;
            if (p[p.length - 1] !== q[q.length - 2]) return `matmul inner dims must match: a ${shapeText(p)} has k=${p[p.length - 1]}, b ${shapeText(q)} has k=${q[q.length - 2]}`;
            const lead = broadcastShapes(p.slice(0, -2), q.slice(0, -2));
            if (!lead) return `matmul leading dims do not broadcast: ${shapeText(p)}, ${shapeText(q)}`;
            return expectOut([...lead, p[p.length - 2], q[q.length - 1]]);
        }
        case 'conv2d': case 'depthwise_conv2d': case 'max_pool2d': case 'avg_pool2d': {
            const bad = arity(1); if (bad) return bad;
            if (x.length !== 4) return `${op.kind} input must be [n, c, h, w], found ${shapeText(x)}`;
            const [n, c, h, w] = x;
            const dil = op.kind === 'conv2d' ? a.dilation : [1, 1];
            const ho = windowOutput(h, a.kernel[0], a.stride[0], a.padding[0], a.padding[2], dil[0]);
            const wo = windowOutput(w, a.kernel[1], a.stride[1], a.padding[1], a.padding[3], dil[1]);
            if (ho < 1 || wo < 1) return `${op.kind} output would be ${ho}×${wo} for input ${shapeText(x)}`;
            let channels = c;
            if (op.kind === 'conv2d') {
                if (c % a.groups !== 0 || a.filters % a.groups !== 0) return `conv2d channels ${c} and filters ${a.filters} must be divisible by groups ${a.groups}`;
                channels = a.filters;
            } else if (op.kind === 'depthwise_conv2d') channels = c * a.multiplier;
            return expectOut([n, channels, ho, wo]);
        }
        case 'global_avg_pool':
            if (x.length !== 4) return `global_avg_pool input must be [n, c, h, w], found ${shapeText(x)}`;
            return arity(1) ?? expectOut([x[0], x[1], 1, 1]);
        case 'add': case 'mul': {
            const bad = arity(2); if (bad) return bad;
            const b = broadcastShapes(ins[0], ins[1]);
            if (!b) return `${op.kind} inputs do not broadcast: ${shapeText(ins[0])}, ${shapeText(ins[1])}`;
            return expectOut(b);
        }
        case 'reshape': {
            const bad = arity(1); if (bad) return bad;
            const count = (s: number[]) => s.reduce((p, d) => p * d, 1);
            if (count(x) !== count(a.shape)) return `reshape must keep the element count: ${shapeText(x)} has ${count(x)}, shape ${shapeText(a.shape)} has ${count(a.shape)}`;
            return expectOut(a.shape);
        }
        case 'transpose': {
            const bad = arity(1); if (bad) return bad;
            const perm: number[] = a.perm;
            const sorted = [...perm].sort((p, q) => p - q);
            if (perm.length !== x.length || sorted.some((v, i) => v !== i)) return `attrs.perm must be a permutation of 0..${x.length - 1}, found ${shapeText(perm)}`;
            return expectOut(perm.map(p => x[p]));
        }
        case 'flatten':
            if (x.length < 2) return `flatten input must have rank ≥ 2, found ${shapeText(x)}`;
            return arity(1) ?? expectOut([x[0], x.slice(1).reduce((p, d) => p * d, 1)]);
        case 'concat': {
            if (ins.length < 1) return 'concat takes at least one input, found 0';
            const axis: number = a.axis;
            if (axis >= x.length) return `attrs.axis must be < rank ${x.length}, found ${axis}`;
            for (const s of ins) {
                if (s.length !== x.length || s.some((d, i) => i !== axis && d !== x[i])) return `concat inputs must agree except on axis ${axis}: ${ins.map(shapeText).join(', ')}`;
            }
            const summed = [...x]; summed[axis] = ins.reduce((p, s) => p + s[axis], 0);
            return expectOut(summed);
        }
        case 'embedding':
            if (inDtypes[0] && inDtypes[0] !== 'i32') return `embedding ids must be i32, found ${inDtypes[0]}`;
            return arity(1) ?? expectOut([...x, a.dim]);
        case 'attention':
            if (x.length !== 3) return `attention input must be [b, s, d], found ${shapeText(x)}`;
            if (x[2] % a.heads !== 0) return `attention model dim ${x[2]} must be divisible by heads ${a.heads}`;
            return arity(1) ?? expectOut(x);
        case 'lstm':
            if (x.length !== 3) return `lstm input must be [b, s, i], found ${shapeText(x)}`;
            return arity(1) ?? expectOut([x[0], x[1], a.hidden]);
        default:
            if (unary.has(op.kind)) {
                if (op.kind === 'softmax' && a.axis >= x.length) return `attrs.axis must be < rank ${x.length}, found ${a.axis}`;
                return arity(1) ?? expectOut(x);
            }
            return undefined;
    }
}
