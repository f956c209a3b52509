/**
 * The per-op view of a compiled plan that block-cutting policies read (TenantView.ops): FLOPs
 * for apportioning a request's budget, launch counts (aliases are not layers) and a predicted
 * GPU time per op for `layer_block(size: auto)`.
 *
 * Predictions come from the latency model of src/runtime/predict on the given device profile;
 * without one, on its uncalibrated default profile (figures of the order of the reference
 * software adapter, so on a fast GPU they overestimate and `auto` picks smaller blocks than a
 * calibrated profile would). Pure: no webgpu.
 */
import type { IrGraph } from '../ir/types.js';
import type { PlannedOp } from '../compile/plan.js';
import { defaultProfile, type DeviceProfile } from '../predict/profile.js';
import { plannedLaunch } from '../predict/plan.js';
import { opTiming } from '../predict/latency.js';
import type { OpView } from './policy.js';

/** One op as the executor holds it: its plan entry and how many kernels it launches. */
export interface ExecutedOp {
    planned: PlannedOp;
    launches: readonly unknown[];
}

const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** OpViews of a tenant's executed ops (graph: the tenant's IR graph, for output shapes). */
export function opViewsOf(ops: readonly ExecutedOp[], graph: IrGraph, profile: DeviceProfile = defaultProfile()): OpView[] {
    return ops.map(op => {
        const launches = op.launches.length;
        const view: OpView = { flops: op.planned.flops, launches };
        if (launches === 0) return view;
        try {
            const ms = predictedOpMs(op, graph, profile);
            if (ms !== undefined) view.predictedMs = ms;
        } catch {
            // A prediction is advice: without one, `auto` falls back to a fixed block size and
            // no block is judged rescuable — never a reason to fail a run.
        }
        return view;
    });
}

/** Predicted GPU time of one op on a profile (launch times plus dispatch overheads), ms. */
function predictedOpMs(op: ExecutedOp, graph: IrGraph, profile: DeviceProfile): number | undefined {
    const outputShape = graph.tensors[op.planned.fused.output]?.shape;
    const outputs = outputShape ? numel(outputShape) : undefined;
    const planned = op.planned.kernels.launches.map(l => plannedLaunch(l, outputs));
    const timing = opTiming(profile, {
        path: op.planned.path, kind: op.planned.fused.op.kind, fused: [], launches: planned,
        flops: op.planned.flops, bytes: op.planned.bytes, estimated: false,
    });
    // Each launch also pays the dispatch overhead the workload model charges.
    const ms = timing.ms + planned.length * profile.dispatchOverheadMs;
    return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
