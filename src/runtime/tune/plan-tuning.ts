/// <reference types="@webgpu/types" />
/**
 * Tuning a workload's plans: the distinct op signatures of planned tenants become tune
 * targets; those the cache lacks are measured (./tuner.ts) on one device before the tenants
 * are compiled. `tenancy run --tune` calls this; calibration may too.
 */
import type { TenantPlan } from '../plan/tenant-plan.js';
import type { TuneTarget, TuneOptions, RecordingTuningCache } from './tuner.js';
import { shortlistFor } from './tuner.js';

/** One target per distinct signature of the plans (first occurrence wins). */
export function tuneTargetsOfPlans(plans: readonly TenantPlan[]): TuneTarget[] {
    const out: TuneTarget[] = [];
    const seen = new Set<string>();
    for (const plan of plans) {
        const tensors = plan.tenant.graph.tensors;
        for (const op of plan.ops) {
            if (seen.has(op.signature) || op.kernels.aliasesInput) continue;
            seen.add(op.signature);
            out.push({
                signature: op.signature, op: op.fused.op, inputShapes: op.fused.inputs.map(id => tensors[id].shape),
                outputShape: tensors[op.fused.output].shape, epilogue: [...op.fused.epilogue],
            });
        }
    }
    return out;
}

/** Targets the cache lacks and that have at least two candidates on this device. */
export function missingTargets(plans: readonly TenantPlan[], cache: Pick<RecordingTuningCache, 'has'>, options: Pick<TuneOptions, 'caps' | 'candidates'>): TuneTarget[] {
    const candidates = options.candidates ?? shortlistFor;
    return tuneTargetsOfPlans(plans).filter(t => !cache.has(t.signature) && candidates(t, options.caps).length >= 2);
}

