import { describe, expect, it } from 'vitest';
import { normalQuantile } from '../../../src/runtime/predict/queueing.js';
import {
    contiguousBlocks, idlePenaltyFromPairs, levelledByTrial, mean, meanFactorFromTrials, medianOf, medianOfMeans, quantileOf, tailBeyondBody, type IdlePair,
} from '../../../src/runtime/calibrate/estimators.js';

describe('calibration estimators', () => {
    it('median interpolates the middle two and mean averages', () => {
        expect(medianOf([3, 1, 2])).toBe(2);
        expect(medianOf([4, 1, 3, 2])).toBe(2.5);
        expect(Number.isNaN(medianOf([]))).toBe(true);
        expect(mean([1, 2, 6])).toBe(3);
        expect(mean([])).toBe(0);
    });

    it('cuts samples into contiguous blocks in order, never empty', () => {
        expect(contiguousBlocks([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([[1, 2], [3, 4], [5, 6, 7]]);
        expect(contiguousBlocks([1, 2], 5)).toEqual([[1], [2]]);
        expect(contiguousBlocks([1, 2, 3], 1)).toEqual([[1, 2, 3]]);
    });

    it('median of means ignores a minority of disturbed trials that move the plain mean', () => {
        // Eight trials of ten samples at 2 ms; two trials hit by a burst of other work (+40 ms each sample).
        const xs = Array.from({ length: 80 }, (_, i) => 2 + (i >= 30 && i < 50 ? 40 : 0));
        expect(mean(xs)).toBeCloseTo(12, 6);
        expect(medianOfMeans(xs, 8)).toBeCloseTo(2, 6);
        // One block is the plain mean; no samples is an error.
        expect(medianOfMeans(xs, 1)).toBeCloseTo(12, 6);
        expect(() => medianOfMeans([], 4)).toThrow(/no samples/);
    });

    it('median of means keeps rare stalls spread over every trial (it estimates the mean, not the median)', () => {
        // One stall of +20 ms in every block of ten: the mean is 4 ms, the median 2 ms.
        const xs = Array.from({ length: 80 }, (_, i) => 2 + (i % 10 === 3 ? 20 : 0));
        expect(medianOf(xs)).toBe(2);
        expect(medianOfMeans(xs, 8)).toBeCloseTo(4, 6);
    });

    it('idle penalty from pairs: the paired difference cancels host load drifting between trials', () => {
        // The host's load doubles the request halfway through; an idle request always pays +3 ms wall,
        // of which +0.2 ms per pass on 5 passes is GPU time.
        const pairs: IdlePair[] = Array.from({ length: 64 }, (_, i) => {
            const base = i < 32 ? 2 : 4;
            return { idleWallMs: base + 3, idleGpuMs: base * 0.8 + 1, backToBackWallMs: base, backToBackGpuMs: base * 0.8 };
        });
        const est = idlePenaltyFromPairs(pairs, 5, 8);
        expect(est.gpuMsPerPass).toBeCloseTo(0.2, 9);
        expect(est.wallMs).toBeCloseTo(2, 9);
        expect(est.trialsMs).toHaveLength(8);
        expect(est.trialsMs.every(t => Math.abs(t - 3) < 1e-9)).toBe(true);
    });

    it('idle penalty from pairs: one disturbed trial cannot carry it, and it is never negative', () => {
        const pairs: IdlePair[] = Array.from({ length: 80 }, (_, i) => ({
            // Trial 3 (pairs 30–39) had a 70 ms stall on each idle request: the plain mean would say +10 ms.
            idleWallMs: 2 + 3 + (i >= 30 && i < 40 ? 70 : 0), idleGpuMs: 2, backToBackWallMs: 2, backToBackGpuMs: 2,
        }));
        const est = idlePenaltyFromPairs(pairs, 4, 8);
        expect(mean(pairs.map(p => p.idleWallMs - p.backToBackWallMs))).toBeCloseTo(11.75, 6);
        expect(est.wallMs).toBeCloseTo(3, 6);
        expect(est.gpuMsPerPass).toBe(0);
        // Idle requests faster than back to back (a burst on the busy ones): clamped at zero, not negative.
        const faster = pairs.map(p => ({ ...p, idleWallMs: 1, idleGpuMs: 1 }));
        const none = idlePenaltyFromPairs(faster, 4, 8);
        expect(none.wallMs).toBe(0);
        expect(none.gpuMsPerPass).toBe(0);
        expect(() => idlePenaltyFromPairs([], 4, 8)).toThrow(/no idle\/back-to-back pairs/);
    });

    it('mean factor from trials: the median of per-trial ratios over the pooled medians, at least 1', () => {
        // Five rounds, pooled medians sum to 10 ms; round means 11, 11.5, 12, 30 (a burst), 11.
        expect(meanFactorFromTrials([11, 11.5, 12, 30, 11], 10)).toBeCloseTo(1.15, 9);
        // Means below the medians (impossible for stalls, possible by noise): 1.
        expect(meanFactorFromTrials([9, 9.5, 9.8], 10)).toBe(1);
        expect(meanFactorFromTrials([], 10)).toBe(1);
        expect(meanFactorFromTrials([12], 0)).toBe(1);
    });

    it('levels each trial to the pooled median, keeping the spread within it', () => {
        // A trial slowed ×3 as a whole (a burst of other work) and a normal one: within-trial spread kept, the level shift gone.
        const out = levelledByTrial([[1, 2, 3], [3, 6, 9], []]);
        expect(medianOf([1, 2, 3, 3, 6, 9])).toBe(3);
        expect(out).toEqual([1.5, 3, 4.5, 1.5, 3, 4.5]);
    });

    it('empirical quantile interpolates between order statistics and rejects bad input', () => {
        expect(quantileOf([5, 1, 3, 2, 4], 0.5)).toBe(3);
        expect(quantileOf([1, 2, 3, 4, 5], 0.9)).toBeCloseTo(4.6, 12);
        expect(quantileOf([7], 0.99)).toBe(7);
        expect(() => quantileOf([], 0.5)).toThrow(/no samples/);
        expect(() => quantileOf([1], 1.5)).toThrow(/\[0, 1\]/);
    });
    it('a tail is what lies beyond the body the model draws: spread wider than its CV is tail', () => {
        // Walls spread normally with a 10 % CV around 10 ms (1000 of them at their own quantiles).
        const walls = Array.from({ length: 1000 }, (_, i) => 10 * (1 + 0.1 * normalQuantile((i + 0.5) / 1000)));
        const own = tailBeyondBody(walls, 10, 0.1);
        expect(own.p99).toBeLessThan(0.02);
        expect(own.p90).toBeLessThan(0.02);
        // The model draws a 2 % CV (the solo jitter): the co-run walls' wider spread is tail, 10·(0.1 − 0.02)·z_q ms.
        const beyondSolo = tailBeyondBody(walls, 10, 0.02);
        expect(beyondSolo.p99).toBeCloseTo(0.8 * normalQuantile(0.99), 1);
        expect(beyondSolo.p95).toBeCloseTo(0.8 * normalQuantile(0.95), 1);
        expect(beyondSolo.p90).toBeCloseTo(0.8 * normalQuantile(0.9), 1);
        // A body wider than the walls leaves no tail (never negative).
        expect(tailBeyondBody(walls, 10, 0.3)).toEqual({ p90: 0, p95: 0, p99: 0 });
    });
});
