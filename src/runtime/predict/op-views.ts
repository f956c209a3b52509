/**
 * The per-op view of a plan that schedules read (schedule/policy.ts OpView): FLOPs for
 * apportioning a request's budget, launch counts (aliases are not layers) and the predicted GPU
 * time per op that `layer_block(size: auto)` cuts by. The executor and the predictor build views
 * of the same plan on the same profile, so a schedule decides alike in both.
 *
 * Under a schedule that splits ops into chunks (`regulated`: plan/split.ts), a request is a list
 * of steps — whole ops and chunks of split ops — and the views are per step: a chunk's time is
 * its own launches timed at the chunk's shape plus the dispatch each pays. Which ops to split,
 * along which axis and into how many chunks is chosen here (chooseOpSplits) on the predicted
 * times, once, and both sides run the choice.
 *
 * Without a calibrated profile, predictions come from the uncalibrated default (figures of the
 * order of the reference software adapter: on a fast GPU they overestimate and `auto` picks
 * smaller blocks than a calibrated profile would). Pure.
 */
import { SPLIT_AXES } from '../kernels/kernel.js';
import type { PlannedOp } from '../plan/plan.js';
import { planSteps, splitLimits, splitOp, type OpChunks, type OpSplit, type PlanStep } from '../plan/split.js';
import type { OpView } from '../schedule/policy.js';
import { launchesServiceMs, opServiceMs } from './latency.js';
import type { DeviceProfile } from './profile.js';

/** One view per planned op; an op without launches has no predicted time, and a prediction that is not a finite time is left out. */
export function opViews(ops: readonly PlannedOp[], profile: DeviceProfile): OpView[] {
    return ops.map(op => {
        const view: OpView = { flops: op.flops, launches: op.launches.length };
        if (view.launches === 0) return view;
        const ms = opServiceMs(profile, op);
        if (ms !== undefined) view.predictedMs = ms;
        return view;
    });
}

/** A request as steps (whole ops and chunks of split ops) with a view per step. */
export interface StepViews {
    steps: PlanStep[];
    views: OpView[];
}

/** The steps of a plan whose op i runs as `chunksOf(i)` (undefined: whole), each with its view. */
export function stepViews(ops: readonly PlannedOp[], chunksOf: (op: number) => OpChunks | undefined, profile: DeviceProfile, whole: readonly OpView[] = opViews(ops, profile)): StepViews {
    const chunked = ops.map((_, i) => chunksOf(i));
    const steps = planSteps(ops.length, i => chunked[i]?.planned.length ?? 1);
    const views = steps.map(s => {
        const c = chunked[s.op];
        if (!c) return whole[s.op];
        const launches = c.planned[s.chunk];
        const view: OpView = { flops: launches.reduce((sum, l) => sum + l.flops, 0), launches: launches.length };
        const ms = launchesServiceMs(profile, launches);
        if (ms !== undefined) view.predictedMs = ms;
        return view;
    });
    return { steps, views };
}

/**
 * Which ops to split so that a request cut into `split` submissions of about equal predicted
 * time (schedule/regulated.ts cutChunks) can cut inside its long ops: every op predicted to take
 * longer than 1/split of the request is split into as many chunks as it takes to bring each to
 * that share (at most what its grid allows), along the axis whose chunks are predicted to take
 * least in all (ties: batch, rows, channels). By op path; empty for split 1.
 */
export function chooseOpSplits(ops: readonly PlannedOp[], profile: DeviceProfile, split: number, whole: readonly OpView[] = opViews(ops, profile)): Record<string, OpSplit> {
    const chosen: Record<string, OpSplit> = {};
    if (split <= 1) return chosen;
    const total = whole.reduce((s, v) => s + (v.predictedMs ?? 0), 0);
    const target = total / split;
    if (!(target > 0)) return chosen;
    ops.forEach((op, i) => {
        const ms = whole[i].predictedMs ?? 0;
        if (!(ms > target)) return;
        const limits = splitLimits(op);
        let best: { split: OpSplit; ms: number } | undefined;
        for (const axis of SPLIT_AXES) {
            const limit = limits[axis];
            if (!limit) continue;
            const chunks = Math.min(limit, Math.ceil(ms / target));
            if (chunks < 2) continue;
            const c = splitOp(op, { axis, chunks });
            if (!c) continue;
            const sum = c.planned.reduce((s, launches) => s + (launchesServiceMs(profile, launches) ?? Infinity), 0);
            if (!best || sum < best.ms) best = { split: c.split, ms: sum };
        }
        if (best) chosen[op.path] = best.split;
    });
    return chosen;
}

/** stepViews of a plan split as `splits` (by op path) says; an op the split cannot be built for runs whole. */
export function splitStepViews(ops: readonly PlannedOp[], splits: Readonly<Record<string, OpSplit>> | undefined, profile: DeviceProfile, whole?: readonly OpView[]): StepViews {
    return stepViews(ops, i => {
        const s = splits?.[ops[i].path];
        return s && s.chunks > 1 ? splitOp(ops[i], s) : undefined;
    }, profile, whole);
}
