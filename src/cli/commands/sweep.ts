/**
 * `tenancy sweep <file> [--workload W…] [--schedules …] [--loads 0.5,1,1.5] [--repeat N]`: expands
 * workloads × schedules × loads × repeats into cells and writes the sweep folder (its manifest,
 * `sweep.json`). Then `--local` runs the cells here one after another (never two at once on one
 * GPU), or `--slurm` writes and submits a job array whose tasks run `tenancy run --sweep <folder>
 * --cell $SLURM_ARRAY_TASK_ID` (or `--shard`, several cells a task); `--wait` follows the tasks
 * through squeue and sacct until none is queued or running. `tenancy sweep --resume <folder>` runs
 * or resubmits exactly the cells without figures that nothing is running; `--status <folder>` says
 * where each cell stands. Exit codes: 0 every cell has figures (or the sweep was only written or
 * submitted), 5 cells are left without figures (each named), 2 Slurm is missing or refused the
 * job, or no GPU adapter, 1 a bad workload or sweep folder, 64 usage, 130 cancelled.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { exitCodes } from '../../protocol/exit-codes.js';
import type { WorkloadIR } from '../../runtime/ir/types.js';
import { IrValidationError, parseWorkloadIr } from '../../runtime/ir/validate.js';
import { irHash } from '../../runtime/ir/hash.js';
import { NoAdapterError } from '../../runtime/gpu/adapter.js';
import { locateProfile } from '../../runtime/predict/profile-store.js';
import { workspaceFolderOf } from '../../runtime/report/write.js';
import { ScheduleNotImplementedError } from '../../runtime/schedule/policy.js';
import { expandMatrix, MatrixError, parseLoads } from '../../runtime/sweep/matrix.js';
import { describeCell, readSweep, SWEEP_SCHEMA_VERSION, SweepFolderError, writeManifest, type LoadedSweep, type SweepCell, type SweepManifest } from '../../runtime/sweep/manifest.js';
import { runSweepCell } from '../../runtime/execute/sweep-cell.js';
import { shardsOfCells } from '../../runtime/sweep/shards.js';
import {
    checkSlurmOptions, endedTasks, queuedTasks, readSubmissions, runCommand, shellQuote, SlurmError, submitArray, type CommandRunner, type SlurmOptions,
} from '../../runtime/sweep/slurm.js';
import { cellsToResume, isActive, sweepStatus, unfinishedLines, type SweepStatus } from '../../runtime/sweep/status.js';
import { loadWorkspace, WorkspaceInputError } from '../load-workspace.js';
import type { SweepBlock } from '../../language-server/analysis/sweep.js';
import {
    addMeasurementFlags, CommandOutput, InputError, loadIrFile, parseDuration, positiveInt, readMeasurementFlags, UsageError, withCancellation, type MeasurementFlags,
} from '../measure-options.js';
import { schedulesFlag } from '../schedule-option.js';
import packageJson from '../../../package.json' with { type: 'json' };
import { stderrIsTerminal } from '../filtered-stderr.js';

interface SweepFlags extends MeasurementFlags {
    workload?: string[];
    schedules?: string;
    loads?: string;
    repeat?: string;
    out?: string;
    tune: boolean;
    local?: boolean;
    slurm?: boolean;
    wait?: boolean;
    resume?: string;
    status?: string;
    partition?: string;
    time?: string;
    gpus?: string;
    sbatch?: string[];
    cellsPerTask?: string;
    maxRunning?: string;
    tenancyCommand?: string;
    poll?: string;
}

/** How often --wait asks Slurm by default. */
const DEFAULT_POLL_MS = 10_000;
/** Polls in a row that may fail (squeue unable to reach the controller) before --wait gives up. */
const MAX_POLL_FAILURES = 5;

export function register(program: Command): void {
    addMeasurementFlags(program.command('sweep')
        .description('Expand workloads × schedules × loads × repeats into cells (each a run with its own results file) and run them here (--local) or as a Slurm job array (--slurm)')
        .argument('[file]', 'the .tenancy file (or workload IR JSON) whose workloads to sweep')
        .option('-w, --workload <name...>', 'the workloads to sweep (default: every workload of the file)')
        .option('--schedules <list>', 'the schedules beside each workload\'s own, as in a schedule line, comma-separated (default: the sweep block\'s, else sequential, concurrent, layer_block(size: auto), regulated)')
        .option('--loads <list>', 'factors on every tenant\'s declared traffic, comma-separated, e.g. 0.5,1,1.5 (default: the sweep block\'s, else 1)')
        .option('--repeat <n>', 'runs of every (workload, schedule, load), each with its own seed (default: the sweep block\'s, else 1)')
        .option('--out <folder>', 'the sweep folder (default <workspace>/.tenancy/sweeps/<file-stem>-<time>); every node must see it at the same path')
        .option('--no-tune', 'ignore the tuning cache in every cell: every op uses its default variant'))
        .option('--local', 'run the cells here, one after another')
        .option('--slurm', 'submit the cells as a Slurm job array (sbatch --array)')
        .option('--wait', 'with --slurm: follow the tasks (squeue, sacct) until none is queued or running, then name the cells left without figures')
        .option('--resume <folder>', 'run or resubmit the cells of this sweep folder that have no figures and that nothing is running (as it ran: --local or --slurm, unless given)')
        .option('--status <folder>', 'say where each cell of this sweep folder stands')
        .option('--partition <name>', 'Slurm: the partition (#SBATCH --partition; default: the sweep block\'s)')
        .option('--time <limit>', 'Slurm: each task\'s time limit, e.g. 30 or 1:00:00 (#SBATCH --time; default: the sweep block\'s)')
        .option('--gpus <n>', 'Slurm: GPUs per task, #SBATCH --gres=gpu:N (default: the sweep block\'s gres, else 1; 0 asks for none)')
        .option('--sbatch <option...>', 'Slurm: more #SBATCH options as written after #SBATCH, e.g. --sbatch=--account=lab (instead of the sweep block\'s)')
        .option('--cells-per-task <n>', 'Slurm: cells each array task runs one after another (default 1: the task id is the cell index)')
        .option('--max-running <n>', 'Slurm: at most this many tasks at once (--array=…%N)')
        .option('--tenancy-command <command>', 'Slurm: the shell words that start Tenancy on a compute node (default: this node and this CLI, by absolute path)')
        .option('--poll <time>', `Slurm: how often --wait asks squeue and sacct (default ${DEFAULT_POLL_MS / 1000}s)`)
        .addHelpText('after', `
A file's sweep { … } block (docs/sweeps.md#the-sweep-block) gives the matrix (schedules, loads,
repeat) and the Slurm settings (partition, time, gres, sbatch); a flag overrides the block's
setting of the same name (--gpus its gres). The block's Slurm settings are kept in the sweep
folder, so a later --resume --slurm submits with them too.`)
        .action(async (file: string | undefined, opts: SweepFlags) => {
            process.exitCode = await sweepCommand(file, opts);
        });
}

async function sweepCommand(file: string | undefined, opts: SweepFlags): Promise<number> {
    const out = new CommandOutput('sweep', false, false);
    try {
        const given = [file !== undefined, opts.resume !== undefined, opts.status !== undefined].filter(Boolean).length;
        if (given !== 1) throw new UsageError('give one of: a .tenancy file (a new sweep), --resume <folder> or --status <folder>');
        if (opts.local && opts.slurm) throw new UsageError('--local and --slurm exclude each other: run the cells here, or submit them');
        if (opts.wait && opts.local) throw new UsageError('--wait follows Slurm tasks; --local already runs the cells to the end');
        if (opts.status !== undefined && (opts.local || opts.slurm || opts.wait)) throw new UsageError('--status only reports; run or resubmit with --resume');
        const slurmFlags = opts.partition ?? opts.time ?? opts.gpus ?? opts.sbatch ?? opts.cellsPerTask ?? opts.maxRunning ?? opts.tenancyCommand;
        if (slurmFlags !== undefined && opts.local) throw new UsageError('--partition, --time, --gpus, --sbatch, --cells-per-task, --max-running and --tenancy-command are Slurm\'s; drop them with --local');
        const pollMs = opts.poll !== undefined ? parseDuration(opts.poll, '--poll') : DEFAULT_POLL_MS;
        if (pollMs < 200) throw new UsageError('--poll must be at least 200ms (each poll runs squeue and sacct)');

        let sweep: LoadedSweep;
        if (file !== undefined) {
            if (opts.wait && !opts.slurm) throw new UsageError('--wait needs --slurm');
            sweep = await makeSweep(file, opts);
            if (!opts.local && !opts.slurm) {
                console.log(`run it: tenancy sweep --resume ${shellQuote(sweep.paths.folder)} --local (here) or --slurm (a job array); one cell: tenancy run --sweep ${shellQuote(sweep.paths.folder)} --cell N`);
                return exitCodes.ok;
            }
        } else {
            sweep = readSweep((opts.resume ?? opts.status)!, packageJson.version);
        }
        const submissions = readSubmissions(sweep.paths);
        if (opts.status !== undefined) {
            const status = await currentStatus(sweep, runCommand);
            printStatus(status);
            return status.counts.done === status.cells.length ? exitCodes.ok : exitCodes.incomplete;
        }
        const slurm = opts.slurm || (!opts.local && submissions.length > 0);
        if (opts.wait && !slurm) throw new UsageError('--wait follows Slurm tasks: this sweep was never submitted; give --slurm');
        if (!slurm) return await runLocal(sweep, out);
        const options = slurmOptions(opts, submissions.at(-1), sweep.manifest.slurm);
        const status = await currentStatus(sweep, runCommand);
        const cells = cellsToResume(status);
        if (cells.length === 0) {
            console.error(isActive(status) ? `tenancy sweep: nothing to submit: ${status.counts.pending + status.counts.running} cells are queued or running` : 'tenancy sweep: every cell has figures; merge them with tenancy merge');
        } else {
            const tasks = options.cellsPerTask === 1 ? cells.map(c => c.index) : shardsOfCells(cells.map(c => c.index), options.cellsPerTask);
            const command = opts.tenancyCommand ?? submissions.at(-1)?.command ?? thisTenancy();
            const submission = await submitArray(runCommand, { paths: sweep.paths, sweepId: sweep.manifest.id, cells: cells.length, tasks, options, command });
            console.error(`tenancy sweep: submitted job ${submission.jobId}: ${tasks.length} array task${tasks.length === 1 ? '' : 's'} for ${cells.length} cell${cells.length === 1 ? '' : 's'} (${submission.script})`);
        }
        if (!opts.wait) {
            console.log(`follow it: tenancy sweep --status ${shellQuote(sweep.paths.folder)}; then tenancy merge ${shellQuote(sweep.paths.folder)}`);
            return exitCodes.ok;
        }
        return await waitSlurm(sweep, pollMs, runCommand);
    } catch (error) {
        if (error instanceof UsageError) return out.fail(exitCodes.usage, error.message);
        if (error instanceof InputError || error instanceof SweepFolderError || error instanceof MatrixError || error instanceof ScheduleNotImplementedError) return out.fail(exitCodes.inputErrors, error.message);
        if (error instanceof SlurmError) return out.fail(exitCodes.environment, error.message);
        throw error;
    }
}

/** The shell words that start this Tenancy: this Node and the CLI by absolute path, through its launcher (out/cli/main.mjs, which filters Dawn's notices) when it is there. */
function thisTenancy(): string {
    const launcher = join(dirname(process.argv[1]), 'main.mjs');
    return `${shellQuote(process.execPath)} ${shellQuote(existsSync(launcher) ? launcher : process.argv[1])}`;
}

/** Reads the workloads, expands the matrix and writes the sweep folder's manifest. */
async function makeSweep(file: string, opts: SweepFlags): Promise<LoadedSweep> {
    const schedules = schedulesFlag(opts.schedules);
    let loads: number[] | undefined;
    try {
        loads = opts.loads !== undefined ? parseLoads(opts.loads) : undefined;
    } catch (error) {
        throw new UsageError((error as Error).message);
    }
    const repeat = opts.repeat !== undefined ? positiveInt(opts.repeat, '--repeat') : undefined;
    const overrides = readMeasurementFlags('sweep', opts);
    const source = resolve(file);
    const { irs, block } = await readWorkloads(source, opts.workload);
    const workspaceFolder = workspaceFolderOf(source);
    const located = locateProfile(workspaceFolder);
    // A flag overrides the sweep block's setting of the same name.
    const matrix = expandMatrix({
        workloads: irs.map(ir => ({ ir, irHash: irHash(ir) })), schedules: schedules ?? block?.schedules, loads: loads ?? block?.loads, repeat: repeat ?? block?.repeat, profile: located.profile,
    });
    const slurm = block ? {
        ...(block.partition !== undefined ? { partition: block.partition } : {}), ...(block.time !== undefined ? { time: block.time } : {}),
        ...(block.gpus !== undefined ? { gpus: block.gpus } : {}), ...(block.sbatch !== undefined ? { extra: block.sbatch } : {}),
    } : undefined;
    for (const note of matrix.notes) console.error(`tenancy sweep: ${note}`);
    const createdAt = new Date();
    const folder = resolve(opts.out ?? join(workspaceFolder, '.tenancy', 'sweeps', `${basename(source, extname(source))}-${createdAt.toISOString().replace(/[:.]/g, '-')}`));
    const { durationMs, warmupMs, requests, rounds, budgetMs, minRequests, adapter, fusion, timing } = overrides;
    const manifest: SweepManifest = {
        schemaVersion: SWEEP_SCHEMA_VERSION, kind: 'sweep', tenancyVersion: packageJson.version,
        id: basename(folder), createdAt: createdAt.toISOString(), source, workspaceFolder,
        loads: matrix.loads, repeat: matrix.repeat,
        run: {
            ...(durationMs !== undefined ? { durationMs } : {}), ...(warmupMs !== undefined ? { warmupMs } : {}),
            ...(requests !== undefined ? { requests } : {}), ...(rounds !== undefined ? { rounds } : {}),
            ...(budgetMs !== undefined ? { budgetMs } : {}), ...(minRequests !== undefined ? { minRequests } : {}),
            ...(adapter !== undefined ? { adapter } : {}), fusion, timing, tuning: opts.tune ? 'cache' : 'off',
        },
        ...(slurm && Object.keys(slurm).length > 0 ? { slurm } : {}),
        profile: located.profile, workloads: matrix.workloads, cells: matrix.cells,
    };
    const paths = await writeManifest(folder, manifest);
    const shape = matrix.workloads.map(w => `${w.name}: ${w.schedules.length} schedule${w.schedules.length === 1 ? '' : 's'} (${w.schedules.map(s => s.resolved).join(', ')})`).join('; ');
    console.error(`tenancy sweep: ${paths.folder}: ${matrix.cells.length} cells — ${shape} × ${matrix.loads.length} load${matrix.loads.length === 1 ? '' : 's'} (${matrix.loads.join(', ')}×) × ${matrix.repeat} repeat${matrix.repeat === 1 ? '' : 's'}`);
    return readSweep(paths.folder, packageJson.version);
}

/**
 * The workloads to sweep from a .tenancy file (checked and lowered) or IR JSON, every one of the
 * file when none is named; and the file's sweep block (an IR file has none).
 */
async function readWorkloads(file: string, names: readonly string[] | undefined): Promise<{ irs: WorkloadIR[]; block: SweepBlock | undefined }> {
    if (/\.json$/i.test(file)) {
        if (!names?.length) return { irs: [await loadIrFile(file, undefined)], block: undefined };
        return { irs: await Promise.all(names.map(name => loadIrFile(file, name))), block: undefined };
    }
    try {
        const workspace = await loadWorkspace([file]);
        const all = workspace.workloads(file).map(w => w.name);
        if (all.length === 0) throw new InputError(`${file} has no workload to sweep`);
        for (const name of names ?? []) {
            if (!all.includes(name)) throw new InputError(`${file} has no workload '${name}'; it has ${all.join(', ')}`);
        }
        const block = workspace.sweep(file);
        const irs = (names?.length ? names : all).map(name => {
            const lowered = workspace.lower(name, file);
            try {
                return parseWorkloadIr(lowered);
            } catch (error) {
                if (error instanceof IrValidationError) throw new InputError(`${file}: workload ${name}: the lowered workload is not valid IR (a bug in lowering): ${error.message}`);
                throw error;
            }
        });
        return { irs, block };
    } catch (error) {
        if (error instanceof WorkspaceInputError) throw new InputError(error.message);
        throw error;
    }
}

/** The Slurm options from the flags, else as the last submission asked, else the sweep block's (`block`, kept in the manifest). */
function slurmOptions(opts: SweepFlags, last: ReturnType<typeof readSubmissions>[number] | undefined, block: SweepManifest['slurm']): SlurmOptions {
    const options: SlurmOptions = {
        partition: opts.partition ?? last?.options.partition ?? block?.partition,
        time: opts.time ?? last?.options.time ?? block?.time,
        gpus: opts.gpus !== undefined ? nonNegativeInt(opts.gpus, '--gpus') : last?.options.gpus ?? block?.gpus ?? 1,
        extra: opts.sbatch ?? last?.options.extra ?? block?.extra ?? [],
        cellsPerTask: opts.cellsPerTask !== undefined ? positiveInt(opts.cellsPerTask, '--cells-per-task') : last?.options.cellsPerTask ?? 1,
        maxRunning: opts.maxRunning !== undefined ? positiveInt(opts.maxRunning, '--max-running') : last?.options.maxRunning,
    };
    try {
        checkSlurmOptions(options);
    } catch (error) {
        throw new UsageError((error as Error).message);
    }
    return options;
}

function nonNegativeInt(text: string, flag: string): number {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number, 0 or more; found '${text}'`);
    return n;
}

/** Every cell's status: from its files, and from Slurm when the sweep was submitted. */
async function currentStatus(sweep: LoadedSweep, run: CommandRunner): Promise<SweepStatus> {
    const submissions = readSubmissions(sweep.paths);
    if (submissions.length === 0) return sweepStatus(sweep, [], new Map(), new Map());
    const queued = await queuedTasks(run, sweep.manifest.id);
    const ended = await endedTasks(run, submissions.map(s => s.jobId));
    return sweepStatus(sweep, submissions, queued, ended);
}

function countsLine(status: SweepStatus): string {
    const c = status.counts;
    const rest = (['running', 'pending', 'failed', 'cancelled', 'timed-out', 'invalid', 'missing'] as const).filter(k => c[k] > 0).map(k => `${c[k]} ${k}`);
    return `${c.done}/${status.cells.length} done${rest.length ? ` · ${rest.join(' · ')}` : ''}`;
}

function printStatus(status: SweepStatus): void {
    console.log(countsLine(status));
    for (const line of unfinishedLines(status)) console.log(`  ${line}`);
}

/**
 * Runs the cells without figures here, one after another in cell order — the repeats round-robin
 * over the cells (runtime/sweep/matrix.ts), so slow drift of the host hits every cell alike; a
 * cancellation stops after the current cell's results are written.
 */
async function runLocal(sweep: LoadedSweep, out: CommandOutput): Promise<number> {
    const status = sweepStatus(sweep, [], new Map(), new Map());
    const running = status.cells.filter(c => c.status === 'running');
    if (running.length > 0) {
        // Never two runs at once on one GPU: they would interfere.
        return out.fail(exitCodes.environment, `${running.length} cell${running.length === 1 ? ' is' : 's are'} running already (${running[0].reason}); wait for it, or stop it, then resume`);
    }
    const cells: SweepCell[] = cellsToResume(status);
    if (cells.length === 0) {
        console.error('tenancy sweep: every cell has figures; merge them with tenancy merge');
        return exitCodes.ok;
    }
    const code = await withCancellation(out, async signal => {
        for (const [k, cell] of cells.entries()) {
            if (signal.aborted) break;
            console.error(`tenancy sweep: [${k + 1}/${cells.length}] ${describeCell(cell)}`);
            try {
                const results = await runSweepCell(sweep, cell.index, {
                    signal, onEvent: out.onEvent, onWarning: message => console.error(`tenancy sweep: warning: ${message}`),
                });
                console.error(`tenancy sweep: ${describeCell(cell)}: ${results.status}${results.reason ? ` — ${results.reason}` : ''}`);
            } catch (error) {
                if (error instanceof NoAdapterError) return out.fail(exitCodes.environment, error.message);
                if (signal.aborted) break;
                console.error(`tenancy sweep: ${describeCell(cell)} failed: ${(error as Error).message}`);
            }
        }
        return signal.aborted ? exitCodes.cancelled : undefined;
    });
    const after = sweepStatus(sweep, [], new Map(), new Map());
    console.error(`tenancy sweep: ${countsLine(after)}`);
    for (const line of unfinishedLines(after)) console.error(`  ${line}`);
    if (code !== undefined) return code;
    if (after.counts.done === after.cells.length) {
        console.log(`every cell has figures: tenancy merge ${shellQuote(sweep.paths.folder)}`);
        return exitCodes.ok;
    }
    console.error(`tenancy sweep: run what is left with tenancy sweep --resume ${shellQuote(sweep.paths.folder)}`);
    return exitCodes.incomplete;
}

/** Follows the sweep's Slurm tasks until none is queued or running, drawing progress; then names the cells left without figures. */
async function waitSlurm(sweep: LoadedSweep, pollMs: number, run: CommandRunner): Promise<number> {
    const tty = stderrIsTerminal();
    let last = '';
    let status = await currentStatus(sweep, run);
    let failures = 0;
    for (;;) {
        const line = `${bar(status.counts.done, status.cells.length)} ${countsLine(status)}`;
        if (tty) process.stderr.write(`\r\x1b[K${line}`);
        else if (line !== last) console.error(`tenancy sweep: ${line}`);
        last = line;
        if (!isActive(status)) break;
        await new Promise(r => setTimeout(r, pollMs));
        try {
            status = await currentStatus(sweep, run);
            failures = 0;
        } catch (error) {
            // A controller restarting or busy for a moment must not end a wait of hours; a lasting failure does.
            if (!(error instanceof SlurmError) || error.kind !== 'failed' || ++failures >= MAX_POLL_FAILURES) throw error;
            console.error(`\ntenancy sweep: warning: ${error.message} (poll ${failures} of ${MAX_POLL_FAILURES} that may fail in a row)`);
        }
    }
    if (tty) process.stderr.write('\n');
    if (status.counts.done === status.cells.length) {
        console.log(`every cell has figures: tenancy merge ${shellQuote(sweep.paths.folder)}`);
        return exitCodes.ok;
    }
    for (const line of unfinishedLines(status)) console.error(`  ${line}`);
    console.error(`tenancy sweep: resubmit the cells left without figures with tenancy sweep --resume ${shellQuote(sweep.paths.folder)} --wait`);
    return exitCodes.incomplete;
}

/** `[#####.....]`: the share of cells with figures. */
function bar(done: number, total: number, width = 24): string {
    const filled = total > 0 ? Math.round(width * done / total) : 0;
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
