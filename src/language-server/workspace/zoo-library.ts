/**
 * The built-in model zoo: `.tenancy` files under src/language-server/zoo/, loaded into every
 * workspace as a library. When the files are on disk (a checkout, the packaged extension) they
 * load with their `file:` URIs, so go-to-definition opens a real, readable document; otherwise
 * (EmptyFileSystem tests, a bundle shipped without them) from the text embedded at build time
 * (./zoo/sources.generated.ts) under `tenancy-zoo:///<name>.tenancy`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { URI, type FileSystemProvider, type LangiumDocument, type LangiumDocumentFactory, type LangiumDocuments, type LangiumSharedCoreServices } from 'langium';
import { zooSources } from '../zoo/sources.generated.js';

/** URI scheme of zoo documents loaded from embedded text. */
export const ZooScheme = 'tenancy-zoo';

// Zoo URIs loaded from disk, by string; shared by every service instance (the zoo is immutable).
const zooFileUris = new Set<string>();

/** Whether a URI is a zoo document (embedded or loaded from the zoo folder). */
export function isZooUri(uri: URI | string): boolean {
    const text = uri.toString();
    return text.startsWith(`${ZooScheme}:`) || zooFileUris.has(text);
}

/** The names of the zoo's public models: every top-level model of its files (docs/language.md#the-model-zoo lists them). */
export function zooModelNames(): string[] {
    return zooSources.flatMap(s => s.models);
}

/** Loads the zoo documents into LangiumDocuments once. */
export class ZooLibrary {
    private readonly fileSystem: FileSystemProvider;
    private readonly factory: LangiumDocumentFactory;
    private readonly documents: LangiumDocuments;
    private loaded: LangiumDocument[] | undefined;

    constructor(services: LangiumSharedCoreServices) {
        this.fileSystem = services.workspace.FileSystemProvider;
        this.factory = services.workspace.LangiumDocumentFactory;
        this.documents = services.workspace.LangiumDocuments;
    }

    /** The zoo documents, created and added to the workspace on first call. */
    ensureLoaded(): LangiumDocument[] {
        if (this.loaded) return this.loaded.filter(d => this.documents.hasDocument(d.uri)).length === this.loaded.length ? this.loaded : this.reload();
        return this.reload();
    }

    /** Whether a document belongs to the zoo. */
    isZooDocument(document: LangiumDocument): boolean {
        return isZooUri(document.uri);
    }

    private reload(): LangiumDocument[] {
        const folder = this.findZooFolder();
        this.loaded = zooSources.map(source => {
            const fileUri = folder ? URI.file(join(folder, source.file)) : undefined;
            const uri = fileUri ?? URI.parse(`${ZooScheme}:///${source.file}`);
            if (fileUri) zooFileUris.add(fileUri.toString());
            const existing = this.documents.getDocument(uri);
            if (existing) return existing;
            const document = this.factory.fromString(source.text, uri);
            this.documents.addDocument(document);
            return document;
        });
        return this.loaded;
    }

    /** A folder holding every zoo file with exactly the embedded text, or undefined. */
    private findZooFolder(): string | undefined {
        const here = moduleDirectory();
        if (!here) return undefined;
        const candidates = [join(here, '../zoo'), join(here, 'zoo'), join(here, '../../src/language-server/zoo'), join(here, '../src/language-server/zoo')];
        for (const folder of candidates) {
            try {
                const matches = zooSources.every(s => {
                    const uri = URI.file(join(folder, s.file));
                    return this.fileSystem.existsSync(uri) && this.fileSystem.readFileSync(uri) === s.text;
                });
                if (matches) return folder;
            } catch {
                // EmptyFileSystem and unreadable folders: fall back to the embedded text.
            }
        }
        return undefined;
    }
}

/** The directory of this module: source (vitest), ESM bundle (CLI) or CommonJS bundle (server). */
function moduleDirectory(): string | undefined {
    if (typeof __dirname === 'string') return __dirname;
    try {
        return dirname(fileURLToPath(import.meta.url));
    } catch {
        return undefined;
    }
}


