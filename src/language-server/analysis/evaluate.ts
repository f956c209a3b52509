/**
 * The evaluator behind every analysis: walks a model's statements in order, evaluates each
 * expression to a value (tensor type, dim, literal), applies operators (./operator-rules.ts),
 * inlines model calls (binding input dims by unification), unrolls `repeat`, and collects every
 * op with its path, attributes, weights and cost. Pure: depends only on the AST and linking.
 */
import type { AstNode } from 'langium';
import { dtypeBytes, type IrOpKind } from '../../runtime/ir/types.js';
import {
    isBinaryExpr, isDimVar, isInput, isLet, isModel, isNegation, isOutput,
    type Binding, type Call, type Expression, type Input, type Model, type Repeat,
} from '../generated/ast.js';
import { resolveDimVar } from '../references/bindings.js';
import { IssueCodes } from '../validation/issue-codes.js';
import { Dim, elementCount, formatShape } from './dims.js';
import { LazyCost, applyOperator, describeValue, formatTensor } from './operator-rules.js';
import { findOperator } from './operators.js';
import type { AnalysisIssue, Cost, ExpressionInfo, ModelAnalysis, ModelMemory, ModelTotals, OpRecord, TensorValue, Value } from './types.js';

/** Options of {@link analyseModel}. */
export interface AnalyseOptions {
    /** Constant parameter values (a tenant's arguments after defaults); other params stay symbolic. */
    args?: ReadonlyMap<string, number>;
    /**
     * The standalone analysis of another model, used to tell a callee's own errors (reported in
     * the callee) from errors that only this instantiation causes (reported at the call).
     */
    standalone?: (model: Model) => ModelAnalysis | undefined;
    /**
     * Record per-expression info of the model's own body (`expressions`; default true). Off for
     * instances: hover and the validator read expressions of standalone analyses only.
     */
    expressions?: boolean;
}

interface Frame {
    model: Model;
    env: Map<Binding, Value>;
    prefix: string[];
    /** `prefix` joined by '/', ending in '/' unless empty: tensor ids are this plus a name. */
    idPrefix: string;
    names: Set<string>;
    counters: Map<string, number>;
    /** Whether this frame records per-expression info (only the analysed model's own body). */
    record: boolean;
    expressions: Map<AstNode, ExpressionInfo>;
    issues: AnalysisIssue[];
    /** How many times ops of this frame run (a symbolic `repeat` count). */
    count: Dim;
    outputs: TensorValue[];
}

const ERROR: Value = { kind: 'error' };

/** Analyses a model: symbolic in the parameters not given in `options.args`. */
export function analyseModel(model: Model, options: AnalyseOptions = {}): ModelAnalysis {
    return new Evaluator(options.standalone ?? (() => undefined)).run(model, options.args ?? new Map(), options.expressions ?? true);
}

class Evaluator {
    private readonly ops: OpRecord[] = [];
    private readonly stack: Model[] = [];
    /** The ExpressionInfo of the call evaluated last in a recording frame (evalCall). */
    private callInfo: ExpressionInfo | undefined;

    constructor(private readonly standalone: (model: Model) => ModelAnalysis | undefined) {}

    run(model: Model, args: ReadonlyMap<string, number>, record: boolean): ModelAnalysis {
        const frame = newFrame(model, [], record, Dim.one);
        const params = new Map<string, Dim>();
        for (const p of model.params) {
            const given = args.get(p.name);
            const dim = given !== undefined ? Dim.of(given) : Dim.symbol(p.name);
            params.set(p.name, dim);
            frame.env.set(p, { kind: 'dim', dim });
        }
        const unboundDims: string[] = [];
        const inputs: TensorValue[] = [];
        this.stack.push(model);
        this.evalBody(frame, undefined, dimVar => unboundDims.push(dimVar), inputs);
        this.stack.pop();
        const ops = this.ops;
        // The getters below keep what they read alive with the analysis: the outputs, not the whole frame.
        const outputs = frame.outputs;
        let computed: ModelTotals | undefined;
        let memory: ModelMemory | undefined;
        const memoryOf = () => (memory ??= peakMemory(ops, inputs, outputs, model));
        return {
            model, params, expressions: frame.expressions, bindings: frame.env, inputs, outputs,
            ops, unboundDims, issues: frame.issues,
            // Summed on first use: a standalone analysis for validation never needs them.
            get totals() { return (computed ??= totals(ops, memoryOf())); },
            // Validation reads these alone (out-of-memory, buffer-too-large): no cost sums.
            get memory() { return memoryOf(); },
        };
    }

    /**
     * Evaluates a model body. `actual` binds inputs at a block call (unifying dims); without it
     * the model is the root and its dim variables become symbols (`onDimVar` is told of each).
     */
    private evalBody(frame: Frame, actual: { tensors: TensorValue[]; report: (index: number, message: string) => void } | undefined,
        onDimVar: (name: string) => void, rootInputs?: TensorValue[]): void {
        let inputIndex = 0;
        for (const statement of frame.model.statements) {
            if (isInput(statement)) {
                const index = inputIndex++;
                // An input's name is its tensor's id: a let that rebinds the name makes a new tensor (`x.1`).
                frame.names.add(statement.name);
                if (actual) {
                    const tensor = actual.tensors[index];
                    if (tensor) this.bindInput(frame, statement, tensor, message => actual.report(index, message));
                    else frame.env.set(statement, ERROR);
                } else {
                    const tensor = this.declareInput(frame, statement, onDimVar);
                    frame.env.set(statement, tensor);
                    if (tensor.kind === 'tensor') rootInputs?.push(tensor.tensor);
                }
            } else if (isLet(statement)) {
                frame.env.set(statement, this.evalExpr(frame, statement.value, statement.name));
            } else if (isOutput(statement)) {
                const value = this.evalExpr(frame, statement.value, statement.name);
                frame.env.set(statement, value);
                if (value.kind === 'tensor') frame.outputs.push(value.tensor);
                else if (value.kind !== 'error') {
                    frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `an output must be a tensor, found ${describeValue(value)}`, node: statement, property: 'value' });
                }
            }
        }
    }

    private declareInput(frame: Frame, input: Input, onDimVar: (name: string) => void): Value {
        const shape: Dim[] = [];
        let ok = input.dtype !== undefined; // a type not typed yet: the syntax error says so
        for (const dim of input.dims) {
            if (isDimVar(dim)) {
                const target = resolveDimVar(dim, frame.model);
                if (target === dim) {
                    const value: Value = { kind: 'dim', dim: Dim.symbol(dim.name) };
                    frame.env.set(dim, value);
                    onDimVar(dim.name);
                    shape.push(value.dim);
                } else {
                    const value = frame.env.get(target);
                    if (value?.kind === 'dim') shape.push(value.dim);
                    else ok = false;
                }
            } else {
                const value = this.evalExpr(frame, dim.value);
                if (value.kind === 'dim') {
                    if (value.dim.value !== undefined && value.dim.value < 1) {
                        frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `a dim must be ≥ 1, found ${value.dim.value}`, node: dim });
                        ok = false;
                    } else shape.push(value.dim);
                } else {
                    if (value.kind !== 'error') frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `a dim must be an integer expression, found ${describeValue(value)}`, node: dim });
                    ok = false;
                }
            }
        }
        if (!ok) return ERROR;
        return { kind: 'tensor', tensor: { id: frame.idPrefix + input.name, dtype: input.dtype, shape } };
    }

    /** Binds a block input to the caller's tensor, unifying each declared dim with the actual one. */
    private bindInput(frame: Frame, input: Input, tensor: TensorValue, report: (message: string) => void): void {
        const declared = `${input.dtype}[${input.dims.map(d => d.$cstNode?.text ?? '?').join(', ')}]`;
        const fail = (detail: string) => report(`${frame.model.name} expects ${input.name}: ${declared}, found ${formatTensor(tensor)}${detail ? ` (${detail})` : ''}`);
        frame.env.set(input, { kind: 'tensor', tensor });
        if (input.dtype === undefined) return; // a type not typed yet: the syntax error in the block says so
        if (tensor.dtype !== input.dtype) return fail('');
        if (tensor.shape.length !== input.dims.length) return fail(`rank ${input.dims.length} vs ${tensor.shape.length}`);
        input.dims.forEach((dim, j) => {
            const actual = tensor.shape[j];
            let expected: Dim | undefined;
            let name = dim.$cstNode?.text ?? '?';
            if (isDimVar(dim)) {
                const target = resolveDimVar(dim, frame.model);
                if (target === dim) {
                    frame.env.set(dim, { kind: 'dim', dim: actual });
                    return;
                }
                const v = frame.env.get(target);
                if (v?.kind === 'dim') expected = v.dim;
                name = dim.name;
            } else {
                const v = this.evalExpr(frame, dim.value);
                if (v.kind === 'dim') expected = v.dim;
            }
            if (expected && expected.compare(actual) === 'different') fail(`dim ${j}: ${name} = ${expected}, found ${actual}`);
        });
    }

    private evalExpr(frame: Frame, expr: Expression | undefined, site?: string): Value {
        if (!expr) return ERROR; // incomplete text: the syntax error says what is missing
        const opsBefore = this.ops.length;
        // Node kinds by $type (none of these has subtypes): cheaper than the reflection behind isCall & co.
        const kind = expr.$type;
        // Instances (and inlined blocks) record nothing per expression: values only, no info objects.
        if (!frame.record) {
            if (kind === 'Call') return this.evalCall(frame, expr, site);
            if (kind === 'Repeat') return this.evalRepeat(frame, expr);
            return this.evalSimple(frame, expr);
        }
        let info: ExpressionInfo;
        if (kind === 'Call') {
            this.evalCall(frame, expr, site);
            info = this.callInfo!;
        } else if (kind === 'Repeat') info = { value: this.evalRepeat(frame, expr) };
        else info = { value: this.evalSimple(frame, expr) };
        if ((kind === 'Call' || kind === 'Repeat') && !info.cost && info.value.kind !== 'error') {
            // A block call or repeat: its ops' cost summed on first use (hover); validation never needs it.
            info = new SummedInfo(info.value, info.callee, this.ops, opsBefore, this.ops.length);
        }
        frame.expressions.set(expr, info);
        return info.value;
    }

    private evalSimple(frame: Frame, expr: Expression): Value {
        switch (expr.$type) {
            case 'NameRef': {
                const target = expr.ref.ref;
                if (!target) return ERROR; // reported by linking
                const key = target.$type === 'DimVar' ? resolveDimVar(target, frame.model) : target;
                return frame.env.get(key) ?? ERROR;
            }
            case 'IntLit': return dimValue(expr.value);
            case 'DecimalLit': return { kind: 'number', value: expr.value };
            case 'StringLit': return { kind: 'string', value: expr.value };
            case 'BoolLit': return { kind: 'bool', value: expr.value };
            case 'QuantityLit': return { kind: 'quantity', text: expr.value };
            case 'Tuple': return { kind: 'tuple', elements: expr.elements.map(e => this.evalExpr(frame, e)) };
        }
        if (isNegation(expr)) {
            const v = this.evalExpr(frame, expr.operand);
            if (v.kind === 'dim' && v.dim.value !== undefined) return { kind: 'number', value: -v.dim.value };
            if (v.kind === 'number') return { kind: 'number', value: -v.value };
            if (v.kind !== 'error') frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `a leading '-' applies to numbers only, found ${describeValue(v)}`, node: expr });
            return ERROR;
        }
        if (isBinaryExpr(expr)) {
            const left = this.evalExpr(frame, expr.left);
            const right = this.evalExpr(frame, expr.right);
            if (left.kind === 'error' || right.kind === 'error') return ERROR;
            if (left.kind !== 'dim' || right.kind !== 'dim') {
                const bad = left.kind !== 'dim' ? expr.left : expr.right;
                frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `'${expr.operator}' needs integer dims on both sides, found ${describeValue(left.kind !== 'dim' ? left : right)}`, node: bad });
                return ERROR;
            }
            const [a, b] = [left.dim, right.dim];
            switch (expr.operator) {
                case '+': return { kind: 'dim', dim: a.add(b) };
                case '-': return { kind: 'dim', dim: a.sub(b) };
                case '*': return { kind: 'dim', dim: a.mul(b) };
                case '/': {
                    const q = a.divExact(b);
                    if (!q) {
                        frame.issues.push({ code: IssueCodes.ShapeMismatch, severity: 'error', message: `${a} / ${b} does not divide exactly${b.value === 0 ? ' (division by zero)' : ''}`, node: expr });
                        return ERROR;
                    }
                    return { kind: 'dim', dim: q };
                }
            }
        }
        return ERROR;
    }

    /**
     * The value of a call. In a recording frame the call's ExpressionInfo (value, cost, callee) is
     * left in `callInfo` for the caller to record; other frames build none.
     */
    private evalCall(frame: Frame, call: Call, site?: string, chained?: Value): Value {
        const name = call.callee.$refText;
        const args = call.args;
        const argValues: Value[] = new Array(args.length);
        for (let i = 0; i < args.length; i++) {
            const arg = args[i];
            argValues[i] = i === 0 && chained && arg.name === undefined ? chained : this.evalExpr(frame, arg.value);
        }
        const operator = findOperator(name);
        if (operator) {
            const { result, issues } = applyOperator(operator, call, argValues);
            for (const issue of issues) frame.issues.push(issue);
            if (!result) {
                if (frame.record) this.callInfo = { value: ERROR, callee: operatorCallee(operator.name as IrOpKind) };
                return ERROR;
            }
            const opName = uniqueName(frame, site, name);
            const output: TensorValue = { id: frame.idPrefix + opName, dtype: result.dtype, shape: result.shape };
            this.ops.push({
                path: frame.prefix.concat(opName), kind: name as IrOpKind, node: call, inputs: result.inputs,
                output, attrs: result.attrs, weights: result.weights, cost: result.cost, count: frame.count,
            });
            const value: Value = { kind: 'tensor', tensor: output };
            if (frame.record) this.callInfo = { value, cost: scaleCost(result.cost, frame.count), callee: operatorCallee(operator.name as IrOpKind) };
            return value;
        }
        const model = call.callee.ref;
        if (!model || !isModel(model)) {
            if (frame.record) this.callInfo = { value: ERROR };
            return ERROR; // unknown-op / unresolved: reported by the validator
        }
        const value = this.evalModelCall(frame, call, model, argValues);
        if (frame.record) this.callInfo = { value, callee: { kind: 'model', model } };
        return value;
    }

    private evalModelCall(frame: Frame, call: Call, model: Model, argValues: Value[]): Value {
        const issue = (message: string, node: AstNode, code: AnalysisIssue['code'] = IssueCodes.BadArgument, property?: string) => {
            frame.issues.push({ code, severity: 'error', message, node, property });
            return ERROR;
        };
        if (this.stack.includes(model)) {
            const cycle = [...this.stack.slice(this.stack.indexOf(model)), model].map(m => m.name).join(' → ');
            return issue(`recursion: ${cycle}; a model cannot call itself, directly or through other models`, call, IssueCodes.Recursion, 'callee');
        }
        const inputs = model.statements.filter(isInput);
        // Message text only: formatted on the first issue, not on every block call analysed.
        let signatureText: string | undefined;
        const signature = () => (signatureText ??= `${model.name}(${[...inputs.map(i => i.name), ...model.params.map(p => (p.default === undefined ? `${p.name}: INT` : `${p.name}: ${p.default}`))].join(', ')})`);
        const tensors: TensorValue[] = [];
        const tensorArgs: AstNode[] = [];
        const given = new Map<string, Dim>();
        let failed = false;
        call.args.forEach((arg, i) => {
            const value = argValues[i];
            if (value.kind === 'error') { failed = true; return; }
            if (arg.name === undefined) {
                if (value.kind !== 'tensor') { failed = true; issue(`${model.name} takes its inputs as positional tensors, found ${describeValue(value)}; parameters are passed by name: ${signature()}`, arg); return; }
                tensors.push(value.tensor);
                tensorArgs.push(arg.value);
                return;
            }
            const param = model.params.find(p => p.name === arg.name);
            if (!param) { failed = true; issue(`${model.name} has no parameter '${arg.name}'${inputs.some(x => x.name === arg.name) ? ' (inputs are passed positionally)' : ''}; expected ${signature()}`, arg, IssueCodes.BadArgument, 'name'); return; }
            if (given.has(param.name)) { failed = true; issue(`parameter '${arg.name}' is given twice`, arg, IssueCodes.BadArgument, 'name'); return; }
            if (value.kind !== 'dim') { failed = true; issue(`parameter '${arg.name}' of ${model.name} must be an integer, found ${describeValue(value)}`, arg.value); return; }
            if (value.dim.value !== undefined && value.dim.value < 1) { failed = true; issue(`parameter '${arg.name}' of ${model.name} must be ≥ 1, found ${value.dim.value}`, arg.value); return; }
            given.set(param.name, value.dim);
        });
        if (failed) return ERROR;
        if (tensors.length !== inputs.length) {
            return issue(`${model.name} takes ${inputs.length} input tensor${inputs.length === 1 ? '' : 's'} (${inputs.map(x => x.name).join(', ')}), found ${tensors.length}; expected ${signature()}`, call, IssueCodes.BadArgument, 'callee');
        }
        // Block call sites are named by the model (`resnet_bottleneck.2`), not the let: lets rebind often.
        const child = newFrame(model, frame.prefix.concat(uniqueName(frame, undefined, model.name)), false, frame.count);
        for (const p of model.params) {
            const dim = given.get(p.name) ?? (p.default !== undefined ? Dim.of(p.default) : undefined);
            if (!dim) return issue(`${model.name} is missing parameter '${p.name}'; expected ${signature()}`, call, IssueCodes.BadArgument, 'callee');
            child.env.set(p, { kind: 'dim', dim });
        }
        let bindFailed = false;
        this.stack.push(model);
        this.evalBody(child, {
            tensors,
            report: (index, message) => { bindFailed = true; issue(message, tensorArgs[index], IssueCodes.ShapeMismatch); },
        }, () => undefined);
        this.stack.pop();
        if (bindFailed) return ERROR;
        const own = this.standalone(model)?.issues ?? [];
        const fresh = child.issues.filter(i => !own.some(o => o.node === i.node && o.code === i.code));
        if (fresh.length > 0) {
            const first = fresh[0];
            const where = first.node.$cstNode ? ` (line ${first.node.$cstNode.range.start.line + 1} of ${model.name})` : '';
            return issue(`in ${model.name}: ${first.message}${where}`, call, first.code, 'callee');
        }
        if (child.issues.length > 0) return ERROR;
        if (child.outputs.length !== 1) {
            return issue(`${model.name} has ${child.outputs.length} outputs; a call uses a model with exactly one output`, call, IssueCodes.BadArgument, 'callee');
        }
        return { kind: 'tensor', tensor: child.outputs[0] };
    }

    private evalRepeat(frame: Frame, rep: Repeat): Value {
        const countValue = this.evalExpr(frame, rep.count);
        if (countValue.kind === 'error') return ERROR;
        if (countValue.kind !== 'dim') {
            frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `repeat needs an integer count, found ${describeValue(countValue)}`, node: rep.count });
            return ERROR;
        }
        const k = countValue.dim;
        if (k.value !== undefined && k.value < 1) {
            frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `repeat count must be ≥ 1, found ${k.value}`, node: rep.count });
            return ERROR;
        }
        const call = rep.call;
        if (call.args.length === 0 || call.args[0].name !== undefined) {
            frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `repeat chains the first positional argument of ${call.callee.$refText}; pass the tensor first`, node: call, property: 'callee' });
            return ERROR;
        }
        const iterations = k.value ?? 1;
        const savedCount = frame.count;
        if (k.value === undefined) frame.count = frame.count.mul(k);
        try {
            const input = this.evalExpr(frame, call.args[0].value);
            if (input.kind !== 'tensor') {
                if (input.kind !== 'error') frame.issues.push({ code: IssueCodes.BadArgument, severity: 'error', message: `repeat chains a tensor through ${call.callee.$refText}, found ${describeValue(input)}`, node: call.args[0].value });
                return ERROR;
            }
            let value: Value = input;
            for (let i = 0; i < iterations; i++) {
                const result = this.evalCall(frame, call, undefined, value);
                if (frame.record) frame.expressions.set(call, this.callInfo!);
                if (result.kind !== 'tensor') return ERROR;
                if (i === 0 && !sameType(input.tensor, result.tensor)) {
                    frame.issues.push({
                        code: IssueCodes.RepeatShape, severity: 'error', node: call, property: 'callee',
                        message: `repeat needs ${call.callee.$refText} to keep its input's shape: input ${formatTensor(input.tensor)}, output ${formatTensor(result.tensor)}`,
                    });
                    return ERROR;
                }
                value = result;
            }
            return value;
        } finally {
            frame.count = savedCount;
        }
    }
}

/** The value of an integer literal (small non-negative ones shared: values are read-only). */
const literalValues: (Value | undefined)[] = new Array(4096);
function dimValue(n: number): Value {
    if (n >= 0 && n < literalValues.length && Number.isInteger(n)) return (literalValues[n] ??= Object.freeze({ kind: 'dim', dim: Dim.of(n) }));
    return { kind: 'dim', dim: Dim.of(n) };
}

/** The callee of an operator call (one read-only object per operator, shared by every call of it). */
const operatorCallees = new Map<IrOpKind, ExpressionInfo['callee']>();
function operatorCallee(name: IrOpKind): ExpressionInfo['callee'] {
    let callee = operatorCallees.get(name);
    if (!callee) operatorCallees.set(name, callee = Object.freeze({ kind: 'operator', name }));
    return callee;
}

/** A recorded block call or repeat: the cost of its ops (this.ops[start, end)), summed when first read. */
class SummedInfo implements ExpressionInfo {
    private summed: Cost | undefined;
    constructor(readonly value: Value, readonly callee: ExpressionInfo['callee'], private readonly ops: readonly OpRecord[], private readonly start: number, private readonly end: number) {}
    get cost(): Cost {
        return (this.summed ??= sumCost(this.ops.slice(this.start, this.end)));
    }
}

function sameType(a: TensorValue, b: TensorValue): boolean {
    return a.dtype === b.dtype && a.shape.length === b.shape.length && a.shape.every((d, i) => d.compare(b.shape[i]) !== 'different');
}

function newFrame(model: Model, prefix: string[], record: boolean, count: Dim): Frame {
    const idPrefix = prefix.length > 0 ? `${prefix.join('/')}/` : '';
    return { model, env: new Map(), prefix, idPrefix, names: new Set(), counters: new Map(), record, expressions: new Map(), issues: [], count, outputs: [] };
}

/** A path segment unique in its frame: the bound name when given (`y`, then `y.1`), else `<base>.<n>`. */
function uniqueName(frame: Frame, site: string | undefined, base: string): string {
    if (site !== undefined && !frame.names.has(site)) {
        frame.names.add(site);
        return site;
    }
    const stem = site ?? base;
    let n = frame.counters.get(stem) ?? (site !== undefined ? 1 : 0);
    let name = `${stem}.${n}`;
    while (frame.names.has(name)) name = `${stem}.${++n}`;
    frame.counters.set(stem, n + 1);
    frame.names.add(name);
    return name;
}

function scaleCost(c: Cost, k: Dim): Cost {
    if (k.value === 1) return c;
    return new LazyCost(() => ({ flops: c.flops.mul(k), macs: c.macs.mul(k), bytesRead: c.bytesRead.mul(k), bytesWritten: c.bytesWritten.mul(k), params: c.params.mul(k) }));
}

/** The summed cost of ops, each times its run count. */
export function sumCost(ops: readonly OpRecord[]): Cost {
    let flops = Dim.zero, macs = Dim.zero, bytesRead = Dim.zero, bytesWritten = Dim.zero, params = Dim.zero;
    for (const op of ops) {
        flops = flops.add(op.cost.flops.mul(op.count));
        macs = macs.add(op.cost.macs.mul(op.count));
        bytesRead = bytesRead.add(op.cost.bytesRead.mul(op.count));
        bytesWritten = bytesWritten.add(op.cost.bytesWritten.mul(op.count));
        params = params.add(op.cost.params.mul(op.count));
    }
    return { flops, macs, bytesRead, bytesWritten, params };
}

function totals(ops: readonly OpRecord[], memory: ModelMemory): ModelTotals {
    const cost = sumCost(ops);
    let activationBytes = Dim.zero, weightBytes = Dim.zero;
    for (const op of ops) {
        activationBytes = activationBytes.add(op.cost.bytesWritten.mul(op.count));
        for (const w of op.weights) weightBytes = weightBytes.add(elementCount(w.shape).scale(dtypeBytes(w.dtype)).mul(op.count));
    }
    return { ...cost, activationBytes, weightBytes, opCount: ops.length, ...memory };
}

/** Bytes of a tensor of a concrete shape, or undefined when a dim is symbolic (no array made). */
function concreteBytes(shape: readonly Dim[], bytesPerElement: number): number | undefined {
    let n = bytesPerElement;
    for (const d of shape) {
        const v = d.value;
        if (v === undefined) return undefined;
        n *= v;
    }
    return n;
}

/** Peak memory and the largest tensor of a concrete instance (empty when anything is symbolic or repeated symbolically). */
function peakMemory(ops: readonly OpRecord[], inputs: readonly TensorValue[], outputs: readonly TensorValue[], model: Model): ModelMemory {
    for (const op of ops) if (op.count.value !== 1) return {};
    let weightTotal = 0;
    // Liveness in evaluation order: a tensor lives from its producer to its last consumer. Tensors by slot
    // (the inputs, then each op's output, by object), each with its size and last reader.
    const slots = new Map<TensorValue, number>();
    const count = inputs.length + ops.length;
    const sizes = new Float64Array(count);
    const lastUse = new Int32Array(count).fill(-1);
    // The description is formatted for the largest tensor only, and its closure made only when a tensor is the largest so far.
    let largest: { bytes: number; what: () => string; node: AstNode; weight: boolean } | undefined;
    let live = 0;
    for (let k = 0; k < inputs.length; k++) {
        const t = inputs[k];
        const bytes = concreteBytes(t.shape, dtypeBytes(t.dtype));
        if (bytes === undefined) return {};
        slots.set(t, k);
        sizes[k] = bytes;
        live += bytes;
        if (!largest || bytes > largest.bytes) {
            const input = model.statements.find(st => isInput(st) && t.id.endsWith(st.name));
            largest = { bytes, what: () => `input ${t.id} ${formatTensor(t)}`, node: input ?? model, weight: false };
        }
    }
    for (let i = 0; i < ops.length; i++) slots.set(ops[i].output, inputs.length + i);
    for (let i = 0; i < ops.length; i++) {
        for (const t of ops[i].inputs) {
            const slot = slots.get(t);
            if (slot !== undefined) lastUse[slot] = i;
        }
    }
    for (const t of outputs) {
        const slot = slots.get(t);
        if (slot !== undefined) lastUse[slot] = ops.length;
    }
    let peak = live;
    for (let i = 0; i < ops.length; i++) {
        const op = ops[i];
        const bytes = concreteBytes(op.output.shape, dtypeBytes(op.output.dtype));
        if (bytes === undefined) return {};
        const own = inputs.length + i;
        sizes[own] = bytes;
        if (!largest || bytes > largest.bytes) largest = { bytes, what: () => `${op.kind} output ${op.path.join('/')} ${formatTensor(op.output)}`, node: op.node, weight: false };
        for (const w of op.weights) {
            const wb = concreteBytes(w.shape, dtypeBytes(w.dtype));
            if (wb === undefined) return {};
            weightTotal += wb;
            if (wb > largest.bytes) largest = { bytes: wb, what: () => `${op.kind} ${w.name} ${w.dtype}${formatShape(w.shape)} of ${op.path.join('/')}`, node: op.node, weight: true };
        }
        live += bytes;
        peak = Math.max(peak, live);
        const ins = op.inputs;
        for (let k = 0; k < ins.length; k++) {
            // Each input once (an op may read a tensor twice), freed after its last consumer.
            const slot = slots.get(ins[k]);
            if (slot !== undefined && ins.indexOf(ins[k]) === k && lastUse[slot] === i) live -= sizes[slot];
        }
        if (lastUse[own] < 0) live -= bytes;
    }
    const found = largest as { bytes: number; what: () => string; node: AstNode; weight: boolean } | undefined;
    return {
        peakBytes: weightTotal + peak,
        ...(found ? { largestTensor: { bytes: found.bytes, what: found.what(), node: found.node, weight: found.weight } } : {}),
    };
}
