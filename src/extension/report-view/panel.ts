/**
 * The report webview panel: one per workload, fed with the {@link ReportModel} the language
 * server builds from the results files, refreshed when the results change.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { WorkloadRef } from '../../protocol/commands.js';
import { isReportResult, isReportViewReply, type ReportViewMessage } from '../../protocol/report.js';
import { report } from '../messages.js';
import { makeNonce, reportHtml } from './html.js';

interface OpenReport {
    panel: vscode.WebviewPanel;
    ref: WorkloadRef;
    ready: boolean;
    /** Charts the webview said it drew (tests read it). */
    rendered: string[] | undefined;
}

export class ReportPanels implements vscode.Disposable {
    private readonly open = new Map<string, OpenReport>();
    private readonly renderedEmitter = new vscode.EventEmitter<{ ref: WorkloadRef; charts: string[] }>();
    /** Fires when a webview has drawn a report. */
    readonly onDidRender = this.renderedEmitter.event;
    private readonly failedEmitter = new vscode.EventEmitter<{ ref: WorkloadRef; message: string }>();
    /** Fires when a report could not be shown (no results, unreadable results, no server). */
    readonly onDidFail = this.failedEmitter.event;

    constructor(
        private readonly extensionUri: vscode.Uri,
        private readonly client: () => LanguageClient | undefined,
        private readonly output: vscode.OutputChannel,
    ) {}

    private static key(ref: WorkloadRef): string {
        return `${ref.uri}#${ref.workload}`;
    }

    /** Opens (or reveals) the report of a workload and loads its latest results. */
    async show(ref: WorkloadRef): Promise<void> {
        const key = ReportPanels.key(ref);
        const existing = this.open.get(key);
        if (existing) {
            existing.panel.reveal(undefined, false);
            await this.load(existing);
            return;
        }
        const scriptRoot = vscode.Uri.joinPath(this.extensionUri, 'out', 'report-view');
        const panel = vscode.window.createWebviewPanel('tenancy.report', `Report: ${ref.workload}`, vscode.ViewColumn.Beside, {
            enableScripts: true,
            localResourceRoots: [scriptRoot],
            retainContextWhenHidden: true,
        });
        const entry: OpenReport = { panel, ref, ready: false, rendered: undefined };
        this.open.set(key, entry);
        panel.webview.html = reportHtml({
            cspSource: panel.webview.cspSource,
            scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(scriptRoot, 'main.js')).toString(),
            nonce: makeNonce(),
        });
        panel.onDidDispose(() => this.open.delete(key));
        panel.webview.onDidReceiveMessage(async (message: unknown) => {
            if (!isReportViewReply(message)) {
                this.output.appendLine(`Report view sent an unexpected message: ${JSON.stringify(message)}`);
                return;
            }
            if (message.type === 'ready') {
                entry.ready = true;
                await this.load(entry);
            } else if (message.type === 'rendered') {
                entry.rendered = message.charts;
                this.renderedEmitter.fire({ ref, charts: message.charts });
            } else if (message.type === 'openResults') {
                await vscode.window.showTextDocument(vscode.Uri.file(message.path), { viewColumn: vscode.ViewColumn.One });
            }
        });
    }

    /** Reloads every open report (after results changed). */
    async refreshAll(): Promise<void> {
        await Promise.all([...this.open.values()].filter(e => e.ready).map(e => this.load(e)));
    }

    /** The charts drawn in a workload's report, if it is open and drawn. */
    rendered(ref: WorkloadRef): string[] | undefined {
        return this.open.get(ReportPanels.key(ref))?.rendered;
    }

    private async load(entry: OpenReport): Promise<void> {
        if (!entry.ready) return; // the webview asks when its script is up
        const client = this.client();
        let message: ReportViewMessage;
        if (!client || !client.isRunning()) {
            message = { type: 'error', message: 'The Tenancy language server is not running, so the results cannot be read. See the Tenancy output.' };
        } else {
            try {
                // Checked all the same: the server may be another version than this extension.
                const result: unknown = await client.sendRequest(report, entry.ref);
                if (!isReportResult(result)) {
                    message = { type: 'error', message: `The language server answered the report request with an unexpected payload.` };
                } else if ('error' in result) {
                    message = { type: 'error', message: result.error };
                } else {
                    message = { type: 'report', report: result.report };
                }
            } catch (error) {
                message = { type: 'error', message: `Could not build the report: ${error instanceof Error ? error.message : String(error)}` };
            }
        }
        await entry.panel.webview.postMessage(message);
        if (message.type === 'error') {
            this.output.appendLine(`Report of ${entry.ref.workload}: ${message.message}`);
            this.failedEmitter.fire({ ref: entry.ref, message: message.message });
        }
    }

    dispose(): void {
        for (const entry of this.open.values()) entry.panel.dispose();
        this.renderedEmitter.dispose();
        this.failedEmitter.dispose();
    }
}
