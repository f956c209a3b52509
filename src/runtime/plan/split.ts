/**
 * Operators split into chunks (GACER's spatial regulation; `regulated` schedules): an op's
 * heaviest launch whose workgroup grid covers the chosen axis (rows, output channels or batch)
 * is cut into `chunks` dispatches (kernels/slice.ts); the launches before it run with the first
 * chunk and those after it with the last, so the chunks in order compute exactly what the op
 * does. Each chunk is a step a schedule may submit on its own: between two chunks another
 * tenant's kernels can run. The predictor times a chunk's launches (`planned`) like any other
 * launch; the GPU compiler builds `launches`. Pure.
 */
import { maxChunks, sliceLaunch } from '../kernels/slice.js';
import { SPLIT_AXES, type KernelDescription, type SplitAxis } from '../kernels/kernel.js';
import type { PlannedLaunch } from './launch.js';
import type { PlannedOp } from './plan.js';

/** How one op is split: along an axis, into a number of chunks. */
export interface OpSplit {
    axis: SplitAxis;
    chunks: number;
}

/** An op cut into chunks. */
export interface OpChunks {
    split: OpSplit;
    /** Per chunk, the kernel launches it runs, in order. */
    launches: readonly (readonly KernelDescription[])[];
    /** Per chunk, its launches as the prediction model times them. */
    planned: readonly (readonly PlannedLaunch[])[];
}

/** The launch an op is split by along an axis: its heaviest (by FLOPs, then bytes) whose grid covers the axis; -1 when none does. */
function splitLaunchIndex(op: Pick<PlannedOp, 'kernels' | 'launches'>, axis: SplitAxis): number {
    const launches = op.kernels?.launches ?? [];
    let best = -1;
    launches.forEach((k, i) => {
        if (maxChunks(k, axis) < 2) return;
        const weigh = (j: number) => [op.launches[j]?.effectiveFlops ?? launches[j].flops, op.launches[j]?.bytes ?? launches[j].bytes];
        if (best < 0) { best = i; return; }
        const [f, b] = weigh(i), [bf, bb] = weigh(best);
        if (f > bf || (f === bf && b > bb)) best = i;
    });
    return best;
}

/** Per axis, the most chunks an op can be split into along it (axes it cannot be split along are absent). */
export function splitLimits(op: Pick<PlannedOp, 'kernels' | 'launches'>): Partial<Record<SplitAxis, number>> {
    const limits: Partial<Record<SplitAxis, number>> = {};
    for (const axis of SPLIT_AXES) {
        const i = splitLaunchIndex(op, axis);
        if (i >= 0) limits[axis] = maxChunks(op.kernels!.launches[i], axis);
    }
    return limits;
}

/**
 * An op in chunks, or undefined when it cannot be split so (no launch of its variant has a grid
 * along the axis, or fewer workgroups along it than chunks). One chunk is the op itself.
 */
export function splitOp(op: Pick<PlannedOp, 'kernels' | 'launches'>, split: OpSplit): OpChunks | undefined {
    const kernels = op.kernels;
    if (!kernels || split.chunks < 1 || !Number.isInteger(split.chunks)) return undefined;
    if (split.chunks === 1) return { split, launches: [kernels.launches], planned: [op.launches] };
    const at = splitLaunchIndex(op, split.axis);
    if (at < 0 || maxChunks(kernels.launches[at], split.axis) < split.chunks) return undefined;
    const whole = kernels.launches[at], wholePlanned = op.launches[at];
    const pieces = sliceLaunch(whole, split.axis, split.chunks);
    const before = kernels.launches.slice(0, at), after = kernels.launches.slice(at + 1);
    const plannedBefore = op.launches.slice(0, at), plannedAfter = op.launches.slice(at + 1);
    const last = split.chunks - 1;
    const launches = pieces.map((piece, j) => [...(j === 0 ? before : []), piece, ...(j === last ? after : [])]);
    const planned = pieces.map((piece, j) => {
        // The chunk's share of the launch's work; its padded tiles are the launch's, cut alike.
        const share = piece.flops / Math.max(whole.flops, Number.MIN_VALUE);
        const workgroups = piece.dispatch[0] * piece.dispatch[1] * piece.dispatch[2];
        const fraction = whole.flops > 0 ? share : workgroups / Math.max(1, wholePlanned.workgroups);
        const chunk: PlannedLaunch = {
            ...wholePlanned,
            flops: wholePlanned.flops * fraction,
            effectiveFlops: wholePlanned.effectiveFlops * fraction,
            bytes: Math.max(1, piece.bytes),
            workgroups,
        };
        return [...(j === 0 ? plannedBefore : []), chunk, ...(j === last ? plannedAfter : [])];
    });
    return { split, launches, planned };
}

/** How many ops of all tenants a schedule's splits (by tenant, then op path) cut into two chunks or more. */
export function splitWithinCount(opSplits: Readonly<Record<string, Readonly<Record<string, OpSplit>>>> | undefined): number {
    return Object.values(opSplits ?? {}).reduce((n, ops) => n + Object.values(ops).filter(s => s.chunks > 1).length, 0);
}

/** "rows × 4": an op split as the results and messages say it. */
export function splitLabel(split: OpSplit): string {
    return `${split.axis} × ${split.chunks}`;
}

/** One step of a request: op `op` whole (chunks 1) or its chunk `chunk` of `chunks`. */
export interface PlanStep {
    op: number;
    chunk: number;
    chunks: number;
}

/** The steps of a plan of `opCount` ops whose op i runs in `chunksOf(i)` chunks (1: whole). */
export function planSteps(opCount: number, chunksOf: (op: number) => number): PlanStep[] {
    const steps: PlanStep[] = [];
    for (let op = 0; op < opCount; op++) {
        const chunks = Math.max(1, chunksOf(op));
        for (let chunk = 0; chunk < chunks; chunk++) steps.push({ op, chunk, chunks });
    }
    return steps;
}
