/**
 * Result types of the shape and cost analysis (see ./index.ts for the API summary).
 * Dims, FLOPs and bytes are `Dim` polynomials: constants in a tenant's instantiation,
 * symbolic (`batch`, `2*batch*784*512`) when a model is analysed on its own.
 */
import type { AstNode } from 'langium';
import type { DType, IrOpKind } from '../../runtime/ir/types.js';
import type { Binding, Call, Model } from '../generated/ast.js';
import type { IssueCode } from '../validation/issue-codes.js';
import type { Dim, Shape } from './dims.js';
import type { UnrolledSize } from './limits.js';

/** A tensor flowing through a model: an id unique within the analysed instance. */
export interface TensorValue {
    /** `/`-joined path of the op that produced it (or of the input that declared it). */
    id: string;
    dtype: DType;
    shape: Shape;
}

/** The value of an expression. Integers are dims (they may be dim expressions). */
export type Value =
    | { kind: 'tensor'; tensor: TensorValue }
    | { kind: 'dim'; dim: Dim }
    | { kind: 'number'; value: number }
    | { kind: 'string'; value: string }
    | { kind: 'bool'; value: boolean }
    | { kind: 'quantity'; text: string }
    | { kind: 'tuple'; elements: Value[] }
    /** The expression had an error (already reported); suppresses follow-up errors. */
    | { kind: 'error' };

/** The cost of an op, a block call or a whole model (read-only: an op's cost may be computed when first read). */
export interface Cost {
    /** Floating-point operations (a multiply-add counts 2). */
    readonly flops: Dim;
    /** Multiply-accumulates of the matrix-like work (conv, dense, matmul, attention, lstm) — the published convention. */
    readonly macs: Dim;
    /** Bytes read: inputs + weights, each once. */
    readonly bytesRead: Dim;
    /** Bytes written: the output. */
    readonly bytesWritten: Dim;
    /** Trainable parameters (batch_norm counts gamma and beta, not its running statistics). */
    readonly params: Dim;
}

/** A resolved attribute: booleans, single dims or dim lists (padding as [top, left, bottom, right]). */
export type AttrValue = boolean | Dim | readonly Dim[];

/** An implicit weight of an op. */
export interface WeightInfo {
    name: string;
    shape: Shape;
    dtype: DType;
}

/** One operator application after inlining every block. */
export interface OpRecord {
    /** Path segments relative to the analysed model: `['basic_block.0', 'y']`. */
    path: string[];
    kind: IrOpKind;
    /** The call in the source text. */
    node: Call;
    /**
     * Input tensors, positional as in docs/language.md#operators: the producers' own objects (an input's, or
     * another op's output), so a tensor is known by identity (its `id` names it).
     */
    inputs: TensorValue[];
    output: TensorValue;
    attrs: Record<string, AttrValue>;
    weights: WeightInfo[];
    cost: Cost;
    /**
     * How many times the op runs per run of the analysis (or summarised block) that lists it: 1
     * when its repeats are unrolled; the `repeat` count (symbolic, or any count in a summarised
     * analysis) otherwise.
     */
    count: Dim;
}

/** A problem found by the analysis, in the AST of the analysed model (or at a call site of it). */
export interface AnalysisIssue {
    code: IssueCode;
    severity: 'error' | 'warning' | 'info' | 'hint';
    message: string;
    node: AstNode;
    property?: string;
    index?: number;
}

/** What hover and inlay hints show for an expression. */
export interface ExpressionInfo {
    value: Value;
    /** The op's cost (operator call) or the inlined block's total (model call; × repeat count). */
    cost?: Cost;
    /** For a call: the op kind, or the model inlined. */
    callee?: { kind: 'operator'; name: IrOpKind } | { kind: 'model'; model: Model };
}

/** Memory of a concrete model instance (both absent when any shape or repeat count is symbolic). */
export interface ModelMemory {
    /** Peak memory: weights + the largest set of simultaneously live activations (concrete only). */
    peakBytes?: number;
    /** The largest single tensor (weight or activation), concrete only. */
    largestTensor?: { bytes: number; what: string; node: AstNode; weight: boolean };
}

/** Totals over a model instance (peak memory only when it can be unrolled: see ModelAnalysis.ops). */
export interface ModelTotals extends Cost, ModelMemory {
    /** Sum of all activation (op output) bytes. */
    activationBytes: Dim;
    /** Bytes of all weights. */
    weightBytes: Dim;
    /** Ops when unrolled (symbolic repeat counts count once). */
    opCount: number;
}

/** The analysis of one model instance. */
export interface ModelAnalysis {
    model: Model;
    /** Parameter values used: constants given by the caller, symbols for the rest. */
    params: Map<string, Dim>;
    /** Per expression of this model's own body (not of inlined blocks); empty when analysed without them (instances). */
    expressions: Map<AstNode, ExpressionInfo>;
    /** Value bound by each of this model's bindings (inputs, lets, outputs, params, dim vars). */
    bindings: Map<Binding, Value>;
    inputs: TensorValue[];
    outputs: TensorValue[];
    /**
     * Every op after inlining blocks and unrolling repeats, in topological (evaluation) order;
     * undefined when that is more than `maxUnrolledSteps` (limits.ts; `size` says how many). A
     * summarised analysis (a model's own) unrolls when this is first read.
     */
    readonly ops: OpRecord[] | undefined;
    /** How large the instance is unrolled (a symbolic repeat count counts once), known without unrolling. */
    size: UnrolledSize;
    /**
     * Its steps as a polynomial of the parameters (and dim variables) left symbolic, a symbolic
     * repeat count times its block: a model's own analysis at a tenant's arguments gives the
     * instance's size before the instance is evaluated.
     */
    sizeFormula: Dim;
    totals: ModelTotals;
    /** The memory part of `totals` alone (no cost sums): what validation reads. */
    memory: ModelMemory;
    /** Dim variables of the model's own inputs that nothing bound (names). */
    unboundDims: string[];
    issues: AnalysisIssue[];
}
