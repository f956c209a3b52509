/**
 * Shape, attribute, weight and cost rules of every operator (docs/language.md#operators). Pure:
 * given the call's arguments already evaluated to values, returns the output tensor type, the
 * resolved attributes (no defaults, no negative axes, no "same" padding when concrete), the
 * implicit weights and the cost — or issues naming expected vs found on the offending argument.
 */
import type { AstNode } from 'langium';
import { dtypeBytes, type DType, type IrOpKind } from '../../runtime/ir/types.js';
import type { Arg, Call } from '../generated/ast.js';
import { IssueCodes, type IssueCode } from '../validation/issue-codes.js';
import { Dim, elementCount, formatShape, type Shape } from './dims.js';
import { maxUnrolledSteps } from './limits.js';
import { formatSignature, type OperatorSignature, type ParamKind } from './operators.js';
import type { AnalysisIssue, AttrValue, Cost, TensorValue, Value, WeightInfo } from './types.js';

/** The result of applying an operator. */
export interface OperatorResult {
    dtype: DType;
    shape: Shape;
    attrs: Record<string, AttrValue>;
    weights: WeightInfo[];
    cost: Cost;
    /** Tensor inputs in IR order. */
    inputs: TensorValue[];
}

/** Resolved arguments of an operator call. */
interface Resolved {
    op: OperatorSignature;
    call: Call;
    /** Argument values by parameter position (op.params); undefined where not given. */
    values: (Value | undefined)[];
    /** The argument expressions, likewise. */
    nodes: (AstNode | undefined)[];
    /** concat's tensors, with their nodes. */
    variadic: { value: Value; node: AstNode }[];
    issues: AnalysisIssue[];
}

/** The position of a named parameter in an operator's signature (−1 when it has none of that name). */
function paramIndex(op: OperatorSignature, name: string): number {
    const params = op.params;
    for (let i = 0; i < params.length; i++) if (params[i].name === name) return i;
    return -1;
}

/** The value given for a parameter, if any. */
function given(r: Resolved, name: string): Value | undefined {
    const i = paramIndex(r.op, name);
    return i < 0 ? undefined : r.values[i];
}

/** `f32[batch, 784]`. */
export function formatTensor(t: { dtype: DType; shape: Shape }): string {
    return `${t.dtype}${formatShape(t.shape)}`;
}

/** A short description of a value for "found …" messages. */
export function describeValue(v: Value): string {
    switch (v.kind) {
        case 'tensor': return `tensor ${formatTensor(v.tensor)}`;
        case 'dim': return `integer ${v.dim.toString()}`;
        case 'number': return `number ${v.value}`;
        case 'string': return `string "${v.value}"`;
        case 'bool': return `boolean ${v.value}`;
        case 'quantity': return `quantity ${v.text}`;
        case 'tuple': return `tuple (${v.elements.map(describeValue).join(', ')})`;
        case 'error': return 'an invalid value';
    }
}

/**
 * Maps a call's arguments onto the operator's parameters (positional first, then by name) and
 * applies the operator. `argValues[i]` is the value of `call.args[i]`.
 */
export function applyOperator(op: OperatorSignature, call: Call, argValues: Value[]): { result?: OperatorResult; issues: AnalysisIssue[] } {
    const n = op.params.length;
    const r: Resolved = { op, call, values: new Array(n), nodes: new Array(n), variadic: [], issues: [] };
    let sawNamed = false;
    let position = 0;
    const args = call.args;
    for (let i = 0; i < args.length; i++) {
        const arg: Arg = args[i];
        const value = argValues[i];
        if (arg.name !== undefined) {
            sawNamed = true;
            const index = paramIndex(op, arg.name);
            const param = op.params[index];
            if (!param || param.kind === 'tensors') {
                issue(r, IssueCodes.BadArgument, `${op.name} has no argument named '${arg.name}'; expected ${formatSignature(op)}`, arg, 'name');
            } else if (r.values[index] !== undefined) {
                issue(r, IssueCodes.BadArgument, `argument '${arg.name}' is given twice; expected ${formatSignature(op)}`, arg, 'name');
            } else {
                r.values[index] = value;
                r.nodes[index] = arg.value;
            }
            continue;
        }
        if (sawNamed) {
            issue(r, IssueCodes.BadArgument, `positional argument after named ones; expected ${formatSignature(op)}`, arg);
            continue;
        }
        const param = op.params[position];
        if (param?.kind === 'tensors') {
            r.variadic.push({ value, node: arg.value });
            continue;
        }
        if (!param) {
            issue(r, IssueCodes.BadArgument, `${op.name} takes ${op.params.length} argument${op.params.length === 1 ? '' : 's'}, found ${call.args.length}; expected ${formatSignature(op)}`, arg);
            continue;
        }
        r.values[position] = value;
        r.nodes[position] = arg.value;
        position++;
    }
    if (r.issues.length > 0) return { issues: r.issues };
    for (let i = 0; i < n; i++) {
        const p = op.params[i];
        if (p.kind === 'tensors') continue;
        if (r.values[i] === undefined && p.default === undefined) {
            issue(r, IssueCodes.BadArgument, `${op.name} is missing argument '${p.name}'; expected ${formatSignature(op)}`, call, 'callee');
        }
    }
    // An argument that already failed elsewhere: stay quiet.
    for (const v of r.values) if (v?.kind === 'error') return { issues: r.issues };
    for (const v of r.variadic) if (v.value.kind === 'error') return { issues: r.issues };
    if (r.issues.length > 0) return { issues: r.issues };
    const result = rules[op.name as IrOpKind](r);
    return { result: r.issues.length === 0 ? result : undefined, issues: r.issues };
}

function issue(r: Resolved, code: IssueCode, message: string, node: AstNode, property?: string): void {
    r.issues.push({ code, severity: 'error', message, node, property });
}

function nodeOf(r: Resolved, name: string): AstNode {
    const i = paramIndex(r.op, name);
    return (i < 0 ? undefined : r.nodes[i]) ?? r.call;
}

function kindText(kind: ParamKind): string {
    switch (kind) {
        case 'tensor': return 'a tensor';
        case 'tensors': return 'tensors';
        case 'int': return 'a positive integer';
        case 'int-or-pair': return 'a positive integer or a pair (a, b)';
        case 'padding': return 'a non-negative integer, a pair (a, b) or "same"';
        case 'int-tuple': return 'a tuple of integers';
        case 'signed-int': return 'an integer';
        case 'bool': return 'true or false';
    }
}

function wrongKind(r: Resolved, name: string, found: Value): undefined {
    const param = r.op.params.find(p => p.name === name)!;
    issue(r, IssueCodes.BadArgument, `${r.op.name}: '${name}' must be ${kindText(param.kind)}, found ${describeValue(found)}; expected ${formatSignature(r.op)}`, nodeOf(r, name));
    return undefined;
}

function tensorArg(r: Resolved, name: string): TensorValue | undefined {
    const v = given(r, name);
    if (!v) return undefined;
    if (v.kind !== 'tensor') return wrongKind(r, name, v);
    return v.tensor;
}

/** A dim that must be ≥ min when known. */
function intArg(r: Resolved, name: string, min = 1, fallback?: number): Dim | undefined {
    const v = given(r, name);
    if (!v) return fallback === undefined ? undefined : Dim.of(fallback);
    const d = v.kind === 'dim' ? v.dim : v.kind === 'number' && Number.isInteger(v.value) ? Dim.of(v.value) : undefined;
    if (!d) return wrongKind(r, name, v);
    if (d.value !== undefined && d.value < min) {
        issue(r, IssueCodes.BadArgument, `${r.op.name}: '${name}' must be ≥ ${min}, found ${d.value}; expected ${formatSignature(r.op)}`, nodeOf(r, name));
        return undefined;
    }
    return d;
}

function signedIntArg(r: Resolved, name: string, fallback: number): number | undefined {
    const v = given(r, name);
    if (!v) return fallback;
    if (v.kind === 'number' && Number.isInteger(v.value)) return v.value;
    if (v.kind === 'dim' && v.dim.value !== undefined) return v.dim.value;
    return wrongKind(r, name, v);
}

function boolArg(r: Resolved, name: string, fallback: boolean): boolean | undefined {
    const v = given(r, name);
    if (!v) return fallback;
    if (v.kind !== 'bool') return wrongKind(r, name, v);
    return v.value;
}

/**
 * Attribute dim lists of small constants (kernel 3×3, stride 1×1, padding 1, 1, 1, 1, …): one frozen
 * array each, shared by every op that has it (ops keep their attributes, and most are the same few).
 * Other lists are returned as they are.
 */
const sharedDimLists = new Map<number, readonly Dim[]>();
function shareDims<T extends Dim[]>(dims: T): T {
    // length, then each value in base 256: distinct keys for lists of up to 5 values below 256.
    let key = dims.length;
    if (key > 5) return dims;
    for (const d of dims) {
        const v = d.value;
        if (v === undefined || v < 0 || v >= 256 || !Number.isInteger(v)) return dims;
        key = key * 256 + v;
    }
    let shared = sharedDimLists.get(key);
    if (!shared) sharedDimLists.set(key, shared = Object.freeze(dims.slice()));
    return shared as T;
}

/** INT or (a, b) → [a, b], each ≥ min. */
function pairArg(r: Resolved, name: string, min: number, fallback?: readonly [Dim, Dim]): [Dim, Dim] | undefined {
    const v = given(r, name);
    if (!v) return fallback ? shareDims<[Dim, Dim]>([fallback[0], fallback[1]]) : undefined;
    let pair: [Dim, Dim] | undefined;
    if (v.kind === 'dim') pair = [v.dim, v.dim];
    else if (v.kind === 'tuple' && v.elements.length === 2 && v.elements.every(e => e.kind === 'dim')) {
        pair = [(v.elements[0] as { dim: Dim }).dim, (v.elements[1] as { dim: Dim }).dim];
    }
    if (!pair) return wrongKind(r, name, v);
    for (const d of pair) {
        if (d.value !== undefined && d.value < min) {
            issue(r, IssueCodes.BadArgument, `${r.op.name}: '${name}' must be ≥ ${min}, found ${d.value}; expected ${formatSignature(r.op)}`, nodeOf(r, name));
            return undefined;
        }
    }
    return shareDims(pair);
}

function requireRank(r: Resolved, name: string, t: TensorValue, ok: (rank: number) => boolean, expected: string): boolean {
    if (ok(t.shape.length)) return true;
    issue(r, IssueCodes.ShapeMismatch, `${r.op.name}: '${name}' must be ${expected}, found ${formatTensor(t)}`, nodeOf(r, name));
    return false;
}

function requireFloat(r: Resolved, name: string, t: TensorValue): boolean {
    if (t.dtype !== 'i32') return true;
    issue(r, IssueCodes.BadArgument, `${r.op.name}: '${name}' must be a floating-point tensor (f32 or f16), found ${formatTensor(t)}`, nodeOf(r, name));
    return false;
}

/** Reports a provable dim mismatch; returns false when the dims are provably different. */
function requireEqual(r: Resolved, a: Dim, b: Dim, message: () => string, node: AstNode): boolean {
    if (a.compare(b) === 'different') {
        issue(r, IssueCodes.ShapeMismatch, message(), node);
        return false;
    }
    return true;
}

function bytesOf(dtype: DType, shape: Shape): Dim {
    return elementCount(shape).scale(dtypeBytes(dtype));
}

/** An op's arithmetic: FLOPs, multiply-adds (0 if none), parameters (default: weight elements). */
interface Arithmetic { flops: Dim; macs?: Dim; params?: Dim }

const noArithmetic = (): Arithmetic => ({ flops: Dim.zero });

/**
 * An op's cost, computed when first read (LazyCost): `arithmetic` is a function, so a model's
 * symbolic analysis multiplies no polynomials for FLOPs nobody reads. Bytes read = inputs +
 * weights (or `extra.bytesRead`), written = output, each plus `extra.intermediates` (what a
 * composite writes and reads back); params = weight elements unless `arithmetic` gives them.
 */
function cost(inputs: TensorValue[], out: { dtype: DType; shape: Shape }, weights: WeightInfo[], arithmetic: () => Arithmetic,
    extra?: CostExtra): Cost {
    return new OpCost(inputs, out, weights, arithmetic, extra);
}

/** What a composite's cost adds (see cost()). */
interface CostExtra { bytesRead?: () => Dim; intermediates?: () => Dim }

/** A cost computed when first read (a subclass says how), then kept. */
abstract class DeferredCost implements Cost {
    private value: Cost | undefined;
    protected abstract compute(): Cost;
    private get cost(): Cost {
        return (this.value ??= this.compute());
    }
    get flops(): Dim { return this.cost.flops; }
    get macs(): Dim { return this.cost.macs; }
    get bytesRead(): Dim { return this.cost.bytesRead; }
    get bytesWritten(): Dim { return this.cost.bytesWritten; }
    get params(): Dim { return this.cost.params; }
}

/**
 * An op's cost (cost()), computed when first read from the fields it keeps until then (no closure
 * per op: a model's symbolic analysis never reads most of them).
 */
class OpCost extends DeferredCost {
    constructor(
        private inputs: TensorValue[] | undefined,
        private out: { dtype: DType; shape: Shape } | undefined,
        private weights: WeightInfo[] | undefined,
        private arithmetic: (() => Arithmetic) | undefined,
        private extra: CostExtra | undefined,
    ) {
        super();
    }
    protected compute(): Cost {
        let bytesRead = Dim.zero;
        for (const t of this.inputs!) bytesRead = bytesRead.add(bytesOf(t.dtype, t.shape));
        let weightElements = Dim.zero;
        for (const w of this.weights!) {
            bytesRead = bytesRead.add(bytesOf(w.dtype, w.shape));
            weightElements = weightElements.add(elementCount(w.shape));
        }
        const extra = this.extra;
        if (extra?.bytesRead) bytesRead = extra.bytesRead();
        let bytesWritten = bytesOf(this.out!.dtype, this.out!.shape);
        if (extra?.intermediates) {
            const bytes = extra.intermediates();
            bytesRead = bytesRead.add(bytes);
            bytesWritten = bytesWritten.add(bytes);
        }
        const { flops, macs, params } = this.arithmetic!();
        // What it was computed from is dropped: it holds the rule's context (arguments, shapes).
        this.inputs = this.out = this.weights = this.arithmetic = this.extra = undefined;
        return { flops, macs: macs ?? Dim.zero, bytesRead, bytesWritten, params: params ?? weightElements };
    }
}

/**
 * A cost computed when first read by a function. Validation reads the costs of concrete instances
 * only (lowering, memory checks); a model's own symbolic analysis needs its costs only for a hover,
 * so the polynomial arithmetic is not done for every model of the workspace.
 */
export class LazyCost extends DeferredCost {
    // Dropped once computed: it holds the caller's context.
    private fn: (() => Cost) | undefined;
    constructor(compute: () => Cost) {
        super();
        this.fn = compute;
    }
    protected compute(): Cost {
        const value = this.fn!();
        this.fn = undefined;
        return value;
    }
}

/** Output size of a window op: floor((size + pads − d·(k−1) − 1) / s) + 1. */
function windowSize(size: Dim, k: Dim, s: Dim, padBefore: Dim, padAfter: Dim, d: Dim = Dim.one): Dim {
    const span = size.add(padBefore).add(padAfter).sub(d.mul(k.sub(1))).sub(1);
    const sv = s.value;
    if (sv !== undefined) return span.floorDiv(sv).add(1);
    return Dim.symbol(`⌊(${span.toString()})/(${s.toString()})⌋`).add(1);
}

/** Resolves padding to [top, left, bottom, right]; "same" gives ceil(size / stride) outputs. */
function paddingArg(r: Resolved, size: [Dim, Dim], kernel: [Dim, Dim], stride: [Dim, Dim], dilation: [Dim, Dim]): Dim[] | undefined {
    const v = given(r, 'padding');
    if (v?.kind === 'string') {
        if (v.value !== 'same') {
            issue(r, IssueCodes.BadArgument, `${r.op.name}: 'padding' must be an integer, a pair or "same", found "${v.value}"`, nodeOf(r, 'padding'));
            return undefined;
        }
        const before: Dim[] = [];
        const after: Dim[] = [];
        for (let i = 0; i < 2; i++) {
            const [n, k, s, d] = [size[i].value, kernel[i].value, stride[i].value, dilation[i].value];
            if (n === undefined || k === undefined || s === undefined || d === undefined) {
                // Symbolic: the total padding is d·(k−1) when the stride is 1, otherwise unknown.
                if (s === 1 && k !== undefined && d !== undefined) {
                    const total = d * (k - 1);
                    before.push(Dim.of(Math.floor(total / 2)));
                    after.push(Dim.of(total - Math.floor(total / 2)));
                } else {
                    before.push(Dim.symbol(`pad_same(${size[i]})`));
                    after.push(Dim.symbol(`pad_same_end(${size[i]})`));
                }
                continue;
            }
            const out = Math.ceil(n / s);
            const total = Math.max((out - 1) * s + d * (k - 1) + 1 - n, 0);
            before.push(Dim.of(Math.floor(total / 2)));
            after.push(Dim.of(total - Math.floor(total / 2)));
        }
        return shareDims([before[0], before[1], after[0], after[1]]);
    }
    const pair = pairArg(r, 'padding', 0, [Dim.zero, Dim.zero]);
    return pair ? shareDims([pair[0], pair[1], pair[0], pair[1]]) : undefined;
}

/** Shared by conv2d, depthwise_conv2d and the pools: spatial output and resolved window attrs. */
function window(r: Resolved, x: TensorValue, opts: { defaultStride?: [Dim, Dim]; dilation?: boolean }):
    { ho: Dim; wo: Dim; kernel: [Dim, Dim]; stride: [Dim, Dim]; padding: Dim[]; dilation: [Dim, Dim] } | undefined {
    const kernel = pairArg(r, 'kernel', 1);
    if (!kernel) return undefined;
    const stride = pairArg(r, 'stride', 1, opts.defaultStride ?? [Dim.one, Dim.one]);
    const dilation = opts.dilation ? pairArg(r, 'dilation', 1, [Dim.one, Dim.one]) : [Dim.one, Dim.one] as [Dim, Dim];
    if (!stride || !dilation) return undefined;
    const padding = paddingArg(r, [x.shape[2], x.shape[3]], kernel, stride, dilation);
    if (!padding) return undefined;
    const ho = windowSize(x.shape[2], kernel[0], stride[0], padding[0], padding[2], dilation[0]);
    const wo = windowSize(x.shape[3], kernel[1], stride[1], padding[1], padding[3], dilation[1]);
    for (const d of [ho, wo]) {
        if (d.value !== undefined && d.value < 1) {
            issue(r, IssueCodes.ShapeMismatch, `${r.op.name}: output would be ${ho}×${wo} for input ${formatTensor(x)} with kernel ${kernel.join('×')}, stride ${stride.join('×')}, padding ${padding.join(', ')}; the input is too small`, nodeOf(r, 'x'));
            return undefined;
        }
    }
    return { ho, wo, kernel, stride, padding, dilation };
}

/** NumPy broadcasting with symbolic dims; undefined after reporting a provable mismatch. */
function broadcast(r: Resolved, a: TensorValue, b: TensorValue): Shape | undefined {
    const rank = Math.max(a.shape.length, b.shape.length);
    const out: Dim[] = [];
    for (let i = 0; i < rank; i++) {
        const x = a.shape[a.shape.length - rank + i] ?? Dim.one;
        const y = b.shape[b.shape.length - rank + i] ?? Dim.one;
        if (x.value === 1) out.push(y);
        else if (y.value === 1) out.push(x);
        else if (x.compare(y) === 'different') {
            issue(r, IssueCodes.ShapeMismatch, `${r.op.name}: shapes do not broadcast: a ${formatTensor(a)}, b ${formatTensor(b)} (axis ${i}: ${x} vs ${y})`, nodeOf(r, 'b'));
            return undefined;
        } else out.push(x);
    }
    return out;
}

function sameDtype(r: Resolved, name: string, a: TensorValue, b: TensorValue): boolean {
    if (a.dtype === b.dtype) return true;
    issue(r, IssueCodes.ShapeMismatch, `${r.op.name}: dtypes differ: ${formatTensor(a)} and ${formatTensor(b)}`, nodeOf(r, name));
    return false;
}

type Rule = (r: Resolved) => OperatorResult | undefined;

function elementwise(flopsPerElement: number): Rule {
    return r => {
        const x = tensorArg(r, 'x');
        if (!x || !requireFloat(r, 'x', x)) return undefined;
        return { dtype: x.dtype, shape: x.shape, attrs: {}, weights: [], inputs: [x], cost: cost([x], x, [], () => ({ flops: elementCount(x.shape).scale(flopsPerElement) })) };
    };
}

function binary(r: Resolved): OperatorResult | undefined {
    const a = tensorArg(r, 'a');
    const b = tensorArg(r, 'b');
    if (!a || !b || !sameDtype(r, 'b', a, b)) return undefined;
    const shape = broadcast(r, a, b);
    if (!shape) return undefined;
    const out = { dtype: a.dtype, shape };
    return { ...out, attrs: {}, weights: [], inputs: [a, b], cost: cost([a, b], out, [], () => ({ flops: elementCount(shape) })) };
}

function pool(r: Resolved): OperatorResult | undefined {
    const x = tensorArg(r, 'x');
    if (!x || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n === 4, '[n, c, h, w]')) return undefined;
    const kernel = pairArg(r, 'kernel', 1);
    if (!kernel) return undefined;
    const w = window(r, x, { defaultStride: kernel });
    if (!w) return undefined;
    // A window that lies wholly in the padding has nothing to pool (the runtime's kernel refuses it, as PyTorch does).
    const tooMuch = (pad: Dim, k: Dim) => pad.value !== undefined && k.value !== undefined && pad.value >= k.value;
    const [top, left, bottom, right] = w.padding;
    if (tooMuch(top, w.kernel[0]) || tooMuch(bottom, w.kernel[0]) || tooMuch(left, w.kernel[1]) || tooMuch(right, w.kernel[1])) {
        issue(r, IssueCodes.BadArgument, `${r.op.name}: padding ${w.padding.join(', ')} must be smaller than the kernel ${w.kernel.join('×')} on each side (else a window can lie wholly in the padding)`, nodeOf(r, 'padding'));
        return undefined;
    }
    const shape = [x.shape[0], x.shape[1], w.ho, w.wo];
    const out = { dtype: x.dtype, shape };
    const arithmetic = () => ({ flops: elementCount(shape).mul(w.kernel[0]).mul(w.kernel[1]) });
    return { ...out, attrs: { kernel: w.kernel, stride: w.stride, padding: w.padding }, weights: [], inputs: [x], cost: cost([x], out, [], arithmetic) };
}

function tupleDims(v: Value | undefined): (Dim | number)[] | undefined {
    if (!v) return undefined;
    const elements = v.kind === 'tuple' ? v.elements : [v];
    const out: (Dim | number)[] = [];
    for (const e of elements) {
        if (e.kind === 'dim') out.push(e.dim);
        else if (e.kind === 'number' && Number.isInteger(e.value)) out.push(e.value);
        else return undefined;
    }
    return out;
}

const rules: Record<IrOpKind, Rule> = {
    dense(r) {
        const x = tensorArg(r, 'x');
        const units = intArg(r, 'units');
        const bias = boolArg(r, 'bias', true);
        if (!x || !units || bias === undefined || !requireFloat(r, 'x', x)) return undefined;
        if (!requireRank(r, 'x', x, n => n >= 1, '[..., k] (rank ≥ 1)')) return undefined;
        const k = x.shape[x.shape.length - 1];
        const shape = [...x.shape.slice(0, -1), units];
        const weight: WeightInfo = { name: 'weight', shape: [k, units], dtype: x.dtype };
        const weights: WeightInfo[] = bias ? [weight, { name: 'bias', shape: [units], dtype: x.dtype }] : [weight];
        const arithmetic = () => {
            const rows = elementCount(x.shape.slice(0, -1));
            const macs = rows.mul(k).mul(units);
            return { flops: bias ? macs.scale(2).add(rows.mul(units)) : macs.scale(2), macs };
        };
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: { units, bias }, weights, inputs: [x], cost: cost([x], out, weights, arithmetic) };
    },
    matmul(r) {
        const a = tensorArg(r, 'a');
        const b = tensorArg(r, 'b');
        if (!a || !b || !requireFloat(r, 'a', a) || !requireFloat(r, 'b', b) || !sameDtype(r, 'b', a, b)) return undefined;
        if (!requireRank(r, 'a', a, n => n >= 2, '[..., m, k] (rank ≥ 2)') || !requireRank(r, 'b', b, n => n >= 2, '[..., k, n] (rank ≥ 2)')) return undefined;
        const [m, k] = a.shape.slice(-2);
        const [k2, n] = b.shape.slice(-2);
        if (!requireEqual(r, k, k2, () => `matmul: inner dims differ: a ${formatTensor(a)} has k = ${k}, b ${formatTensor(b)} has k = ${k2}`, nodeOf(r, 'b'))) return undefined;
        const lead = broadcast(r, { ...a, shape: a.shape.slice(0, -2) }, { ...b, shape: b.shape.slice(0, -2) });
        if (!lead) return undefined;
        const shape = [...lead, m, n];
        const out = { dtype: a.dtype, shape };
        const arithmetic = () => {
            const macs = elementCount(shape).mul(k);
            return { flops: macs.scale(2), macs };
        };
        return { ...out, attrs: {}, weights: [], inputs: [a, b], cost: cost([a, b], out, [], arithmetic) };
    },
    conv2d(r) {
        const x = tensorArg(r, 'x');
        const filters = intArg(r, 'filters');
        const groups = intArg(r, 'groups', 1, 1);
        const bias = boolArg(r, 'bias', true);
        if (!x || !filters || !groups || bias === undefined || !requireFloat(r, 'x', x)) return undefined;
        if (!requireRank(r, 'x', x, n => n === 4, '[n, c, h, w]')) return undefined;
        const c = x.shape[1];
        const cPerGroup = c.divExact(groups);
        if (!cPerGroup || !filters.divExact(groups)) {
            issue(r, IssueCodes.ShapeMismatch, `conv2d: channels ${c} and filters ${filters} must both be divisible by groups ${groups}`, nodeOf(r, given(r, 'groups') !== undefined ? 'groups' : 'x'));
            return undefined;
        }
        const w = window(r, x, { dilation: true });
        if (!w) return undefined;
        const shape = [x.shape[0], filters, w.ho, w.wo];
        const weight: WeightInfo = { name: 'weight', shape: [filters, cPerGroup, w.kernel[0], w.kernel[1]], dtype: x.dtype };
        const weights: WeightInfo[] = bias ? [weight, { name: 'bias', shape: [filters], dtype: x.dtype }] : [weight];
        const arithmetic = () => {
            const outputs = elementCount(shape);
            const macs = outputs.mul(cPerGroup).mul(w.kernel[0]).mul(w.kernel[1]);
            return { flops: bias ? macs.scale(2).add(outputs) : macs.scale(2), macs };
        };
        const out = { dtype: x.dtype, shape };
        return {
            ...out, attrs: { filters, kernel: w.kernel, stride: w.stride, padding: w.padding, dilation: w.dilation, groups, bias },
            weights, inputs: [x], cost: cost([x], out, weights, arithmetic),
        };
    },
    depthwise_conv2d(r) {
        const x = tensorArg(r, 'x');
        const multiplier = intArg(r, 'multiplier', 1, 1);
        if (!x || !multiplier || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n === 4, '[n, c, h, w]')) return undefined;
        const w = window(r, x, {});
        if (!w) return undefined;
        const channels = x.shape[1].mul(multiplier);
        const shape = [x.shape[0], channels, w.ho, w.wo];
        const weights: WeightInfo[] = [{ name: 'weight', shape: [channels, Dim.one, w.kernel[0], w.kernel[1]], dtype: x.dtype }];
        const arithmetic = () => {
            const macs = elementCount(shape).mul(w.kernel[0]).mul(w.kernel[1]);
            return { flops: macs.scale(2), macs };
        };
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: { kernel: w.kernel, stride: w.stride, padding: w.padding, multiplier }, weights, inputs: [x], cost: cost([x], out, weights, arithmetic) };
    },
    max_pool2d: pool,
    avg_pool2d: pool,
    global_avg_pool(r) {
        const x = tensorArg(r, 'x');
        if (!x || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n === 4, '[n, c, h, w]')) return undefined;
        const shape = [x.shape[0], x.shape[1], Dim.one, Dim.one];
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: {}, weights: [], inputs: [x], cost: cost([x], out, [], () => ({ flops: elementCount(x.shape) })) };
    },
    batch_norm(r) {
        const x = tensorArg(r, 'x');
        if (!x || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n >= 2, 'rank ≥ 2 (channel dim 1)')) return undefined;
        const c = x.shape[1];
        const shape = [c]; // one read-only shape for the four vectors
        const weights: WeightInfo[] = ['gamma', 'beta', 'mean', 'var'].map(name => ({ name, shape, dtype: x.dtype }));
        return { dtype: x.dtype, shape: x.shape, attrs: {}, weights, inputs: [x], cost: cost([x], x, weights, () => ({ flops: elementCount(x.shape).scale(2), params: c.scale(2) })) };
    },
    layer_norm(r) {
        const x = tensorArg(r, 'x');
        if (!x || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n >= 1, 'rank ≥ 1')) return undefined;
        const d = x.shape[x.shape.length - 1];
        const shape = [d];
        const weights: WeightInfo[] = ['gamma', 'beta'].map(name => ({ name, shape, dtype: x.dtype }));
        return { dtype: x.dtype, shape: x.shape, attrs: {}, weights, inputs: [x], cost: cost([x], x, weights, () => ({ flops: elementCount(x.shape).scale(5) })) };
    },
    relu: elementwise(1),
    relu6: elementwise(2),
    gelu: elementwise(8),
    sigmoid: elementwise(4),
    tanh: elementwise(4),
    silu: elementwise(5),
    add: binary,
    mul: binary,
    softmax(r) {
        const x = tensorArg(r, 'x');
        const axis = signedIntArg(r, 'axis', -1);
        if (!x || axis === undefined || !requireFloat(r, 'x', x)) return undefined;
        const rank = x.shape.length;
        if (axis < -rank || axis >= rank) {
            issue(r, IssueCodes.BadArgument, `softmax: 'axis' must be in [${-rank}, ${rank - 1}] for ${formatTensor(x)}, found ${axis}`, nodeOf(r, 'axis'));
            return undefined;
        }
        return { dtype: x.dtype, shape: x.shape, attrs: { axis: Dim.of(axis < 0 ? axis + rank : axis) }, weights: [], inputs: [x], cost: cost([x], x, [], () => ({ flops: elementCount(x.shape).scale(5) })) };
    },
    reshape(r) {
        const x = tensorArg(r, 'x');
        const raw = given(r, 'shape');
        if (!x || !raw) return undefined;
        const dims = tupleDims(raw);
        if (!dims) return wrongKind(r, 'shape', raw);
        const wildcard = dims.filter(d => typeof d === 'number' && d === -1).length;
        const bad = dims.find(d => typeof d === 'number' ? d !== -1 && d < 1 : d.value !== undefined && d.value < 1);
        if (wildcard > 1 || bad !== undefined) {
            issue(r, IssueCodes.BadArgument, `reshape: 'shape' must hold positive dims and at most one -1, found (${dims.join(', ')})`, nodeOf(r, 'shape'));
            return undefined;
        }
        const total = elementCount(x.shape);
        let known = Dim.one;
        for (const d of dims) if (typeof d !== 'number' || d !== -1) known = known.mul(d);
        let shape: Dim[];
        if (wildcard === 1) {
            const inferred = total.divExact(known);
            if (!inferred) {
                issue(r, IssueCodes.ShapeMismatch, `reshape: cannot infer -1: ${formatTensor(x)} has ${total} elements, not divisible by ${known}`, nodeOf(r, 'shape'));
                return undefined;
            }
            shape = dims.map(d => (typeof d === 'number' ? (d === -1 ? inferred : Dim.of(d)) : d));
        } else {
            shape = dims.map(d => (typeof d === 'number' ? Dim.of(d) : d));
            if (!requireEqual(r, total, known, () => `reshape: element counts differ: ${formatTensor(x)} has ${total}, shape (${dims.join(', ')}) has ${known}`, nodeOf(r, 'shape'))) return undefined;
        }
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: { shape }, weights: [], inputs: [x], cost: cost([x], out, [], noArithmetic) };
    },
    transpose(r) {
        const x = tensorArg(r, 'x');
        const raw = given(r, 'perm');
        if (!x || !raw) return undefined;
        const dims = tupleDims(raw);
        if (!dims) return wrongKind(r, 'perm', raw);
        const perm = dims.map(d => (typeof d === 'number' ? d : d.value));
        const rank = x.shape.length;
        const sorted = [...perm].sort((a, b) => (a ?? -1) - (b ?? -1));
        if (perm.length !== rank || sorted.some((p, i) => p !== i)) {
            issue(r, IssueCodes.BadArgument, `transpose: 'perm' must be a permutation of 0..${rank - 1} for ${formatTensor(x)}, found (${dims.join(', ')})`, nodeOf(r, 'perm'));
            return undefined;
        }
        const shape = perm.map(p => x.shape[p!]);
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: { perm: perm.map(p => Dim.of(p!)) }, weights: [], inputs: [x], cost: cost([x], out, [], noArithmetic) };
    },
    flatten(r) {
        const x = tensorArg(r, 'x');
        if (!x || !requireRank(r, 'x', x, n => n >= 2, 'rank ≥ 2')) return undefined;
        const shape = [x.shape[0], elementCount(x.shape.slice(1))];
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: {}, weights: [], inputs: [x], cost: cost([x], out, [], noArithmetic) };
    },
    concat(r) {
        const axisArg = signedIntArg(r, 'axis', 1);
        if (r.variadic.length < 2) {
            issue(r, IssueCodes.BadArgument, `concat takes two or more tensors, found ${r.variadic.length}; expected ${formatSignature(r.op)}`, r.call, 'callee');
            return undefined;
        }
        const tensors: TensorValue[] = [];
        for (const { value, node } of r.variadic) {
            if (value.kind !== 'tensor') {
                issue(r, IssueCodes.BadArgument, `concat: arguments before 'axis' must be tensors, found ${describeValue(value)}`, node);
                return undefined;
            }
            tensors.push(value.tensor);
        }
        if (axisArg === undefined) return undefined;
        const first = tensors[0];
        const rank = first.shape.length;
        if (axisArg < -rank || axisArg >= rank) {
            issue(r, IssueCodes.BadArgument, `concat: 'axis' must be in [${-rank}, ${rank - 1}] for ${formatTensor(first)}, found ${axisArg}`, nodeOf(r, 'axis'));
            return undefined;
        }
        const axis = axisArg < 0 ? axisArg + rank : axisArg;
        let sum = Dim.zero;
        for (let i = 0; i < tensors.length; i++) {
            const t = tensors[i];
            const node = r.variadic[i].node;
            if (t.dtype !== first.dtype || t.shape.length !== rank || t.shape.some((d, j) => j !== axis && d.compare(first.shape[j]) === 'different')) {
                issue(r, IssueCodes.ShapeMismatch, `concat: tensors must agree except on axis ${axis}: ${formatTensor(first)} vs ${formatTensor(t)}`, node);
                return undefined;
            }
            sum = sum.add(t.shape[axis]);
        }
        const shape = first.shape.map((d, j) => (j === axis ? sum : d));
        const out = { dtype: first.dtype, shape };
        return { ...out, attrs: { axis: Dim.of(axis) }, weights: [], inputs: tensors, cost: cost(tensors, out, [], noArithmetic) };
    },
    embedding(r) {
        const ids = tensorArg(r, 'ids');
        const vocab = intArg(r, 'vocab');
        const dim = intArg(r, 'dim');
        if (!ids || !vocab || !dim) return undefined;
        if (ids.dtype !== 'i32') {
            issue(r, IssueCodes.BadArgument, `embedding: 'ids' must be an i32 tensor, found ${formatTensor(ids)}`, nodeOf(r, 'ids'));
            return undefined;
        }
        const shape = [...ids.shape, dim];
        const weights: WeightInfo[] = [{ name: 'weight', shape: [vocab, dim], dtype: 'f32' }];
        const out = { dtype: 'f32' as const, shape };
        // A lookup reads the gathered rows, not the whole table.
        const c = cost([ids], out, weights, noArithmetic, { bytesRead: () => bytesOf(ids.dtype, ids.shape).add(bytesOf('f32', shape)) });
        return { ...out, attrs: { vocab, dim }, weights, inputs: [ids], cost: c };
    },
    attention(r) {
        const x = tensorArg(r, 'x');
        const heads = intArg(r, 'heads');
        const causal = boolArg(r, 'causal', false);
        if (!x || !heads || causal === undefined || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n === 3, '[b, s, d]')) return undefined;
        const [b, s, d] = x.shape;
        if (!d.divExact(heads) || (d.value !== undefined && heads.value !== undefined && d.value % heads.value !== 0)) {
            issue(r, IssueCodes.ShapeMismatch, `attention: model dim ${d} of ${formatTensor(x)} must be divisible by heads ${heads}`, nodeOf(r, 'heads'));
            return undefined;
        }
        const weights: WeightInfo[] = [
            { name: 'w_qkv', shape: [d, d.scale(3)], dtype: x.dtype }, { name: 'b_qkv', shape: [d.scale(3)], dtype: x.dtype },
            { name: 'w_out', shape: [d, d], dtype: x.dtype }, { name: 'b_out', shape: [d], dtype: x.dtype },
        ];
        const bs = () => b.mul(s);
        const scores = () => b.mul(heads).mul(s).mul(s);
        const arithmetic = () => {
            // Multiply-adds: QKV (3·d²) and output (d²) projections per token, QKᵀ and attention·V (2·s·d).
            const macs = bs().mul(d).mul(d).scale(4).add(bs().mul(s).mul(d).scale(2));
            const flops = macs.scale(2)
                .add(bs().mul(d).scale(4))              // projection biases
                .add(scores().scale(5));                // scale + softmax
            return { flops, macs };
        };
        // The composite materialises QKV and the score matrix: count them written and read once.
        const c = cost([x], x, weights, arithmetic, { intermediates: () => bs().mul(d).scale(3).add(scores()).scale(2 * dtypeBytes(x.dtype)) });
        return { dtype: x.dtype, shape: x.shape, attrs: { heads, causal }, weights, inputs: [x], cost: c };
    },
    lstm(r) {
        const x = tensorArg(r, 'x');
        const hidden = intArg(r, 'hidden');
        const layers = intArg(r, 'layers', 1, 1);
        if (!x || !hidden || !layers || !requireFloat(r, 'x', x) || !requireRank(r, 'x', x, n => n === 3, '[b, s, i]')) return undefined;
        const [b, s, i] = x.shape;
        const gates = hidden.scale(4);
        const weights: WeightInfo[] = [];
        const layerWeights = (l: number | string, input: Dim) => weights.push(
            { name: `w_ih.${l}`, shape: [gates, input], dtype: x.dtype }, { name: `w_hh.${l}`, shape: [gates, hidden], dtype: x.dtype },
            { name: `b_ih.${l}`, shape: [gates], dtype: x.dtype }, { name: `b_hh.${l}`, shape: [gates], dtype: x.dtype });
        // Per layer: gates = x·W_ih + h·W_hh (+ biases), then ~10 elementwise ops per hidden unit.
        const layerMacs = (input: Dim) => b.mul(s).mul(gates).mul(input.add(hidden));
        const layerFlops = (input: Dim) => layerMacs(input).scale(2).add(b.mul(s).mul(hidden).scale(10));
        layerWeights(0, i);
        const n = layers.value;
        // Layers after the first have one shape. Listed one by one as the IR needs them, unless there are more than
        // lowering takes (an instance with them is not lowered: limits.ts): then one stands for the rest, whose bytes
        // are counted by formula.
        const listed = n === undefined ? 1 : n <= maxUnrolledSteps ? n : 2;
        for (let l = 1; l < listed; l++) layerWeights(l, hidden);
        const unlisted = n === undefined ? 0 : n - listed;
        const layerBytes = () => bytesOf(x.dtype, [gates, hidden]).scale(2).add(bytesOf(x.dtype, [gates]).scale(2));
        const extra = unlisted > 0 ? {
            bytesRead: () => weights.reduce((sum, w) => sum.add(bytesOf(w.dtype, w.shape)), bytesOf(x.dtype, x.shape)).add(layerBytes().scale(unlisted)),
        } : undefined;
        const arithmetic = () => {
            // Layers after the first (a symbolic count in a standalone analysis scales the cost).
            const rest = layers.sub(1);
            return {
                macs: layerMacs(i).add(layerMacs(hidden).mul(rest)),
                flops: layerFlops(i).add(layerFlops(hidden).mul(rest)),
                params: gates.mul(i.add(hidden)).add(gates.scale(2)).add(gates.mul(hidden.scale(2)).add(gates.scale(2)).mul(rest)),
            };
        };
        const shape = [b, s, hidden];
        const out = { dtype: x.dtype, shape };
        return { ...out, attrs: { hidden, layers }, weights, inputs: [x], cost: cost([x], out, weights, arithmetic, extra) };
    },
};
