/**
 * The extension's entry point: activate only. Wires the language client, commands, status
 * item, report panels and the results file watcher together. Measured figures are the
 * server's inlay hints (beside the predictions); the watcher makes the server refresh them.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
    deviceProfilePath, isMeasuredChangedParams, isWorkspaceStatusResult, MeasuredChangedNotification,
    type ResultsChangedParams, type ResultsFileChangeKind,
} from '../protocol/messages.js';
import { createLanguageClient, showErrorWithLog } from './client.js';
import { measuredChanged, resultsChanged, workspaceStatus } from './messages.js';
import { registerCommands, type ExtensionServices, type RunFinished } from './commands.js';
import { Config } from './config.js';
import { ReportPanels } from './report-view/panel.js';
import { queryAdapter, resolveCliNode, RunRegistry } from './run.js';
import { TenancyStatus } from './status.js';

/** What activate returns: used by the integration tests to observe the extension. */
export interface TenancyApi {
    client: () => LanguageClient | undefined;
    onRunFinished: vscode.Event<RunFinished>;
    reports: ReportPanels;
    status: TenancyStatus;
    /** Whether a workload has a run in progress. */
    isRunning: (uri: string, workload: string) => boolean;
}

let client: LanguageClient | undefined;
let runs: RunRegistry | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<TenancyApi> {
    const output = vscode.window.createOutputChannel('Tenancy', { log: true });
    const config = new Config(() => vscode.workspace.getConfiguration('tenancy'));
    const cliNode = () => resolveCliNode({
        configuredPath: vscode.workspace.isTrusted ? config.runtimeNodePath : undefined,
        execPath: process.execPath,
        versions: process.versions,
    });
    runs = new RunRegistry();
    const status = new TenancyStatus();
    const reports = new ReportPanels(context.extensionUri, () => client, output);
    const onRunFinished = new vscode.EventEmitter<RunFinished>();
    context.subscriptions.push(output, status, reports, onRunFinished);

    const api = (): TenancyApi => ({
        client: () => client, onRunFinished: onRunFinished.event, reports, status,
        isRunning: (uri, workload) => runs?.get(uri, workload) !== undefined,
    });
    const sendResultsChanged = async (changes: ResultsChangedParams['changes']) => {
        if (client?.isRunning()) await client.sendNotification(resultsChanged, { changes });
    };
    const notifyResults = (files: string[]) => sendResultsChanged(files.map(f => ({ uri: vscode.Uri.file(f).toString(), kind: 'changed' as const })));
    const services: ExtensionServices = { context, output, config, client: () => client, cliNode, runs, status, reports, notifyResults, onRunFinished };
    context.subscriptions.push(...registerCommands(services));
    void vscode.commands.executeCommand('setContext', 'tenancy.running', false);

    const node = cliNode();
    output.appendLine(`Tenancy ${String(context.extension.packageJSON.version)}: extension host Node ${process.versions.node}; `
        + ('error' in node ? `runtime: ${node.error}` : `runtime Node: ${node.command} (${node.source})`));
    if ('error' in node) {
        // The language server would crash on start-up on this Node: say why once, instead of a crash loop.
        void showErrorWithLog(`Tenancy: ${node.error}`, output);
        return api();
    }
    client = createLanguageClient(context, output, config, node);

    const refreshStatus = async () => {
        const editor = vscode.window.activeTextEditor;
        if (!client?.isRunning() || editor?.document.languageId !== 'tenancy') return;
        try {
            // Checked all the same: the server may be another version than this extension.
            const result: unknown = await client.sendRequest(workspaceStatus, { uri: editor.document.uri.toString() });
            status.update(isWorkspaceStatusResult(result) ? result : undefined);
        } catch (error) {
            output.appendLine(`Status request failed: ${error instanceof Error ? error.message : String(error)}`);
        }
    };

    // Results and the device profile change on disk (runs from here or from a terminal): forward to the server.
    const watchers = [
        vscode.workspace.createFileSystemWatcher(`**/${config.resultsFolder.replace(/^\.\//, '')}/**/*.json`),
        vscode.workspace.createFileSystemWatcher(`**/${deviceProfilePath}`),
    ];
    const forward = (kind: ResultsFileChangeKind) => (uri: vscode.Uri) => { void sendResultsChanged([{ uri: uri.toString(), kind }]); };
    for (const watcher of watchers) {
        context.subscriptions.push(watcher, watcher.onDidCreate(forward('created')), watcher.onDidChange(forward('changed')), watcher.onDidDelete(forward('deleted')));
    }

    context.subscriptions.push(
        vscode.window.onDidChangeActiveTextEditor(() => { void refreshStatus(); }),
        vscode.workspace.onDidChangeConfiguration(e => {
            if (e.affectsConfiguration('tenancy.results.folder')) {
                void vscode.window.showInformationMessage('Tenancy: reload the window to watch the new results folder.', 'Reload Window')
                    .then(choice => { if (choice) void vscode.commands.executeCommand('workbench.action.reloadWindow'); });
            }
        }),
        vscode.workspace.onDidGrantWorkspaceTrust(() => output.appendLine('Workspace trusted: running benchmarks is enabled.')),
    );

    try {
        await client.start();
    } catch (error) {
        // initializationFailedHandler already showed the cause; make sure activation failure is visible too.
        const detail = error instanceof Error ? error.message : String(error);
        output.appendLine(`Tenancy language server did not start: ${detail}`);
        void showErrorWithLog(`Tenancy: the language server did not start (${detail}).`, output);
        return api();
    }
    context.subscriptions.push(client.onNotification(measuredChanged, params => {
        if (!isMeasuredChangedParams(params)) {
            output.appendLine(`Unexpected ${MeasuredChangedNotification.method} payload: ${JSON.stringify(params)}`);
            return;
        }
        void reports.refreshAll();
        void refreshStatus();
    }));
    void refreshStatus();
    // The adapter for the status item before any run; GPU access, so only in a trusted workspace.
    const cliPath = context.asAbsolutePath('out/cli/main.mjs');
    if (vscode.workspace.isTrusted) {
        void queryAdapter(node, cliPath, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? context.extensionPath).then(probed => {
            output.appendLine(`tenancy devices: ${'adapter' in probed ? probed.adapter : probed.error}`);
            status.setProbedAdapter(probed);
        });
    }
    return api();
}

export async function deactivate(): Promise<void> {
    runs?.cancelAll();
    await client?.stop();
    client = undefined;
}
