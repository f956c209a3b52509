/** The statistics behind every measured figure, against answers computed exactly (Python's fractions) or by construction. */
import { describe, expect, it } from 'vitest';
import {
    binomialCdf, highestBoundedPercentile, meanBounds, quantileBounds, quantileSorted, ratioInterval, ratioVerdict, requiredSamples, samplingHalfWidth, sloVerdict,
    sortedAscending, statisticOf, wilsonInterval,
} from '../../../src/runtime/report/statistics.js';
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
});

describe('bounds of a percentile from order statistics', () => {
    it('binomial cdf matches exact values', () => {
        expect(Array.from(binomialCdf(3, 0.5))).toEqual([0.125, 0.5, 0.875, 1].map(x => expect.closeTo(x, 12)));
        // P(B ≤ 40), B ~ Binomial(100, 0.5): 0.028443966820490395 (exact rational arithmetic).
        expect(binomialCdf(100, 0.5)[40]).toBeCloseTo(0.028443966820490395, 12);
        // P(B ≤ 298), B ~ Binomial(299, 0.99) = 1 − 0.99^299 = 0.9504637433623375.
        expect(binomialCdf(299, 0.99)[298]).toBeCloseTo(0.9504637433623375, 12);
    });

    it('give the known ranks: the median of 100 between x(42) and x(59); p99 of 1000 between x(985) and x(996)', () => {
        const ranks = (n: number) => sortedAscending(Array.from({ length: n }, (_, i) => i + 1));
        expect(quantileBounds(ranks(100), 0.5)).toEqual({ low: 42, high: 59 });
        expect(quantileBounds(ranks(1000), 0.99)).toEqual({ low: 985, high: 996 });
    });

    it('bound p99 from above only from 299 samples (the largest one), p95 from 59, p90 from 29, p50 from 5', () => {
        const ranks = (n: number) => sortedAscending(Array.from({ length: n }, (_, i) => i + 1));
        expect(quantileBounds(ranks(298), 0.99).high).toBeNull();
        expect(quantileBounds(ranks(299), 0.99).high).toBe(299);
        expect(quantileBounds(ranks(100), 0.99).low).not.toBeNull();
        expect([requiredSamples('p50'), requiredSamples('p90'), requiredSamples('p95'), requiredSamples('p99'), requiredSamples('p999')]).toEqual([5, 29, 59, 299, 2995]);
        expect([highestBoundedPercentile(4), highestBoundedPercentile(58), highestBoundedPercentile(59), highestBoundedPercentile(300)]).toEqual([undefined, 'p90', 'p95', 'p99']);
    });

    it('cover the true p99 from each side at least 95 % of the time', () => {
        // Exponential(1) latencies: true p99 = ln(100).
        const truth = Math.log(100);
        const r = createRandom(11, 'bounds');
        let lowOk = 0, highOk = 0;
        const trials = 400;
        for (let t = 0; t < trials; t++) {
            const s = sortedAscending(Array.from({ length: 600 }, () => r.exponential(1)));
            const b = quantileBounds(s, 0.99);
            if (b.low! <= truth) lowOk++;
            if (b.high! >= truth) highOk++;
        }
        expect(lowOk / trials).toBeGreaterThan(0.93);
        expect(highOk / trials).toBeGreaterThan(0.93);
    });
});

describe('intervals of ratios over rounds (two-stage bootstrap)', () => {
    const rounds = (r: ReturnType<typeof createRandom>, count: number, n: number, mean: number, drift = 0) =>
        Array.from({ length: count }, () => {
            const level = 1 + drift * (r.next() - 0.5);
            return Array.from({ length: n }, () => level * r.exponential(mean));
        });

    it('cover the true ratio of means about 95 % of the time, drift between rounds included', () => {
        const r = createRandom(5, 'ratio');
        let covered = 0;
        const trials = 120;
        for (let t = 0; t < trials; t++) {
            // Each round's host level hits its solo and co-run phases alike (paired), as interleaving intends.
            const levels = Array.from({ length: 8 }, () => 1 + 0.6 * (r.next() - 0.5));
            const solo = levels.map(l => Array.from({ length: 40 }, () => l * r.exponential(10)));
            const corun = levels.map(l => Array.from({ length: 40 }, () => l * r.exponential(15)));
            const i = ratioInterval(solo, corun, 'mean', { random: r, iterations: 300 })!;
            if (i.low! <= 1.5 && 1.5 <= i.high!) covered++;
        }
        expect(covered / trials).toBeGreaterThan(0.88);
    });

    it('say slower, faster or no significant change, and unknown without an interval', () => {
        const r = createRandom(9, 'verdict');
        const solo = rounds(r, 8, 50, 10);
        expect(ratioVerdict(ratioInterval(solo, rounds(r, 8, 50, 20), 'p50', { random: r }))).toBe('slower');
        expect(ratioVerdict(ratioInterval(solo, rounds(r, 8, 50, 5), 'p50', { random: r }))).toBe('faster');
        expect(ratioVerdict(ratioInterval(solo, rounds(r, 8, 50, 10), 'p50', { random: r }))).toBe('no-change');
        expect(ratioVerdict(null)).toBe('unknown');
        expect(ratioInterval([[]], [[1]], 'mean', { random: r })).toBeNull();
        expect(() => ratioInterval([[1]], [[1], [2]], 'mean', { random: r })).toThrow(/1 solo rounds but 2 co-run rounds/);
    });

    it('bound a mean only from 30 samples', () => {
        const r = createRandom(2, 'mean');
        expect(meanBounds([[1, 2, 3]], { random: r })).toEqual({ low: null, high: null });
        const b = meanBounds(rounds(r, 4, 50, 10), { random: r });
        expect(b.low!).toBeLessThan(b.high!);
    });
});

describe('SLO verdicts', () => {
    it('met when the upper bound is within the target, violated when the lower bound is beyond it, inconclusive between, invalid without an upper bound', () => {
        expect(sloVerdict({ low: 8, high: 9 }, 10)).toBe('met');
        expect(sloVerdict({ low: 11, high: 12 }, 10)).toBe('violated');
        expect(sloVerdict({ low: 11, high: null }, 10)).toBe('violated');
        expect(sloVerdict({ low: 9, high: 11 }, 10)).toBe('inconclusive');
        expect(sloVerdict({ low: 9, high: null }, 10)).toBe('invalid');
    });
});

describe("Wilson's interval of a proportion", () => {
    it('matches published values (Newcombe 1998, method 3) and stays inside [0, 1]', () => {
        const at = (k: number, n: number) => { const w = wilsonInterval(k, n)!; return [Number(w.low.toFixed(4)), Number(w.high.toFixed(4))]; };
        expect(at(13, 20)).toEqual([0.4329, 0.8188]);
        expect(at(0, 20)).toEqual([0, 0.1611]);
        expect(at(10, 10)).toEqual([0.7225, 1]);
        expect(at(81, 263)).toEqual([0.2553, 0.3662]);
        expect(wilsonInterval(0, 0)).toBeNull();
    });
});

describe('sampling half-width of a statistic', () => {
    // Latencies 10 ms + exponential(5 ms): a body and a tail, quantiles known exactly.
    const truth = { mean: 15, p50: 10 + 5 * Math.LN2, p95: 10 + 5 * Math.log(20), p99: 10 + 5 * Math.log(100) };
    const draw = (random: ReturnType<typeof createRandom>, n: number) => sortedAscending(Array.from({ length: n }, () => 10 + random.exponential(5)));

    for (const n of [75, 300]) {
        for (const statistic of ['mean', 'p50', 'p95', 'p99'] as const) {
            it(`covers the ${statistic} of ${n} requests about 90 % of the time`, () => {
                const random = createRandom(11, `${statistic}/${n}`);
                const draws = 400;
                let inside = 0;
                for (let k = 0; k < draws; k++) {
                    const s = draw(random, n);
                    const x = statisticOf(s, statistic);
                    if (Math.abs(x - truth[statistic]) / truth[statistic] <= samplingHalfWidth(s, statistic)) inside++;
                }
                // An asymptotic spread: at 75 requests the p50, p95 and p99 bands covered 85, 80 and 83 % of 400 draws; at 300, 87–91 %.
                expect(inside / draws).toBeGreaterThan(0.75);
                expect(inside / draws).toBeLessThan(0.97);
            });
        }
    }

    it('is 0 for fewer than 2 samples and shrinks as samples grow', () => {
        expect(samplingHalfWidth(sortedAscending([3]), 'p99')).toBe(0);
        const random = createRandom(5);
        const small = samplingHalfWidth(draw(random, 100), 'p95');
        const large = samplingHalfWidth(draw(random, 10_000), 'p95');
        expect(large).toBeLessThan(small / 5);
    });
});
