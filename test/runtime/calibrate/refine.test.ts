/** Calibration's adaptive sampling (refine.ts): where leave-one-out is worst, the point again and cases of its kind beside it. Pure. */
import { describe, expect, it } from 'vitest';
import { between, refinement, type RefineLimits } from '../../../src/runtime/calibrate/refine.js';
import { calibrationCases, type Ladder } from '../../../src/runtime/calibrate/synthetic.js';
import type { CurvePoint, FamilyProfile } from '../../../src/runtime/predict/profile.js';

const ladders = calibrationCases(false);
const ladderOf = (family: string): Ladder => ladders.find(l => l.family === family)!;
const LIMITS: RefineLimits = { anchors: 8, perFamily: 2, minError: 0.15 };

/** The elementwise ladder's relus as points of one family, 1 ms per 8 MB plus a floor in one workgroup (the model fits them exactly), `slow` of them measured 3× that. */
function reluFamily(slow: number[] = []): FamilyProfile {
    const points: CurvePoint[] = ladderOf('elementwise').cases.filter(c => c.shape.startsWith('relu')).map(c => {
        const n = c.outputShape[0];
        return { flops: n, bytes: 8 * n, workgroups: 1, ms: (0.01 + (8 * n) / 8e6) * (slow.includes(n) ? 3 : 1), shape: `${c.shape} [relu.map4]` };
    });
    return { basis: 'bytes', points };
}

describe('adaptive sampling of the ladders', () => {
    it('anchors on the point leave-one-out misses most, measures it again and builds its kind half-way toward its two nearest cases', () => {
        const r = refinement({ elementwise: reluFamily([24_000]) }, 0.005, 1e9, ladders, LIMITS);
        expect(r.anchors[0]).toMatchObject({ family: 'elementwise', shape: 'relu 24000' });
        expect(r.anchors[0].error).toBeLessThan(-0.15);
        expect(r.ladders).toHaveLength(1);
        expect(r.ladders[0].family).toBe('elementwise (refined)');
        const shapes = r.ladders[0].cases.map(c => c.shape);
        // Its nearest relus are 5,000 and 300,000 (the adds are another kind): √(24000·5000) and √(24000·300000), rounded.
        expect(shapes.slice(0, 3)).toEqual(['relu 24000', 'relu 10954', 'relu 84853']);
        expect(r.added).toEqual(expect.arrayContaining(['relu 10954', 'relu 84853']));
        expect(r.added).not.toContain('relu 24000');
        // New cases remember their kind, so a later refinement could build beside them too.
        expect(r.ladders[0].cases[1].kind?.params).toEqual([10954]);
    });

    it('refines nothing where every point is predicted within the threshold, or where a family has too few points to leave one out', () => {
        expect(refinement({ elementwise: reluFamily() }, 0.005, 1e9, ladders, LIMITS)).toEqual({ anchors: [], ladders: [], added: [] });
        const three = reluFamily([24_000]);
        three.points = three.points.slice(1, 4);
        expect(refinement({ elementwise: three }, 0.005, 1e9, ladders, LIMITS).anchors).toEqual([]);
    });

    it('keeps to the limits: anchors in all, per family, the least error', () => {
        const fam = reluFamily([5000, 300_000]);
        const all = refinement({ elementwise: fam }, 0.005, 1e9, ladders, LIMITS);
        expect(all.anchors.length).toBeGreaterThanOrEqual(2);
        expect(all.anchors.length).toBeLessThanOrEqual(LIMITS.perFamily);
        const errors = all.anchors.map(a => Math.abs(a.error));
        expect(errors).toEqual([...errors].sort((a, b) => b - a));
        expect(refinement({ elementwise: fam }, 0.005, 1e9, ladders, { ...LIMITS, anchors: 1 }).anchors).toHaveLength(1);
        expect(refinement({ elementwise: fam }, 0.005, 1e9, ladders, { ...LIMITS, minError: 10 }).anchors).toEqual([]);
    });

    it('keeps a case\'s fixed numbers: a strided depthwise convolution is interpolated only toward strided ones', () => {
        const dw = ladderOf('depthwise_conv2d');
        const strided = dw.cases.filter(c => c.kind!.params[2] === 2).map(c => c.kind!.params);
        expect(strided).toEqual([[40, 60, 2], [24, 72, 2]]);
        const kind = dw.cases[0].kind!;
        expect(between(kind, [40, 60, 2], [200, 14, 2])).toEqual([89, 29, 2]);
        expect(between(kind, [40, 60, 2], [128, 48, 1])).toEqual([72, 54, 2]);
        // One point far off its line (the largest of the ladder, extrapolated from it, is missed even more): the strided anchor
        // is interpolated only toward the other strided case, the unstrided one only toward unstrided ones.
        const points: CurvePoint[] = dw.cases.map(c => {
            const [ch, hw] = c.kind!.params;
            return { flops: 18 * ch * hw * hw, bytes: 8 * ch * hw * hw, workgroups: 1, ms: (0.01 + 8 * ch * hw * hw / 8e6) * (c.shape === 'depthwise 40×60², 3×3/2' ? 4 : 1), shape: `${c.shape} [depthwise_conv2d.pix4]` };
        });
        const r = refinement({ depthwise_conv2d: { basis: 'bytes', points: points.sort((a, b) => a.bytes - b.bytes) } }, 0.005, 1e9, ladders, { ...LIMITS, perFamily: 3 });
        expect(r.anchors.map(a => a.shape)).toEqual(['depthwise 40×60², 3×3/2', 'depthwise 200×28², 3×3/1', 'depthwise 24×72², 3×3/2']);
        const shapes = r.ladders[0].cases.map(c => c.shape);
        expect(shapes.filter(s => s.endsWith('/2'))).toEqual(['depthwise 40×60², 3×3/2', 'depthwise 31×66², 3×3/2', 'depthwise 24×72², 3×3/2']);
        expect(shapes.filter(s => s.endsWith('/1')).length).toBeGreaterThanOrEqual(3);
    });

    it('never builds a shape the ladders measured already', () => {
        // With relu 10,954 in the ladder, relu 24,000's nearest relus are 10,954 (half-way: 16,214) and 5,000 (half-way: 10,954,
        // measured already, so not built again).
        const withExisting: Ladder[] = ladders.map(l => (l.family === 'elementwise' ? { ...l, cases: [...l.cases, l.cases[0].kind!.build([10_954])] } : l));
        const r = refinement({ elementwise: reluFamily([24_000]) }, 0.005, 1e9, withExisting, { ...LIMITS, perFamily: 1 });
        expect(r.anchors[0].shape).toBe('relu 24000');
        expect(r.added).toEqual(['relu 16214']);
    });
});
