import { AstUtils, type AstNode, type URI } from 'langium';

/** URI scheme of the built-in model zoo's documents. */
export const ZooScheme = 'tenancy-zoo';

/** Whether `uri` is a document of the built-in model zoo (read-only: no rename, no edits). */
export function isZooUri(uri: URI): boolean {
    return uri.scheme === ZooScheme;
}

/** Whether `node` lives in the built-in model zoo. */
export function isZooModel(node: AstNode): boolean {
    const doc = AstUtils.findRootNode(node).$document;
    return doc !== undefined && isZooUri(doc.uri);
}
