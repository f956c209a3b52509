import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/runtime/plan/random.js';
import { createArrivalProcess } from '../../../src/runtime/schedule/arrivals.js';

describe('seeded random streams', () => {
    it('are deterministic per seed and label, and differ across them', () => {
        const a = createRandom(42, 'x'), b = createRandom(42, 'x'), c = createRandom(43, 'x'), d = createRandom(42, 'y');
        const take = (r: ReturnType<typeof createRandom>) => Array.from({ length: 5 }, () => r.next());
        const first = take(a);
        expect(take(b)).toEqual(first);
        expect(take(c)).not.toEqual(first);
        expect(take(d)).not.toEqual(first);
    });

    it('draws standard normals (mean ≈ 0, variance ≈ 1)', () => {
        const r = createRandom(1);
        const n = 50_000;
        let s = 0, s2 = 0;
        for (let i = 0; i < n; i++) { const x = r.normal(); s += x; s2 += x * x; }
        expect(Math.abs(s / n)).toBeLessThan(0.02);
        expect(Math.abs(s2 / n - 1)).toBeLessThan(0.03);
    });
});

describe('arrival processes', () => {
    it('poisson: mean rate within tolerance and exponential gaps (CV ≈ 1)', () => {
        const rate = 200, durationMs = 100_000;
        const times = createArrivalProcess({ kind: 'poisson', ratePerSecond: rate }, createRandom(7, 'arr'), { warmupMs: 0, durationMs }).initial();
        // 20 000 expected; ±3.5σ of a Poisson count is ±~500.
        expect(Math.abs(times.length - 20_000)).toBeLessThan(500);
        const gaps = times.slice(1).map((t, i) => t - times[i]);
        const m = gaps.reduce((a, b) => a + b, 0) / gaps.length;
        const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - m) ** 2, 0) / gaps.length);
        expect(m).toBeCloseTo(1000 / rate, 0);
        expect(sd / m).toBeGreaterThan(0.95);
        expect(sd / m).toBeLessThan(1.05);
        expect(times.every(t => t >= 0 && t < durationMs)).toBe(true);
    });

    it('poisson: the same seed gives the same arrivals, another seed others', () => {
        const gen = (seed: number) => createArrivalProcess({ kind: 'poisson', ratePerSecond: 50 }, createRandom(seed, 't'), { warmupMs: 100, durationMs: 1000 }).initial();
        expect(gen(3)).toEqual(gen(3));
        expect(gen(3)).not.toEqual(gen(4));
    });

    it('periodic: one arrival every period over warm-up + duration', () => {
        const p = createArrivalProcess({ kind: 'periodic', everyMs: 10 }, createRandom(1), { warmupMs: 20, durationMs: 100 });
        const times = p.initial();
        expect(times).toHaveLength(12);
        expect(times[3]).toBe(30);
        expect(times.filter(t => p.isMeasured(t))).toHaveLength(10);
    });

    it('request-count mode admits exactly N measured arrivals', () => {
        const p = createArrivalProcess({ kind: 'periodic', everyMs: 10 }, createRandom(1), { warmupMs: 25, durationMs: 1, requests: 7 });
        const times = p.initial();
        expect(times.filter(t => p.isMeasured(t))).toHaveLength(7);
        expect(times.filter(t => !p.isMeasured(t))).toEqual([0, 10, 20]);
    });

    it('closed: one arrival per client, then completion + think until the limit', () => {
        const p = createArrivalProcess({ kind: 'closed', clients: 2, thinkMs: 5 }, createRandom(1), { warmupMs: 0, durationMs: 50 });
        expect(p.closedLoop).toBe(true);
        expect(p.initial()).toEqual([0, 0]);
        expect(p.onCompletion(10)).toBe(15);
        expect(p.onCompletion(46)).toBeUndefined();
        const counted = createArrivalProcess({ kind: 'closed', clients: 1, thinkMs: 0 }, createRandom(1), { warmupMs: 0, durationMs: 1, requests: 3 });
        expect(counted.initial()).toEqual([0]);
        expect([counted.onCompletion(1), counted.onCompletion(2), counted.onCompletion(3)]).toEqual([1, 2, undefined]);
    });
});
