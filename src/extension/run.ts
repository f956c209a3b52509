/**
 * Runs the Tenancy CLI (`tenancy run|compare … --progress jsonl`) in a child process — never in the
 * extension host or the language server, because GPU work can hang, crash or take minutes.
 * This module is free of `vscode` so that the process handling, progress parsing and exit
 * code interpretation are unit-tested; commands.ts puts a progress notification on top.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { exitCodes } from '../protocol/exit-codes.js';
import { adapterDisplayName } from '../protocol/adapter.js';
import { isProgressEvent, type ProgressEvent, type RunPhase } from '../protocol/progress.js';
import type { RunAdapterSetting } from './config.js';

/**
 * The minimum Node major version the CLI and the language server run on (Langium 4.4's parser,
 * chevrotain 12, calls Object.groupBy). VS Code's extension host has run Node 22 since 1.101,
 * the `engines.vscode` floor in package.json, so the host's own runtime is always enough there.
 */
export const minimumCliNodeMajor = 22;

export interface NodeCandidate {
    /** Executable to spawn. */
    command: string;
    /** Extra environment (ELECTRON_RUN_AS_NODE for an Electron host). */
    env: Record<string, string>;
    /** Where it came from, for the output channel. */
    source: 'setting' | 'extension-host';
}

export interface NodeResolutionInput {
    /** `tenancy.runtime.nodePath`, if set (and the workspace is trusted). */
    configuredPath?: string;
    /** `process.execPath` of the extension host. */
    execPath: string;
    /** `process.versions` of the extension host. */
    versions: { node: string; electron?: string };
    /** File existence check (injected for tests). */
    exists?: (file: string) => boolean;
}

/**
 * Picks the Node that runs the CLI (and the language server): the `tenancy.runtime.nodePath`
 * setting; else the extension host's own runtime when it is Node >= 22 (VS Code >= 1.101 through
 * ELECTRON_RUN_AS_NODE, code-server, VS Code Server). Returns an error message saying what was
 * found and what to do when neither fits (an editor that claims VS Code's API on an older Node).
 */
export function resolveCliNode(input: NodeResolutionInput): NodeCandidate | { error: string } {
    const exists = input.exists ?? existsSync;
    if (input.configuredPath) {
        if (!exists(input.configuredPath)) {
            return { error: `The setting tenancy.runtime.nodePath names ${input.configuredPath}, which does not exist. Point it at a Node ${minimumCliNodeMajor} or later executable, or clear it.` };
        }
        return { command: input.configuredPath, env: {}, source: 'setting' };
    }
    const major = Number.parseInt(input.versions.node.split('.')[0] ?? '', 10);
    if (major >= minimumCliNodeMajor) {
        // In desktop VS Code execPath is the Electron binary; this variable makes it plain Node.
        const env: Record<string, string> = input.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
        return { command: input.execPath, env, source: 'extension-host' };
    }
    return {
        error: `Tenancy needs Node ${minimumCliNodeMajor} or later, and this editor's extension host runs Node ${input.versions.node} (VS Code runs Node 22 from version 1.101). `
            + `Update the editor, or install Node ${minimumCliNodeMajor}+, set tenancy.runtime.nodePath to it (in a trusted workspace) and reload the window.`,
    };
}

export interface RunRequest {
    /** Absolute path of the CLI bundle (out/cli/main.mjs). */
    cliPath: string;
    /** Absolute path of the .tenancy file. */
    file: string;
    workload: string;
    /** Run only this tenant (a solo run). */
    tenant?: string;
    durationSeconds?: number;
    adapter?: RunAdapterSetting;
    /** Absolute results folder. */
    resultsFolder?: string;
}

/** The CLI arguments of one run (after the node executable). */
export function buildRunArgs(request: RunRequest): string[] {
    const args = [request.cliPath, 'run', request.file, '--workload', request.workload, '--progress', 'jsonl'];
    if (request.tenant) args.push('--tenant', request.tenant);
    if (request.durationSeconds !== undefined) args.push('--duration', `${request.durationSeconds}s`);
    if (request.adapter && request.adapter !== 'workload') args.push('--adapter', request.adapter);
    if (request.resultsFolder) args.push('--results-dir', request.resultsFolder);
    return args;
}

export interface CompareRequest {
    /** Absolute path of the CLI bundle (out/cli/main.mjs). */
    cliPath: string;
    /** Absolute path of the .tenancy file. */
    file: string;
    workload: string;
    /** The schedules beside the workload's own, as written after `schedule`; none: the CLI's default candidates. */
    schedules?: readonly string[];
    durationSeconds?: number;
    adapter?: RunAdapterSetting;
    /** Absolute results folder. */
    resultsFolder?: string;
}

/** The CLI arguments of one comparison of schedules (after the node executable). */
export function buildCompareArgs(request: CompareRequest): string[] {
    const args = [request.cliPath, 'compare', request.file, '--workload', request.workload, '--progress', 'jsonl'];
    // The CLI splits the list at top-level commas, so schedule arguments keep theirs.
    if (request.schedules && request.schedules.length > 0) args.push('--schedules', request.schedules.join(', '));
    if (request.durationSeconds !== undefined) args.push('--duration', `${request.durationSeconds}s`);
    if (request.adapter && request.adapter !== 'workload') args.push('--adapter', request.adapter);
    if (request.resultsFolder) args.push('--results-dir', request.resultsFolder);
    return args;
}

/** One event of a run as the extension shows it. */
export type RunEvent =
    | { kind: 'progress'; phase: string; message: string; /** 0–100, when known. */ percent?: number }
    | { kind: 'results'; path: string; cancelled: boolean; status: 'complete' | 'partial' | 'cancelled' | 'failed' }
    | { kind: 'log'; level: 'info' | 'warning' | 'error'; message: string }
    | { kind: 'unparsed'; line: string; reason: string };

const phaseTitles: Record<RunPhase, string> = {
    tune: 'Tuning kernels',
    compile: 'Compiling kernels',
    solo: 'Measuring solo',
    corun: 'Co-running tenants',
    report: 'Writing results',
};

type PhaseEvent = Extract<ProgressEvent, { type: 'phase' }>;

/** What a phase is doing, in words: `Measuring solo (vision)`, `Co-running tenants under concurrent at 1.50× load`. */
function phaseMessage(phase: RunPhase, detail: Pick<PhaseEvent, 'tenant' | 'schedule' | 'load'> = {}): string {
    return `${phaseTitles[phase]}${detail.tenant ? ` (${detail.tenant})` : ''}${detail.schedule ? ` under ${detail.schedule}` : ''}`
        + (detail.load !== undefined ? ` at ${detail.load.toFixed(2)}× load` : '');
}

/**
 * Reads the stdout lines of one `tenancy run|compare|capacity --progress jsonl` process
 * (src/protocol/progress.ts) into {@link RunEvent}s. It remembers the latest phase, because only
 * a `phase` event names the schedule being measured (compare) or the load probed (capacity):
 * the `progress` events of that phase say it too. Lines that are not progress events become
 * `unparsed` (shown in the output channel, never thrown): a stray console.log in the runtime must
 * not abort a run.
 */
export class ProgressReader {
    private phase: PhaseEvent | undefined;

    /** One line; undefined for a blank one. */
    read(line: string): RunEvent | undefined {
        const text = line.trim();
        if (text === '') return undefined;
        let value: unknown;
        try {
            value = JSON.parse(text);
        } catch {
            return { kind: 'unparsed', line: text, reason: 'not JSON' };
        }
        if (!isProgressEvent(value)) {
            const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
            return { kind: 'unparsed', line: text, reason: type === undefined ? 'not a progress event' : `not a valid ${JSON.stringify(type)} event` };
        }
        if (value.type === 'phase') this.phase = value;
        return toRunEvent(value, this.phase);
    }
}

/** Parses one stdout line on its own (no earlier phase to take a schedule from): see {@link ProgressReader}. */
export function parseProgressLine(line: string): RunEvent | undefined {
    return new ProgressReader().read(line);
}

/** What the extension shows for one progress event; `phase` is the latest phase event, whose schedule or load a progress event of that phase shares. */
export function toRunEvent(event: ProgressEvent, phase?: PhaseEvent): RunEvent {
    switch (event.type) {
        case 'start':
            return { kind: 'progress', phase: 'start', percent: 0,
                message: `${event.tenants.length} tenant${event.tenants.length === 1 ? '' : 's'}, ${event.policy}${event.adapter ? ` on ${event.adapter}` : ''}` };
        case 'phase':
            return { kind: 'progress', phase: event.phase, message: phaseMessage(event.phase, event) };
        case 'progress': {
            const same = phase && phase.phase === event.phase && phase.tenant === event.tenant;
            return { kind: 'progress', phase: event.phase, percent: Math.min(100, Math.max(0, event.fraction * 100)),
                message: phaseMessage(event.phase, same ? phase : event) };
        }
        case 'result':
            return { kind: 'results', path: event.resultsFile, cancelled: event.status === 'cancelled', status: event.status };
        case 'error':
            return { kind: 'log', level: 'error', message: event.opPath ? `${event.opPath}: ${event.message}` : event.message };
    }
}

export type RunFailureKind = 'environment' | 'input' | 'usage' | 'internal' | 'crash' | 'spawn';

export type RunOutcome =
    | { status: 'succeeded'; resultsPath?: string }
    | { status: 'cancelled'; resultsPath?: string }
    | { status: 'failed'; kind: RunFailureKind; exitCode: number | null; signal: string | null; message: string; stderrTail: string };

/** Maps a finished child's exit to an outcome; `cancelRequested` turns a SIGTERM exit into `cancelled`. */
export function interpretExit(exit: {
    code: number | null;
    signal: NodeJS.Signals | null;
    cancelRequested: boolean;
    resultsPath?: string;
    stderrTail: string;
    /** The message of the CLI's last `error` progress event, which explains better than stderr. */
    errorMessage?: string;
    /** What to advise when the CLI rejects its command line (exit 64), when the user's input made it. */
    usageAdvice?: string;
}): RunOutcome {
    const { code, signal, cancelRequested, resultsPath, stderrTail } = exit;
    if (code === exitCodes.ok) return { status: 'succeeded', resultsPath };
    if (cancelRequested && (code === exitCodes.cancelled || signal === 'SIGTERM' || signal === 'SIGKILL')) {
        return { status: 'cancelled', resultsPath };
    }
    const lastLine = exit.errorMessage ?? stderrTail.trim().split('\n').at(-1) ?? '';
    // The CLI's own explanation first; the generic advice after it.
    const explain = (generic: string) => lastLine ? `${lastLine} (${generic})` : generic;
    const base = { exitCode: code, signal, stderrTail };
    if (code === exitCodes.environment) {
        return { ...base, status: 'failed', kind: 'environment', message: explain('no usable GPU adapter, or the environment cannot run the benchmark: see the setup guide') };
    }
    if (code === exitCodes.inputErrors) {
        return { ...base, status: 'failed', kind: 'input', message: explain('the runtime rejected the workload: fix the problems shown in the editor and run again') };
    }
    if (code === exitCodes.usage) {
        return { ...base, status: 'failed', kind: 'usage', message: explain(exit.usageAdvice ?? 'the runtime rejected the command line: does the extension match its CLI?') };
    }
    if (code === exitCodes.cancelled) {
        return { status: 'cancelled', resultsPath };
    }
    if (code === exitCodes.internal) {
        return { ...base, status: 'failed', kind: 'internal', message: explain('an internal error in the runtime') };
    }
    const detail = lastLine ? `: ${lastLine}` : '';
    return {
        ...base, status: 'failed', kind: 'crash',
        message: signal ? `The runtime process was killed by ${signal}${detail}` : `The runtime exited with code ${code}${detail}`,
    };
}

export interface CliRunOptions {
    node: NodeCandidate;
    args: string[];
    cwd: string;
    /** Receives every parsed event. */
    onEvent: (event: RunEvent) => void;
    /** Receives stderr text as it arrives (for the output channel). */
    onStderr: (text: string) => void;
    /** Grace period between SIGTERM and SIGKILL on cancel. */
    killAfterMs?: number;
    /** What to advise when the CLI rejects its command line (see interpretExit). */
    usageAdvice?: string;
    /** Injected for tests. */
    spawnProcess?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
}

/** One running CLI child: its events, its outcome, and a working cancel. */
export class CliRun {
    readonly done: Promise<RunOutcome>;
    private readonly child: ChildProcess;
    private cancelRequested = false;
    private killTimer: NodeJS.Timeout | undefined;

    constructor(private readonly options: CliRunOptions) {
        const spawnProcess = options.spawnProcess ?? spawn;
        this.child = spawnProcess(options.node.command, options.args, {
            cwd: options.cwd,
            env: { ...process.env, ...options.node.env },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        this.done = this.watch();
    }

    /** The child's process id (undefined if the spawn failed). */
    get pid(): number | undefined {
        return this.child.pid;
    }

    /** Asks the run to stop: SIGTERM (the CLI writes partial results marked cancelled), SIGKILL after a grace period. */
    cancel(): void {
        if (this.cancelRequested || this.child.exitCode !== null || this.child.signalCode !== null) return;
        this.cancelRequested = true;
        this.child.kill('SIGTERM');
        this.killTimer = setTimeout(() => this.child.kill('SIGKILL'), this.options.killAfterMs ?? 10_000);
    }

    private watch(): Promise<RunOutcome> {
        const progress = new ProgressReader();
        let stderrTail = '';
        let errorMessage: string | undefined;
        let resultsPath: string | undefined;
        const handle = (line: string) => {
            const event = progress.read(line);
            if (!event) return;
            if (event.kind === 'results') resultsPath = event.path;
            // The CLI's own explanation beats the last stderr line in the failure message.
            if (event.kind === 'log' && event.level === 'error') errorMessage = event.message;
            this.options.onEvent(event);
        };
        // readline keeps a line split across chunks until its newline (or the stream's end, which
        // comes before the child's 'close'), and strips \r\n as well as \n.
        if (this.child.stdout) createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', handle);
        this.child.stderr?.setEncoding('utf8');
        this.child.stderr?.on('data', (chunk: string) => {
            stderrTail = (stderrTail + chunk).slice(-4000);
            this.options.onStderr(chunk);
        });
        return new Promise<RunOutcome>(resolve => {
            let settled = false;
            this.child.on('error', error => {
                if (settled) return;
                settled = true;
                clearTimeout(this.killTimer);
                resolve({
                    status: 'failed', kind: 'spawn', exitCode: null, signal: null, stderrTail,
                    message: `Could not start ${this.options.node.command}: ${error.message}`,
                });
            });
            this.child.on('close', (code, signal) => {
                if (settled) return;
                settled = true;
                clearTimeout(this.killTimer);
                resolve(interpretExit({ code, signal, cancelRequested: this.cancelRequested, resultsPath, stderrTail, errorMessage, usageAdvice: this.options.usageAdvice }));
            });
        });
    }
}

/** Keeps at most one run per workload (key: document URI + workload name). */
export class RunRegistry {
    private readonly runs = new Map<string, CliRun>();

    static key(uri: string, workload: string): string {
        return `${uri}#${workload}`;
    }

    get(uri: string, workload: string): CliRun | undefined {
        return this.runs.get(RunRegistry.key(uri, workload));
    }

    /** Registers a run; throws if that workload already has one (callers check {@link get} first). */
    add(uri: string, workload: string, run: CliRun): void {
        const key = RunRegistry.key(uri, workload);
        if (this.runs.has(key)) throw new Error(`A run of workload ${workload} is already in progress`);
        this.runs.set(key, run);
        void run.done.finally(() => {
            if (this.runs.get(key) === run) this.runs.delete(key);
        });
    }

    /** Cancels every run (on deactivate). */
    cancelAll(): void {
        for (const run of this.runs.values()) run.cancel();
    }

    get size(): number {
        return this.runs.size;
    }

    /** Names of the workloads running now. */
    workloads(): string[] {
        return [...this.runs.keys()].map(key => key.slice(key.lastIndexOf('#') + 1));
    }
}

/**
 * The adapter `tenancy devices --json` finds (for the status item before any run), named as
 * the editor names adapters; or why there is none. A child process like every GPU access.
 */
export function queryAdapter(node: NodeCandidate, cliPath: string, cwd: string, timeoutMs = 30_000): Promise<{ adapter: string } | { error: string }> {
    return new Promise(resolve => {
        execFile(node.command, [cliPath, 'devices', '--json'], { cwd, env: { ...process.env, ...node.env }, timeout: timeoutMs, maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
            let adapters: unknown;
            try {
                adapters = JSON.parse(stdout);
            } catch {
                adapters = undefined;
            }
            const first = Array.isArray(adapters) ? adapters[0] as { info?: unknown } | undefined : undefined;
            const name = adapterDisplayName(first?.info);
            if (name) return resolve({ adapter: name });
            const code = (error as { code?: unknown } | null)?.code;
            const why = code === exitCodes.environment || (Array.isArray(adapters) && adapters.length === 0) ? 'no WebGPU adapter'
                : `tenancy devices failed${typeof code === 'number' ? ` (exit ${code})` : error ? ` (${error.message})` : ''}`;
            resolve({ error: `${why}${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1)}` : ''}` });
        });
    });
}
