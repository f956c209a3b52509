/**
 * Documents are created here from the editor's text or from disk. Text larger than
 * `maxDocumentCharacters` is not parsed: the document is kept empty and remembers the size, so
 * its diagnostic (and an import of it) can say so. A large generated file in a workspace folder
 * would otherwise be parsed, indexed and kept in memory at every start, and one pasted into an
 * editor would be parsed and analysed at every keystroke.
 */
import { DefaultLangiumDocumentFactory, type AstNode, type LangiumDocument, type Mutable, type TextDocument, type URI } from 'langium';
import type { CancellationToken } from 'vscode-languageserver';

/** Characters (UTF-16 code units) a document may have to be checked: 2 Mi, about 60,000 lines of typical text. */
export const maxDocumentCharacters = 2 * 1024 * 1024;

export class TenancyDocumentFactory extends DefaultLangiumDocumentFactory {
    /** Sizes (characters) of the documents whose text was over the limit, by URI. */
    private readonly oversized = new Map<string, number>();
    /** URIs of the documents whose text was last read from disk (not from an editor). */
    private readonly fromDisk = new Set<string>();

    /** Whether a document's text was last read from disk (a workspace file no editor has open, an imported file). */
    readFromDisk(uri: URI): boolean {
        return this.fromDisk.has(uri.toString());
    }

    /** The size of a document's text when it was over the limit (and so not parsed); undefined otherwise. */
    oversizedText(uri: URI | string): number | undefined {
        return this.oversized.get(uri.toString());
    }

    protected override async getInitialText(uri: URI, cancellationToken: CancellationToken): Promise<string> {
        const text = await super.getInitialText(uri, cancellationToken);
        this.fromDisk.add(uri.toString());
        return this.capped(uri, text);
    }

    protected override async getUpdatedText<T extends AstNode>(document: Mutable<LangiumDocument<T>>, textDocument: TextDocument | undefined, cancellationToken: CancellationToken): Promise<string> {
        const text = await super.getUpdatedText(document, textDocument, cancellationToken);
        if (textDocument) this.fromDisk.delete(document.uri.toString());
        else this.fromDisk.add(document.uri.toString());
        return this.capped(document.uri, text);
    }

    private capped(uri: URI, text: string): string {
        if (text.length <= maxDocumentCharacters) {
            this.oversized.delete(uri.toString());
            return text;
        }
        this.oversized.set(uri.toString(), text.length);
        return '';
    }
}
