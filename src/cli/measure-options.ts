/**
 * What the measuring commands (`tenancy run`, `compare`, `capacity`) share: their input (a
 * .tenancy file or workload IR), the measurement flags, cancellation by SIGINT/SIGTERM, the
 * progress they print (jsonl on stdout, or one line on a terminal) and how a failure maps to an
 * exit code. Each command adds only what it does with the measurement.
 */
import type { MeasurementOverrides as RoundsOverrides } from '../runtime/execute/rounds.js';
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { exitCodes } from '../protocol/exit-codes.js';
import type { AdapterPreference } from '../protocol/adapter.js';
import { PROGRESS_PROTOCOL_VERSION, type ProgressEvent } from '../protocol/progress.js';
import { formatMs } from '../protocol/units.js';
import { IrValidationError, parseWorkloadIr } from '../runtime/ir/validate.js';
import type { WorkloadIR } from '../runtime/ir/types.js';
import { NoAdapterError } from '../runtime/gpu/adapter.js';
import { CompileError } from '../runtime/plan/tenant-plan.js';
import { MemoryLimitError } from '../runtime/plan/memory.js';
import { ScheduleNotImplementedError } from '../runtime/schedule/policy.js';
import { IncompatibleSchedulesError } from '../runtime/execute/compare.js';
import type { RunEvent } from '../runtime/execute/events.js';
import type { RunWorkloadOptions } from '../runtime/execute/run.js';
import { ResultsWriteError, sourcePathOf, workspaceFolderOf, writeResultsFiles, type ResultsPaths } from '../runtime/report/write.js';
import { locateProfile, type LocatedProfile } from '../runtime/predict/profile-store.js';
import { loadTuningCache } from '../runtime/tune/cache.js';
import { loadCoTunedCache } from '../runtime/tune/co-tuned-cache.js';
import type { DeviceProfile } from '../runtime/predict/profile.js';
import { adapterOptionHelp, parseAdapterOption } from './adapter-option.js';
import { loadWorkloadIr, WorkspaceInputError } from './load-workspace.js';
import { stderrIsTerminal } from './filtered-stderr.js';

/** A mistake in the command line (exit 64). */
export class UsageError extends Error {}
/** A problem with the input file (exit 1). */
export class InputError extends Error {}

/** Parses "5s", "250ms", "1.5s", "2m" or a bare number of seconds into ms. */
export function parseDuration(text: string, flag = '--duration/--warmup'): number {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
    if (!m) throw new UsageError(`${flag} must look like 5s, 250ms or 2m; found '${text}'`);
    const v = Number(m[1]);
    return m[2] === 'ms' ? v : m[2] === 'm' ? v * 60_000 : v * 1000;
}

/** A positive integer option, or a usage error naming it. */
export function positiveInt(text: string, flag: string): number {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer; found '${text}'`);
    return n;
}

/** The flags every measuring command takes. */
export interface MeasureFlags {
    ir?: string;
    workload?: string;
    tenant?: string[];
    duration?: string;
    warmup?: string;
    requests?: string;
    rounds?: string;
    budget?: string;
    minRequests?: string;
    json?: boolean;
    progress?: string;
    adapter?: string;
    fusion: boolean;
    timing: string;
    /** true → measure missing signatures; false → ignore the tuning cache; undefined → use it. */
    tune?: boolean;
}

/** Adds the measuring flags to a command (each command adds its own after). */
export function addMeasureOptions(command: Command): Command {
    return addMeasurementFlags(command
        .argument('[file]', 'the .tenancy file (or workload IR JSON, as with --ir)')
        .option('--ir <file.json>', 'read workload IR JSON (as written by `tenancy ir`) instead of a .tenancy file')
        .option('-w, --workload <name>', 'the workload (required when the file has several)')
        .option('--tenant <name...>', 'only these tenants'))
        .option('--json', 'print the JSON document on stdout (the table goes to stderr)')
        .option('--progress <format>', 'progress events on stdout: jsonl (the table goes to stderr)')
        .option('--tune', 'before measuring, time the kernel variants of ops the tuning cache lacks and remember the fastest (cache per adapter in $XDG_CACHE_HOME/tenancy/tuning)')
        .option('--no-tune', 'ignore the tuning cache: every op uses its default variant');
}

/** The flags that say how to measure (overrides of the benchmark block, adapter, fusion, timing): the measuring commands' and `tenancy sweep`'s. */
export function addMeasurementFlags(command: Command): Command {
    return command
        .option('--duration <time>', 'measured time per phase, e.g. 5s or 500ms (overrides the benchmark block)')
        .option('--warmup <time>', 'warm-up time per phase (overrides the benchmark block)')
        .option('--requests <n>', 'measured requests per tenant and phase instead of a duration')
        .option('--rounds <n>', 'measured rounds (overrides the benchmark block; default 8)')
        .option('--budget <time>', 'the most the measurement may take, rounds added for SLOs included (default 30s, or twice the planned time)')
        .option('--min-requests <n>', 'requests each tenant needs per phase; rounds are added within the budget until it has them')
        .option('--adapter <preference>', adapterOptionHelp("the workload's device line"))
        .option('--no-fusion', 'compile every IR op as its own kernel (no batch-norm folding or epilogue fusion)')
        .option('--timing <mode>', 'per-op timing: auto (GPU timestamps when available) or cpu', 'auto');
}

/** The measurement flags' values. */
export type MeasurementFlags = Pick<MeasureFlags, 'duration' | 'warmup' | 'requests' | 'rounds' | 'budget' | 'minRequests' | 'adapter' | 'fusion' | 'timing'>;

/** What the measurement flags override: the benchmark block's figures (execute/rounds.ts), the adapter and how ops run. */
export interface MeasurementOverrides extends RoundsOverrides {
    adapter?: AdapterPreference;
    fusion: boolean;
    timing: 'auto' | 'cpu';
}

/** Reads the measurement flags; throws UsageError naming the flag that is wrong. */
export function readMeasurementFlags(command: string, opts: MeasurementFlags): MeasurementOverrides {
    let adapter: AdapterPreference | undefined;
    if (opts.adapter !== undefined) {
        const parsed = parseAdapterOption(opts.adapter);
        if ('error' in parsed) throw new UsageError(parsed.error);
        if (parsed.note) console.error(`tenancy ${command}: ${parsed.note}`);
        adapter = parsed.preference;
    }
    if (!['auto', 'cpu'].includes(opts.timing)) throw new UsageError(`--timing must be auto or cpu; found '${opts.timing}'`);
    const durationMs = opts.duration !== undefined ? parseDuration(opts.duration) : undefined;
    if (durationMs !== undefined && durationMs <= 0) throw new UsageError('--duration must be positive');
    const warmupMs = opts.warmup !== undefined ? parseDuration(opts.warmup) : undefined;
    const requests = opts.requests !== undefined ? positiveInt(opts.requests, '--requests') : undefined;
    const rounds = opts.rounds !== undefined ? positiveInt(opts.rounds, '--rounds') : undefined;
    const minRequests = opts.minRequests !== undefined ? positiveInt(opts.minRequests, '--min-requests') : undefined;
    const budgetMs = opts.budget !== undefined ? parseDuration(opts.budget, '--budget') : undefined;
    if (budgetMs !== undefined && budgetMs <= 0) throw new UsageError('--budget must be positive');
    return { durationMs, warmupMs, requests, rounds, budgetMs, minRequests, adapter, fusion: opts.fusion, timing: opts.timing as 'auto' | 'cpu' };
}

/** What the flags and the file give a measurement. */
export interface MeasureInput {
    ir: WorkloadIR;
    sourceFile: string;
    /** `--progress jsonl`. */
    progress: boolean;
    /** The runtime's options the flags set (overrides of the benchmark block, adapter, timing, tuning, profile). */
    options: Omit<RunWorkloadOptions, 'ir'>;
    /** The profile the editor predicts with (the schedules resolve on it). */
    located: LocatedProfile;
}

/** Reads the flags and the input; throws UsageError or InputError. `command` names the command in notes. */
export async function readMeasureInput(command: string, file: string | undefined, opts: MeasureFlags): Promise<MeasureInput> {
    const progress = opts.progress === 'jsonl';
    if (opts.progress !== undefined && !progress) throw new UsageError(`--progress supports only 'jsonl'; found '${opts.progress}'`);
    if (progress && opts.json) throw new UsageError('--json and --progress jsonl both write to stdout; use one of them');
    const overrides = readMeasurementFlags(command, opts);
    let ir: WorkloadIR, sourceFile: string;
    const irFile = opts.ir ?? (file && /\.json$/i.test(file) ? file : undefined);
    if (irFile) {
        ir = await loadIrFile(resolve(irFile), opts.workload);
        sourceFile = sourcePathOf(ir.sourceUri) ?? resolve(irFile);
    } else if (file) {
        ({ ir, sourceFile } = await loadTenancyFile(resolve(file), opts.workload));
    } else {
        throw new UsageError('give a .tenancy file, or workload IR with --ir <file.json>');
    }
    const located = locateProfile(workspaceFolderOf(sourceFile));
    const warnTuning = (message: string) => console.error(`tenancy ${command}: warning: ${message}`);
    return {
        ir, sourceFile, progress, located,
        options: {
            ...overrides, tenants: opts.tenant,
            // Cached variant choices per adapter; --tune measures the missing ones first.
            ...(opts.tune === false ? {} : {
                tune: {
                    measure: opts.tune === true,
                    load: identity => loadTuningCache({ adapter: identity, workspaceFolder: workspaceFolderOf(sourceFile), onWarning: warnTuning }),
                    onWarning: warnTuning,
                },
            }),
            // The profile the editor predicts with: schedules resolve (auto) and cut blocks by it, as the editor does.
            profile: located.profile,
            // co_tuned's searched configurations, per adapter as that profile names it.
            coTunedCache: await coTunedCacheFor(located.profile, warnTuning),
        },
    };
}

/** The co_tuned cache of a profile's adapter, ready for RunWorkloadOptions. */
async function coTunedCacheFor(profile: DeviceProfile, onWarning: (message: string) => void): Promise<NonNullable<RunWorkloadOptions['coTunedCache']>> {
    const cache = await loadCoTunedCache({ adapter: profile.adapter, onWarning });
    return { store: cache, save: () => cache.save(), onWarning };
}

/** Reads workload IR JSON (one workload, an array of them, or { workloads: [...] }) and picks one. */
export async function loadIrFile(file: string, workload: string | undefined): Promise<WorkloadIR> {
    let value: unknown;
    try {
        value = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
        throw new InputError(`cannot read IR from ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const list = Array.isArray(value) ? value
        : value && typeof value === 'object' && Array.isArray((value as { workloads?: unknown }).workloads) ? (value as { workloads: unknown[] }).workloads
            : [value];
    const names = list.map(w => (w as { workload?: unknown } | null)?.workload);
    let chosen: unknown;
    if (workload !== undefined) {
        chosen = list.find(w => (w as { workload?: unknown } | null)?.workload === workload);
        if (!chosen) throw new InputError(`${file} has no workload '${workload}'; it has ${names.map(String).join(', ') || 'none'}`);
    } else if (list.length === 1) {
        chosen = list[0];
    } else {
        throw new UsageError(`${file} holds ${list.length} workloads (${names.map(String).join(', ')}); choose one with --workload`);
    }
    try {
        return parseWorkloadIr(chosen);
    } catch (error) {
        if (error instanceof IrValidationError) throw new InputError(`${file}: ${error.message}`);
        throw error;
    }
}

/**
 * Reads a .tenancy file through the language server's services (parse, check, lower). Errors in
 * the file stop the run with the same diagnostics as `tenancy check`. The lowered IR is
 * validated like IR read from outside (a lowering bug shows as a named IR problem, not a crash).
 */
async function loadTenancyFile(file: string, workload: string | undefined): Promise<{ ir: WorkloadIR; sourceFile: string }> {
    let lowered: WorkloadIR;
    try {
        lowered = await loadWorkloadIr(file, workload);
    } catch (error) {
        if (error instanceof WorkspaceInputError) throw new InputError(error.message);
        throw error;
    }
    try {
        return { ir: parseWorkloadIr(lowered), sourceFile: file };
    } catch (error) {
        if (error instanceof IrValidationError) throw new InputError(`${file}: the lowered workload is not valid IR (a bug in lowering): ${error.message}`);
        throw error;
    }
}

/**
 * The command's outputs while it measures: progress events on stdout (`--progress jsonl`), or
 * one line on a terminal; `fail` says a problem on stderr (and as an error event) and returns
 * its exit code.
 */
export class CommandOutput {
    readonly line: ProgressLine | undefined;
    private readonly jsonOnStdout: boolean;
    constructor(readonly command: string, private readonly progress: boolean, json: boolean | undefined) {
        this.jsonOnStdout = json === true;
        // On a terminal (and nothing else on stdout), one line that says where the run is. Under the
        // launcher stderr is its pipe, and the launcher says whether a terminal is behind it.
        this.line = !progress && !json && stderrIsTerminal() ? new ProgressLine(process.stderr) : undefined;
    }

    emit(event: ProgressEvent): void {
        if (this.progress) process.stdout.write(`${JSON.stringify(event)}\n`);
    }

    start(workload: string, tenants: string[], policy: string): void {
        this.emit({ type: 'start', version: PROGRESS_PROTOCOL_VERSION, workload, tenants, policy });
    }

    /** The runtime's event, on the wire and on the terminal line. */
    readonly onEvent = (event: RunEvent): void => {
        this.emit(progressEventOf(event));
        this.line?.update(event);
    };

    fail(code: number, message: string, opPath?: string): number {
        this.line?.clear();
        console.error(`tenancy ${this.command}: ${message}`);
        this.emit({ type: 'error', message, ...(opPath ? { opPath } : {}), exitCode: code });
        return code;
    }

    /** A table: on stdout, or on stderr when stdout carries JSON or progress. */
    table(text: string): void {
        this.line?.clear();
        if (this.progress || this.jsonOnStdout) console.error(text);
        else console.log(text);
    }
}

/** The exit code of a usage or input problem found before measuring, else rethrows. */
export function inputErrorCode(error: unknown, out: CommandOutput): number {
    if (error instanceof UsageError) return out.fail(exitCodes.usage, error.message);
    if (error instanceof InputError) return out.fail(exitCodes.inputErrors, error.message);
    throw error;
}

/**
 * Writes a measurement's document and its history copy (report/write.ts). When the results
 * folder cannot take it (disk full, read-only), the document is kept in the temp folder instead
 * and the ResultsWriteError, which says where, is rethrown for measureErrorCode.
 */
export async function writeMeasured(paths: ResultsPaths, value: unknown, finishedAt: Date): Promise<{ latest: string; history: string }> {
    try {
        return await writeResultsFiles(paths, value, finishedAt);
    } catch (error) {
        if (!(error instanceof ResultsWriteError)) throw error;
        const kept = join(tmpdir(), `${basename(paths.latest, '.json')}.${finishedAt.toISOString().replace(/:/g, '-')}.${process.pid}.json`);
        try {
            writeFileSync(kept, `${JSON.stringify(value, null, 2)}\n`);
            error.kept = kept;
        } catch {
            // The temp folder is full too: the message says the document is lost.
        }
        throw error;
    }
}

/** The exit code of what a measurement threw (nothing was written, or, for ResultsWriteError, not where it belongs). */
export function measureErrorCode(error: unknown, out: CommandOutput, signal: AbortSignal): number {
    if (error instanceof NoAdapterError) return out.fail(exitCodes.environment, error.message);
    if (error instanceof ResultsWriteError) {
        return out.fail(exitCodes.environment, `${error.message}; the results already there are unchanged; ${error.kept ? `this run's results are kept in ${error.kept}` : "this run's results could not be kept anywhere"} — free space or choose another folder with --results-dir`);
    }
    if (error instanceof CompileError || error instanceof MemoryLimitError) return out.fail(exitCodes.inputErrors, error.message, error.opPath);
    if (error instanceof ScheduleNotImplementedError || error instanceof IncompatibleSchedulesError) return out.fail(exitCodes.inputErrors, error.message);
    if (signal.aborted) return out.fail(exitCodes.cancelled, 'cancelled before anything was measured; nothing written');
    if (error instanceof Error && /has no tenant/.test(error.message)) return out.fail(exitCodes.usage, error.message);
    return out.fail(exitCodes.internal, `internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
}

/**
 * Runs `work` with SIGINT/SIGTERM aborting its signal (a second one leaves at once), and the
 * terminal line cleared at the end.
 */
export async function withCancellation<T>(out: CommandOutput, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let signals = 0;
    const onSignal = (name: string) => {
        signals++;
        if (signals > 1) process.exit(exitCodes.cancelled); // a second Ctrl-C: leave now
        console.error(`tenancy ${out.command}: ${name} received; stopping and writing what was measured…`);
        controller.abort(new Error(`cancelled by ${name}`));
    };
    const onInt = () => onSignal('SIGINT'), onTerm = () => onSignal('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    try {
        return await work(controller.signal);
    } finally {
        out.line?.clear();
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
    }
}

/**
 * The progress of a run as one line on a terminal, redrawn in place: `round 3/8 · co-run · 42 % · ETA 12 s`.
 * The estimate is the elapsed time scaled by what is left of the overall fraction.
 */
class ProgressLine {
    private readonly started = performance.now();
    private phase = '';
    private drawn = false;

    constructor(private readonly stream: NodeJS.WriteStream) {}

    update(event: RunEvent): void {
        if (event.type === 'phase') {
            const what = event.phase === 'solo' ? `solo ${event.tenant}` : event.phase === 'corun' ? `co-run${event.schedule ? ` ${event.schedule}` : ''}` : event.phase;
            this.phase = event.load !== undefined ? `${what} at ${event.load.toFixed(2)}× load` : what;
            return;
        }
        const elapsed = performance.now() - this.started;
        const eta = event.fraction > 0.05 && event.fraction < 1 ? ` · ETA ${formatMs(elapsed * (1 - event.fraction) / event.fraction)}` : '';
        const round = event.round !== undefined && event.rounds !== undefined ? (event.round === 0 ? 'warm-up round · ' : `round ${event.round}/${event.rounds} · `) : '';
        this.stream.write(`\r\x1b[K${round}${this.phase || event.phase} · ${Math.round(event.fraction * 100)} %${eta}`);
        this.drawn = true;
    }

    /** Removes the line (before the table, or when the run ends). */
    clear(): void {
        if (this.drawn) this.stream.write('\r\x1b[K');
        this.drawn = false;
    }
}

/** The wire form of a runtime event (the runtime's phases and progress map one to one). */
function progressEventOf(event: RunEvent): ProgressEvent {
    const tenant = event.tenant !== undefined ? { tenant: event.tenant } : {};
    const round = event.round !== undefined ? { round: event.round } : {};
    if (event.type === 'phase') {
        return { type: 'phase', phase: event.phase, ...tenant, ...round, ...(event.schedule !== undefined ? { schedule: event.schedule } : {}), ...(event.load !== undefined ? { load: event.load } : {}) };
    }
    return { type: 'progress', fraction: event.fraction, phase: event.phase, ...tenant, ...round, ...(event.rounds !== undefined ? { rounds: event.rounds } : {}) };
}
