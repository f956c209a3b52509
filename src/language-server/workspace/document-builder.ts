/**
 * Every build also builds the model zoo (once) and the files the built documents import that
 * are not loaded yet (read through the FileSystemProvider), so `import` works the same in the
 * language server, the CLI and EmptyFileSystem tests.
 *
 * Zoo documents get only the built-in diagnostics (syntax, linking), like a compiler's
 * `skipLibCheck`: the zoo is read-only library text, its own checks run in the tests
 * (zoo.test.ts asserts it has no errors or warnings), and analysing every zoo model at its
 * defaults (ResNet-50 and VGG-16 at 224², GPT-2…) cost every cold build tens of milliseconds
 * for diagnostics no one can see or fix. A zoo model a tenant uses is still analysed, for the
 * tenant's checks.
 */
import { DefaultDocumentBuilder, type BuildOptions, type LangiumDocument, type LangiumSharedCoreServices } from 'langium';
import type { CancellationToken } from 'vscode-languageserver';
import { importsOf } from './imports.js';
import { isZooUri, type ZooLibrary } from './zoo-library.js';

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

    protected override async validate(document: LangiumDocument, cancelToken: CancellationToken): Promise<void> {
        if (!isZooUri(document.uri)) return super.validate(document, cancelToken);
        const services = this.serviceRegistry.getServices(document.uri);
        document.diagnostics = await services.validation.DocumentValidator.validateDocument(document, { categories: ['built-in'] }, cancelToken);
        // Recorded as fully validated, so later builds do not come back for the categories skipped.
        const state = this.buildState.get(document.uri.toString());
        if (state) (state.result ??= {}).validationChecks = [...services.validation.ValidationRegistry.getAllValidationCategories(document)];
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
