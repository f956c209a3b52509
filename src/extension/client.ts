/**
 * The language client: starts the bundled server (out/language-server/main.cjs) over IPC,
 * with explicit failure handling — a failed initialisation or a crash loop is a visible error
 * message with the log one click away, never a silent restart loop; every unexpected stop says
 * why, from the last lines the server wrote (./server-exit.ts).
 */
import * as vscode from 'vscode';
import {
    CloseAction, ErrorAction, LanguageClient, TransportKind,
    type LanguageClientOptions, type ServerOptions,
} from 'vscode-languageclient/node';
import { type TenancyInitializationOptions } from '../protocol/messages.js';
import type { Config } from './config.js';
import { RestartBudget } from './restart-budget.js';
import { ServerOutputTail, serverStoppedMessage } from './server-exit.js';
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
    const tail = new ServerOutputTail();
    const initializationOptions: TenancyInitializationOptions = { resultsFolder: config.resultsFolder };
    const clientOptions: LanguageClientOptions = {
        documentSelector: [
            { scheme: 'file', language: languageId },
            { scheme: 'untitled', language: languageId },
        ],
        outputChannel: recording(output, tail),
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
                // Why it stopped is in the last lines it wrote (an uncaught exception, "heap out of memory"): say it.
                const restarted = budget.tryRestart();
                const message = serverStoppedMessage(tail.cause(), { restarted, recent: budget.recent, max: budget.maxRestarts, windowMinutes: budget.windowMs / 60_000 });
                output.appendLine(message);
                if (restarted) {
                    void showWarningWithLog(message, output);
                    return { action: CloseAction.Restart, handled: true };
                }
                void showErrorWithLog(message, output);
                return { action: CloseAction.DoNotRestart, handled: true };
            },
        },
    };
    return new LanguageClient('tenancy', 'Tenancy Language Server', serverOptions, clientOptions);
}

/** The output channel, also recording what is written to it (the server's stderr and log) in `tail`. */
function recording(output: vscode.LogOutputChannel, tail: ServerOutputTail): vscode.LogOutputChannel {
    const recorded = new Set(['append', 'appendLine', 'error', 'warn', 'info', 'debug', 'trace']);
    return new Proxy(output, {
        get(target, property, receiver) {
            const value: unknown = Reflect.get(target, property, receiver);
            if (typeof value !== 'function') return value;
            if (typeof property === 'string' && recorded.has(property)) {
                return (...args: unknown[]) => {
                    tail.record(args.map(a => (a instanceof Error ? a.stack ?? a.message : String(a))).join(' '));
                    return (value as (...a: unknown[]) => unknown).apply(target, args);
                };
            }
            return (value as (...a: unknown[]) => unknown).bind(target);
        },
    });
}

/** A warning with a button that opens the output channel. */
async function showWarningWithLog(message: string, output: vscode.OutputChannel): Promise<void> {
    const choice = await vscode.window.showWarningMessage(message, 'Show Log');
    if (choice === 'Show Log') output.show(true);
}

/** An error message with a button that opens the output channel. */
export async function showErrorWithLog(message: string, output: vscode.OutputChannel): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Show Log');
    if (choice === 'Show Log') output.show(true);
}
