/**
 * Runs one cell of a sweep from its manifest alone: the workload's IR under the cell's schedule,
 * at its load and with its seed, measured as the manifest says; writes the cell's state when it
 * starts and ends, and its rounds and results files (atomically) into the sweep folder. What a
 * Slurm task (`tenancy run --sweep <folder> --cell N`) and `tenancy sweep --local` both run.
 */
import type { RunEvent } from './events.js';
import { runWorkloadRounds } from './run.js';
import type { Results } from '../report/schema.js';
import { loadTuningCache } from '../tune/cache.js';
import { cellRoundsOf, startedState, writeCellFiles, writeCellState } from '../sweep/cells.js';
import { cellSchedule, describeCell, type LoadedSweep } from '../sweep/manifest.js';

/** Options of {@link runSweepCell}. */
export interface RunCellOptions {
    signal?: AbortSignal;
    onEvent?: (event: RunEvent) => void;
    /** Receives one line per unusable tuning file. */
    onWarning?: (message: string) => void;
    /** The environment the state records (Slurm's array variables); default process.env. */
    env?: NodeJS.ProcessEnv;
}

/**
 * Runs cell `index` of the sweep and writes its files; returns its results (failed or cancelled
 * runs included: their results say so and the state records it). Throws for an index the
 * manifest lacks, and rethrows what the run threw before measuring (no adapter, a compile
 * error) after recording it in the cell's state.
 */
export async function runSweepCell(sweep: LoadedSweep, index: number, options: RunCellOptions = {}): Promise<Results> {
    const { manifest, paths } = sweep;
    const cell = manifest.cells[index];
    if (!cell) throw new RangeError(`the sweep has cells 0–${manifest.cells.length - 1}; there is no cell ${index}`);
    const ir = sweep.irs.get(cell.workload)!;
    const run = manifest.run;
    const started = startedState(index, options.env);
    await writeCellState(paths, started);
    let results: Results;
    try {
        const measured = await runWorkloadRounds({
            ir: { ...ir, schedule: cellSchedule(manifest, cell) },
            load: cell.load, seed: cell.seed,
            durationMs: run.durationMs, warmupMs: run.warmupMs, requests: run.requests, rounds: run.rounds,
            budgetMs: run.budgetMs, minRequests: run.minRequests, adapter: run.adapter,
            fusion: run.fusion, timing: run.timing,
            // Resolving on the manifest's profile makes the cell run what the matrix predicted.
            profile: manifest.profile,
            ...(run.tuning === 'cache' ? {
                tune: {
                    measure: false,
                    load: identity => loadTuningCache({ adapter: identity, workspaceFolder: manifest.workspaceFolder, onWarning: options.onWarning }),
                    onWarning: options.onWarning,
                },
            } : {}),
            signal: options.signal, onEvent: options.onEvent,
        });
        results = measured.results;
        await writeCellFiles(paths, index, results, cellRoundsOf(index, measured.rounds));
    } catch (error) {
        const cancelled = options.signal?.aborted === true;
        await writeCellState(paths, {
            ...started, status: cancelled ? 'cancelled' : 'failed', finishedAt: new Date().toISOString(),
            reason: `${describeCell(cell)}: ${(error as Error).message}`,
        });
        throw error;
    }
    const status = results.status === 'failed' ? 'failed' : results.status === 'cancelled' ? 'cancelled' : 'done';
    await writeCellState(paths, {
        ...started, status, finishedAt: new Date().toISOString(),
        ...(status !== 'done' && results.reason ? { reason: results.reason } : {}),
    });
    return results;
}
