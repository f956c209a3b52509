/**
 * The predictions a run records in its results (`predictions` field of the results schema), so
 * that prediction error is always visible next to what was measured: the same figures the editor
 * and `tenancy predict` show for this IR on the workspace's profile. JSON-safe (an unbounded
 * latency is written as null). Pure.
 */
import type { WorkloadIR } from '../ir/types.js';
import type { LocatedProfile } from './profile-store.js';
import { predictWorkload, type WorkloadPrediction } from './workload.js';

export interface RecordedPredictions {
    /** The profile file used, or null for the built-in uncalibrated default. */
    profileFile: string | null;
    uncalibrated: boolean;
    prediction: WorkloadPrediction;
}

/** Predictions for a run of `ir` on the workspace's profile (profile-store.ts locateProfile); undefined (never a throw) if the model fails. */
export function recordedPredictions(ir: WorkloadIR, located: LocatedProfile): RecordedPredictions | undefined {
    try {
        const prediction = predictWorkload(ir, located.profile);
        // Round-trip through JSON with Infinity → null: the results file stays valid JSON.
        const safe = JSON.parse(JSON.stringify(prediction, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as WorkloadPrediction;
        return { profileFile: located.file ?? null, uncalibrated: located.profile.uncalibrated, prediction: safe };
    } catch {
        return undefined;
    }
}
