/**
 * The per-op view of a plan that schedules read (schedule/policy.ts OpView): FLOPs for
 * apportioning a request's budget, launch counts (aliases are not layers) and the predicted GPU
 * time per op that `layer_block(size: auto)` cuts by. The executor and the predictor build views
 * of the same plan on the same profile, so a schedule decides alike in both.
 *
 * Without a calibrated profile, predictions come from the uncalibrated default (figures of the
 * order of the reference software adapter: on a fast GPU they overestimate and `auto` picks
 * smaller blocks than a calibrated profile would). Pure.
 */
import type { PlannedOp } from '../plan/plan.js';
import type { OpView } from '../schedule/policy.js';
import { opServiceMs } from './latency.js';
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
