/**
 * The names a model binds and where each becomes visible. Params, inputs, dim variables, lets
 * and named outputs share one namespace per model; a reference sees only bindings made by
 * earlier text (latest wins), so `x = f(x)` reads the previous `x`. A lone-name input dim that
 * names a parameter or an earlier dim variable is not a declaration but an alias of it.
 * Used by the scope provider (linking), the evaluator and the validator alike.
 */
import type { AstNode } from 'langium';
import { isDimVar, isInput, isLet, isOutput, type Binding, type DimVar, type Model, type Param } from '../generated/ast.js';

/** One binding with the text offset from which references see it. */
export interface BindingEntry {
    name: string;
    node: Binding;
    /** References at offsets ≥ this see the binding (params: -1, always). */
    visibleFrom: number;
}

/** The bindings of one model, in text order. */
export interface BindingTable {
    entries: BindingEntry[];
    /** A lone-name input dim that names a parameter or an earlier dim variable → that binding. */
    aliases: Map<DimVar, Param | DimVar>;
    /** Dim variables that declare a new name (first appearance alone as a whole input dim). */
    dimVars: DimVar[];
    /** The entries of each name, in text order (linking looks every reference up by name). */
    byName: Map<string, BindingEntry[]>;
}

const tables = new WeakMap<Model, BindingTable>();

/** The binding table of a model (memoised per AST node; AST nodes are rebuilt on every parse). */
export function bindingTable(model: Model): BindingTable {
    let table = tables.get(model);
    if (!table) {
        table = computeTable(model);
        tables.set(model, table);
    }
    return table;
}

function computeTable(model: Model): BindingTable {
    const entries: BindingEntry[] = model.params.map(p => ({ name: p.name, node: p, visibleFrom: -1 }));
    const aliases = new Map<DimVar, Param | DimVar>();
    const dimVars: DimVar[] = [];
    for (const statement of model.statements) {
        const end = endOffset(statement);
        if (isInput(statement)) {
            for (const dim of statement.dims) {
                if (!isDimVar(dim)) continue;
                const earlier = lookupIn(entries, dim.name, offset(dim));
                if (earlier && (earlier.$type === 'Param' || isDimVar(earlier))) {
                    aliases.set(dim, earlier as Param | DimVar);
                } else {
                    dimVars.push(dim);
                    entries.push({ name: dim.name, node: dim, visibleFrom: endOffset(dim) });
                }
            }
            entries.push({ name: statement.name, node: statement, visibleFrom: end });
        } else if (isLet(statement)) {
            entries.push({ name: statement.name, node: statement, visibleFrom: end });
        } else if (isOutput(statement) && statement.name !== undefined) {
            entries.push({ name: statement.name, node: statement, visibleFrom: end });
        }
    }
    const byName = new Map<string, BindingEntry[]>();
    for (const e of entries) {
        const same = byName.get(e.name);
        if (same) same.push(e);
        else byName.set(e.name, [e]);
    }
    return { entries, aliases, dimVars, byName };
}

function lookupIn(entries: readonly BindingEntry[], name: string, at: number): Binding | undefined {
    let best: BindingEntry | undefined;
    for (const e of entries) {
        if (e.name === name && e.visibleFrom <= at && (!best || e.visibleFrom >= best.visibleFrom)) best = e;
    }
    return best?.node;
}

/** The binding `name` refers to at text offset `at` inside `model` (latest earlier binding wins). */
export function lookupBinding(model: Model, name: string, at: number): Binding | undefined {
    const same = bindingTable(model).byName.get(name);
    return same && lookupIn(same, name, at);
}

/** The bindings visible at `at` (one per name, the latest), e.g. for completion or did-you-mean. */
export function visibleBindings(model: Model, at: number): BindingEntry[] {
    const byName = new Map<string, BindingEntry>();
    for (const e of bindingTable(model).entries) {
        if (e.visibleFrom <= at) {
            const prev = byName.get(e.name);
            if (!prev || e.visibleFrom >= prev.visibleFrom) byName.set(e.name, e);
        }
    }
    return [...byName.values()];
}

/** What a DimVar stands for: itself when it declares a dim variable, else the param/dim var it names. */
export function resolveDimVar(dimVar: DimVar, model: Model): Param | DimVar {
    return bindingTable(model).aliases.get(dimVar) ?? dimVar;
}

/** Start offset of a node in its document (0 when it has no text, e.g. a synthetic node). */
export function offset(node: AstNode): number {
    return node.$cstNode?.offset ?? 0;
}

/** End offset of a node in its document. */
export function endOffset(node: AstNode): number {
    return node.$cstNode?.end ?? 0;
}
