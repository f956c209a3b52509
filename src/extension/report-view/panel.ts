/**
 * The report webview panels: per workload, a run's report (the {@link ReportModel} of its latest
 * results) and a comparison of its schedules (the {@link ComparisonReportModel} of its latest
 * comparison); per sweep, its merged comparisons (the {@link SweepReportModel} of `tenancy
 * merge`'s file). All are built by the language server, drawn by the same webview script and
 * refreshed when the results change.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { WorkloadRef } from '../../protocol/commands.js';
import { isComparisonReportResult } from '../../protocol/comparison-report.js';
import { isReportResult, isReportViewReply, type ReportViewMessage } from '../../protocol/report.js';
import { isSweepReportResult } from '../../protocol/sweep-report.js';
import { comparisonReport, report, sweepReport } from '../messages.js';
import { makeNonce, reportHtml } from './html.js';

/** Which report of a workload: its latest run's, or its latest comparison of schedules. */
export type ReportKind = 'run' | 'comparison';

/** What a panel shows: a report of a workload, or a merged sweep (a sweep folder or the file tenancy merge wrote). */
export type ReportTarget = { kind: ReportKind; ref: WorkloadRef } | { kind: 'sweep'; path: string };

interface OpenReport {
    panel: vscode.WebviewPanel;
    target: ReportTarget;
    ready: boolean;
    /** Charts the webview said it drew (tests read it). */
    rendered: string[] | undefined;
}

export class ReportPanels implements vscode.Disposable {
    private readonly open = new Map<string, OpenReport>();
    private readonly renderedEmitter = new vscode.EventEmitter<{ target: ReportTarget; charts: string[] }>();
    /** Fires when a webview has drawn a report. */
    readonly onDidRender = this.renderedEmitter.event;
    private readonly failedEmitter = new vscode.EventEmitter<{ target: ReportTarget; message: string }>();
    /** Fires when a report could not be shown (no results, unreadable results, no server). */
    readonly onDidFail = this.failedEmitter.event;

    constructor(
        private readonly extensionUri: vscode.Uri,
        private readonly client: () => LanguageClient | undefined,
        private readonly output: vscode.OutputChannel,
    ) {}

    private static key(target: ReportTarget): string {
        return target.kind === 'sweep' ? `sweep:${target.path}` : `${target.kind}:${target.ref.uri}#${target.ref.workload}`;
    }

    /** Opens (or reveals) a report of a workload and loads its latest results (or comparison). */
    async show(ref: WorkloadRef, kind: ReportKind = 'run'): Promise<void> {
        await this.showTarget({ kind, ref });
    }

    /** Opens (or reveals) the merged comparisons of a sweep: a sweep folder, or the file tenancy merge wrote. */
    async showSweep(path: string): Promise<void> {
        await this.showTarget({ kind: 'sweep', path });
    }

    private async showTarget(target: ReportTarget): Promise<void> {
        const key = ReportPanels.key(target);
        const existing = this.open.get(key);
        if (existing) {
            existing.panel.reveal(undefined, false);
            await this.load(existing);
            return;
        }
        const scriptRoot = vscode.Uri.joinPath(this.extensionUri, 'out', 'report-view');
        const title = target.kind === 'sweep' ? `Sweep: ${target.path.split(/[\\/]/).filter(Boolean).at(-1) ?? target.path}`
            : target.kind === 'comparison' ? `Schedules: ${target.ref.workload}` : `Report: ${target.ref.workload}`;
        const panel = vscode.window.createWebviewPanel(`tenancy.${target.kind === 'run' ? 'report' : target.kind}`, title, vscode.ViewColumn.Beside, {
            enableScripts: true,
            localResourceRoots: [scriptRoot],
            retainContextWhenHidden: true,
        });
        const entry: OpenReport = { panel, target, ready: false, rendered: undefined };
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
                this.renderedEmitter.fire({ target, charts: message.charts });
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
        return this.open.get(ReportPanels.key({ kind, ref }))?.rendered;
    }

    private async load(entry: OpenReport): Promise<void> {
        if (!entry.ready) return; // the webview asks when its script is up
        const client = this.client();
        let message: ReportViewMessage;
        if (!client || !client.isRunning()) {
            message = { type: 'error', message: 'The Tenancy language server is not running, so the results cannot be read. See the Tenancy output.' };
        } else {
            try {
                const target = entry.target;
                message = target.kind === 'sweep' ? await this.requestSweep(client, target.path)
                    : target.kind === 'comparison' ? await this.requestComparison(client, target.ref) : await this.requestReport(client, target.ref);
            } catch (error) {
                message = { type: 'error', message: `Could not build the report: ${error instanceof Error ? error.message : String(error)}` };
            }
        }
        await entry.panel.webview.postMessage(message);
        if (message.type === 'error') {
            this.output.appendLine(`${entry.target.kind === 'sweep' ? `Sweep ${entry.target.path}` : `Report of ${entry.target.ref.workload}`}: ${message.message}`);
            this.failedEmitter.fire({ target: entry.target, message: message.message });
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

    private async requestSweep(client: LanguageClient, path: string): Promise<ReportViewMessage> {
        const result: unknown = await client.sendRequest(sweepReport, { path });
        if (!isSweepReportResult(result)) return { type: 'error', message: 'The language server answered the sweep report request with an unexpected payload.' };
        return 'error' in result ? { type: 'error', message: result.error } : { type: 'sweep', sweep: result.sweep };
    }

    dispose(): void {
        for (const entry of this.open.values()) entry.panel.dispose();
        this.renderedEmitter.dispose();
        this.failedEmitter.dispose();
    }
}
