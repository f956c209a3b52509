/**
 * The report webview panels: per workload, a run's report (the {@link ReportModel} of its latest
 * results) and a comparison of its schedules (the {@link ComparisonReportModel} of its latest
 * comparison), both built by the language server, drawn by the same webview script, refreshed
 * when the results change.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { WorkloadRef } from '../../protocol/commands.js';
import { isComparisonReportResult } from '../../protocol/comparison-report.js';
import { isReportResult, isReportViewReply, type ReportViewMessage } from '../../protocol/report.js';
import { comparisonReport, report } from '../messages.js';
import { makeNonce, reportHtml } from './html.js';

/** Which report of a workload: its latest run's, or its latest comparison of schedules. */
export type ReportKind = 'run' | 'comparison';

interface OpenReport {
    panel: vscode.WebviewPanel;
    ref: WorkloadRef;
    kind: ReportKind;
    ready: boolean;
    /** Charts the webview said it drew (tests read it). */
    rendered: string[] | undefined;
}

export class ReportPanels implements vscode.Disposable {
    private readonly open = new Map<string, OpenReport>();
    private readonly renderedEmitter = new vscode.EventEmitter<{ ref: WorkloadRef; kind: ReportKind; charts: string[] }>();
    /** Fires when a webview has drawn a report. */
    readonly onDidRender = this.renderedEmitter.event;
    private readonly failedEmitter = new vscode.EventEmitter<{ ref: WorkloadRef; kind: ReportKind; message: string }>();
    /** Fires when a report could not be shown (no results, unreadable results, no server). */
    readonly onDidFail = this.failedEmitter.event;

    constructor(
        private readonly extensionUri: vscode.Uri,
        private readonly client: () => LanguageClient | undefined,
        private readonly output: vscode.OutputChannel,
    ) {}

    private static key(ref: WorkloadRef, kind: ReportKind): string {
        return `${kind}:${ref.uri}#${ref.workload}`;
    }

    /** Opens (or reveals) a report of a workload and loads its latest results (or comparison). */
    async show(ref: WorkloadRef, kind: ReportKind = 'run'): Promise<void> {
        const key = ReportPanels.key(ref, kind);
        const existing = this.open.get(key);
        if (existing) {
            existing.panel.reveal(undefined, false);
            await this.load(existing);
            return;
        }
        const scriptRoot = vscode.Uri.joinPath(this.extensionUri, 'out', 'report-view');
        const title = kind === 'comparison' ? `Schedules: ${ref.workload}` : `Report: ${ref.workload}`;
        const panel = vscode.window.createWebviewPanel(kind === 'comparison' ? 'tenancy.comparison' : 'tenancy.report', title, vscode.ViewColumn.Beside, {
            enableScripts: true,
            localResourceRoots: [scriptRoot],
            retainContextWhenHidden: true,
        });
        const entry: OpenReport = { panel, ref, kind, ready: false, rendered: undefined };
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
                this.renderedEmitter.fire({ ref, kind, charts: message.charts });
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
    rendered(ref: WorkloadRef, kind: ReportKind = 'run'): string[] | undefined {
        return this.open.get(ReportPanels.key(ref, kind))?.rendered;
    }

    private async load(entry: OpenReport): Promise<void> {
        if (!entry.ready) return; // the webview asks when its script is up
        const client = this.client();
        let message: ReportViewMessage;
        if (!client || !client.isRunning()) {
            message = { type: 'error', message: 'The Tenancy language server is not running, so the results cannot be read. See the Tenancy output.' };
        } else {
            try {
                message = entry.kind === 'comparison' ? await this.requestComparison(client, entry.ref) : await this.requestReport(client, entry.ref);
            } catch (error) {
                message = { type: 'error', message: `Could not build the report: ${error instanceof Error ? error.message : String(error)}` };
            }
        }
        await entry.panel.webview.postMessage(message);
        if (message.type === 'error') {
            this.output.appendLine(`Report of ${entry.ref.workload}: ${message.message}`);
            this.failedEmitter.fire({ ref: entry.ref, kind: entry.kind, message: message.message });
        }
    }

    private async requestReport(client: LanguageClient, ref: WorkloadRef): Promise<ReportViewMessage> {
        // Checked all the same: the server may be another version than this extension.
        const result: unknown = await client.sendRequest(report, ref);
        if (!isReportResult(result)) return { type: 'error', message: 'The language server answered the report request with an unexpected payload.' };
        return 'error' in result ? { type: 'error', message: result.error } : { type: 'report', report: result.report };
    }

    private async requestComparison(client: LanguageClient, ref: WorkloadRef): Promise<ReportViewMessage> {
        const result: unknown = await client.sendRequest(comparisonReport, ref);
        if (!isComparisonReportResult(result)) return { type: 'error', message: 'The language server answered the comparison request with an unexpected payload.' };
        return 'error' in result ? { type: 'error', message: result.error } : { type: 'comparison', comparison: result.comparison };
    }

    dispose(): void {
        for (const entry of this.open.values()) entry.panel.dispose();
        this.renderedEmitter.dispose();
        this.failedEmitter.dispose();
    }
}
