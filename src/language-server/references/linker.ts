/**
 * Linking with two kinds of names that are not references: a callee that names a built-in
 * operator (operators are not AST nodes; the validator checks them against the operator
 * table), and words in workload arguments (`size: auto`, `sync: none`), which the workload
 * checks read as words.
 */
import { AstUtils, DefaultLinker, type LangiumDocument, type ReferenceInfo } from 'langium';
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
    }
}
