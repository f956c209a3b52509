/**
 * Linking with two kinds of names that are not references: a callee that names a built-in
 * operator (operators are not AST nodes; the validator checks them against the operator
 * table), and words in workload arguments (`size: auto`, `sync: none`), which the workload
 * checks read as words.
 *
 * The walk over a document's references is a plain recursion, not Langium's generic AST stream
 * with an awaited cancellation check per node: the same order (a node's references, then its
 * children's), cancellation checked per top-level element, a fraction of the cost.
 */
import {
    AstUtils, DefaultLinker, interruptAndCheck, isAstNode, isReference, type AstNode, type DefaultReference, type LangiumDocument, type ReferenceInfo,
} from 'langium';
import { CancellationToken } from 'vscode-languageserver';
import { findOperator } from '../analysis/operators.js';
import { isCall, isNameRef, isWorkload } from '../generated/ast.js';

/** Whether a cross-reference is meant to be linked (false for operator callees and workload words). */
export function isLinkableReference(refInfo: ReferenceInfo): boolean {
    const { container, property, reference } = refInfo;
    if (isCall(container) && property === 'callee' && findOperator(reference.$refText)) return false;
    if (isNameRef(container) && AstUtils.getContainerOfType(container, isWorkload)) return false;
    return true;
}

/** Visits a node's own cross-references and returns its child nodes, both in property order. */
function ownReferences(node: AstNode, visit: (refInfo: ReferenceInfo) => void): AstNode[] {
    const children: AstNode[] = [];
    // for…in visits own keys in Object.keys order (AST nodes are plain objects) without allocating the key array.
    for (const property in node) {
        if (property.charCodeAt(0) === 36) continue; // `$type`, `$container`, `$cstNode`, …
        const value = (node as unknown as Record<string, unknown>)[property];
        if (typeof value !== 'object' || value === null) continue;
        if (Array.isArray(value)) {
            for (let index = 0; index < value.length; index++) {
                const element: unknown = value[index];
                if (isReference(element)) visit({ reference: element, container: node, property, index });
                else if (isAstNode(element)) children.push(element);
            }
        } else if (isReference(value)) {
            visit({ reference: value, container: node, property });
        } else if (isAstNode(value)) {
            children.push(value);
        }
    }
    return children;
}

/** Calls `visit` on every cross-reference under `node` (itself included) in Langium's streamAst order. */
export function forEachReference(node: AstNode, visit: (refInfo: ReferenceInfo) => void): void {
    for (const child of ownReferences(node, visit)) forEachReference(child, visit);
}

export class TenancyLinker extends DefaultLinker {
    override async link(document: LangiumDocument, cancelToken = CancellationToken.None): Promise<void> {
        const link = (refInfo: ReferenceInfo) => this.doLink(refInfo, document);
        for (const element of ownReferences(document.parseResult.value, link)) {
            await interruptAndCheck(cancelToken);
            forEachReference(element, link);
        }
    }

    protected override doLink(refInfo: ReferenceInfo, document: LangiumDocument): void {
        if (isLinkableReference(refInfo)) super.doLink(refInfo, document);
        else markNotLinkable(refInfo.reference as DefaultReference);
    }

    // Lazy `.ref` access (hover, analysis) must not resolve these either: an unresolved lazy
    // access would record a linking error on the document.
    protected override resolveReference(reference: DefaultReference, node: AstNode, property: string): AstNode | undefined {
        // Every `.ref` read comes here: a linked reference (the common case) or one already marked
        // not linkable answers at once, without walking up to the workload again.
        const state = (reference as unknown as { _ref: unknown })._ref;
        if (state === null) return undefined;
        if (isAstNode(state)) return state;
        if (!isLinkableReference({ reference, container: node, property })) {
            markNotLinkable(reference);
            return undefined;
        }
        return super.resolveReference(reference, node, property);
    }
}

/** `null`: neither unlinked (undefined, which the linker would resolve) nor an error. */
function markNotLinkable(reference: DefaultReference): void {
    (reference as unknown as { _ref: null })._ref = null;
}
