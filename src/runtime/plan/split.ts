/**
 * Operators split into chunks (GACER's spatial regulation; `regulated` schedules): an op's
 * heaviest launch whose workgroup grid covers the chosen axis (rows, output channels or batch)
 * is cut into `chunks` dispatches (kernels/slice.ts), and its other long launches alike (splitOp);
 * the launches left whole run with the chunk before them, so the chunks in order compute exactly
 * what the op does. Each chunk is a step a schedule may submit on its own: between two chunks another
 * tenant's kernels can run. The predictor times a chunk's launches (`planned`) like any other
 * launch; the GPU compiler builds `launches`. Pure.
 */
import { maxChunks, sliceLaunch } from '../kernels/slice.js';
import { SPLIT_AXES, type KernelDescription, type SplitAxis } from '../kernels/kernel.js';
import type { PlannedLaunch } from './launch.js';
import type { PlannedOp } from './plan.js';

/** How one op is split: along an axis, its heaviest kernel into `chunks` (its other long kernels alike: splitOp). */
export interface OpSplit {
    axis: SplitAxis;
    chunks: number;
}

/** An op cut into chunks. */
export interface OpChunks {
    split: OpSplit;
    /** Per chunk (`split.chunks` or more: splitOp), the kernel launches it runs, in order. */
    launches: readonly (readonly KernelDescription[])[];
    /** Per chunk, its launches as the prediction model times them. */
    planned: readonly (readonly PlannedLaunch[])[];
}

/** A launch's work as the split weighs it: the planned FLOPs the model times (the kernel's own without a plan). */
function workOf(op: Pick<PlannedOp, 'kernels' | 'launches'>, i: number): number {
    return op.launches[i]?.effectiveFlops ?? op.kernels!.launches[i].flops;
}

/** The launch an op is split by along an axis: its heaviest (by FLOPs, then bytes) whose grid covers the axis; -1 when none does. */
function splitLaunchIndex(op: Pick<PlannedOp, 'kernels' | 'launches'>, axis: SplitAxis): number {
    const launches = op.kernels?.launches ?? [];
    let best = -1;
    launches.forEach((k, i) => {
        if (maxChunks(k, axis) < 2) return;
        const weigh = (j: number) => [workOf(op, j), op.launches[j]?.bytes ?? launches[j].bytes];
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

/** A piece of a launch as the prediction model times it: the piece's share of the launch's work; its padded tiles are the launch's, cut alike. */
function plannedPiece(whole: KernelDescription, wholePlanned: PlannedLaunch, piece: KernelDescription): PlannedLaunch {
    const workgroups = piece.dispatch[0] * piece.dispatch[1] * piece.dispatch[2];
    const fraction = whole.flops > 0 ? piece.flops / whole.flops : workgroups / Math.max(1, wholePlanned.workgroups);
    return {
        ...wholePlanned,
        flops: wholePlanned.flops * fraction,
        effectiveFlops: wholePlanned.effectiveFlops * fraction,
        bytes: Math.max(1, piece.bytes),
        workgroups,
    };
}

/**
 * An op in chunks, or undefined when it cannot be split so (no launch of its variant has a grid
 * along the axis, or fewer workgroups along it than chunks). One chunk is the op itself.
 *
 * The heaviest launch along the axis is cut into `split.chunks` pieces, and every other launch
 * whose grid covers the axis and whose work is more than one such piece into as many pieces as
 * keep each within one: attention's output projection, a third of its QKV projection, would
 * otherwise run whole in the last chunk, a chunk three times the others (bert's at batch 4: 13 ms
 * beside chunks of 3 ms). Each piece is a chunk; the launches left whole run in the chunk before
 * them (the first, for those before any piece), so the chunks in order compute what the op does.
 * So an op may take more chunks than `split.chunks`.
 */
export function splitOp(op: Pick<PlannedOp, 'kernels' | 'launches'>, split: OpSplit): OpChunks | undefined {
    const kernels = op.kernels;
    if (!kernels || split.chunks < 1 || !Number.isInteger(split.chunks)) return undefined;
    if (split.chunks === 1) return { split, launches: [kernels.launches], planned: [op.launches] };
    const at = splitLaunchIndex(op, split.axis);
    if (at < 0 || maxChunks(kernels.launches[at], split.axis) < split.chunks) return undefined;
    const pieceWork = workOf(op, at) / split.chunks;
    // A launch of one piece's work, to rounding, stays whole (attention's output projection at 3 chunks of a QKV projection three times its size).
    const piecesOf = (i: number) => i === at ? split.chunks
        : pieceWork > 0 ? Math.min(maxChunks(kernels.launches[i], split.axis), Math.ceil(workOf(op, i) / pieceWork - 1e-9)) : 1;
    const launches: KernelDescription[][] = [], planned: PlannedLaunch[][] = [];
    const before: KernelDescription[] = [], plannedBefore: PlannedLaunch[] = [];
    kernels.launches.forEach((whole, i) => {
        const n = piecesOf(i);
        if (n < 2) {
            (launches.at(-1) ?? before).push(whole);
            (planned.at(-1) ?? plannedBefore).push(op.launches[i]);
            return;
        }
        for (const piece of sliceLaunch(whole, split.axis, n)) {
            const first = launches.length === 0;
            launches.push([...(first ? before : []), piece]);
            planned.push([...(first ? plannedBefore : []), plannedPiece(whole, op.launches[i], piece)]);
        }
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
