import type { LangiumDocument } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import { findOperator, type OperatorSignature } from '../analysis/operators.js';
import { Call, isDocument, isModel, type Input, type Model } from '../generated/ast.js';

/** What a call invokes: a built-in operator or a model (user, imported or zoo). */
export type CallTarget =
    | { kind: 'operator'; op: OperatorSignature }
    | { kind: 'model'; model: Model };

/** The target of `call`: the linked model if the name resolves to one, else the operator of that name. */
export function callTarget(call: Call): CallTarget | undefined {
    if (!call.callee) return undefined;
    const model = call.callee.ref;
    if (model && isModel(model)) return { kind: 'model', model };
    const op = findOperator(call.callee.$refText);
    return op ? { kind: 'operator', op } : undefined;
}

/**
 * The target a callee name would have in `document`, for text that may not parse yet (signature
 * help inside an unfinished call): a model of this document first, then any model the index
 * knows (imports, other files, the zoo), then an operator.
 */
export function callTargetByName(services: LangiumServices, document: LangiumDocument, name: string): CallTarget | undefined {
    const root = document.parseResult.value;
    if (isDocument(root)) {
        const local = root.elements.find((e): e is Model => isModel(e) && e.name === name);
        if (local) return { kind: 'model', model: local };
        // Ask the scope provider as if linking a call here, so the precedence (imports, workspace,
        // zoo) is the linker's.
        const call = { $type: Call.$type, $container: root, $containerProperty: 'elements', args: [] } as unknown as Call;
        const found = services.references.ScopeProvider.getScope({ reference: { $refText: name } as Call['callee'], container: call, property: 'callee' })
            .getElement(name);
        const node = found?.node;
        if (node && isModel(node)) return { kind: 'model', model: node };
    }
    const op = findOperator(name);
    return op ? { kind: 'operator', op } : undefined;
}

/** `model tiny_resnet(batch = 8)` — a model's header as written (`?` for a name not typed yet). */
export function modelSignature(model: Model): string {
    return `model ${model.name ?? '?'}${modelParamsText(model)}`;
}

/** `(batch = 8)` — a model's parameter list as written. */
export function modelParamsText(model: Model): string {
    return `(${model.params.map(p => (p.default === undefined ? p.name ?? '?' : `${p.name ?? '?'} = ${p.default}`)).join(', ')})`;
}

/** `f32[batch, 784]` — an input's type as written (`?` for a part not typed yet). */
export function inputType(input: Input): string {
    return `${input.dtype ?? '?'}[${dimsText(input)}]`;
}

/** Parameter labels for signature help and completion: inputs (positional tensors), then params. */
export function modelCallParams(model: Model): Array<{ name: string; label: string; positional: boolean; doc: string }> {
    const inputs = model.statements.filter(s => s.$type === 'Input').map(i => ({
        name: i.name, label: i.name, positional: true,
        doc: `input \`${i.name}: ${inputType(i as Input)}\``,
    }));
    const params = model.params.map(p => ({
        name: p.name,
        label: p.default === undefined ? `${p.name}:` : `${p.name}: ${p.default}`,
        positional: false,
        doc: p.default === undefined ? 'integer parameter (required)' : `integer parameter, default ${p.default}`,
    }));
    return [...inputs, ...params];
}

/** The source text of an input's dims. */
export function dimsText(node: { $cstNode?: { text: string } }): string {
    const text = node.$cstNode?.text ?? '';
    const open = text.indexOf('[');
    const close = text.lastIndexOf(']');
    return open >= 0 && close > open ? text.slice(open + 1, close).trim() : '';
}


