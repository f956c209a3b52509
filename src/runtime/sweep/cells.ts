/**
 * A cell's files in the sweep folder and what they say: its results file (the results schema of
 * `tenancy run`), its rounds (each tenant's latencies round by round, so that repeats pool into
 * one sample with intervals over rounds) and its state (who runs it, how it ended). A cell is
 * done when its results file is valid, belongs to this sweep's cell and its run completed (or
 * was partial: an overload is a measurement of that load); anything else is named with why.
 * Pure: Node fs only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { irHash } from '../ir/hash.js';
import type { TenantPhaseData } from '../report/build.js';
import { parseResults, type Results } from '../report/schema.js';
import { writeFileAtomic } from '../report/write.js';
import { describeCell, SWEEP_SCHEMA_VERSION, type LoadedSweep, type SweepCell, type SweepPaths } from './manifest.js';

const num = z.number();
const count = z.number().int().nonnegative();

/** One phase of one round: its request latencies (ms), the measured window and the requests left unfinished; null when the round lacks the phase. */
const phaseRoundSchema = z.object({ latenciesMs: z.array(num), windowMs: num, unfinished: count }).nullable();

export const cellRoundsSchema = z.object({
    schemaVersion: z.literal(SWEEP_SCHEMA_VERSION),
    kind: z.literal('sweep-cell-rounds'),
    cell: count,
    tenants: z.array(z.object({ name: z.string(), solo: z.array(phaseRoundSchema), corun: z.array(phaseRoundSchema) })),
});
export type CellRounds = z.infer<typeof cellRoundsSchema>;

export const cellStateSchema = z.object({
    cell: count,
    /** running: started and not finished (a task killed outright stays so); done, failed, cancelled: how it ended. */
    status: z.enum(['running', 'done', 'failed', 'cancelled']),
    startedAt: z.string(),
    finishedAt: z.string().optional(),
    host: z.string(),
    pid: z.number().int(),
    /** The Slurm job and array task that ran it, when one did. */
    slurm: z.object({ jobId: z.string(), taskId: z.number().int() }).optional(),
    exitCode: z.number().int().optional(),
    reason: z.string().optional(),
});
export type CellState = z.infer<typeof cellStateSchema>;

/** What a cell's files say. */
export type CellOutcome =
    | { kind: 'done'; results: Results; rounds: CellRounds }
    /** No results file: never started, or still running (`state` says which). */
    | { kind: 'missing'; reason: string; state?: CellState }
    /** Ended without figures to merge: the run failed or was cancelled. */
    | { kind: 'failed' | 'cancelled'; reason: string; state?: CellState }
    /** Its files exist but cannot be merged (unreadable, of another cell or sweep). */
    | { kind: 'invalid'; reason: string };

/** Rounds as the results were built from them, latencies to 0.1 µs (the timers' resolution is coarser). */
export function cellRoundsOf(cell: number, tenants: readonly { name: string; solo: readonly (TenantPhaseData | undefined)[]; corun: readonly (TenantPhaseData | undefined)[] }[]): CellRounds {
    const round = (d: TenantPhaseData | undefined) => d ? { latenciesMs: d.latenciesMs.map(x => Math.round(x * 1e4) / 1e4), windowMs: d.windowMs, unfinished: d.unfinished } : null;
    return {
        schemaVersion: SWEEP_SCHEMA_VERSION, kind: 'sweep-cell-rounds', cell,
        tenants: tenants.map(t => ({ name: t.name, solo: Array.from(t.solo, round), corun: Array.from(t.corun, round) })),
    };
}

/** The state a cell's process writes when it starts, from the environment (Slurm's array variables when a task runs it). */
export function startedState(cell: number, env: NodeJS.ProcessEnv = process.env): CellState {
    const jobId = env.SLURM_ARRAY_JOB_ID ?? env.SLURM_JOB_ID;
    const taskId = Number(env.SLURM_ARRAY_TASK_ID);
    return {
        cell, status: 'running', startedAt: new Date().toISOString(), host: hostname(), pid: process.pid,
        ...(jobId && Number.isInteger(taskId) ? { slurm: { jobId, taskId } } : {}),
    };
}

/** Writes a cell's state atomically. */
export async function writeCellState(paths: SweepPaths, state: CellState): Promise<void> {
    await writeFileAtomic(paths.state(state.cell), `${JSON.stringify(state, null, 2)}\n`);
}

/** Writes a cell's rounds, then its results (the results file last: its presence means both are there). */
export async function writeCellFiles(paths: SweepPaths, cell: number, results: Results, rounds: CellRounds): Promise<void> {
    await writeFileAtomic(paths.rounds(cell), `${JSON.stringify(rounds)}\n`);
    await writeFileAtomic(paths.results(cell), `${JSON.stringify(results, null, 2)}\n`);
}

function readJson(file: string): unknown {
    return JSON.parse(readFileSync(file, 'utf8'));
}

/** A cell's state file, or undefined when it has none or it cannot be read. */
export function readCellState(paths: SweepPaths, cell: number): CellState | undefined {
    if (!existsSync(paths.state(cell))) return undefined;
    try {
        const parsed = cellStateSchema.safeParse(readJson(paths.state(cell)));
        return parsed.success ? parsed.data : undefined;
    } catch {
        return undefined;
    }
}

/** How a state reads in a sentence: `started 03:10 on node7 (job 12, task 3)`. */
function stateWords(s: CellState): string {
    const where = `on ${s.host}${s.slurm ? ` (job ${s.slurm.jobId}, task ${s.slurm.taskId})` : ` (pid ${s.pid})`}`;
    return s.status === 'running' ? `started ${s.startedAt} ${where} and has not finished` : `${s.status} ${s.finishedAt ?? ''} ${where}`.replace(/\s+/g, ' ');
}

/** What a cell's files say (see CellOutcome); never throws for a bad file, it names it. */
export function readCellOutcome(sweep: LoadedSweep, cell: SweepCell): CellOutcome {
    const { paths, manifest } = sweep;
    const state = readCellState(paths, cell.index);
    const resultsFile = paths.results(cell.index);
    if (!existsSync(resultsFile)) {
        if (state?.status === 'failed' || state?.status === 'cancelled') {
            return { kind: state.status, reason: `${stateWords(state)}${state.reason ? `: ${state.reason}` : ''}${state.exitCode !== undefined ? ` (exit ${state.exitCode})` : ''}`, state };
        }
        return { kind: 'missing', reason: state ? stateWords(state) : 'never started', ...(state ? { state } : {}) };
    }
    let results: Results;
    try {
        results = parseResults(readJson(resultsFile));
    } catch (error) {
        return { kind: 'invalid', reason: `${resultsFile}: ${(error as Error).message}` };
    }
    const workload = manifest.workloads.find(w => w.name === cell.workload)!;
    const schedule = workload.schedules[cell.scheduleIndex];
    const mismatch = results.workload !== cell.workload ? `it is of workload ${results.workload}`
        : results.config.irHash !== irHash({ ...sweep.irs.get(cell.workload)!, schedule: schedule.schedule }) ? 'it ran another version of the workload (its IR hash differs from the manifest\'s)'
            : results.config.tenancyVersion !== manifest.tenancyVersion ? `it was written by Tenancy ${results.config.tenancyVersion}`
                : results.config.seed !== cell.seed ? `it ran seed ${results.config.seed}, the cell's is ${cell.seed}`
                    : (results.config.load ?? 1) !== cell.load ? `it ran at ${results.config.load ?? 1}× load, the cell's is ${cell.load}×`
                        : results.config.policy !== schedule.resolved ? `it ran ${results.config.policy}, the cell's schedule resolves to ${schedule.resolved}` : undefined;
    if (mismatch) return { kind: 'invalid', reason: `${resultsFile} is not this cell's results: ${mismatch}` };
    if (results.status === 'failed' || results.status === 'cancelled') {
        return { kind: results.status, reason: `the run ${results.status === 'failed' ? 'failed' : 'was cancelled'}${results.reason ? `: ${results.reason}` : ''}`, ...(state ? { state } : {}) };
    }
    if (!existsSync(paths.rounds(cell.index))) return { kind: 'invalid', reason: `${paths.rounds(cell.index)} is missing (the cell's rounds, which the merge pools)` };
    let rounds: CellRounds;
    try {
        const parsed = cellRoundsSchema.safeParse(readJson(paths.rounds(cell.index)));
        if (!parsed.success) return { kind: 'invalid', reason: `${paths.rounds(cell.index)}: ${parsed.error.issues.slice(0, 3).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
        rounds = parsed.data;
    } catch (error) {
        return { kind: 'invalid', reason: `${paths.rounds(cell.index)}: ${(error as Error).message}` };
    }
    const names = results.tenants.map(t => t.name).join(',');
    if (rounds.cell !== cell.index || rounds.tenants.map(t => t.name).join(',') !== names) {
        return { kind: 'invalid', reason: `${paths.rounds(cell.index)} does not match ${describeCell(cell)} or its results (tenants ${names})` };
    }
    return { kind: 'done', results, rounds };
}

/** True when the state's process ran on this host and no longer exists (a process elsewhere cannot be checked: false). */
export function processGone(state: CellState): boolean {
    if (state.host !== hostname()) return false;
    try {
        process.kill(state.pid, 0);
        return false;
    } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
}

/** True when the cell has figures to merge (resumes skip it). */
export function isCellDone(sweep: LoadedSweep, cell: SweepCell): boolean {
    return readCellOutcome(sweep, cell).kind === 'done';
}
