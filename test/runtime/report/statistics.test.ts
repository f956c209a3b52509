import { describe, expect, it } from 'vitest';
import { binomialCdf, quantileConfidenceInterval, quantileSorted, sortedAscending, summarizeLatencies } from '../../../src/runtime/report/statistics.js';
import { createRandom } from '../../../src/runtime/plan/random.js';

describe('percentiles', () => {
    it('interpolate linearly between order statistics (NumPy default)', () => {
        const s = sortedAscending([4, 1, 3, 2, 5]);
        expect(quantileSorted(s, 0.5)).toBe(3);
        expect(quantileSorted(s, 0.25)).toBe(2);
        expect(quantileSorted(s, 0.9)).toBeCloseTo(4.6);
        expect(quantileSorted(s, 0)).toBe(1);
        expect(quantileSorted(s, 1)).toBe(5);
        expect(quantileSorted(sortedAscending([10, 9, 100]), 0.5)).toBe(10); // numeric sort, not lexicographic
    });

    it('summarise a sample', () => {
        const values = Array.from({ length: 101 }, (_, i) => i);
        const s = summarizeLatencies(values)!;
        expect([s.count, s.mean, s.min, s.max, s.p50, s.p99]).toEqual([101, 50, 0, 100, 50, 99]);
        expect(summarizeLatencies([])).toBeUndefined();
    });
});

describe('confidence interval of p99', () => {
    it('binomial cdf is exact for small n', () => {
        const c = binomialCdf(3, 0.5);
        expect(Array.from(c)).toEqual([0.125, 0.5, 0.875, 1].map(x => expect.closeTo(x, 12)));
    });

    it('has no upper bound with too few samples', () => {
        const s = sortedAscending(Array.from({ length: 100 }, (_, i) => i));
        const ci = quantileConfidenceInterval(s, 0.99);
        expect(ci.high).toBeNull();
        expect(ci.low).not.toBeNull();
    });

    it('brackets the true p99 with about the stated coverage', () => {
        // Exponential(1) latencies: true p99 = ln(100).
        const truth = Math.log(100);
        const r = createRandom(11, 'ci');
        let covered = 0;
        const trials = 200;
        for (let t = 0; t < trials; t++) {
            const s = sortedAscending(Array.from({ length: 2000 }, () => r.exponential(1)));
            const ci = quantileConfidenceInterval(s, 0.99);
            expect(ci.low! <= quantileSorted(s, 0.99) && quantileSorted(s, 0.99) <= ci.high!).toBe(true);
            if (ci.low! <= truth && truth <= ci.high!) covered++;
        }
        expect(covered / trials).toBeGreaterThan(0.9);
        expect(covered / trials).toBeLessThanOrEqual(1);
    });
});
