import { AstUtils, type AstNode } from 'langium';
import { isZooUri } from '../workspace/zoo-library.js';

export { isZooUri };

/** Whether `node` lives in the built-in model zoo (embedded or loaded from the zoo folder). */
export function isZooModel(node: AstNode): boolean {
    const doc = AstUtils.findRootNode(node).$document;
    return doc !== undefined && isZooUri(doc.uri);
}
