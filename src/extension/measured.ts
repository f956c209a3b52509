/**
 * Measured figures at the end of op lines (co-run time and slowdown from the latest results),
 * as editor decorations with a hover comparing measured and predicted. The server computes
 * them from the results files; this only asks for them and draws them, again whenever the
 * server says they changed (a run from the editor or from a terminal).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { isMeasuredFiguresResult, MeasuredFiguresRequest, type MeasuredFigure } from '../protocol/messages.js';
import type { Config } from './config.js';

export class MeasuredDecorations implements vscode.Disposable {
    private readonly types: Record<MeasuredFigure['verdict'], vscode.TextEditorDecorationType>;
    private readonly shown = new Map<string, MeasuredFigure[]>();

    constructor(private readonly client: () => LanguageClient | undefined, private readonly config: Config, private readonly output: vscode.OutputChannel) {
        const make = (color: vscode.ThemeColor) => vscode.window.createTextEditorDecorationType({
            after: { color, margin: '0 0 0 2em', fontStyle: 'italic' },
            rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        });
        this.types = {
            ok: make(new vscode.ThemeColor('editorCodeLens.foreground')),
            slow: make(new vscode.ThemeColor('editorWarning.foreground')),
            violated: make(new vscode.ThemeColor('editorError.foreground')),
            cancelled: make(new vscode.ThemeColor('disabledForeground')),
        };
    }

    /** The figures last drawn for a document (tests read them). */
    figures(uri: string): MeasuredFigure[] {
        return this.shown.get(uri) ?? [];
    }

    /** Redraws every visible .tenancy editor. */
    async refreshVisible(): Promise<void> {
        await Promise.all(vscode.window.visibleTextEditors.filter(e => e.document.languageId === 'tenancy').map(e => this.refresh(e)));
    }

    /** Redraws the editors showing these documents. */
    async refreshUris(uris: string[]): Promise<void> {
        const wanted = new Set(uris);
        await Promise.all(vscode.window.visibleTextEditors.filter(e => wanted.has(e.document.uri.toString())).map(e => this.refresh(e)));
    }

    private async refresh(editor: vscode.TextEditor): Promise<void> {
        const uri = editor.document.uri.toString();
        let figures: MeasuredFigure[] = [];
        const client = this.client();
        if (this.config.inlayHintsEnabled && client?.isRunning()) {
            try {
                const result: unknown = await client.sendRequest(MeasuredFiguresRequest.method, { uri });
                if (isMeasuredFiguresResult(result)) figures = result.figures;
                else this.output.appendLine(`Measured figures for ${uri}: unexpected payload from the server`);
            } catch (error) {
                this.output.appendLine(`Measured figures for ${uri} failed: ${error instanceof Error ? error.message : String(error)}`);
            }
        }
        this.shown.set(uri, figures);
        for (const [verdict, type] of Object.entries(this.types) as [MeasuredFigure['verdict'], vscode.TextEditorDecorationType][]) {
            editor.setDecorations(type, figures.filter(f => f.verdict === verdict).map(f => {
                // The whole line (from its first non-blank), so that hovering the op shows the comparison;
                // `after` puts the figure at the line's end.
                const line = editor.document.lineAt(Math.min(f.range.end.line, editor.document.lineCount - 1));
                const range = new vscode.Range(line.lineNumber, line.firstNonWhitespaceCharacterIndex, line.lineNumber, line.range.end.character);
                return { range, hoverMessage: new vscode.MarkdownString(f.hover), renderOptions: { after: { contentText: f.text } } };
            }));
        }
    }

    dispose(): void {
        for (const type of Object.values(this.types)) type.dispose();
    }
}
