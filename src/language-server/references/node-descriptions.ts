/**
 * Node descriptions (scopes, the index, completion) whose AST path and ranges are computed when
 * first read. A scope lookup makes a description of every binding it answers with, and the linker
 * reads only its node and name; the path and the selection range (a line/column computation)
 * are read by the index, completion and navigation, for far fewer nodes.
 */
import {
    AstUtils, CstUtils, DefaultAstNodeDescriptionProvider, type AstNode, type AstNodeDescription, type AstNodeLocator, type DocumentSegment, type LangiumDocument,
    type NameProvider, type URI,
} from 'langium';

export class TenancyAstNodeDescriptionProvider extends DefaultAstNodeDescriptionProvider {
    override createDescription(node: AstNode, name: string | undefined, document?: LangiumDocument): AstNodeDescription {
        const documentUri = (document ?? AstUtils.getDocument(node)).uri;
        name ??= this.nameProvider.getName(node);
        if (!name) throw new Error(`A ${node.$type} node has no name, so it cannot be described (${documentUri.toString()}).`);
        return new LazyNodeDescription(node, name, documentUri, this.astNodeLocator, this.nameProvider);
    }
}

/** A description whose path and segments are computed on first read (class getters: no closures per description). */
class LazyNodeDescription implements AstNodeDescription {
    readonly type: string;
    private cachedPath: string | undefined;
    private cachedName: DocumentSegment | undefined;
    private cachedSelection: DocumentSegment | undefined;
    constructor(
        readonly node: AstNode,
        readonly name: string,
        readonly documentUri: URI,
        private readonly locator: AstNodeLocator,
        private readonly nameProvider: NameProvider,
    ) {
        this.type = node.$type;
    }
    get path(): string {
        return (this.cachedPath ??= this.locator.getAstNodePath(this.node));
    }
    get nameSegment(): DocumentSegment | undefined {
        return (this.cachedName ??= CstUtils.toDocumentSegment(this.nameProvider.getNameNode(this.node) ?? this.node.$cstNode));
    }
    get selectionSegment(): DocumentSegment | undefined {
        return (this.cachedSelection ??= CstUtils.toDocumentSegment(this.node.$cstNode));
    }
}
