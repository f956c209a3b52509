/**
 * The text nodes of an AST node's property (its `name`, a reference…): what Langium's
 * `GrammarUtils.findNodesForProperty` finds, with the grammar lookup cached. Langium walks up the
 * grammar from every text node it passes to find the assignment it belongs to, which made the
 * lookup most of the cost of semantic tokens on a long document; the assignment of a grammar
 * element never changes, so it is looked up once per element.
 */
import { AstUtils, GrammarAST, isCompositeCstNode, type AstNode, type CstNode } from 'langium';

/** The property each grammar element assigns to (null: none). */
const features = new WeakMap<GrammarAST.AbstractElement, string | null>();

function featureOf(element: GrammarAST.AbstractElement | undefined): string | null {
    if (!element) return null;
    let feature = features.get(element);
    if (feature === undefined) {
        feature = AstUtils.getContainerOfType(element, GrammarAST.isAssignment)?.feature ?? null;
        features.set(element, feature);
    }
    return feature;
}

/** The text nodes of `node`'s `property`, in text order (none when the node has no text). */
export function propertyNodes(node: AstNode, property: string): CstNode[] {
    const root = node.$cstNode;
    const found: CstNode[] = [];
    if (!root || !isCompositeCstNode(root)) return found;
    const visit = (cst: CstNode): void => {
        if (featureOf(cst.grammarSource) === property) found.push(cst);
        else if (isCompositeCstNode(cst) && cst.astNode === node) for (const child of cst.content) visit(child);
    };
    for (const child of root.content) visit(child);
    return found;
}
