/**
 * `tenancy run <file> [--workload W] …`: compiles a workload's tenants to WebGPU kernels, runs
 * each tenant alone and then all together, prints the interference table and writes the
 * results atomically to `<workspace>/.tenancy/results/<file-stem>.<workload>.json` (+ history).
 *
 * Output: the table on stdout; `--json` puts the results JSON on stdout instead (table on
 * stderr); `--progress jsonl` puts progress events (src/protocol/progress.ts) on stdout, one
 * per line, and the table on stderr. Exit codes (src/protocol/exit-codes.ts): 0 complete or
 * partial, 1 input errors (IR, unsupported op, too large, schedule not implemented), 2 no
 * adapter or the GPU failed during the run (results marked failed), 130 cancelled (results
 * marked cancelled), 64 usage.
 *
 * Kernel variants: each op uses the variant its signature has in the
 * adapter's tuning cache ($XDG_CACHE_HOME/tenancy/tuning/<adapter>.json, plus pins in the
 * workspace's .tenancy/tuning.json), else the generator's default; `--tune` first times the
 * candidates of signatures the cache lacks (progress phase 'tune') and saves the choices;
 * `--no-tune` ignores the cache. The results say per op which variant ran and whether it was
 * 'tuned' or 'default'.
 */
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exitCodes } from '../../protocol/exit-codes.js';
import { loadWorkloadIr, WorkspaceInputError } from '../load-workspace.js';
import { PROGRESS_PROTOCOL_VERSION, type ProgressEvent } from '../../protocol/progress.js';
import { IrValidationError, parseWorkloadIr } from '../../runtime/ir/validate.js';
import type { WorkloadIR } from '../../runtime/ir/types.js';
import { NoAdapterError } from '../../runtime/gpu/adapter.js';
import type { AdapterPreference } from '../../protocol/adapter.js';
import { adapterOptionHelp, parseAdapterOption } from '../adapter-option.js';
import { CompileError } from '../../runtime/plan/tenant-plan.js';
import { MemoryLimitError } from '../../runtime/plan/memory.js';
import { ScheduleNotImplementedError, scheduleName } from '../../runtime/schedule/policy.js';
import { runWorkload } from '../../runtime/execute/run.js';
import type { RunEvent } from '../../runtime/execute/events.js';
import { interferenceTable } from '../../runtime/report/table.js';
import type { Results } from '../../runtime/report/schema.js';
import { formatMs } from '../../protocol/units.js';
import { resultsPathsFor, sourcePathOf, workspaceFolderOf, writeResultsFiles } from '../../runtime/report/write.js';
import { recordedPredictions } from '../../runtime/predict/record.js';
import { locateProfile } from '../../runtime/predict/profile-store.js';
import { loadTuningCache } from '../../runtime/tune/cache.js';

/** Tuning problems never stop a run: they are said on stderr. */
const warnTuning = (message: string) => console.error(`tenancy run: warning: ${message}`);


/** Parses "5s", "250ms", "1.5s", "2m" or a bare number of seconds into ms. */
export function parseDuration(text: string, flag = '--duration/--warmup'): number {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
    if (!m) throw new UsageError(`${flag} must look like 5s, 250ms or 2m; found '${text}'`);
    const v = Number(m[1]);
    return m[2] === 'ms' ? v : m[2] === 'm' ? v * 60_000 : v * 1000;
}

class UsageError extends Error {}

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

class InputError extends Error {}

interface RunOptions {
    ir?: string;
    workload?: string;
    tenant?: string[];
    duration?: string;
    warmup?: string;
    requests?: string;
    json?: boolean;
    progress?: string;
    adapter?: string;
    resultsDir?: string;
    fusion: boolean;
    timing: string;
    /** true → measure missing signatures; false → ignore the tuning cache; undefined → use it. */
    tune?: boolean;
    rounds?: string;
    budget?: string;
    minRequests?: string;
    failOn?: string[];
}

/** What `--fail-on` may name, and the exit code each gives. */
const FAIL_ON = { slo: exitCodes.sloViolated, invalid: exitCodes.invalid } as const;

/** A positive integer option, or a usage error naming it. */
function positiveInt(text: string, flag: string): number {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer; found '${text}'`);
    return n;
}

export function register(program: Command): void {
    program.command('run')
        .description('Run a workload on the local GPU: each tenant solo, then all co-running; print the interference table and write results')
        .argument('[file]', 'the .tenancy file (or workload IR JSON, as with --ir)')
        .option('--ir <file.json>', 'read workload IR JSON (as written by `tenancy ir`) instead of a .tenancy file')
        .option('-w, --workload <name>', 'the workload to run (required when the file has several)')
        .option('--tenant <name...>', 'run only these tenants (one tenant: a solo run)')
        .option('--duration <time>', 'measured time per phase, e.g. 5s or 500ms (overrides the benchmark block)')
        .option('--warmup <time>', 'warm-up time per phase (overrides the benchmark block)')
        .option('--requests <n>', 'measured requests per tenant and phase instead of a duration')
        .option('--rounds <n>', 'measured rounds, each every tenant alone then all co-running (overrides the benchmark block; default 8)')
        .option('--budget <time>', 'the most the measurement may take, rounds added for SLOs included (default 30s, or twice the planned time)')
        .option('--min-requests <n>', 'requests each tenant needs per phase; rounds are added within the budget until it has them')
        .option('--fail-on <what...>', `exit with a code of its own when: slo (an SLO is violated, exit ${exitCodes.sloViolated}), invalid (the figures are not valid, exit ${exitCodes.invalid})`)
        .option('--json', 'print the results JSON on stdout (the table goes to stderr)')
        .option('--progress <format>', 'progress events on stdout: jsonl (the table goes to stderr)')
        .option('--adapter <preference>', adapterOptionHelp("the workload's device line"))
        .option('--results-dir <dir>', 'where to write results (default <workspace>/.tenancy/results)')
        .option('--no-fusion', 'compile every IR op as its own kernel (no batch-norm folding or epilogue fusion)')
        .option('--timing <mode>', 'per-op timing: auto (GPU timestamps when available) or cpu', 'auto')
        .option('--tune', 'before the run, time the kernel variants of ops the tuning cache lacks and remember the fastest (cache per adapter in $XDG_CACHE_HOME/tenancy/tuning)')
        .option('--no-tune', 'ignore the tuning cache: every op uses its default variant')
        .action(async (file: string | undefined, opts: RunOptions) => {
            process.exitCode = await runCommand(file, opts);
        });
}

async function runCommand(file: string | undefined, opts: RunOptions): Promise<number> {
    const progress = opts.progress === 'jsonl';
    const emit = (event: ProgressEvent) => { if (progress) process.stdout.write(`${JSON.stringify(event)}\n`); };
    const fail = (code: number, message: string, opPath?: string) => {
        console.error(`tenancy run: ${message}`);
        emit({ type: 'error', message, ...(opPath ? { opPath } : {}), exitCode: code });
        return code;
    };
    let ir: WorkloadIR;
    let sourceFile: string;
    let durationMs: number | undefined, warmupMs: number | undefined, requests: number | undefined;
    let rounds: number | undefined, budgetMs: number | undefined, minRequests: number | undefined;
    let adapter: AdapterPreference | undefined;
    try {
        if (opts.progress !== undefined && !progress) throw new UsageError(`--progress supports only 'jsonl'; found '${opts.progress}'`);
        if (progress && opts.json) throw new UsageError('--json and --progress jsonl both write to stdout; use one of them');
        if (opts.adapter !== undefined) {
            const parsed = parseAdapterOption(opts.adapter);
            if ('error' in parsed) throw new UsageError(parsed.error);
            if (parsed.note) console.error(`tenancy run: ${parsed.note}`);
            adapter = parsed.preference;
        }
        if (!['auto', 'cpu'].includes(opts.timing)) throw new UsageError(`--timing must be auto or cpu; found '${opts.timing}'`);
        if (opts.duration !== undefined) durationMs = parseDuration(opts.duration);
        if (opts.warmup !== undefined) warmupMs = parseDuration(opts.warmup);
        if (opts.requests !== undefined) {
            requests = Number(opts.requests);
            if (!Number.isInteger(requests) || requests < 1) throw new UsageError(`--requests must be a positive integer; found '${opts.requests}'`);
        }
        if (durationMs !== undefined && durationMs <= 0) throw new UsageError('--duration must be positive');
        if (opts.rounds !== undefined) rounds = positiveInt(opts.rounds, '--rounds');
        if (opts.minRequests !== undefined) minRequests = positiveInt(opts.minRequests, '--min-requests');
        if (opts.budget !== undefined) budgetMs = parseDuration(opts.budget, '--budget');
        if (budgetMs !== undefined && budgetMs <= 0) throw new UsageError('--budget must be positive');
        for (const what of opts.failOn ?? []) {
            if (!(what in FAIL_ON)) throw new UsageError(`--fail-on takes ${Object.keys(FAIL_ON).join(' or ')}; found '${what}'`);
        }
        const irFile = opts.ir ?? (file && /\.json$/i.test(file) ? file : undefined);
        if (irFile) {
            ir = await loadIrFile(resolve(irFile), opts.workload);
            sourceFile = sourcePathOf(ir.sourceUri) ?? resolve(irFile);
        } else if (file) {
            ({ ir, sourceFile } = await loadTenancyFile(resolve(file), opts.workload));
        } else {
            throw new UsageError('give a .tenancy file, or workload IR with --ir <file.json>');
        }
    } catch (error) {
        if (error instanceof UsageError) return fail(exitCodes.usage, error.message);
        if (error instanceof InputError) return fail(exitCodes.inputErrors, error.message);
        throw error;
    }

    const controller = new AbortController();
    let signals = 0;
    const onSignal = (name: string) => {
        signals++;
        if (signals > 1) process.exit(exitCodes.cancelled); // a second Ctrl-C: leave now
        console.error(`tenancy run: ${name} received; stopping and writing partial results…`);
        controller.abort(new Error(`cancelled by ${name}`));
    };
    const onInt = () => onSignal('SIGINT'), onTerm = () => onSignal('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const tenants = opts.tenant && opts.tenant.length ? opts.tenant : ir.tenants.map(t => t.name);
    const located = locateProfile(workspaceFolderOf(sourceFile));
    emit({ type: 'start', version: PROGRESS_PROTOCOL_VERSION, workload: ir.workload, tenants, policy: scheduleName(ir.schedule) });
    // On a terminal (and nothing else on stdout), one line that says where the run is.
    const line = !progress && !opts.json && process.stderr.isTTY ? new ProgressLine(process.stderr) : undefined;
    try {
        const results = await runWorkload({
            ir, durationMs, warmupMs, requests, rounds, budgetMs, minRequests, tenants: opts.tenant,
            adapter,
            signal: controller.signal, fusion: opts.fusion, timing: opts.timing as 'auto' | 'cpu',
            onEvent: event => { emit(progressEventOf(event)); line?.update(event); },
            // Cached variant choices per adapter; --tune measures the missing ones first.
            ...(opts.tune === false ? {} : {
                tune: {
                    measure: opts.tune === true,
                    load: adapter => loadTuningCache({ adapter, workspaceFolder: workspaceFolderOf(sourceFile), onWarning: warnTuning }),
                    onWarning: warnTuning,
                },
            }),
            // The profile the editor predicts with: schedules resolve (auto) and cut blocks by it, as the editor does.
            profile: located.profile,
            // The figures the editor showed, stored so prediction error stays visible.
            predictions: recordedPredictions(ir, located),
        });
        line?.clear();
        // A run of some of the tenants (▶ Run solo) has results of its own: the workload's co-run results stay.
        const some = opts.tenant && opts.tenant.length > 0 && opts.tenant.length < ir.tenants.length ? opts.tenant : undefined;
        const paths = resultsPathsFor(sourceFile, ir.workload, opts.resultsDir, some);
        const written = await writeResultsFiles(paths, results, new Date(results.finishedAt));
        const table = interferenceTable(results);
        if (opts.json) {
            process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
            console.error(table);
        } else if (progress) {
            console.error(table);
        } else {
            console.log(table);
        }
        console.error(`results: ${written.latest}`);
        if (results.status === 'failed') emit({ type: 'error', message: results.reason ?? 'the run failed', ...(results.failedOp ? { opPath: results.failedOp } : {}), exitCode: exitCodes.environment });
        emit({ type: 'result', resultsFile: written.latest, historyFile: written.history, status: results.status });
        if (results.status === 'cancelled') return exitCodes.cancelled;
        if (results.status === 'failed') {
            console.error(`tenancy run: the run failed${results.failedOp ? ` at op ${results.failedOp}` : ''}: ${results.reason}`);
            return exitCodes.environment;
        }
        return failOnCode(results, opts.failOn ?? []);
    } catch (error) {
        if (error instanceof NoAdapterError) return fail(exitCodes.environment, error.message);
        if (error instanceof CompileError || error instanceof MemoryLimitError) return fail(exitCodes.inputErrors, error.message, error.opPath);
        if (error instanceof ScheduleNotImplementedError) return fail(exitCodes.inputErrors, error.message);
        if (controller.signal.aborted) return fail(exitCodes.cancelled, 'cancelled before anything was measured; no results written');
        if (error instanceof Error && /has no tenant/.test(error.message)) return fail(exitCodes.usage, error.message);
        return fail(exitCodes.internal, `internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    } finally {
        line?.clear();
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
    }
}

/** The exit code `--fail-on` asks for (a violated SLO before invalid figures), else 0; says why on stderr. */
export function failOnCode(results: Results, failOn: readonly string[]): number {
    if (failOn.includes('slo')) {
        const violated = results.tenants.flatMap(t => t.slos.filter(s => s.verdict === 'violated').map(s => `${t.name} ${s.percentile} ≤ ${s.targetMs} ms`));
        if (violated.length > 0) {
            console.error(`tenancy run: SLO violated: ${violated.join(', ')} (--fail-on slo)`);
            return FAIL_ON.slo;
        }
    }
    if (failOn.includes('invalid') && !results.valid) {
        console.error(`tenancy run: the figures are not valid: ${results.invalidReasons.join('; ')} (--fail-on invalid)`);
        return FAIL_ON.invalid;
    }
    return exitCodes.ok;
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
            this.phase = event.phase === 'solo' ? `solo ${event.tenant}` : event.phase === 'corun' ? 'co-run' : event.phase;
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
    if (event.type === 'phase') return { type: 'phase', phase: event.phase, ...tenant, ...round };
    return { type: 'progress', fraction: event.fraction, phase: event.phase, ...tenant, ...round, ...(event.rounds !== undefined ? { rounds: event.rounds } : {}) };
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
