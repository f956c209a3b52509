/**
 * `tenancy run <file> [--workload W] …`: compiles a workload's tenants to WebGPU kernels, runs
 * each tenant alone and then all together, prints the interference table and writes the
 * results atomically to `<workspace>/.tenancy/results/<file-stem>.<workload>.json` (+ history).
 *
 * Output: the table on stdout; `--json` puts the results JSON on stdout instead (table on
 * stderr); `--progress jsonl` puts progress events (src/protocol/progress.ts) on stdout, one
 * per line, and the table on stderr. Exit codes (src/protocol/exit-codes.ts): 0 complete or
 * partial, 1 input errors (IR, unsupported op, too large, schedule not implemented), 2 no
 * adapter, the GPU failed during the run (results marked failed) or the results folder cannot
 * take the file (disk full, read-only: kept in the temp folder instead), 3/4 with --fail-on, 130
 * cancelled (results marked cancelled), 64 usage.
 *
 * Kernel variants: each op uses the variant its signature has in the
 * adapter's tuning cache ($XDG_CACHE_HOME/tenancy/tuning/<adapter>.json, plus pins in the
 * workspace's .tenancy/tuning.json), else the generator's default; `--tune` first times the
 * candidates of signatures the cache lacks (progress phase 'tune') and saves the choices;
 * `--no-tune` ignores the cache. The results say per op which variant ran and whether it was
 * 'tuned' or 'default'.
 */
import type { Command } from 'commander';
import { exitCodes } from '../../protocol/exit-codes.js';
import { scheduleName } from '../../runtime/schedule/policy.js';
import { runWorkload } from '../../runtime/execute/run.js';
import { interferenceTable } from '../../runtime/report/table.js';
import type { Results } from '../../runtime/report/schema.js';
import { resultsPathsFor } from '../../runtime/report/write.js';
import { recordedPredictions } from '../../runtime/predict/record.js';
import { NoAdapterError } from '../../runtime/gpu/adapter.js';
import { isCellDone } from '../../runtime/sweep/cells.js';
import { describeCell, readSweep, SweepFolderError, type LoadedSweep } from '../../runtime/sweep/manifest.js';
import { runSweepCell } from '../../runtime/execute/sweep-cell.js';
import { cellsOfShard, shardCount } from '../../runtime/sweep/shards.js';
import packageJson from '../../../package.json' with { type: 'json' };
import {
    addMeasureOptions, positiveInt, CommandOutput, writeMeasured, inputErrorCode, measureErrorCode, readMeasureInput, UsageError, withCancellation, type MeasureFlags, type MeasureInput,
} from '../measure-options.js';

interface RunFlags extends MeasureFlags {
    resultsDir?: string;
    failOn?: string[];
    sweep?: string;
    cell?: string;
    shard?: string;
    cellsPerTask?: string;
}

/** What `--fail-on` may name, and the exit code each gives. */
const FAIL_ON = { slo: exitCodes.sloViolated, invalid: exitCodes.invalid } as const;

export function register(program: Command): void {
    addMeasureOptions(program.command('run')
        .description('Run a workload on the local GPU: each tenant solo, then all co-running; print the interference table and write results'))
        .option('--results-dir <dir>', 'where to write results (default <workspace>/.tenancy/results)')
        .option('--fail-on <what...>', `exit with a code of its own when: slo (an SLO is violated, exit ${exitCodes.sloViolated}), invalid (the figures are not valid, exit ${exitCodes.invalid})`)
        .option('--sweep <folder>', 'run cells of this sweep folder (tenancy sweep) as its manifest says, into the folder: give --cell or --shard')
        .option('--cell <n>', 'with --sweep: the cell to run (a Slurm array task passes $SLURM_ARRAY_TASK_ID)')
        .option('--shard <k>', 'with --sweep: run the cells of shard k one after another (cells k·n … k·n+n−1, n = --cells-per-task)')
        .option('--cells-per-task <n>', 'with --shard: cells per shard')
        .action(async (file: string | undefined, opts: RunFlags) => {
            process.exitCode = opts.sweep !== undefined || opts.cell !== undefined || opts.shard !== undefined ? await runSweepCells(file, opts) : await runCommand(file, opts);
        });
}

async function runCommand(file: string | undefined, opts: RunFlags): Promise<number> {
    const out = new CommandOutput('run', opts.progress === 'jsonl', opts.json);
    let input: MeasureInput;
    try {
        for (const what of opts.failOn ?? []) {
            if (!(what in FAIL_ON)) throw new UsageError(`--fail-on takes ${Object.keys(FAIL_ON).join(' or ')}; found '${what}'`);
        }
        input = await readMeasureInput('run', file, opts);
    } catch (error) {
        return inputErrorCode(error, out);
    }
    const { ir, sourceFile, located } = input;
    out.start(ir.workload, opts.tenant && opts.tenant.length ? opts.tenant : ir.tenants.map(t => t.name), scheduleName(ir.schedule));
    return withCancellation(out, async signal => {
        try {
            const results = await runWorkload({
                ...input.options, ir, signal, onEvent: out.onEvent,
                // The figures the editor showed, stored so prediction error stays visible.
                predictions: recordedPredictions(ir, located),
                // How fast the host ran against the calibrated profile: the editor tells the model's error from the host's speed.
                timeHostSpeed: located.profile.hostSpeedProbeMs !== undefined,
            });
            // A run of some of the tenants (▶ Run solo) has results of its own: the workload's co-run results stay.
            const some = opts.tenant && opts.tenant.length > 0 && opts.tenant.length < ir.tenants.length ? opts.tenant : undefined;
            const paths = resultsPathsFor(sourceFile, ir.workload, opts.resultsDir, some);
            const written = await writeMeasured(paths, results, new Date(results.finishedAt));
            if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
            out.table(interferenceTable(results));
            console.error(`results: ${written.latest}`);
            if (results.status === 'failed') out.emit({ type: 'error', message: results.reason ?? 'the run failed', ...(results.failedOp ? { opPath: results.failedOp } : {}), exitCode: exitCodes.environment });
            out.emit({ type: 'result', resultsFile: written.latest, historyFile: written.history, status: results.status });
            if (results.status === 'cancelled') return exitCodes.cancelled;
            if (results.status === 'failed') {
                console.error(`tenancy run: the run failed${results.failedOp ? ` at op ${results.failedOp}` : ''}: ${results.reason}`);
                return exitCodes.environment;
            }
            return failOnCode(results, opts.failOn ?? []);
        } catch (error) {
            return measureErrorCode(error, out, signal);
        }
    });
}

/** Flags a sweep's cell takes from its manifest, not the command line. */
const FROM_MANIFEST = ['ir', 'workload', 'tenant', 'duration', 'warmup', 'requests', 'rounds', 'budget', 'minRequests', 'adapter', 'tune', 'resultsDir', 'failOn', 'json'] as const;

/**
 * `tenancy run --sweep <folder> --cell N | --shard K --cells-per-task N`: runs cells of a sweep
 * from its manifest alone (a Slurm array task, a Kubernetes Indexed Job's pod, or by hand),
 * writing each cell's results into the folder; a cell that already has figures is skipped (a
 * requeued task does not run it twice). Exit code: the worst cell's (2 failed, 130 cancelled).
 */
async function runSweepCells(file: string | undefined, opts: RunFlags): Promise<number> {
    const out = new CommandOutput('run', opts.progress === 'jsonl', false);
    let sweep: LoadedSweep, cells: number[];
    try {
        if (opts.sweep === undefined) throw new UsageError('--cell and --shard run cells of a sweep: give its folder with --sweep <folder>');
        if (file !== undefined) throw new UsageError(`--sweep runs the sweep's own workloads; drop the file '${file}'`);
        const given = FROM_MANIFEST.find(flag => opts[flag] !== undefined) ?? (opts.fusion === false ? 'fusion' : opts.timing !== 'auto' ? 'timing' : undefined);
        if (given) throw new UsageError(`--${given.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`)}: a sweep's cells measure as its manifest says (set it when making the sweep with tenancy sweep)`);
        if ((opts.cell === undefined) === (opts.shard === undefined)) throw new UsageError('give one of --cell <n> or --shard <k> with --sweep');
        if (opts.cellsPerTask !== undefined && opts.shard === undefined) throw new UsageError('--cells-per-task goes with --shard');
        sweep = readSweep(opts.sweep, packageJson.version);
        const total = sweep.manifest.cells.length;
        if (opts.cell !== undefined) {
            const cell = Number(opts.cell);
            if (!Number.isInteger(cell) || cell < 0 || cell >= total) throw new UsageError(`--cell must be a cell of the sweep, 0–${total - 1}; found '${opts.cell}'`);
            cells = [cell];
        } else {
            const perTask = opts.cellsPerTask !== undefined ? positiveInt(opts.cellsPerTask, '--cells-per-task') : 1;
            const shard = Number(opts.shard);
            const shards = shardCount(total, perTask);
            if (!Number.isInteger(shard) || shard < 0 || shard >= shards) throw new UsageError(`--shard must be one of the sweep's ${shards} shards of ${perTask} cells, 0–${shards - 1}; found '${opts.shard}'`);
            cells = cellsOfShard(shard, perTask, total);
        }
    } catch (error) {
        if (error instanceof SweepFolderError) return out.fail(exitCodes.inputErrors, error.message);
        return inputErrorCode(error, out);
    }
    return withCancellation(out, async signal => {
        let worst: number = exitCodes.ok;
        for (const index of cells) {
            const cell = sweep.manifest.cells[index];
            if (isCellDone(sweep, cell)) {
                console.error(`tenancy run: ${describeCell(cell)} already has figures (${sweep.paths.results(index)}); skipped`);
                continue;
            }
            if (signal.aborted) return exitCodes.cancelled;
            console.error(`tenancy run: ${describeCell(cell)}`);
            try {
                const results = await runSweepCell(sweep, index, { signal, onEvent: out.onEvent, onWarning: message => console.error(`tenancy run: warning: ${message}`) });
                out.table(interferenceTable(results));
                console.error(`results: ${sweep.paths.results(index)}`);
                if (results.status === 'cancelled') return exitCodes.cancelled;
                if (results.status === 'failed') {
                    console.error(`tenancy run: ${describeCell(cell)} failed${results.failedOp ? ` at op ${results.failedOp}` : ''}: ${results.reason}`);
                    worst = exitCodes.environment;
                }
            } catch (error) {
                const code = measureErrorCode(error, out, signal);
                if (code === exitCodes.cancelled || error instanceof NoAdapterError) return code;
                worst = code;
            }
        }
        return worst;
    });
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
