/**
 * The evidence behind a family's error band (predict/band.ts), from the points calibration just
 * measured. Computation only (no GPU). Pure.
 *
 * Model error — leave-one-out: each point is held out, the family's model (waves fit and local
 * residual correction, latency.ts) is built from the others and asked for the held-out point.
 * Unlike the in-sample error (the residual correction pulls the model onto every point it saw),
 * this is the error at a shape the model was not fitted on — what a prediction of a user's op
 * meets. With fewer than MIN_LOO_POINTS points, holding one out leaves a curve of one or two
 * points extrapolated over the whole range (±370–670 % measured here): no evidence about the
 * family's model at all. Such a family takes the pooled leave-one-out errors of its class (the
 * families sharing its name's first part: `gemm.sg` → `gemm`) with enough points, else of every
 * such family.
 *
 * Host noise — the run-to-run spread of the same measurement: calibration times every launch in
 * rounds interleaved through all ladders (calibrate.ts measureLadderRounds), so each round's median
 * of a launch is one measurement of the same thing at a different moment. The launch's pooled
 * median stands in for a perfect prediction and the round for a measurement: their error, written
 * as a prediction's error is, (pooled − round) / round, scaled by √(R / (R − 1)) (the pooled median
 * shares that round's samples: its error is that much smaller), is one draw of what noise alone
 * does to a prediction's error; the noise is the 90th percentile of |error| over the family's
 * launches and rounds. Written the other way round, a round stalled 60× by the OS would count
 * as a 5,900 % deviation, where a prediction's error against it is −98 %. It excludes
 * model error by construction (the same launch at the same shape, only the moment differs), and,
 * being a spread of medians, it is not the spread of single launches (a user's figure is a median).
 */
import { familyLaunchTiming } from '../predict/latency.js';
import type { FamilyProfile } from '../predict/profile.js';
import { medianOf, quantileOf } from './estimators.js';

/** Fewer points than this: the family's own leave-one-out says nothing (see the module comment); its class's pooled errors stand in. */
export const MIN_LOO_POINTS = 4;

/** A family's band evidence (profile.ts familyProfileSchema.error). */
type BandEvidence = NonNullable<FamilyProfile['error']>;

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

/**
 * One launch's measurement errors from its interleaved rounds (samples per round): the pooled
 * median's error against each round's median, (pooled − round) / round, scaled by √(R / (R − 1))
 * (module comment). Empty with fewer than two rounds with samples.
 */
export function roundDeviations(rounds: readonly (readonly number[])[]): number[] {
    const filled = rounds.filter(r => r.length > 0);
    if (filled.length < 2) return [];
    const pooled = medianOf(filled.flat());
    if (!(pooled > 0) || filled.some(r => !(medianOf(r) > 0))) return [];
    const scale = Math.sqrt(filled.length / (filled.length - 1));
    return filled.map(r => { const m = medianOf(r); return (scale * (pooled - m)) / m; });
}

/** The class of a family: its name's first part (`gemm.sg` → `gemm`, `elementwise` → `elementwise`). */
function familyClass(name: string): string {
    return name.split('.')[0];
}

/**
 * Every family's band evidence: `looP90`, the 90th percentile of |leave-one-out error| — its own
 * with MIN_LOO_POINTS points or more, else pooled over its class's families that have that many
 * (`from: 'class'`), else over all of them (`from: 'all'`); `points`, how many errors that rests
 * on; `noiseP90`, the 90th percentile of |round deviation| of its own launches (roundDeviations),
 * else of every family's (0 when no launch had rounds). A family gets none when no family has
 * enough points.
 */
export function bandEvidence(
    families: Readonly<Record<string, FamilyProfile>>, floorMs: number, bandwidthBytesPerMs: number,
    deviations: Readonly<Record<string, readonly number[]>>,
): Record<string, BandEvidence> {
    const own = new Map<string, number[]>();
    for (const [name, fam] of Object.entries(families)) {
        if (fam.points.length >= MIN_LOO_POINTS) own.set(name, leaveOneOutErrors(name, fam, floorMs, bandwidthBytesPerMs).map(Math.abs));
    }
    const pooled = (keep: (name: string) => boolean) => [...own].filter(([n]) => keep(n)).flatMap(([, errors]) => errors);
    const allDeviations = Object.values(deviations).flat().map(Math.abs);
    const out: Record<string, BandEvidence> = {};
    for (const name of Object.keys(families)) {
        const source = evidenceSource(own.get(name), () => pooled(n => familyClass(n) === familyClass(name)), () => pooled(() => true));
        if (!source) continue;
        const { errors, from } = source;
        const ownNoise = (deviations[name] ?? []).map(Math.abs);
        const noise = ownNoise.length > 0 ? ownNoise : allDeviations;
        out[name] = { looP90: quantileOf(errors, 0.9), noiseP90: noise.length > 0 ? quantileOf(noise, 0.9) : 0, points: errors.length, from };
    }
    return out;
}

/** The first non-empty of a family's own errors, its class's, every family's. */
function evidenceSource(own: number[] | undefined, ofClass: () => number[], ofAll: () => number[]): { errors: number[]; from: BandEvidence['from'] } | undefined {
    if (own && own.length > 0) return { errors: own, from: 'family' };
    const cls = ofClass();
    if (cls.length > 0) return { errors: cls, from: 'class' };
    const all = ofAll();
    return all.length > 0 ? { errors: all, from: 'all' } : undefined;
}

/** One co-run figure of calibration's co-run probe (calibrate.ts step 8): predicted, measured in one round, and the band the model gives it without the co-run term. */
export interface CorunPoint {
    predicted: number;
    measured: number;
    /** Relative half-width (workload.ts corunBands without the profile's corunModelError). */
    band: number;
}

/**
 * The co-run model's error beyond a co-run figure's band (profile.ts corunModelError): for each point,
 * the least c that puts its measurement inside √(band² + c²) (the band's sources add in
 * quadrature, band.ts), √(max(0, e² − band²)) with e = |predicted − measured| / measured, and of
 * those the 90th percentile. With it, 90 % of calibration's own co-run figures fall inside their
 * bands: a split-conformal choice, on co-runs of synthetic tenants the evaluation never sees.
 * Undefined without a finite point.
 */
export function corunExcess(points: readonly CorunPoint[]): { excessP90: number; points: number } | undefined {
    const needed = points
        .filter(p => p.measured > 0 && Number.isFinite(p.measured) && Number.isFinite(p.predicted) && Number.isFinite(p.band))
        .map(p => {
            const e = Math.abs(p.predicted - p.measured) / p.measured;
            return Math.sqrt(Math.max(0, e * e - p.band * p.band));
        });
    return needed.length > 0 ? { excessP90: quantileOf(needed, 0.9), points: needed.length } : undefined;
}
