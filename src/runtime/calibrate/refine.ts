/**
 * Adaptive sampling of the size ladders (calibrate.ts step 2b), as nn-Meter samples its kernel
 * predictors: after the ladders are measured, each family's leave-one-out error
 * (band-evidence.ts) says at which of its points the model, built from the others, is furthest
 * off. There calibration measures more: the point again (a point the host stalled on, or caught
 * in a fast moment, pulls its neighbours' predictions with it: the local correction of
 * latency.ts follows it) and new cases of its kind half-way (geometrically) toward its nearest
 * two cases in the same ladder. Those shapes come from calibration's own ladders and errors
 * alone, never from what the accuracy benchmark evaluates. Pure.
 */
import type { FamilyProfile } from '../predict/profile.js';
import { leaveOneOutErrors, MIN_LOO_POINTS } from './band-evidence.js';
import type { CaseKind, Ladder, SyntheticCase } from './synthetic.js';

/** How much to refine: anchors in all, anchors per family, and the least |leave-one-out error| worth one. */
export interface RefineLimits {
    anchors: number;
    perFamily: number;
    minError: number;
}

/** A point whose leave-one-out error called for more measurements. */
export interface RefineAnchor {
    family: string;
    /** The case it was measured in (its SyntheticCase shape). */
    shape: string;
    /** Its leave-one-out relative error, (predicted − measured) / measured. */
    error: number;
}

export interface Refinement {
    anchors: RefineAnchor[];
    /** Ladders to measure: per ladder refined, its anchors again and the new cases. */
    ladders: Ladder[];
    /** The new cases' shapes (anchors measured again are not among them). */
    added: string[];
}

/** A family point's case: the point's shape without the launch's name calibrate.ts appends (`depthwise 800×4², 3×3/1 [depthwise_conv2d.pix4]`). */
export function caseShapeOf(pointShape: string): string {
    const i = pointShape.lastIndexOf(' [');
    return i > 0 ? pointShape.slice(0, i) : pointShape;
}

/** Squared distance of two cases of a kind over their interpolated numbers, in logs. */
function distance(kind: CaseKind, a: readonly number[], b: readonly number[]): number {
    let d = 0;
    a.forEach((x, i) => { if (!kind.fixed.includes(i)) d += Math.log(Math.max(1, x) / Math.max(1, b[i])) ** 2; });
    return d;
}

/** The numbers half-way (geometric mean, rounded) between an anchor and another case of its kind; the fixed ones are the anchor's. */
export function between(kind: CaseKind, anchor: readonly number[], other: readonly number[]): number[] {
    return anchor.map((x, i) => (kind.fixed.includes(i) ? x : Math.max(1, Math.round(Math.sqrt(x * other[i])))));
}

/**
 * The refinement after a first measurement of the ladders: anchors are the points of families
 * with at least MIN_LOO_POINTS points (fewer: leave-one-out says nothing, band-evidence.ts) whose
 * |leave-one-out error| is at least `minError`, the largest first, at most `perFamily` per family
 * and `anchors` in all, each measured in a case that has a kind (synthetic.ts CaseKind). Every
 * anchor brings its case again and a case between it and each of its two nearest cases of the
 * same kind and fixed numbers in its ladder, unless that shape was measured or is coming already.
 */
export function refinement(
    families: Readonly<Record<string, FamilyProfile>>, floorMs: number, bandwidthBytesPerMs: number,
    ladders: readonly Ladder[], limits: RefineLimits,
): Refinement {
    const home = new Map<string, { ladder: Ladder; c: SyntheticCase }>();
    for (const ladder of ladders) for (const c of ladder.cases) if (!home.has(c.shape)) home.set(c.shape, { ladder, c });
    const candidates: (RefineAnchor & { ladder: Ladder; c: SyntheticCase })[] = [];
    for (const [family, fam] of Object.entries(families)) {
        if (fam.points.length < MIN_LOO_POINTS) continue;
        leaveOneOutErrors(family, fam, floorMs, bandwidthBytesPerMs).forEach((error, i) => {
            const shape = caseShapeOf(fam.points[i].shape);
            const at = home.get(shape);
            if (at?.c.kind && Math.abs(error) >= limits.minError) candidates.push({ family, shape, error, ...at });
        });
    }
    candidates.sort((a, b) => Math.abs(b.error) - Math.abs(a.error));
    const seen = new Set(home.keys());
    const perFamily = new Map<string, number>();
    const anchors: RefineAnchor[] = [];
    const byLadder = new Map<Ladder, SyntheticCase[]>();
    const again = new Set<string>();
    const added: string[] = [];
    for (const cand of candidates) {
        if (anchors.length >= limits.anchors) break;
        if ((perFamily.get(cand.family) ?? 0) >= limits.perFamily) continue;
        perFamily.set(cand.family, (perFamily.get(cand.family) ?? 0) + 1);
        anchors.push({ family: cand.family, shape: cand.shape, error: cand.error });
        const kind = cand.c.kind!;
        const list = byLadder.get(cand.ladder) ?? [];
        byLadder.set(cand.ladder, list);
        // One case can anchor several families (a composite's launches): measured again once.
        if (!again.has(cand.shape)) { again.add(cand.shape); list.push(cand.c); }
        const sameFixed = (p: readonly number[]) => kind.fixed.every(i => p[i] === kind.params[i]);
        const neighbours = cand.ladder.cases
            .filter(o => o !== cand.c && o.kind?.name === kind.name && sameFixed(o.kind.params))
            .sort((a, b) => distance(kind, kind.params, a.kind!.params) - distance(kind, kind.params, b.kind!.params))
            .slice(0, 2);
        for (const o of neighbours) {
            const made = kind.build(between(kind, kind.params, o.kind!.params));
            if (seen.has(made.shape)) continue;
            seen.add(made.shape);
            list.push(made);
            added.push(made.shape);
        }
    }
    const refined = [...byLadder].filter(([, cases]) => cases.length > 0).map(([ladder, cases]) => ({ family: `${ladder.family} (refined)`, cases }));
    return { anchors, ladders: refined, added };
}
