/**
 * Every command of the extension, from one factory table registered as `tenancy.${name}`.
 * A command that cannot run says why (untrusted workspace, no Node for the CLI, no adapter)
 * instead of doing nothing. Lens payloads are asserted with the guards of src/protocol.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
    CommandIds, CommandNames, describePayload, isCompareRef, isTenantRef, isWorkloadRef,
    type CommandName, type CompareRef, type WorkloadRef,
} from '../protocol/commands.js';
import type { Config } from './config.js';
import type { ReportPanels } from './report-view/panel.js';
import { buildCompareArgs, buildRunArgs, CliRun, RunRegistry, type NodeCandidate, type RunEvent, type RunOutcome } from './run.js';
import type { TenancyStatus } from './status.js';
import { parseCalibrateProgressLine } from '../protocol/progress.js';

/** What the commands need from the running extension. */
export interface ExtensionServices {
    context: vscode.ExtensionContext;
    output: vscode.LogOutputChannel;
    config: Config;
    client: () => LanguageClient | undefined;
    cliNode: () => NodeCandidate | { error: string };
    runs: RunRegistry;
    status: TenancyStatus;
    reports: ReportPanels;
    /** Tells the server that these results or profile files changed (the file watcher may lag behind). */
    notifyResults: (files: string[]) => Promise<void>;
    /** Called after each run or comparison with its outcome (tests and the status item listen). */
    onRunFinished: vscode.EventEmitter<RunFinished>;
}

/** A finished measurement: a run of the workload (of one tenant, `tenant`) or a comparison of its schedules (`compare`). */
export interface RunFinished {
    ref: WorkloadRef;
    tenant?: string;
    compare?: boolean;
    outcome: RunOutcome;
}

type CommandFactory = (services: ExtensionServices) => (...args: unknown[]) => unknown;

const commandTable: Record<CommandName, CommandFactory> = {
    [CommandNames.runWorkload]: s => async (arg?: unknown) => {
        const ref = arg === undefined ? await pickWorkload(CommandIds.runWorkload) : arg;
        if (ref === undefined) return undefined;
        if (!isWorkloadRef(ref)) return badPayload(CommandIds.runWorkload, '{ uri, workload }', ref);
        return runWorkload(s, ref);
    },
    [CommandNames.runTenantSolo]: s => async (arg?: unknown) => {
        if (!isTenantRef(arg)) return badPayload(CommandIds.runTenantSolo, '{ uri, workload, tenant }', arg);
        return runWorkload(s, arg, arg.tenant);
    },
    [CommandNames.compareSchedules]: s => async (arg?: unknown) => {
        const ref = arg === undefined ? await pickWorkload(CommandIds.compareSchedules) : arg;
        if (ref === undefined) return undefined;
        if (!isCompareRef(ref)) return badPayload(CommandIds.compareSchedules, '{ uri, workload, schedules?: non-empty strings }', ref);
        return compareSchedules(s, ref);
    },
    [CommandNames.cancelRun]: s => async (arg?: unknown) => {
        if (arg !== undefined && !isWorkloadRef(arg)) return badPayload(CommandIds.cancelRun, '{ uri, workload }', arg);
        if (arg) {
            const run = s.runs.get(arg.uri, arg.workload);
            if (!run) return void vscode.window.showInformationMessage(`Tenancy: no run of ${arg.workload} is in progress.`);
            run.cancel();
            return undefined;
        }
        if (s.runs.size === 0) return void vscode.window.showInformationMessage('Tenancy: no run is in progress.');
        s.runs.cancelAll();
        return undefined;
    },
    [CommandNames.calibrateDevice]: s => async (arg?: unknown) => {
        const uri = typeof (arg as { uri?: unknown } | undefined)?.uri === 'string' ? (arg as { uri: string }).uri
            : vscode.window.activeTextEditor?.document.uri.toString();
        if (!uri) return void vscode.window.showWarningMessage('Tenancy: open a .tenancy file first; the device profile is stored in its workspace.');
        return calibrate(s, uri);
    },
    [CommandNames.showReport]: s => async (arg?: unknown) => {
        const ref = arg === undefined ? await pickWorkload(CommandIds.showReport) : arg;
        if (ref === undefined) return undefined;
        if (!isWorkloadRef(ref)) return badPayload(CommandIds.showReport, '{ uri, workload }', ref);
        await s.reports.show({ uri: ref.uri, workload: ref.workload });
        return undefined;
    },
    [CommandNames.showComparison]: s => async (arg?: unknown) => {
        const ref = arg === undefined ? await pickWorkload(CommandIds.showComparison) : arg;
        if (ref === undefined) return undefined;
        if (!isWorkloadRef(ref)) return badPayload(CommandIds.showComparison, '{ uri, workload }', ref);
        await s.reports.show({ uri: ref.uri, workload: ref.workload }, 'comparison');
        return undefined;
    },
    [CommandNames.openSweepResults]: s => async (arg?: unknown) => {
        // From the explorer or an editor's title: the file clicked; from the palette: a file or folder to pick.
        const picked = arg === undefined ? await pickSweep() : arg instanceof vscode.Uri ? arg.fsPath : arg;
        if (picked === undefined) return undefined;
        if (typeof picked !== 'string' || picked.length === 0) return badPayload(CommandIds.openSweepResults, 'a sweep folder or merged file (a path or a file URI)', picked);
        // A sweep's manifest stands for its folder, whose merged.json the server reads.
        await s.reports.showSweep(path.basename(picked) === 'sweep.json' ? path.dirname(picked) : picked);
        return undefined;
    },
    [CommandNames.showOutput]: s => () => s.output.show(true),
};

/** Registers every command of the table as `tenancy.${name}`. */
export function registerCommands(services: ExtensionServices): vscode.Disposable[] {
    return (Object.entries(commandTable) as [CommandName, CommandFactory][]).map(([name, factory]) =>
        vscode.commands.registerCommand(`tenancy.${name}`, factory(services)));
}

function badPayload(command: string, expected: string, found: unknown): undefined {
    void vscode.window.showErrorMessage(`Tenancy: ${command} expected arguments ${expected}, found ${describePayload(found)}.`);
    return undefined;
}

/** Without arguments (command palette): the workloads of the active editor, from the server's lenses. */
async function pickWorkload(command: string): Promise<WorkloadRef | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'tenancy') {
        void vscode.window.showWarningMessage('Tenancy: open a .tenancy file with a workload first.');
        return undefined;
    }
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri) ?? [];
    const workloads = [...new Set(lenses.map(l => l.command?.arguments?.[0]).filter(isWorkloadRef).map(r => r.workload))];
    if (workloads.length === 0) {
        void vscode.window.showWarningMessage(`Tenancy: ${path.basename(editor.document.fileName)} has no workload to use with ${command}.`);
        return undefined;
    }
    const workload = workloads.length === 1 ? workloads[0] : await vscode.window.showQuickPick(workloads, { placeHolder: `Workload for ${command}` });
    return workload ? { uri: editor.document.uri.toString(), workload } : undefined;
}

/** Asks for a sweep folder or the file tenancy merge wrote, starting in the workspace's `.tenancy/sweeps`. */
async function pickSweep(): Promise<string | undefined> {
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const sweeps = workspace ? path.join(workspace, '.tenancy', 'sweeps') : undefined;
    const chosen = await vscode.window.showOpenDialog({
        title: 'Open sweep results: a sweep folder (tenancy sweep) or the file tenancy merge wrote',
        canSelectFiles: true, canSelectFolders: true, canSelectMany: false, openLabel: 'Open Sweep Results',
        ...(sweeps && existsSync(sweeps) ? { defaultUri: vscode.Uri.file(sweeps) } : {}),
    });
    return chosen?.[0]?.fsPath;
}

/** Says why running is impossible, or returns the Node and CLI to run with. */
async function runPrerequisites(s: ExtensionServices, what: string): Promise<{ node: NodeCandidate; cliPath: string } | undefined> {
    if (!vscode.workspace.isTrusted) {
        const choice = await vscode.window.showWarningMessage(
            `Tenancy: ${what} is disabled in an untrusted workspace, because it executes the workload on this machine's GPU. Language features keep working. Trust the workspace to run.`,
            'Manage Workspace Trust');
        if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
        return undefined;
    }
    const node = s.cliNode();
    if ('error' in node) {
        const choice = await vscode.window.showErrorMessage(`Tenancy: ${node.error}`, 'Open Settings');
        if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'tenancy.runtime.nodePath');
        return undefined;
    }
    const cliPath = s.context.asAbsolutePath(path.join('out', 'cli', 'main.mjs'));
    if (!existsSync(cliPath)) {
        void vscode.window.showErrorMessage(`Tenancy: the runtime CLI ${cliPath} is missing; this installation is incomplete (build with npm run build, or reinstall the extension).`);
        return undefined;
    }
    return { node, cliPath };
}

function workspaceFolderPath(uri: vscode.Uri): string {
    return vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
}

/** Resolves `tenancy.results.folder`; undefined for the default, which the CLI and the server locate themselves. */
function resultsFolderFor(s: ExtensionServices, uri: vscode.Uri): string | undefined {
    const folder = s.config.resultsFolder;
    if (folder === '.tenancy/results') return undefined;
    return path.isAbsolute(folder) ? folder : path.join(workspaceFolderPath(uri), folder);
}

/** Runs a workload (or one tenant solo) in a child process, with a progress notification and Cancel. */
export async function runWorkload(s: ExtensionServices, ref: WorkloadRef, tenant?: string): Promise<RunOutcome | undefined> {
    return measure(s, ref, {
        label: tenant ? `${ref.workload} / ${tenant} (solo)` : ref.workload,
        finished: { ref, tenant },
        args: (cliPath, file, resultsFolder) => buildRunArgs({
            cliPath, file, workload: ref.workload, tenant,
            durationSeconds: s.config.runDurationSeconds, adapter: s.config.runAdapter, resultsFolder,
        }),
        report: 'run',
    });
}

/**
 * Measures a workload under its own schedule and others (`tenancy compare`) in a child process,
 * with a progress notification naming the schedule being measured, and Cancel (the CLI writes
 * what it measured). The others: the payload's, else the setting `tenancy.compare.schedules`,
 * else the CLI's default candidates.
 */
export async function compareSchedules(s: ExtensionServices, ref: CompareRef): Promise<RunOutcome | undefined> {
    const schedules = ref.schedules ?? s.config.compareSchedules;
    const workload: WorkloadRef = { uri: ref.uri, workload: ref.workload };
    return measure(s, workload, {
        label: `${ref.workload}: comparing schedules`,
        finished: { ref: workload, compare: true },
        args: (cliPath, file, resultsFolder) => buildCompareArgs({
            cliPath, file, workload: ref.workload, schedules,
            durationSeconds: s.config.runDurationSeconds, adapter: s.config.runAdapter, resultsFolder,
        }),
        report: 'comparison',
        // A schedule of the setting that the CLI cannot read is the setting's mistake, not a mismatch of extension and CLI.
        usageAdvice: !ref.schedules && schedules ? 'the setting tenancy.compare.schedules holds a schedule the runtime cannot read: fix it or clear it' : undefined,
    });
}

interface Measurement {
    /** Names it in the notification and the log (`quick_start / vision (solo)`). */
    label: string;
    /** What onRunFinished says of it. */
    finished: Omit<RunFinished, 'outcome'>;
    /** The CLI arguments, given the CLI, the .tenancy file and the results folder (undefined: the CLI's default). */
    args: (cliPath: string, file: string, resultsFolder: string | undefined) => string[];
    /** The report its results open in. */
    report: 'run' | 'comparison';
    /** Said with a usage failure (exit 64) instead of the generic advice. */
    usageAdvice?: string;
}

/**
 * Runs one measuring command of the CLI for a workload: one at a time per workload (they share
 * the GPU), from the saved file, in a child process with a progress notification and Cancel;
 * then tells the server about the new results and says how it went.
 */
async function measure(s: ExtensionServices, ref: WorkloadRef, m: Measurement): Promise<RunOutcome | undefined> {
    const existing = s.runs.get(ref.uri, ref.workload);
    if (existing) {
        const choice = await vscode.window.showInformationMessage(`Tenancy: ${ref.workload} is already running.`, 'Cancel It');
        if (choice) existing.cancel();
        return undefined;
    }
    const ready = await runPrerequisites(s, 'Running benchmarks');
    if (!ready) return undefined;
    const uri = vscode.Uri.parse(ref.uri);
    if (uri.scheme !== 'file') {
        void vscode.window.showWarningMessage('Tenancy: save the file to disk first; the runtime reads workloads from files.');
        return undefined;
    }
    // The CLI reads the file from disk: run what the user sees.
    const document = vscode.workspace.textDocuments.find(d => d.uri.toString() === ref.uri);
    if (document?.isDirty) await document.save();

    const label = m.label;
    const args = m.args(ready.cliPath, uri.fsPath, resultsFolderFor(s, uri));
    s.output.appendLine(`[${new Date().toLocaleTimeString()}] run ${label}: ${ready.node.command} ${args.join(' ')}`);
    const outcome = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: `Tenancy: ${label}`,
        cancellable: true,
    }, async (progress, token) => {
        let reported = 0;
        const run = new CliRun({
            node: ready.node, args, cwd: workspaceFolderPath(uri), usageAdvice: m.usageAdvice,
            onEvent: event => {
                logEvent(s.output, event);
                if (event.kind === 'progress') {
                    const percent = event.percent ?? reported;
                    progress.report({ message: `${event.message}${event.percent !== undefined ? ` — ${Math.round(percent)}%` : ''}`, increment: Math.max(0, percent - reported) });
                    reported = Math.max(reported, percent);
                }
            },
            onStderr: text => s.output.append(text),
        });
        s.runs.add(ref.uri, ref.workload, run);
        updateRunning(s);
        token.onCancellationRequested(() => {
            s.output.appendLine(`run ${label}: cancel requested, sending SIGTERM to ${run.pid}`);
            run.cancel();
        });
        try {
            return await run.done;
        } finally {
            setTimeout(() => updateRunning(s), 0);
        }
    });
    s.output.appendLine(`run ${label}: ${outcome.status}${outcome.status === 'failed' ? ` (${outcome.kind}, exit ${outcome.exitCode ?? outcome.signal})` : ''}`);
    if (outcome.status !== 'failed' && outcome.resultsPath) await s.notifyResults([outcome.resultsPath]);
    s.onRunFinished.fire({ ...m.finished, outcome });
    void reportOutcome(s, ref, label, outcome, m.report);
    return outcome;
}

function updateRunning(s: ExtensionServices): void {
    s.status.setRunning(s.runs.workloads());
    void vscode.commands.executeCommand('setContext', 'tenancy.running', s.runs.size > 0);
}

function logEvent(output: vscode.OutputChannel, event: RunEvent): void {
    if (event.kind === 'progress') output.appendLine(`  ${event.phase}: ${event.message}${event.percent !== undefined ? ` (${event.percent.toFixed(0)}%)` : ''}`);
    else if (event.kind === 'results') output.appendLine(`  results (${event.status}): ${event.path}`);
    else if (event.kind === 'log') output.appendLine(`  ${event.level}: ${event.message}`);
    else output.appendLine(`  ${event.line}`);
}


async function reportOutcome(s: ExtensionServices, ref: WorkloadRef, label: string, outcome: RunOutcome, report: 'run' | 'comparison' = 'run'): Promise<void> {
    if (outcome.status === 'succeeded') {
        const button = report === 'comparison' ? 'Show Comparison' : 'Show Report';
        const choice = await vscode.window.showInformationMessage(`Tenancy: ${label} finished.`, button);
        if (choice) await s.reports.show(ref, report);
        return;
    }
    if (outcome.status === 'cancelled') {
        void vscode.window.showInformationMessage(`Tenancy: ${label} was cancelled${outcome.resultsPath ? '; partial results were written' : ''}.`);
        return;
    }
    const buttons = outcome.kind === 'environment' ? ['Open Setup Guide', 'Show Log']
        : outcome.kind === 'input' ? ['Show Problems', 'Show Log'] : ['Show Log'];
    const choice = await vscode.window.showErrorMessage(`Tenancy: ${label} failed. ${outcome.message}`, ...buttons);
    if (choice === 'Show Log') s.output.show(true);
    else if (choice === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
    else if (choice === 'Open Setup Guide') await openSetupGuide(s);
}

/**
 * Opens the README's GPU setup section (shipped in the extension) in the Markdown preview. vsce
 * stores it as `readme.md`, the repository as `README.md`: found by name in either case, since
 * the file system may be case-sensitive.
 */
export async function openSetupGuide(s: ExtensionServices): Promise<void> {
    const entries = await vscode.workspace.fs.readDirectory(s.context.extensionUri);
    const name = entries.find(([n]) => n.toLowerCase() === 'readme.md')?.[0] ?? 'README.md';
    const readme = vscode.Uri.joinPath(s.context.extensionUri, name);
    await vscode.commands.executeCommand('markdown.showPreview', readme.with({ fragment: 'gpu-adapter-setup' }));
}

/** Runs `tenancy calibrate` for the document's workspace, with progress and Cancel. */
async function calibrate(s: ExtensionServices, documentUri: string): Promise<RunOutcome | undefined> {
    const ready = await runPrerequisites(s, 'Calibrating the device');
    if (!ready) return undefined;
    const uri = vscode.Uri.parse(documentUri);
    const cwd = workspaceFolderPath(uri);
    const args = [ready.cliPath, 'calibrate', '--workspace', cwd];
    if (s.config.runAdapter !== 'workload') args.push('--adapter', s.config.runAdapter);
    s.output.appendLine(`[${new Date().toLocaleTimeString()}] calibrate: ${ready.node.command} ${args.join(' ')} (in ${cwd})`);
    const outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Tenancy: calibrating the device', cancellable: true }, async (progress, token) => {
        let reported = 0;
        const run = new CliRun({
            node: ready.node, args, cwd,
            onEvent: event => logEvent(s.output, event),
            // calibrate reports its steps as lines on stderr: the latest one's percent moves the bar, its text is the message.
            onStderr: text => {
                s.output.append(text);
                const line = text.trim().split('\n').at(-1);
                if (!line) return;
                const step = parseCalibrateProgressLine(line);
                if (!step) return progress.report({ message: line.slice(0, 120) });
                progress.report({ message: `${step.message.slice(0, 110)} — ${step.percent}%`, increment: Math.max(0, step.percent - reported) });
                reported = Math.max(reported, step.percent);
            },
        });
        token.onCancellationRequested(() => run.cancel());
        return run.done;
    });
    s.output.appendLine(`calibrate: ${outcome.status}`);
    if (outcome.status === 'succeeded') {
        await s.notifyResults([path.join(cwd, '.tenancy', 'device-profile.json')]);
        void vscode.window.showInformationMessage('Tenancy: the device is calibrated; predictions now use its profile.');
    } else if (outcome.status === 'failed') {
        void reportOutcome(s, { uri: documentUri, workload: 'calibration' }, 'calibration', outcome);
    }
    return outcome;
}

