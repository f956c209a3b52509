/**
 * Declarations: a lone-name input dim that names a parameter or an earlier dim variable
 * (`input x: f32[batch, 784]`) is not a declaration of its own — go-to-definition on it lands on
 * the parameter or dim variable it refers to.
 */
import { AstUtils, DefaultReferences, type AstNode, type CstNode } from 'langium';
import { isDimVar, isModel } from '../generated/ast.js';
import { resolveDimVar } from './bindings.js';

export class TenancyReferences extends DefaultReferences {
    override findDeclarations(sourceCstNode: CstNode): AstNode[] {
        return super.findDeclarations(sourceCstNode).map(node => {
            if (!isDimVar(node)) return node;
            const model = AstUtils.getContainerOfType(node, isModel);
            return model ? resolveDimVar(node, model) : node;
        });
    }
}
