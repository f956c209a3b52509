/**
 * The language client: starts the bundled server (out/language-server/main.cjs) over IPC,
 * with explicit failure handling — a failed initialisation or a crash loop is a visible error
 * message with the log one click away, never a silent restart loop.
 */
import * as vscode from 'vscode';
import {
    CloseAction, ErrorAction, LanguageClient, TransportKind,
    type LanguageClientOptions, type ServerOptions,
} from 'vscode-languageclient/node';
import { type TenancyInitializationOptions } from '../protocol/messages.js';
import type { Config } from './config.js';
import { RestartBudget } from './restart-budget.js';
import type { NodeCandidate } from './run.js';

export const languageId = 'tenancy';

/** Creates (not starts) the language client; the server runs on `node`, the Node the CLI runs on. */
export function createLanguageClient(
    context: vscode.ExtensionContext,
    output: vscode.LogOutputChannel,
    config: Config,
    node: NodeCandidate,
): LanguageClient {
    const module = context.asAbsolutePath('out/language-server/main.cjs');
    // The client forks the host's own runtime unless told otherwise (the tenancy.runtime.nodePath setting).
    const runtime = node.source === 'extension-host' ? undefined : node.command;
    const serverOptions: ServerOptions = {
        run: { module, transport: TransportKind.ipc, runtime },
        debug: { module, transport: TransportKind.ipc, runtime, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const budget = new RestartBudget();
    const initializationOptions: TenancyInitializationOptions = { resultsFolder: config.resultsFolder };
    const clientOptions: LanguageClientOptions = {
        documentSelector: [
            { scheme: 'file', language: languageId },
            { scheme: 'untitled', language: languageId },
        ],
        outputChannel: output,
        initializationOptions,
        initializationFailedHandler: error => {
            const detail = error instanceof Error ? error.message : String(error);
            output.appendLine(`Tenancy language server failed to initialize: ${detail}`);
            void showErrorWithLog(`Tenancy: the language server failed to start (${detail}). Language features are off until the window is reloaded.`, output);
            return false; // no retry: the same input fails the same way
        },
        errorHandler: {
            error: (error, _message, count) => {
                output.appendLine(`Tenancy language server connection error (${count ?? 1}): ${error.message}`);
                // A few transient errors are tolerated; a stream of them means the connection is gone.
                return { action: (count ?? 1) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
            },
            closed: () => {
                if (budget.tryRestart()) {
                    output.appendLine(`Tenancy language server stopped unexpectedly; restarting (${budget.recent} of 3 within 3 minutes).`);
                    return { action: CloseAction.Restart, handled: true };
                }
                void showErrorWithLog('Tenancy: the language server crashed 3 times in 3 minutes and will not be restarted. See the output for the cause, then reload the window.', output);
                return { action: CloseAction.DoNotRestart, handled: true };
            },
        },
    };
    return new LanguageClient('tenancy', 'Tenancy Language Server', serverOptions, clientOptions);
}

/** An error message with a button that opens the output channel. */
export async function showErrorWithLog(message: string, output: vscode.OutputChannel): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Show Log');
    if (choice === 'Show Log') output.show(true);
}
