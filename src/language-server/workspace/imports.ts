/**
 * `import "relative/path.tenancy"`: resolution relative to the importing document, what an import
 * may name (a regular `.tenancy` file), the transitive import closure (which models a document
 * sees first) and cycle detection.
 */
import { UriUtils, type FileSystemProvider, type LangiumDocument, type LangiumDocuments, type URI } from 'langium';
import { isDocument, type Document, type Import } from '../generated/ast.js';

/** The URI an import names, relative to the importing document. */
export function resolveImport(document: LangiumDocument, path: string): URI {
    return UriUtils.resolvePath(UriUtils.dirname(document.uri), path);
}

/** The import statements of a document with their resolved URIs (an import without a path yet is left out). */
export function importsOf(document: LangiumDocument): { node: Import; uri: URI }[] {
    const root = document.parseResult.value;
    if (!isDocument(root)) return [];
    return (root as Document).imports.filter(i => i.path).map(node => ({ node, uri: resolveImport(document, node.path) }));
}

/**
 * Why an import's target cannot be loaded as a document — `is a folder`, `is not a .tenancy
 * file`, `does not exist`, `is not a regular file` — or undefined when it is a regular `.tenancy`
 * file. Only such files are read: reading a folder or a file of another language throws.
 */
export function importTargetProblem(uri: URI, fileSystem: FileSystemProvider): string | undefined {
    let node;
    try {
        node = fileSystem.statSync(uri);
    } catch {
        return 'does not exist';
    }
    if (node.isDirectory) return 'is a folder';
    if (!node.isFile) return 'is not a regular file';
    if (!uri.path.endsWith('.tenancy')) return 'is not a .tenancy file';
    return undefined;
}

/** URIs (as strings) of the documents `document` imports, directly or transitively (itself excluded). */
export function importClosure(document: LangiumDocument, documents: LangiumDocuments): Set<string> {
    const seen = new Set<string>();
    const queue = [document];
    while (queue.length > 0) {
        const doc = queue.pop()!;
        for (const { uri } of importsOf(doc)) {
            const key = uri.toString();
            if (seen.has(key) || key === document.uri.toString()) continue;
            seen.add(key);
            const target = documents.getDocument(uri);
            if (target) queue.push(target);
        }
    }
    return seen;
}

/**
 * The import cycle an import starts, as the chain of file names back to the importing
 * document, or undefined when the import leads to no cycle through this document.
 */
export function importCycle(document: LangiumDocument, imp: Import, documents: LangiumDocuments): string[] | undefined {
    const start = document.uri.toString();
    const first = resolveImport(document, imp.path);
    const path: string[] = [];
    const visiting = new Set<string>();
    const visit = (uri: URI): boolean => {
        const key = uri.toString();
        if (key === start) return true;
        if (visiting.has(key)) return false;
        visiting.add(key);
        const doc = documents.getDocument(uri);
        if (!doc) return false;
        path.push(UriUtils.basename(uri));
        for (const next of importsOf(doc)) if (visit(next.uri)) return true;
        path.pop();
        return false;
    };
    return visit(first) ? [UriUtils.basename(document.uri), ...path, UriUtils.basename(document.uri)] : undefined;
}
