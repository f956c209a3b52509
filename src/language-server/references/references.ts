/**
 * Declarations: a lone-name input dim that names a parameter or an earlier dim variable
 * (`input x: f32[batch, 784]`) is not a declaration of its own — go-to-definition on it lands on
 * the parameter or dim variable it refers to.
 *
 * References to a binding (parameter, input, let, output, dim variable) are found by walking its
 * model: a binding is visible only inside its model, so the index does not hold them (they are
 * most of a workspace's references; reference-descriptions.ts). Find references, rename and
 * document highlights all come here.
 */
import { AstUtils, CstUtils, DefaultReferences, stream, UriUtils, type AstNode, type CstNode, type FindReferencesOptions, type ReferenceDescription, type Stream } from 'langium';
import { isBinding, isDimVar, isModel, isNameRef } from '../generated/ast.js';
import { resolveDimVar } from './bindings.js';

export class TenancyReferences extends DefaultReferences {
    override findDeclarations(sourceCstNode: CstNode): AstNode[] {
        return super.findDeclarations(sourceCstNode).map(node => {
            if (!isDimVar(node)) return node;
            const model = AstUtils.getContainerOfType(node, isModel);
            return model ? resolveDimVar(node, model) : node;
        });
    }

    override findReferences(targetNode: AstNode, options: FindReferencesOptions): Stream<ReferenceDescription> {
        const model = isBinding(targetNode) ? AstUtils.getContainerOfType(targetNode, isModel) : undefined;
        if (!model) return super.findReferences(targetNode, options);
        const uri = AstUtils.getDocument(model).uri;
        if (options.documentUri && !UriUtils.equals(uri, options.documentUri)) return stream([]);
        const refs: ReferenceDescription[] = options.includeDeclaration ? this.getSelfReferences(targetNode) : [];
        const targetPath = this.nodeLocator.getAstNodePath(targetNode);
        for (const node of AstUtils.streamAst(model)) {
            if (!isNameRef(node) || node.ref.ref !== targetNode || !node.ref.$refNode) continue;
            refs.push({
                sourceUri: uri,
                sourcePath: this.nodeLocator.getAstNodePath(node),
                targetUri: uri,
                targetPath,
                segment: CstUtils.toDocumentSegment(node.ref.$refNode),
                local: true,
            });
        }
        return stream(refs);
    }
}
