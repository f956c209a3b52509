/**
 * The evaluator behind every analysis: walks a model's statements in order, evaluates each
 * expression to a value (tensor type, dim, literal), applies operators (./operator-rules.ts) and
 * collects every op with its path, attributes, weights and cost. Calls of other models (blocks)
 * and `repeat` are evaluated one of two ways:
 * - unrolled: a block is inlined at each call and a repeated block once per iteration, so every op
 *   of the instance is listed with its own path (what lowering and the peak-memory walk need). An
 *   unrolled evaluation stops past `maxUnrolledSteps` (limits.ts).
 * - summarised: a block is analysed once per model, parameter values and input types (in
 *   canonical symbols `$0`, `$1`… when those are symbolic, so blocks that differ only in their
 *   symbols' names share one analysis) and kept in a BlockMemo; a repeat evaluates its block once
 *   and counts it N times. The work follows the text, not what it denotes: a repeat of 10⁹,
 *   repeats of repeats, a chain of models calling models.
 * A model's own analysis (hover, validation) is summarised; an instance (a tenant's model) is
 * unrolled when it is within the limit, else summarised (and then not lowered: limits.ts). Either
 * way a call inlines model calls at most `maxCallDepth` deep, known from the call graph before
 * anything is inlined. Pure: depends only on the AST and linking.
 */
import type { AstNode } from 'langium';
import { dtypeBytes, type IrOpKind } from '../../runtime/ir/types.js';
import {
    isBinaryExpr, isDimVar, isInput, isLet, isModel, isNegation, isOutput,
    type Binding, type Call, type Expression, type Input, type Model, type Repeat,
} from '../generated/ast.js';
import { resolveDimVar } from '../references/bindings.js';
import { IssueCodes } from '../validation/issue-codes.js';
import { CallGraph } from './calls.js';
import { Dim, elementCount, formatShape } from './dims.js';
import { addScaled, maxCallDepth, maxUnrolledSteps, type UnrolledSize } from './limits.js';
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
    /** Summarise blocks and repeats even when small (a model's own analysis); by default an instance is unrolled within the limit. */
    summarise?: boolean;
    /** Block analyses to reuse and add to (one per workspace state); a fresh one when absent. */
    blocks?: BlockMemo;
    /** The call graph of the workspace state (heights of model calls); a fresh one when absent. */
    calls?: CallGraph;
    /**
     * The instance's steps if known without evaluating it (the model's own sizeFormula at these
     * arguments): past the limit the instance is summarised without an attempt to unroll it.
     */
    estimatedSteps?: number;
}

/** Summarised blocks by model and key (parameter values and input types, in canonical symbols). */
export class BlockMemo {
    private readonly byModel = new Map<Model, Map<string, BlockSummary>>();

    /** The block analysed for this key, if any. */
    get(model: Model, key: string): BlockSummary | undefined {
        return this.byModel.get(model)?.get(key);
    }

    /** How many blocks are kept. */
    get size(): number {
        let n = 0;
        for (const byKey of this.byModel.values()) n += byKey.size;
        return n;
    }

    /** Keeps a block analysed for this key. */
    set(model: Model, key: string, block: BlockSummary): void {
        let byKey = this.byModel.get(model);
        if (!byKey) this.byModel.set(model, byKey = new Map());
        byKey.set(key, block);
    }
}

/** A block (a model called from another) analysed once for one set of parameter values and input types. */
interface BlockSummary {
    /** Stand-ins for the caller's tensors, in the order of the block's inputs (an output may be one of them). */
    inputs: TensorValue[];
    outputs: TensorValue[];
    issues: AnalysisIssue[];
    /** Inputs that did not bind: the index of the caller's tensor argument and the message. */
    bindFailures: { index: number; message: string }[];
    steps: Step[];
    size: UnrolledSize;
    sizeFormula: Dim;
    /** Its sums (cost, bytes, largest tensor), made when first read. */
    sums?: StepSums;
}

/** A summarised block call: the block, how many times it runs, and its path segment in the caller. */
interface BlockStep {
    block: BlockSummary;
    /** Runs per run of what holds this step (a repeat count, symbolic or not). */
    count: Dim;
    /** `resnet_basic_block.1`. */
    segment: string;
    /** The block's canonical symbol names back to the caller's (absent when the block has none). */
    rename?: (name: string) => string;
}

/** What an analysis (or a summarised block) evaluated, in order: ops, and summarised block calls. */
type Step = OpRecord | BlockStep;

function isBlockStep(step: Step): step is BlockStep {
    return 'block' in step;
}

/** Thrown by an unrolling evaluation past maxUnrolledSteps (caught in analyseModel). */
class UnrolledTooFar {}

/** Shared by an analysis and the block analyses it makes. */
interface Context {
    standalone: (model: Model) => ModelAnalysis | undefined;
    blocks: BlockMemo;
    calls: CallGraph;
    /** The models being evaluated, outermost first (recursion). */
    stack: Model[];
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
    /** How many times ops of this frame run: a symbolic `repeat` count, or any count when repeats are summarised. */
    count: Dim;
    /** The constant part of that count when repeats are summarised (what the unrolled size counts). */
    copies: number;
    outputs: TensorValue[];
}

const ERROR: Value = { kind: 'error' };

/**
 * Analyses a model: symbolic in the parameters not given in `options.args`. Unrolled when within
 * maxUnrolledSteps, else (or with `summarise`) summarised; `ops` of a summarised analysis unroll
 * it when first read (undefined past the limit).
 */
export function analyseModel(model: Model, options: AnalyseOptions = {}): ModelAnalysis {
    const context: Context = {
        standalone: options.standalone ?? (() => undefined),
        blocks: options.blocks ?? new BlockMemo(),
        calls: options.calls ?? new CallGraph(),
        stack: [],
    };
    const args = options.args ?? new Map<string, number>();
    const record = options.expressions ?? true;
    const unrolled = (withExpressions: boolean): ModelAnalysis | undefined => {
        try {
            return new Evaluator(context, true).run(model, args, withExpressions);
        } catch (error) {
            if (error instanceof UnrolledTooFar) return undefined;
            throw error;
        }
    };
    if (!options.summarise) {
        // Known to be too large (the model's own size formula at these arguments): summarised without trying to unroll.
        if (options.estimatedSteps !== undefined && options.estimatedSteps > maxUnrolledSteps) {
            const summary = new Evaluator(context, false).run(model, args, record, () => undefined);
            if (summary.size.steps > maxUnrolledSteps) return summary;
        }
        const analysis = unrolled(record);
        if (analysis) return analysis;
        return new Evaluator(context, false).run(model, args, record, () => undefined);
    }
    return new Evaluator(context, false).run(model, args, record, () => unrolled(false));
}

class Evaluator {
    /** The ops (all of them when unrolling) and summarised block calls evaluated, in order. */
    private readonly steps: Step[] = [];
    private readonly size: UnrolledSize = { ops: 0, steps: 0 };
    /** Steps as a polynomial of what is symbolic (a symbolic repeat counts its count): see ModelAnalysis.sizeFormula. */
    private sizeFormula = Dim.zero;
    /** The ExpressionInfo of the call evaluated last in a recording frame (evalCall). */
    private callInfo: ExpressionInfo | undefined;

    constructor(private readonly context: Context, private readonly unroll: boolean) {}

    /**
     * Analyses `model` as the root. A summarised analysis gets `unrolled` for its `ops` and
     * memory: the same model unrolled (undefined when that is past the limit), called when first needed.
     */
    run(model: Model, args: ReadonlyMap<string, number>, record: boolean, unrolled?: () => ModelAnalysis | undefined): ModelAnalysis {
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
        this.context.stack.push(model);
        try {
            this.evalBody(frame, undefined, dimVar => unboundDims.push(dimVar), inputs);
        } finally {
            this.context.stack.pop();
        }
        const steps = this.steps;
        const size = this.size;
        // The getters below keep what they read alive with the analysis: the outputs, not the whole frame.
        const outputs = frame.outputs;
        let computed: ModelTotals | undefined;
        let memory: ModelMemory | undefined;
        let sums: StepSums | undefined;
        const sumsOf = () => (sums ??= sumSteps(steps));
        const base = { model, params, expressions: frame.expressions, bindings: frame.env, inputs, outputs, unboundDims, issues: frame.issues, size, sizeFormula: this.sizeFormula };
        if (this.unroll) {
            const ops = steps as OpRecord[];
            const memoryOf = () => (memory ??= peakMemory(ops, inputs, outputs, model));
            return {
                ...base, ops,
                // Summed on first use: a standalone analysis for validation never needs them.
                get totals() { return (computed ??= totals(sumsOf(), size, memoryOf())); },
                // Validation reads these alone (out-of-memory, buffer-too-large): no cost sums.
                get memory() { return memoryOf(); },
            };
        }
        let expanded: ModelAnalysis | null | undefined;
        const expand = () => (expanded === undefined ? (expanded = unrolled?.() ?? null) : expanded);
        // Memory needs concrete sizes (else it is empty, unrolled or not) and the op list for the peak: past the limit
        // there is none, and the largest tensor comes from the summary.
        const memoryOf = () => (memory ??= (symbolic(inputs) || sumsOf().symbolic ? {} : expand()?.memory ?? largestOnly(inputs, sumsOf(), model)));
        return {
            ...base,
            get ops() { return expand()?.ops; },
            get totals() { return (computed ??= totals(sumsOf(), size, memoryOf())); },
            get memory() { return memoryOf(); },
        };
    }

    /** Counts an op or block call evaluated (times the frame's constant repeat count); an unrolling evaluation stops past the limit. */
    private count(frame: Frame, ops: number, steps: number, formula: Dim): void {
        this.size.ops = addScaled(this.size.ops, ops, frame.copies);
        this.size.steps = addScaled(this.size.steps, steps, frame.copies);
        this.sizeFormula = this.sizeFormula.add(formula.mul(frame.count));
        if (this.unroll && this.size.steps > maxUnrolledSteps) throw new UnrolledTooFar();
    }

    /**
     * Evaluates a model body. `actual` binds inputs at a block call (unifying dims); without it
     * the model is the root and its dim variables become symbols (`onDimVar` is told of each).
     */
    evalBody(frame: Frame, actual: { tensors: TensorValue[]; report: (index: number, message: string) => void } | undefined,
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
        const stepsBefore = this.steps.length;
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
            info = new SummedInfo(info.value, info.callee, this.steps, stepsBefore, this.steps.length);
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
            this.steps.push({
                path: frame.prefix.concat(opName), kind: name as IrOpKind, node: call, inputs: result.inputs,
                output, attrs: result.attrs, weights: result.weights, cost: result.cost, count: frame.count,
            });
            const steps = runtimeSteps(name, result.attrs, result.shape);
            this.count(frame, 1, steps.value ?? 1, steps);
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
        const stack = this.context.stack;
        if (stack.includes(model)) {
            const cycle = [...stack.slice(stack.indexOf(model)), model].map(m => m.name).join(' → ');
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
        const segment = uniqueName(frame, undefined, model.name);
        const params: Dim[] = [];
        for (const p of model.params) {
            const dim = given.get(p.name) ?? (p.default !== undefined ? Dim.of(p.default) : undefined);
            if (!dim) return issue(`${model.name} is missing parameter '${p.name}'; expected ${signature()}`, call, IssueCodes.BadArgument, 'callee');
            params.push(dim);
        }
        // How deep inlining would go is known before any of it: refused past the limit, so no chain of calls overflows the stack.
        const below = this.context.calls.of(model);
        if (below.height >= maxCallDepth) {
            const chain = [model.name];
            for (let m = below.next; m && chain.length < 4; m = this.context.calls.of(m).next) chain.push(m.name);
            return issue(`${model.name} nests model calls ${below.height + 1} deep (${chain.join(' → ')}${below.height + 1 > chain.length ? ' → …' : ''}); `
                + `the analysis inlines at most ${maxCallDepth} nested model calls — call fewer models in a chain`, call, IssueCodes.TooLarge, 'callee');
        }
        const bindFailure = (index: number, message: string) => issue(message, tensorArgs[index], IssueCodes.ShapeMismatch);
        let outcome: { issues: AnalysisIssue[]; outputs: TensorValue[]; bound: boolean; rename?: (text: string) => string };
        if (this.unroll) {
            this.count(frame, 0, 1, Dim.one);
            const child = newFrame(model, frame.prefix.concat(segment), false, frame.count);
            model.params.forEach((p, i) => child.env.set(p, { kind: 'dim', dim: params[i] }));
            let bound = true;
            stack.push(model);
            try {
                this.evalBody(child, { tensors, report: (index, message) => { bound = false; bindFailure(index, message); } }, () => undefined);
            } finally {
                stack.pop();
            }
            outcome = { issues: child.issues, outputs: child.outputs, bound };
        } else {
            const key = blockKey(params, tensors);
            let block = this.context.blocks.get(model, key.text);
            if (!block) {
                block = this.summarise(model, key.params, key.inputs);
                this.context.blocks.set(model, key.text, block);
            }
            this.count(frame, block.size.ops, 1 + block.size.steps, (key.rename ? block.sizeFormula.renameSymbols(key.rename) : block.sizeFormula).add(1));
            const rename = key.rename;
            for (const failure of block.bindFailures) bindFailure(failure.index, rename ? rename(failure.message) : failure.message);
            // The caller's tensor objects where the block passes an input through; otherwise its output in the caller's symbols.
            const outputs = block.outputs.map(out => {
                const input = block.inputs.indexOf(out);
                if (input >= 0) return tensors[input];
                return { id: `${frame.idPrefix}${segment}/${out.id}`, dtype: out.dtype, shape: rename ? out.shape.map(d => d.renameSymbols(rename)) : out.shape };
            });
            if (block.issues.length === 0 && block.bindFailures.length === 0 && outputs.length === 1) this.steps.push({ block, count: frame.count, segment, rename });
            outcome = { issues: block.issues, outputs, bound: block.bindFailures.length === 0, rename };
        }
        if (!outcome.bound) return ERROR;
        const own = this.context.standalone(model)?.issues ?? [];
        const fresh = outcome.issues.filter(i => !own.some(o => o.node === i.node && o.code === i.code));
        if (fresh.length > 0) {
            const first = fresh[0];
            const where = first.node.$cstNode ? ` (line ${first.node.$cstNode.range.start.line + 1} of ${model.name})` : '';
            const message = outcome.rename ? outcome.rename(first.message) : first.message;
            return issue(`in ${model.name}: ${message}${where}`, call, first.code, 'callee');
        }
        if (outcome.issues.length > 0) return ERROR;
        if (outcome.outputs.length !== 1) {
            return issue(`${model.name} has ${outcome.outputs.length} outputs; a call uses a model with exactly one output`, call, IssueCodes.BadArgument, 'callee');
        }
        return { kind: 'tensor', tensor: outcome.outputs[0] };
    }

    /** Analyses a block once for its key (parameter values and stand-ins for the caller's tensors, canonical symbols). */
    private summarise(model: Model, params: readonly Dim[], inputs: TensorValue[]): BlockSummary {
        const evaluator = new Evaluator(this.context, false);
        const frame = newFrame(model, [], false, Dim.one);
        model.params.forEach((p, i) => frame.env.set(p, { kind: 'dim', dim: params[i] }));
        const bindFailures: BlockSummary['bindFailures'] = [];
        this.context.stack.push(model);
        try {
            evaluator.evalBody(frame, { tensors: inputs, report: (index, message) => bindFailures.push({ index, message }) }, () => undefined);
        } finally {
            this.context.stack.pop();
        }
        return { inputs, outputs: frame.outputs, issues: frame.issues, bindFailures, steps: evaluator.steps, size: evaluator.size, sizeFormula: evaluator.sizeFormula };
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
        // Unrolled, a constant count runs the block that many times; summarised (or symbolic), once, counted k times.
        const iterations = this.unroll && k.value !== undefined ? k.value : 1;
        const savedCount = frame.count;
        const savedCopies = frame.copies;
        if (iterations === 1) {
            frame.count = frame.count.mul(k);
            if (k.value !== undefined) frame.copies = addScaled(0, frame.copies, k.value);
        }
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
            frame.copies = savedCopies;
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

/** A recorded block call or repeat: the cost of its steps (steps[start, end)), summed when first read. */
class SummedInfo implements ExpressionInfo {
    private summed: Cost | undefined;
    constructor(readonly value: Value, readonly callee: ExpressionInfo['callee'], private readonly steps: readonly Step[], private readonly start: number, private readonly end: number) {}
    get cost(): Cost {
        return (this.summed ??= sumSteps(this.steps.slice(this.start, this.end)).cost);
    }
}

/** The kernel steps the runtime runs for an op: one, or for an LSTM one per layer and time step (plus its input projections). */
function runtimeSteps(kind: string, attrs: OpRecord['attrs'], shape: readonly Dim[]): Dim {
    if (kind !== 'lstm' || !(attrs.layers instanceof Dim) || !shape[1]) return Dim.one;
    const steps = attrs.layers.mul(shape[1].add(1));
    // Saturated like the other sizes (no Infinity): an LSTM of 10^200 layers is as too large as one of 10^300.
    return steps.value !== undefined && steps.value > 1e300 ? Dim.of(1e300) : steps;
}

/**
 * The memo key of a block call: its parameter values and input types. Symbols are renamed
 * `$0`, `$1`… in order of appearance, so calls that differ only in their symbols' names share one
 * summary; `rename` maps those names back in any text (dims, messages).
 */
function blockKey(params: readonly Dim[], tensors: readonly TensorValue[]): { text: string; params: Dim[]; inputs: TensorValue[]; rename?: (text: string) => string } {
    const names: string[] = [];
    const canonical = new Map<string, string>();
    const visit = (d: Dim) => {
        if (d.isConstant) return;
        for (const symbol of d.symbols) if (!canonical.has(symbol)) { canonical.set(symbol, `$${names.length}`); names.push(symbol); }
    };
    for (const d of params) visit(d);
    for (const t of tensors) for (const d of t.shape) visit(d);
    const to = names.length === 0 ? undefined : (d: Dim) => d.renameSymbols(name => canonical.get(name) ?? name);
    const keyParams = to ? params.map(to) : [...params];
    const inputs = tensors.map((t, i) => ({ id: `${i}`, dtype: t.dtype, shape: to ? t.shape.map(to) : t.shape }));
    const text = `${keyParams.join(',')}|${inputs.map(t => `${t.dtype}[${t.shape.join(',')}]`).join(';')}`;
    if (names.length === 0) return { text, params: keyParams, inputs };
    return { text, params: keyParams, inputs, rename: (s: string) => s.replace(canonicalSymbol, (whole, k: string) => names[Number(k)] ?? whole) };
}

/** A canonical symbol in a block's text: `$0`, `$1`… (no name in the language contains `$`). */
const canonicalSymbol = /\$(\d+)/g;

function sameType(a: TensorValue, b: TensorValue): boolean {
    return a.dtype === b.dtype && a.shape.length === b.shape.length && a.shape.every((d, i) => d.compare(b.shape[i]) !== 'different');
}

function newFrame(model: Model, prefix: string[], record: boolean, count: Dim): Frame {
    const idPrefix = prefix.length > 0 ? `${prefix.join('/')}/` : '';
    return { model, env: new Map(), prefix, idPrefix, names: new Set(), counters: new Map(), record, expressions: new Map(), issues: [], count, copies: 1, outputs: [] };
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

/** A candidate for the largest tensor; its description takes the path prefix of the block it is in. */
interface Largest {
    bytes: number;
    node: AstNode;
    weight: boolean;
    describe: (prefix: string) => string;
}

/** Sums over steps (each times its count), in the symbols of what holds them. */
interface StepSums {
    cost: Cost;
    activationBytes: Dim;
    weightBytes: Dim;
    /** The largest op output or weight (concrete only; the first in order among equals). */
    largest?: Largest;
    /** Whether a tensor's size is symbolic (then there is no largest). */
    symbolic: boolean;
}

/** The sums of steps: ops, and summarised blocks (each block summed once, then scaled and renamed). */
function sumSteps(steps: readonly Step[]): StepSums {
    let flops = Dim.zero, macs = Dim.zero, bytesRead = Dim.zero, bytesWritten = Dim.zero, params = Dim.zero;
    let activationBytes = Dim.zero, weightBytes = Dim.zero;
    let largest: Largest | undefined;
    let symbolic = false;
    const consider = (bytes: number | undefined, make: () => Largest) => {
        if (bytes === undefined) symbolic = true;
        else if (!largest || bytes > largest.bytes) largest = make();
    };
    for (const step of steps) {
        if (isBlockStep(step)) {
            const inner = (step.block.sums ??= sumSteps(step.block.steps));
            const rename = step.rename;
            const r = rename ? (d: Dim) => d.renameSymbols(rename) : (d: Dim) => d;
            const k = step.count;
            flops = flops.add(r(inner.cost.flops).mul(k));
            macs = macs.add(r(inner.cost.macs).mul(k));
            bytesRead = bytesRead.add(r(inner.cost.bytesRead).mul(k));
            bytesWritten = bytesWritten.add(r(inner.cost.bytesWritten).mul(k));
            params = params.add(r(inner.cost.params).mul(k));
            activationBytes = activationBytes.add(r(inner.activationBytes).mul(k));
            weightBytes = weightBytes.add(r(inner.weightBytes).mul(k));
            if (inner.symbolic) symbolic = true;
            const found = inner.largest;
            if (found) consider(found.bytes, () => ({ ...found, describe: prefix => found.describe(`${prefix}${step.segment}/`) }));
            continue;
        }
        const op = step;
        const k = op.count;
        flops = flops.add(op.cost.flops.mul(k));
        macs = macs.add(op.cost.macs.mul(k));
        bytesRead = bytesRead.add(op.cost.bytesRead.mul(k));
        bytesWritten = bytesWritten.add(op.cost.bytesWritten.mul(k));
        params = params.add(op.cost.params.mul(k));
        activationBytes = activationBytes.add(op.cost.bytesWritten.mul(k));
        consider(concreteBytes(op.output.shape, dtypeBytes(op.output.dtype)),
            () => ({ bytes: concreteBytes(op.output.shape, dtypeBytes(op.output.dtype))!, node: op.node, weight: false, describe: prefix => `${op.kind} output ${prefix}${op.path.join('/')} ${formatTensor(op.output)}` }));
        for (const w of op.weights) {
            weightBytes = weightBytes.add(elementCount(w.shape).scale(dtypeBytes(w.dtype)).mul(k));
            const bytes = concreteBytes(w.shape, dtypeBytes(w.dtype));
            consider(bytes, () => ({ bytes: bytes!, node: op.node, weight: true, describe: prefix => `${op.kind} ${w.name} ${w.dtype}${formatShape(w.shape)} of ${prefix}${op.path.join('/')}` }));
        }
    }
    return { cost: { flops, macs, bytesRead, bytesWritten, params }, activationBytes, weightBytes, largest: symbolic ? undefined : largest, symbolic };
}

function totals(sums: StepSums, size: UnrolledSize, memory: ModelMemory): ModelTotals {
    const c = sums.cost;
    return {
        flops: c.flops, macs: c.macs, bytesRead: c.bytesRead, bytesWritten: c.bytesWritten, params: c.params,
        activationBytes: sums.activationBytes, weightBytes: sums.weightBytes, opCount: size.ops, ...memory,
    };
}

/** Whether a tensor's shape is symbolic. */
function symbolic(tensors: readonly TensorValue[]): boolean {
    return tensors.some(t => t.shape.some(d => !d.isConstant));
}

/** The largest tensor of a summarised analysis (no peak: that needs the op list); empty when anything is symbolic. */
function largestOnly(inputs: readonly TensorValue[], sums: StepSums, model: Model): ModelMemory {
    let best: { bytes: number; what: () => string; node: AstNode; weight: boolean } | undefined;
    for (const t of inputs) {
        const bytes = concreteBytes(t.shape, dtypeBytes(t.dtype));
        if (bytes === undefined) return {};
        if (!best || bytes > best.bytes) {
            const input = model.statements.find(st => isInput(st) && t.id.endsWith(st.name));
            best = { bytes, what: () => `input ${t.id} ${formatTensor(t)}`, node: input ?? model, weight: false };
        }
    }
    if (sums.symbolic) return {};
    const found = sums.largest;
    if (found && (!best || found.bytes > best.bytes)) best = { bytes: found.bytes, what: () => found.describe(''), node: found.node, weight: found.weight };
    return best ? { largestTensor: { bytes: best.bytes, what: best.what(), node: best.node, weight: best.weight } } : {};
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
