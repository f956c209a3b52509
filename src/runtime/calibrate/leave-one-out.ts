/**
 * Leave-one-out error of a kernel family's model over its own calibration points: each point is
 * held out, the family's model (waves fit and local residual correction, latency.ts) is built
 * from the others and asked for the held-out point. Unlike the in-sample error (the residual
 * correction pulls the model onto every point it saw), this is the error at a shape the model
 * was not fitted on — what a prediction of a user's op meets. Computation over points already
 * measured: no GPU. Pure.
 */
import { familyLaunchTiming } from '../predict/latency.js';
import type { FamilyProfile } from '../predict/profile.js';
import { quantileOf } from './estimators.js';

/** Each point's leave-one-out relative error (predicted − measured) / measured, in the family's point order; empty with fewer than two points. */
export function leaveOneOutErrors(name: string, family: FamilyProfile, floorMs: number, bandwidthBytesPerMs: number): number[] {
    const pts = family.points;
    if (pts.length < 2) return [];
    return pts.map((p, i) => {
        // A fresh family object: the model's fits are memoised per object.
        const held: FamilyProfile = { basis: family.basis, points: pts.filter((_, j) => j !== i) };
        const predicted = familyLaunchTiming(held, { ...p, family: name }, floorMs, bandwidthBytesPerMs).ms;
        return (predicted - p.ms) / p.ms;
    });
}

/** A family's band evidence (profile.ts familyProfileSchema.error): the 90th percentile of |LOO error| and the host's noise; undefined with fewer than two points. */
export function familyErrorEvidence(name: string, family: FamilyProfile, floorMs: number, bandwidthBytesPerMs: number, noiseCv: number): FamilyProfile['error'] {
    const errors = leaveOneOutErrors(name, family, floorMs, bandwidthBytesPerMs);
    if (errors.length < 2) return undefined;
    return { looP90: quantileOf(errors.map(Math.abs), 0.9), noiseCv, points: errors.length };
}
