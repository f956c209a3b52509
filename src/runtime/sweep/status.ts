/**
 * Where a sweep stands, cell by cell: its files first (a valid results file is done, whoever ran
 * it), then the Slurm task that runs it (pending, running, or how it ended: failed, cancelled,
 * timed out), else what its state file says. `--wait` draws progress from it; `--resume`
 * resubmits exactly the cells that are neither done nor queued. Pure: it reads what it is given.
 */
import { describeCell, type LoadedSweep, type SweepCell } from './manifest.js';
import { processGone, readCellOutcome } from './cells.js';
import { shardOfCell } from './shards.js';
import { taskState, type Submission, type TaskState } from './slurm.js';

export type CellStatusKind = 'done' | 'pending' | 'running' | 'failed' | 'cancelled' | 'timed-out' | 'invalid' | 'missing';

export interface CellStatus {
    cell: SweepCell;
    status: CellStatusKind;
    /** Why, for every status but done. */
    reason?: string;
}

export interface SweepStatus {
    cells: CellStatus[];
    counts: Record<CellStatusKind, number>;
}

/** Slurm's end states and what they mean for a cell that has no figures. */
const ENDED: Record<string, CellStatusKind> = {
    TIMEOUT: 'timed-out', DEADLINE: 'timed-out', CANCELLED: 'cancelled', PREEMPTED: 'cancelled',
    FAILED: 'failed', OUT_OF_MEMORY: 'failed', NODE_FAIL: 'failed', BOOT_FAIL: 'failed',
};
const QUEUED = ['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'SUSPENDED', 'STOPPED', 'SIGNALING'];
const RUNNING = ['RUNNING', 'COMPLETING', 'STAGE_OUT', 'RESIZING'];

/** The submission whose array covers the cell last, and the task that runs it there. */
export function taskOfCell(submissions: readonly Submission[], cell: number): { submission: Submission; taskId: number } | undefined {
    for (let i = submissions.length - 1; i >= 0; i--) {
        const s = submissions[i];
        const taskId = shardOfCell(cell, s.options.cellsPerTask);
        if (s.tasks.includes(taskId)) return { submission: s, taskId };
    }
    return undefined;
}

/**
 * Every cell's status. `queued` and `ended` are the Slurm task states (queuedTasks, endedTasks);
 * both empty for a sweep run here (--local).
 */
export function sweepStatus(sweep: LoadedSweep, submissions: readonly Submission[], queued: ReadonlyMap<string, TaskState>, ended: ReadonlyMap<string, TaskState>): SweepStatus {
    const cells = sweep.manifest.cells.map((cell): CellStatus => {
        const outcome = readCellOutcome(sweep, cell);
        if (outcome.kind === 'done') return { cell, status: 'done' };
        const task = taskOfCell(submissions, cell.index);
        if (task) {
            const where = `job ${task.submission.jobId}, task ${task.taskId}`;
            const live = taskState(queued, task.submission.jobId, task.taskId);
            if (live && QUEUED.includes(live.state)) return { cell, status: 'pending', reason: `${where} ${live.state.toLowerCase()}${live.detail ? ` (${live.detail})` : ''}` };
            if (live && RUNNING.includes(live.state)) return { cell, status: outcome.kind === 'missing' && outcome.state ? 'running' : 'pending', reason: `${where} running` };
            const end = taskState(ended, task.submission.jobId, task.taskId);
            const kind = end ? ENDED[end.state] : undefined;
            if (end && kind) return { cell, status: kind, reason: `${where} ended ${end.state}${end.detail ? ` (${end.detail})` : ''}${outcome.kind !== 'missing' ? `; ${outcome.reason}` : ''}` };
            if (outcome.kind === 'missing') {
                // The task is gone and the cell has no figures: killed outright (SIGKILL, a node lost), or it never started.
                return { cell, status: 'failed', reason: `${where} ended without finishing it (${outcome.reason})${end ? `; Slurm says ${end.state}` : ''}` };
            }
            return { cell, status: outcome.kind, reason: `${outcome.reason} (${where})` };
        }
        if (outcome.kind === 'missing') {
            if (!outcome.state) return { cell, status: 'missing', reason: outcome.reason };
            // Run here (--local) by a process that is gone: stopped before it could say so.
            if (processGone(outcome.state)) return { cell, status: 'failed', reason: `${outcome.reason}, and its process ${outcome.state.pid} is gone` };
            return { cell, status: 'running', reason: outcome.reason };
        }
        return { cell, status: outcome.kind, reason: outcome.reason };
    });
    const counts = { done: 0, pending: 0, running: 0, failed: 0, cancelled: 0, 'timed-out': 0, invalid: 0, missing: 0 } satisfies Record<CellStatusKind, number>;
    for (const c of cells) counts[c.status]++;
    return { cells, counts };
}

/** True while some cell waits for or runs in a Slurm task. */
export function isActive(status: SweepStatus): boolean {
    return status.counts.pending + status.counts.running > 0;
}

/** Cells a resume runs again: neither done nor queued. */
export function cellsToResume(status: SweepStatus): SweepCell[] {
    return status.cells.filter(c => c.status !== 'done' && c.status !== 'pending' && c.status !== 'running').map(c => c.cell);
}

/** One line per cell that is not done: `cell 3 (…): timed-out — job 12, task 3 ended TIMEOUT`. */
export function unfinishedLines(status: SweepStatus): string[] {
    return status.cells.filter(c => c.status !== 'done').map(c => `${describeCell(c.cell)}: ${c.status}${c.reason ? ` — ${c.reason}` : ''}`);
}
