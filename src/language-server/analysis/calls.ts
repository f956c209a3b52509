/**
 * The calls of a model's body to other models (not operators), in source order. Syntactic (an
 * operator is known by its name, not by linking) and a node's text never changes, so the list
 * is kept per AST node; a typed walk of the expressions, far cheaper than a generic AST stream.
 * Validation (recursion), predictions (what a workload's lowering reads) and the CLI (which
 * errors stop a workload) share it.
 */
import type { AstNode } from 'langium';
import { isModel, isModelProp, isTenant, type Call, type Expression, type Model, type Workload } from '../generated/ast.js';
import { findOperator } from './operators.js';

const callsByModel = new WeakMap<Model, readonly Call[]>();

/** Model calls in a model's statements (pre-order: a call before the calls in its arguments). */
export function modelCallsIn(model: Model): readonly Call[] {
    let calls = callsByModel.get(model);
    if (!calls) {
        const out: Call[] = [];
        for (const st of model.statements) {
            if (st.$type === 'Input') {
                for (const dim of st.dims) if (dim.$type === 'DimValue') visit(dim.value, out);
            } else {
                visit(st.value, out);
            }
        }
        callsByModel.set(model, calls = out);
    }
    return calls;
}

function visit(e: Expression | undefined, out: Call[]): void {
    if (!e) return; // a node the parser recovered without its expression
    switch (e.$type) {
        case 'BinaryExpr': visit(e.left, out); visit(e.right, out); return;
        case 'Negation': visit(e.operand, out); return;
        case 'Tuple': for (const x of e.elements) visit(x, out); return;
        case 'Repeat': visit(e.call, out); return;
        case 'Call':
            if (e.callee && !findOperator(e.callee.$refText)) out.push(e);
            for (const arg of e.args) visit(arg.value, out);
            return;
        default: return; // names and literals hold no calls
    }
}

/**
 * What a workload's lowering reads besides its own node: the targets of its tenants' model calls
 * and, transitively, of those models' calls to other models, in a fixed order (undefined where a
 * call does not resolve). Equal lists ⇒ the same IR (a model's text is its node; names inside a
 * model resolve within it).
 */
export function modelsReached(workload: Workload): (AstNode | undefined)[] {
    const out: (AstNode | undefined)[] = [];
    const seen = new Set<Model>();
    const visit = (call: Call) => {
        const target = call.callee?.ref; // no callee: `model (` on a tenant's line, its name not typed yet
        out.push(target);
        if (!target || !isModel(target) || seen.has(target)) return;
        seen.add(target);
        for (const c of modelCallsIn(target)) visit(c);
    };
    for (const member of workload.members) {
        if (!isTenant(member)) continue;
        for (const prop of member.props) if (isModelProp(prop) && prop.call) visit(prop.call);
    }
    return out;
}
