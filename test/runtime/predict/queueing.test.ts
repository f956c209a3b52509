import { describe, expect, it } from 'vitest';
import {
    closedLoopLatency, closedLoopMva, kingmanWaitMs, normalQuantile, openLoopLatency, PERCENTILES, waitQuantileMs,
} from '../../../src/runtime/predict/queueing.js';

describe('normalQuantile', () => {
    it('matches tabulated values', () => {
        expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
        expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
        expect(normalQuantile(0.99)).toBeCloseTo(2.326348, 5);
        expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    });
    it('rejects p outside (0, 1)', () => {
        expect(() => normalQuantile(1)).toThrow(/\(0, 1\)/);
    });
});

describe('Kingman / Pollaczek–Khinchine', () => {
    it('gives M/D/1 and M/M/1 closed forms', () => {
        const S = 10, rho = 0.6;
        expect(kingmanWaitMs(rho, S, 1, 0)).toBeCloseTo(rho * S / (2 * (1 - rho)), 12); // M/D/1
        expect(kingmanWaitMs(rho, S, 1, 1)).toBeCloseTo(rho * S / (1 - rho), 12);       // M/M/1
        expect(kingmanWaitMs(0, S, 1, 1)).toBe(0);
    });
    it('is unbounded at utilisation ≥ 1 and increasing below', () => {
        expect(kingmanWaitMs(1, 5, 1, 0)).toBe(Infinity);
        expect(kingmanWaitMs(1.3, 5, 1, 0)).toBe(Infinity);
        let prev = 0;
        for (const rho of [0.1, 0.3, 0.5, 0.7, 0.9, 0.99]) {
            const w = kingmanWaitMs(rho, 5, 1, 0.2);
            expect(w).toBeGreaterThan(prev);
            prev = w;
        }
    });
    it('wait quantiles are exact for M/M/1', () => {
        // M/M/1: P(W > t) = ρ·exp(−(μ − λ)t).
        const S = 2, rho = 0.8, mu = 1 / S, lambda = rho * mu;
        const w = kingmanWaitMs(rho, S, 1, 1);
        for (const q of [0.5, 0.9, 0.99]) {
            const exact = 1 - q >= rho ? 0 : Math.log(rho / (1 - q)) / (mu - lambda);
            expect(waitQuantileMs(q, rho, w)).toBeCloseTo(exact, 9);
        }
    });
});

describe('open loop', () => {
    it('utilisation λ·S and overload', () => {
        const r = openLoopLatency(20, 0.1, 40, 1);
        expect(r.utilisation).toBeCloseTo(0.8, 12);
        const over = openLoopLatency(20, 0.1, 60, 1);
        expect(over.utilisation).toBeGreaterThan(1);
        for (const p of PERCENTILES) expect(over.figures[p]).toBe(Infinity);
    });
    it('figures rise with the percentile and with the rate', () => {
        let prevRate = openLoopLatency(10, 0.1, 1, 1).figures;
        for (const rate of [10, 30, 60, 90]) {
            const f = openLoopLatency(10, 0.1, rate, 1).figures;
            expect(f.p50).toBeLessThanOrEqual(f.p90);
            expect(f.p90).toBeLessThanOrEqual(f.p99);
            expect(f.p99).toBeLessThanOrEqual(f.p999);
            for (const p of PERCENTILES) expect(f[p]).toBeGreaterThanOrEqual(prevRate[p]);
            prevRate = f;
        }
    });
    it('periodic arrivals wait less than Poisson ones at the same rate', () => {
        expect(openLoopLatency(10, 0.2, 70, 0).meanWaitMs).toBeLessThan(openLoopLatency(10, 0.2, 70, 1).meanWaitMs);
    });
});

describe('closed loop (MVA)', () => {
    it('one client never waits; N clients without think time queue N deep', () => {
        expect(closedLoopMva(1, 7, 0).responseMs).toBeCloseTo(7, 12);
        const m = closedLoopMva(4, 5, 0);
        expect(m.responseMs).toBeCloseTo(20, 9);
        expect(m.throughputPerMs).toBeCloseTo(1 / 5, 12);
        expect(m.utilisation).toBeCloseTo(1, 12);
    });
    it('long think times approach the service time', () => {
        expect(closedLoopMva(4, 5, 1e6).responseMs).toBeCloseTo(5, 3);
    });
    it('a client count of 10^12 costs no more than a small one (closed form past 10,000 clients, continuous with the exact recursion)', () => {
        // The exact recursion, as a reference.
        const exact = (n: number, s: number, z: number) => {
            let q = 0, r = s, x = 0;
            for (let k = 1; k <= n; k++) { r = s * (1 + q); x = k / (r + z); q = x * r; }
            return r;
        };
        for (const [s, z] of [[5, 0], [2, 50_000], [0.01, 1e6]]) {
            const approx = closedLoopMva(10_001, s, z).responseMs;
            expect(Math.abs(approx - exact(10_001, s, z)) / exact(10_001, s, z)).toBeLessThan(1e-3);
        }
        const huge = closedLoopMva(1e12, 5, 100);
        expect(huge.responseMs).toBeCloseTo(1e12 * 5 - 100, -3);
        expect(huge.utilisation).toBeCloseTo(1, 9);
        expect(Number.isFinite(huge.queueLength)).toBe(true);
    });
    it('one client: every percentile is a service percentile', () => {
        const f = closedLoopLatency(1, 0, 10, 0).figures;
        for (const p of PERCENTILES) expect(f[p]).toBeCloseTo(10, 9);
    });
});

describe('service tail', () => {
    it('adds the measured tail beyond the normal body, interpolated in q and flat beyond p99', async () => {
        const { tailFrom, serviceQuantileMs } = await import('../../../src/runtime/predict/queueing.js');
        const tail = tailFrom({ p90: 1, p95: 2, p99: 6 });
        expect(tail(0.5)).toBe(0);
        expect(tail(0.7)).toBeCloseTo(0.5, 12);
        expect(tail(0.97)).toBeCloseTo(4, 12);
        expect(tail(0.999)).toBe(6);
        expect(serviceQuantileMs(0.99, 10, 0, tail)).toBeCloseTo(16, 12);
        expect(serviceQuantileMs(0.5, 10, 0.2, tail)).toBeCloseTo(10, 12);
        expect(serviceQuantileMs(0.99, 10, 0.1, tail) - serviceQuantileMs(0.99, 10, 0.1)).toBeCloseTo(6, 12);
    });

    it('counts the tail in the service time\'s mean and variance, and so in the mean latency and the queueing', async () => {
        const { tailFrom, serviceMoments } = await import('../../../src/runtime/predict/queueing.js');
        const tail = tailFrom({ p90: 1, p95: 2, p99: 6 });
        // E[T] of the piecewise-linear tail: 0 → 1 on (0.5, 0.9], 1 → 2 on (0.9, 0.95], 2 → 6 on (0.95, 0.99], 6 beyond.
        const meanTail = 0.4 * 0.5 + 0.05 * 1.5 + 0.04 * 4 + 0.01 * 6;
        const squareTail = (0.4 * 1 + 0.05 * (1 + 2 + 4) + 0.04 * (4 + 12 + 36)) / 3 + 0.01 * 36;
        const exact = serviceMoments(10, 0, tail);
        expect(exact.meanMs).toBeCloseTo(10 + meanTail, 9);
        expect(exact.cs2).toBeCloseTo((squareTail - meanTail ** 2) / (10 + meanTail) ** 2, 6);
        // Without a tail: the body's own moments.
        expect(serviceMoments(10, 0.1).meanMs).toBe(10);
        expect(serviceMoments(10, 0.1).cs2).toBeCloseTo(0.01, 15);
        // Open loop: utilisation, Kingman's wait and the mean from those moments.
        const { meanMs, cs2 } = serviceMoments(10, 0.1, tail);
        const r = openLoopLatency(10, 0.1, 20, 1, tail);
        expect(r.utilisation).toBeCloseTo(20 * meanMs / 1000, 12);
        expect(r.meanWaitMs).toBeCloseTo(kingmanWaitMs(20 * meanMs / 1000, meanMs, 1, cs2), 12);
        expect(r.figures.mean).toBeCloseTo(meanMs + r.meanWaitMs, 12);
        expect(r.figures.mean).toBeGreaterThan(openLoopLatency(10, 0.1, 20, 1).figures.mean + meanTail);
        // Closed loop, one client: the mean is the service time's, tail included; the median is the body's.
        const one = closedLoopLatency(1, 0, 10, 0.1, tail).figures;
        expect(one.mean).toBeCloseTo(10 + meanTail, 9);
        expect(one.p50).toBeCloseTo(10, 12);
    });
});

describe('tail functions', () => {
    it('one function per profile\'s points: the moments are cached with it', async () => {
        const { tailFrom } = await import('../../../src/runtime/predict/queueing.js');
        const points = { p90: 1, p95: 2, p99: 6 };
        expect(tailFrom(points)).toBe(tailFrom(points));
    });
});
