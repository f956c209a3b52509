/**
 * Linking with two kinds of names that are not references: a callee that names a built-in
 * operator (operators are not AST nodes; the validator checks them against the operator
 * table), and words in workload arguments (`size: auto`, `sync: none`), which the workload
 * checks read as words.
 */
import { AstUtils, DefaultLinker, type AstNode, type DefaultReference, type LangiumDocument, type ReferenceInfo } from 'langium';
import { findOperator } from '../analysis/operators.js';
import { isCall, isNameRef, isWorkload } from '../generated/ast.js';

/** Whether a cross-reference is meant to be linked (false for operator callees and workload words). */
export function isLinkableReference(refInfo: ReferenceInfo): boolean {
    const { container, property, reference } = refInfo;
    if (isCall(container) && property === 'callee' && findOperator(reference.$refText)) return false;
    if (isNameRef(container) && AstUtils.getContainerOfType(container, isWorkload)) return false;
    return true;
}

export class TenancyLinker extends DefaultLinker {
    protected override doLink(refInfo: ReferenceInfo, document: LangiumDocument): void {
        if (isLinkableReference(refInfo)) super.doLink(refInfo, document);
        else markNotLinkable(refInfo.reference as DefaultReference);
    }

    // Lazy `.ref` access (hover, analysis) must not resolve these either: an unresolved lazy
    // access would record a linking error on the document.
    protected override resolveReference(reference: DefaultReference, node: AstNode, property: string): AstNode | undefined {
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
