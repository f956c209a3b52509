/**
 * Every build also builds the model zoo (once) and the files the built documents import that
 * are not loaded yet (read through the FileSystemProvider), so `import` works the same in the
 * language server, the CLI and EmptyFileSystem tests.
 */
import { DefaultDocumentBuilder, type BuildOptions, type LangiumDocument, type LangiumSharedCoreServices } from 'langium';
import type { CancellationToken } from 'vscode-languageserver';
import { importsOf } from './imports.js';
import type { ZooLibrary } from './zoo-library.js';

export class TenancyDocumentBuilder extends DefaultDocumentBuilder {
    private readonly zoo: () => ZooLibrary;

    constructor(services: LangiumSharedCoreServices & { workspace: { ZooLibrary: ZooLibrary } }) {
        super(services);
        this.zoo = () => services.workspace.ZooLibrary;
    }

    protected override async buildDocuments(documents: LangiumDocument[], options: BuildOptions, cancelToken: CancellationToken): Promise<void> {
        const all = new Map<string, LangiumDocument>();
        for (const d of this.zoo().ensureLoaded()) all.set(d.uri.toString(), d);
        for (const d of documents) all.set(d.uri.toString(), d);
        await this.loadImports([...all.values()], all);
        await super.buildDocuments([...all.values()], options, cancelToken);
    }

    /** Adds not-yet-loaded imported files that exist, transitively. */
    private async loadImports(queue: LangiumDocument[], all: Map<string, LangiumDocument>): Promise<void> {
        while (queue.length > 0) {
            const document = queue.pop()!;
            for (const { uri } of importsOf(document)) {
                const key = uri.toString();
                if (all.has(key) || this.langiumDocuments.hasDocument(uri)) continue;
                let exists = false;
                try {
                    exists = await this.fileSystemProvider.exists(uri);
                } catch {
                    exists = false;
                }
                if (!exists) continue;
                const loaded = await this.langiumDocuments.getOrCreateDocument(uri);
                all.set(key, loaded);
                queue.push(loaded);
            }
        }
    }
}
