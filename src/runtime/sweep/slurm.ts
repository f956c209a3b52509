/**
 * Slurm, through its own commands: a job array's script (`sbatch --array`, one task per cell or
 * per shard of cells, each running `tenancy run --sweep <folder> --cell|--shard
 * $SLURM_ARRAY_TASK_ID`), its submission, and its tasks' states (`squeue` while they are queued
 * or running; `sacct`, or `scontrol show job` where accounting is off, once they ended). Tenancy
 * writes and reads; Slurm places, runs and retries. Commands run through a `CommandRunner` so
 * that tests can stand in for Slurm. Node only, no device.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../report/write.js';
import type { SweepPaths } from './manifest.js';
import { arraySpec } from './shards.js';

/** How the tasks of a submission are cut and what each asks Slurm for. */
export interface SlurmOptions {
    partition?: string;
    /** Slurm's time format: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS. */
    time?: string;
    /** GPUs per task (`--gres=gpu:N`); 0 asks for none and a whole node instead (`--exclusive`: a cluster without GPU GRES, or a software adapter). */
    gpus: number;
    /** More `#SBATCH` options, one per line as written after `#SBATCH` (e.g. `--account=lab`, `--constraint=a100`). */
    extra: string[];
    /** Cells each task runs one after another (1: the task index is the cell index). */
    cellsPerTask: number;
    /** At most this many tasks of the array at once (`--array=…%N`). */
    maxRunning?: number;
}

/** A job array submitted for the sweep: which tasks, how they were cut, what they asked for. */
export const submissionSchema = z.object({
    jobId: z.string(),
    submittedAt: z.string(),
    script: z.string(),
    /** Array task ids: cell indices (cellsPerTask 1) or shard indices. */
    tasks: z.array(z.number().int().nonnegative()),
    options: z.object({
        partition: z.string().optional(),
        time: z.string().optional(),
        gpus: z.number().int().nonnegative(),
        extra: z.array(z.string()),
        cellsPerTask: z.number().int().positive(),
        maxRunning: z.number().int().positive().optional(),
    }),
    command: z.string(),
});
export type Submission = z.infer<typeof submissionSchema>;

/** Slurm cannot be used: its commands are missing, or it refused or failed a request. */
export class SlurmError extends Error {
    constructor(message: string, readonly kind: 'missing' | 'refused' | 'failed') {
        super(message);
        this.name = 'SlurmError';
    }
}

/** What a command gave: its exit code (null: it could not start, `error` says why), stdout and stderr. */
export interface CommandResult {
    code: number | null;
    stdout: string;
    stderr: string;
    error?: NodeJS.ErrnoException;
}

/** Runs a command without a shell. */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

/** The runner that starts the real commands (30 s each at most: a wedged controller must not hang the sweep). */
export const runCommand: CommandRunner = (command, args) => new Promise(resolve => {
    execFile(command, [...args], { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const e = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
        if (e && typeof e.code === 'string') return resolve({ code: null, stdout: String(stdout), stderr: String(stderr), error: e });
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
});

const TIME = /^(\d+-)?\d+(:\d+){0,2}$/;
/** #SBATCH options the sweep sets itself, so extra lines must not. */
const OWN = ['--array', '-a', '--output', '-o', '--error', '-e', '--job-name', '-J', '--parsable', '--wrap'];

/** Checks the options; throws an Error naming the one that is wrong and what it takes. */
export function checkSlurmOptions(options: SlurmOptions): void {
    if (options.time !== undefined && !TIME.test(options.time)) {
        throw new Error(`--time takes Slurm's time format (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS); found '${options.time}'`);
    }
    if (options.partition !== undefined && !/^[\w.,-]+$/.test(options.partition)) throw new Error(`--partition takes a partition name (or a comma-separated list); found '${options.partition}'`);
    for (const line of options.extra) {
        if (/[\r\n]/.test(line) || !line.startsWith('-')) throw new Error(`--sbatch takes one sbatch option as written after #SBATCH, e.g. --sbatch=--account=lab; found '${line}'`);
        const name = line.split(/[=\s]/)[0];
        if (OWN.includes(name)) throw new Error(`--sbatch ${line}: the sweep sets ${name} itself (the array of its cells, the log files, the job's name)`);
    }
}

/** A word quoted for bash: `'…'`, with single quotes inside written `'\''`. */
export function shellQuote(word: string): string {
    return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The job's name: `tenancy-<sweep id>` (squeue finds the sweep's tasks by it). */
export function jobName(sweepId: string): string {
    return `tenancy-${sweepId}`.replace(/[^\w.-]/g, '_');
}

/**
 * The job array's script. `command` is the shell text that starts Tenancy on a compute node
 * (`/usr/bin/node /opt/tenancy/out/cli/tenancy.mjs`); each task runs its cell (or its shard's
 * cells) into the sweep folder, which every node must see at the same path.
 */
export function jobScript(args: { paths: SweepPaths; sweepId: string; cells: number; tasks: readonly number[]; options: SlurmOptions; command: string }): string {
    const { paths, options } = args;
    const perTask = options.cellsPerTask;
    const lines = [
        '#!/bin/bash',
        `# Tenancy sweep ${args.sweepId}: ${args.cells} cells, ${perTask === 1 ? 'one per array task (the task id is the cell index)' : `${perTask} per array task (task k runs cells k*${perTask} … k*${perTask}+${perTask - 1})`}.`,
        '# Written by tenancy sweep --slurm; submitted with sbatch. Resubmit what failed with tenancy sweep --resume.',
        `#SBATCH --job-name=${jobName(args.sweepId)}`,
        `#SBATCH --array=${arraySpec(args.tasks)}${options.maxRunning ? `%${options.maxRunning}` : ''}`,
        `#SBATCH --output=${paths.logs}/%A_%a.out`,
        ...(options.partition ? [`#SBATCH --partition=${options.partition}`] : []),
        ...(options.time ? [`#SBATCH --time=${options.time}`] : []),
        // Without a GPU per task, a whole node per task: two cells on one device would interfere.
        ...(options.gpus > 0 ? [`#SBATCH --gres=gpu:${options.gpus}`] : ['#SBATCH --exclusive']),
        ...options.extra.map(line => `#SBATCH ${line}`),
        '',
        `exec ${args.command} run --sweep ${shellQuote(paths.folder)} ${perTask === 1 ? '--cell "$SLURM_ARRAY_TASK_ID"' : `--shard "$SLURM_ARRAY_TASK_ID" --cells-per-task ${perTask}`}`,
        '',
    ];
    return lines.join('\n');
}

/** The submissions made for a sweep so far (oldest first); none when it was never submitted. */
export function readSubmissions(paths: SweepPaths): Submission[] {
    if (!existsSync(paths.submissions)) return [];
    const parsed = z.array(submissionSchema).safeParse(JSON.parse(readFileSync(paths.submissions, 'utf8')));
    if (!parsed.success) throw new Error(`${paths.submissions} is not a list of submissions: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
}

/**
 * Writes the script and submits it with `sbatch --parsable`; records the submission. Throws
 * SlurmError: `missing` when sbatch is not there, `refused` when it turns the job down (its
 * message quoted).
 */
export async function submitArray(run: CommandRunner, args: Parameters<typeof jobScript>[0]): Promise<Submission> {
    const { paths } = args;
    const previous = readSubmissions(paths);
    const script = paths.jobScript(previous.length + 1);
    await mkdir(paths.logs, { recursive: true });
    await writeFileAtomic(script, jobScript(args));
    const r = await run('sbatch', ['--parsable', script]);
    if (r.code === null) {
        throw new SlurmError(r.error?.code === 'ENOENT'
            ? 'sbatch was not found: this machine is not a Slurm submit host. Install Slurm\'s client with the cluster\'s configuration (Debian: slurm-client), or run the cells here with --local'
            : `could not run sbatch: ${r.error?.message ?? 'unknown error'}`, 'missing');
    }
    if (r.code !== 0) throw new SlurmError(`sbatch refused the job array (${script}): ${(r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`).replace(/^sbatch: error: /gm, '')}`, 'refused');
    const m = /^(\d+)(;\S*)?\s*$/.exec(r.stdout.trim());
    if (!m) throw new SlurmError(`sbatch answered '${r.stdout.trim()}', not a job id`, 'failed');
    const submission: Submission = {
        jobId: m[1], submittedAt: new Date().toISOString(), script, tasks: [...args.tasks],
        options: {
            ...(args.options.partition ? { partition: args.options.partition } : {}), ...(args.options.time ? { time: args.options.time } : {}),
            gpus: args.options.gpus, extra: args.options.extra, cellsPerTask: args.options.cellsPerTask,
            ...(args.options.maxRunning ? { maxRunning: args.options.maxRunning } : {}),
        },
        command: args.command,
    };
    await writeFileAtomic(paths.submissions, `${JSON.stringify([...previous, submission], null, 2)}\n`);
    return submission;
}

/** A task's state as Slurm reports it (`RUNNING`, `PENDING`, `COMPLETED`, `TIMEOUT`, `CANCELLED`…), and why for a pending one. */
export interface TaskState {
    jobId: string;
    taskId: number;
    state: string;
    detail?: string;
}

const taskKey = (jobId: string, taskId: number) => `${jobId}_${taskId}`;

/** Expands `12_[3-5,7]` or `12_4` into task ids (a pending array may be listed compactly). */
function taskIdsOf(id: string): { jobId: string; tasks: number[] } | undefined {
    const m = /^(\d+)_(\[?)([\d,\-%]+)\]?$/.exec(id.trim());
    if (!m) return undefined;
    const tasks: number[] = [];
    for (const part of m[3].split('%')[0].split(',')) {
        const [a, b] = part.split('-').map(Number);
        if (!Number.isInteger(a)) continue;
        for (let t = a; t <= (Number.isInteger(b) ? b : a); t++) tasks.push(t);
    }
    return { jobId: m[1], tasks };
}

/** The sweep's tasks still queued or running (`squeue`), by `<job>_<task>`. Throws SlurmError when squeue fails. */
export async function queuedTasks(run: CommandRunner, sweepId: string): Promise<Map<string, TaskState>> {
    const r = await run('squeue', ['--noheader', '--array', `--name=${jobName(sweepId)}`, '--format=%i|%T|%r']);
    if (r.code === null) throw new SlurmError(r.error?.code === 'ENOENT' ? 'squeue was not found: this machine is not a Slurm submit host' : `could not run squeue: ${r.error?.message}`, 'missing');
    if (r.code !== 0) throw new SlurmError(`squeue failed: ${r.stderr.trim() || `exit ${r.code}`}`, 'failed');
    const states = new Map<string, TaskState>();
    for (const line of r.stdout.split('\n')) {
        const [id, state, reason] = line.split('|');
        const ids = id ? taskIdsOf(id) : undefined;
        if (!ids || !state) continue;
        for (const taskId of ids.tasks) states.set(taskKey(ids.jobId, taskId), { jobId: ids.jobId, taskId, state: state.trim(), ...(reason && reason.trim() !== 'None' ? { detail: reason.trim() } : {}) });
    }
    return states;
}

/**
 * How the jobs' tasks ended, by `<job>_<task>`: `sacct` where Slurm keeps accounting, else
 * `scontrol show job` (which knows a job for a few minutes after it ended); an empty map when
 * neither can say (the cells' own files still do).
 */
export async function endedTasks(run: CommandRunner, jobIds: readonly string[]): Promise<Map<string, TaskState>> {
    const states = new Map<string, TaskState>();
    if (jobIds.length === 0) return states;
    const sacct = await run('sacct', ['--noheader', '--parsable2', '--allocations', `--jobs=${jobIds.join(',')}`, '--format=JobID,State,ExitCode']);
    if (sacct.code === 0) {
        for (const line of sacct.stdout.split('\n')) {
            const [id, state, exit] = line.split('|');
            const ids = id ? taskIdsOf(id) : undefined;
            if (!ids || !state) continue;
            // `CANCELLED by 0` → CANCELLED; the exit code (code:signal) says more for FAILED.
            for (const taskId of ids.tasks) states.set(taskKey(ids.jobId, taskId), { jobId: ids.jobId, taskId, state: state.split(' ')[0], ...(exit && exit !== '0:0' ? { detail: `exit ${exit}` } : {}) });
        }
        return states;
    }
    for (const jobId of jobIds) {
        const r = await run('scontrol', ['--oneliner', 'show', 'job', jobId]);
        if (r.code !== 0) continue;
        for (const line of r.stdout.split('\n')) {
            const field = (name: string) => new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(line)?.[1];
            const job = field('ArrayJobId'), task = Number(field('ArrayTaskId')), state = field('JobState');
            if (!job || !Number.isInteger(task) || !state) continue;
            const exit = field('ExitCode'), reason = field('Reason');
            states.set(taskKey(job, task), { jobId: job, taskId: task, state, ...(exit && exit !== '0:0' ? { detail: `exit ${exit}` } : reason && reason !== 'None' ? { detail: reason } : {}) });
        }
    }
    return states;
}

/** A task's state by job and task id, from maps of queuedTasks/endedTasks. */
export function taskState(states: ReadonlyMap<string, TaskState>, jobId: string, taskId: number): TaskState | undefined {
    return states.get(taskKey(jobId, taskId));
}
