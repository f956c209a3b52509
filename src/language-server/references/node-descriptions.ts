/**
 * Node descriptions (scopes, the index, completion) whose AST path and ranges are computed when
 * first read. A scope lookup makes a description of every binding it answers with, and the linker
 * reads only its node and name; the path and the selection range (a line/column computation)
 * are read by the index, completion and navigation, for far fewer nodes.
 */
import { AstUtils, CstUtils, DefaultAstNodeDescriptionProvider, type AstNode, type AstNodeDescription, type DocumentSegment, type LangiumDocument } from 'langium';

export class TenancyAstNodeDescriptionProvider extends DefaultAstNodeDescriptionProvider {
    override createDescription(node: AstNode, name: string | undefined, document?: LangiumDocument): AstNodeDescription {
        const documentUri = (document ?? AstUtils.getDocument(node)).uri;
        name ??= this.nameProvider.getName(node);
        if (!name) throw new Error(`A ${node.$type} node has no name, so it cannot be described (${documentUri.toString()}).`);
        const locator = this.astNodeLocator;
        const nameProvider = this.nameProvider;
        let path: string | undefined;
        let nameSegment: DocumentSegment | undefined;
        let selectionSegment: DocumentSegment | undefined;
        return {
            node,
            name,
            type: node.$type,
            documentUri,
            get path() { return (path ??= locator.getAstNodePath(node)); },
            get nameSegment() { return (nameSegment ??= CstUtils.toDocumentSegment(nameProvider.getNameNode(node) ?? node.$cstNode)); },
            get selectionSegment() { return (selectionSegment ??= CstUtils.toDocumentSegment(node.$cstNode)); },
        };
    }
}
