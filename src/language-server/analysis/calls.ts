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

/** Where a model sits in the graph of model calls. */
export interface CallNode {
    /** Models calling one another in a cycle share a component (a model alone, unless it calls itself). */
    component: number;
    /**
     * The longest chain of model calls below this model: 0 for a model that calls none; a cycle
     * counts each of its models once (the analysis stops a recursion when it meets a model again).
     */
    height: number;
    /** The next model on such a longest chain (for messages). */
    next?: Model;
}

/**
 * The graph of model calls of one workspace state, explored from the models asked about:
 * components (strongly connected, Tarjan's algorithm, iterative so a chain of any length costs
 * no stack) and heights, each computed once. Validation reads cycles from it (recursion) and the
 * analysis heights (how deep a call would inline), so neither walks a chain once per model.
 */
export class CallGraph {
    private readonly nodes = new Map<Model, CallNode>();
    private components = 0;

    /** The node of a model, computed with everything it reaches on first use. */
    of(model: Model): CallNode {
        return this.nodes.get(model) ?? this.explore(model);
    }

    /** The resolved callee models of a model's calls, in source order (repeated callees once). */
    static callees(model: Model): Model[] {
        const out: Model[] = [];
        for (const call of modelCallsIn(model)) {
            const target = call.callee.ref;
            if (target && target.$type === 'Model' && !out.includes(target)) out.push(target);
        }
        return out;
    }

    private explore(root: Model): CallNode {
        // Tarjan's algorithm with an explicit stack of (model, its callees, the next callee to visit).
        const index = new Map<Model, number>();
        const low = new Map<Model, number>();
        const onStack = new Set<Model>();
        const stack: Model[] = [];
        const frames: { model: Model; callees: Model[]; next: number }[] = [];
        let counter = 0;
        const enter = (model: Model) => {
            index.set(model, counter);
            low.set(model, counter);
            counter++;
            stack.push(model);
            onStack.add(model);
            frames.push({ model, callees: CallGraph.callees(model), next: 0 });
        };
        enter(root);
        while (frames.length > 0) {
            const frame = frames[frames.length - 1];
            if (frame.next < frame.callees.length) {
                const callee = frame.callees[frame.next++];
                if (this.nodes.has(callee)) continue; // a component finished earlier
                if (!index.has(callee)) enter(callee);
                else if (onStack.has(callee)) low.set(frame.model, Math.min(low.get(frame.model)!, index.get(callee)!));
                continue;
            }
            frames.pop();
            const model = frame.model;
            const parent = frames[frames.length - 1];
            if (parent) low.set(parent.model, Math.min(low.get(parent.model)!, low.get(model)!));
            if (low.get(model) !== index.get(model)) continue;
            // `model` roots a component: its members are on the stack down to it. Every component it calls is finished.
            const members: Model[] = [];
            let member: Model;
            do {
                member = stack.pop()!;
                onStack.delete(member);
                members.push(member);
            } while (member !== model);
            const component = this.components++;
            let height = members.length - 1;
            let next: Model | undefined;
            for (const m of members) {
                for (const callee of CallGraph.callees(m)) {
                    const below = this.nodes.get(callee);
                    if (!below || members.includes(callee)) continue;
                    if (below.height + members.length > height) {
                        height = below.height + members.length;
                        next = callee;
                    }
                }
            }
            if (!next && members.length > 1) next = members[1];
            for (const m of members) this.nodes.set(m, { component, height, next });
        }
        return this.nodes.get(root)!;
    }

    /**
     * The models from `from` to `to` through calls (both included), found depth-first in source
     * order within their component, or undefined when `from` does not reach `to`.
     */
    path(from: Model, to: Model): Model[] | undefined {
        if (from === to) return [to];
        const component = this.of(from).component;
        if (this.of(to).component !== component) return undefined;
        const seen = new Set<Model>([from]);
        const frames: { model: Model; callees: Model[]; next: number }[] = [{ model: from, callees: CallGraph.callees(from), next: 0 }];
        while (frames.length > 0) {
            const frame = frames[frames.length - 1];
            if (frame.next >= frame.callees.length) { frames.pop(); continue; }
            const callee = frame.callees[frame.next++];
            if (callee === to) return [...frames.map(f => f.model), to];
            if (seen.has(callee) || this.of(callee).component !== component) continue;
            seen.add(callee);
            frames.push({ model: callee, callees: CallGraph.callees(callee), next: 0 });
        }
        return undefined;
    }
}
