/**
 * Every build also builds the model zoo (once) and the files the built documents import that
 * are not loaded yet (read through the FileSystemProvider), so `import` works the same in the
 * language server, the CLI and EmptyFileSystem tests. Documents are parsed before their imports
 * are looked at, so an import typed in this edit is loaded in this build. Only regular `.tenancy`
 * files are loaded (./imports.ts); anything else is the importing document's
 * `unresolved-reference`.
 *
 * No exception escapes a build: an error in one document's phase (parsing, indexing, linking,
 * validation) becomes that document's `internal-error` diagnostic, is logged with its stack, and
 * the build goes on with the other documents (and the later phases of this one), so requests
 * waiting for the document's state are answered and the rest of the workspace keeps working.
 *
 * Zoo documents get only the built-in diagnostics (syntax, linking), like a compiler's
 * `skipLibCheck`: the zoo is read-only library text, its own checks run in the tests
 * (zoo.test.ts asserts it has no errors or warnings), and analysing every zoo model at its
 * defaults (ResNet-50 and VGG-16 at 224², GPT-2…) cost every cold build tens of milliseconds
 * for diagnostics no one can see or fix. A zoo model a tenant uses is still analysed, for the
 * tenant's checks.
 */
import {
    DefaultDocumentBuilder, DocumentState, isOperationCancelled,
    type BuildOptions, type LangiumDocument, type LangiumSharedCoreServices, type MaybePromise, type Mutable, type URI,
} from 'langium';
import { DiagnosticSeverity, type CancellationToken, type Diagnostic } from 'vscode-languageserver';
import { IssueCodes } from '../validation/issue-codes.js';
import type { TenancyDocumentFactory } from './document-factory.js';
import { importsOf, importTargetProblem } from './imports.js';
import { isZooUri, type ZooLibrary } from './zoo-library.js';

/** What a document's build was doing when it failed, for the message. */
const phaseNames: Partial<Record<DocumentState, string>> = {
    [DocumentState.Parsed]: 'parse', [DocumentState.IndexedContent]: 'index', [DocumentState.ComputedScopes]: 'compute the scopes of',
    [DocumentState.Linked]: 'link', [DocumentState.IndexedReferences]: 'index the references of', [DocumentState.Validated]: 'check',
};

interface Fault { state: DocumentState; diagnostic: Diagnostic }

export class TenancyDocumentBuilder extends DefaultDocumentBuilder {
    private readonly zoo: () => ZooLibrary;
    private readonly factory: TenancyDocumentFactory;
    /** Errors of build phases, by document URI, until the phase runs again. */
    private readonly faults = new Map<string, Fault[]>();

    constructor(services: LangiumSharedCoreServices & { workspace: { ZooLibrary: ZooLibrary; LangiumDocumentFactory: TenancyDocumentFactory } }) {
        super(services);
        this.zoo = () => services.workspace.ZooLibrary;
        this.factory = services.workspace.LangiumDocumentFactory;
    }

    // A file read from disk that is no longer a regular .tenancy file (deleted, replaced by a
    // folder) and is not open in an editor is a deletion, whatever the event said: reading it
    // again would fail.
    override async update(changed: URI[], deleted: URI[], cancelToken?: CancellationToken): Promise<void> {
        const gone = changed.filter(uri => this.factory.readFromDisk(uri) && !this.textDocuments?.get(uri.toString()) && importTargetProblem(uri, this.fileSystemProvider) !== undefined);
        return super.update(changed.filter(uri => !gone.includes(uri)), [...deleted, ...gone], cancelToken);
    }

    // A document whose import names a changed or deleted file is relinked (and so revalidated), even when it uses none of its models.
    protected override shouldRelink(document: LangiumDocument, changedUris: Set<string>): boolean {
        return super.shouldRelink(document, changedUris) || importsOf(document).some(i => changedUris.has(i.uri.toString()));
    }

    protected override async buildDocuments(documents: LangiumDocument[], options: BuildOptions, cancelToken: CancellationToken): Promise<void> {
        const all = new Map<string, LangiumDocument>();
        for (const d of this.zoo().ensureLoaded()) all.set(d.uri.toString(), d);
        for (const d of documents) all.set(d.uri.toString(), d);
        for (const d of all.values()) this.forgetFaults(d);
        // Parsed first, so the imports looked at are those of the text being built.
        await this.runCancelable([...all.values()], DocumentState.Parsed, cancelToken, doc => this.langiumDocumentFactory.update(doc, cancelToken));
        await this.loadImports([...all.values()], all);
        await super.buildDocuments([...all.values()], options, cancelToken);
    }

    protected override async runCancelable(documents: LangiumDocument[], targetState: DocumentState, cancelToken: CancellationToken, callback: (document: LangiumDocument) => MaybePromise<unknown>): Promise<void> {
        await super.runCancelable(documents, targetState, cancelToken, async document => {
            try {
                await callback(document);
            } catch (error) {
                if (isOperationCancelled(error)) throw error;
                this.recordFault(document, targetState, error);
            }
        });
    }

    protected override async validate(document: LangiumDocument, cancelToken: CancellationToken): Promise<void> {
        if (!isZooUri(document.uri)) await super.validate(document, cancelToken);
        else {
            const services = this.serviceRegistry.getServices(document.uri);
            document.diagnostics = await services.validation.DocumentValidator.validateDocument(document, { categories: ['built-in'] }, cancelToken);
            // Recorded as fully validated, so later builds do not come back for the categories skipped.
            const state = this.buildState.get(document.uri.toString());
            if (state) (state.result ??= {}).validationChecks = [...services.validation.ValidationRegistry.getAllValidationCategories(document)];
        }
        const faults = this.faults.get(document.uri.toString());
        if (faults) document.diagnostics = [...(document.diagnostics ?? []), ...faults.map(f => f.diagnostic)];
    }

    /** Keeps the error as the document's diagnostic and logs it; a failed parse leaves the document empty (its old tree may not match its text). */
    private recordFault(document: LangiumDocument, state: DocumentState, error: unknown): void {
        const detail = error instanceof Error ? error.message : String(error);
        console.error(`Tenancy: could not ${phaseNames[state] ?? 'build'} ${document.uri.toString()}:`, error instanceof Error ? error.stack ?? error : error);
        const diagnostic: Diagnostic = {
            range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
            severity: DiagnosticSeverity.Error,
            code: IssueCodes.InternalError,
            data: { code: IssueCodes.InternalError },
            source: 'tenancy',
            message: `Tenancy could not ${phaseNames[state] ?? 'build'} this file (${detail}), so its diagnostics and other features may be incomplete; other files are not affected. `
                + 'This is a bug in Tenancy: please report it with this file.',
        };
        const key = document.uri.toString();
        this.faults.set(key, [...(this.faults.get(key) ?? []), { state, diagnostic }]);
        if (state === DocumentState.Parsed) {
            const parser = this.serviceRegistry.getServices(document.uri).parser.LangiumParser;
            // A parse that threw inside a rule (a stack overflow) leaves Langium's parser holding the
            // nodes of the rules it was in, and every later parse of every document would build on them
            // (an empty tree, no errors): drop them. `stack` is LangiumParser's (private) rule stack.
            const leftover = (parser as unknown as { stack?: unknown[] }).stack;
            if (Array.isArray(leftover)) leftover.length = 0;
            const empty = parser.parse('');
            (empty.value as Mutable<typeof empty.value>).$document = document;
            (document as Mutable<LangiumDocument>).parseResult = empty;
        }
        // Its validation ran (and failed): the document is built as far as it can be.
        if (state === DocumentState.Validated) {
            document.diagnostics = [...(document.diagnostics ?? []), diagnostic];
            this.markAsCompleted(document);
        }
    }

    /** Drops the faults of the phases a document is about to run again. */
    private forgetFaults(document: LangiumDocument): void {
        const key = document.uri.toString();
        const kept = this.faults.get(key)?.filter(f => f.state <= document.state);
        if (kept?.length) this.faults.set(key, kept);
        else this.faults.delete(key);
    }

    /** Adds the regular `.tenancy` files the documents import that are not loaded yet, transitively. */
    private async loadImports(queue: LangiumDocument[], all: Map<string, LangiumDocument>): Promise<void> {
        while (queue.length > 0) {
            const document = queue.pop()!;
            for (const { uri } of importsOf(document)) {
                const key = uri.toString();
                if (all.has(key) || this.langiumDocuments.hasDocument(uri) || importTargetProblem(uri, this.fileSystemProvider) !== undefined) continue;
                let loaded: LangiumDocument;
                try {
                    loaded = await this.langiumDocuments.getOrCreateDocument(uri);
                } catch (error) {
                    // Unreadable (permissions, removed meanwhile): the import stays unresolved and says why.
                    console.warn(`Tenancy: could not read ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
                    continue;
                }
                all.set(key, loaded);
                queue.push(loaded);
            }
        }
    }
}
