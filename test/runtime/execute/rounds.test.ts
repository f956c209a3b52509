/** The measurement protocol's plan (execute/rounds.ts): rounds, their arrivals, the budget and the extension. Pure. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUNDS, MIN_DEFAULT_BUDGET_MS, measurementPlan, requestsNeeded, roundsToAdd } from '../../../src/runtime/execute/rounds.js';
import { mlpTenant } from '../../fixtures/ir/builders.js';

describe('the plan of a run', () => {
    const benchmark = { durationMs: 4000, warmupMs: 500, seed: 0 };

    it('cuts the duration into rounds, keeps a warm-up round, and sets the budget to twice the plan (at least 30 s)', () => {
        const plan = measurementPlan(benchmark, {}, 3);
        expect(plan.rounds).toBe(DEFAULT_ROUNDS);
        expect(plan.round(0)).toEqual({ warmupMs: 0, durationMs: 4000 / DEFAULT_ROUNDS });
        expect(plan.roundMs).toBe(500);
        expect(plan.warmup).toEqual({ warmupMs: 500, durationMs: 0 });
        expect(plan.budgetMs).toBe(MIN_DEFAULT_BUDGET_MS);
        expect(measurementPlan({ ...benchmark, durationMs: 20_000 }, {}, 4).budgetMs).toBe(2 * (20_500 * 4));
        expect(measurementPlan({ ...benchmark, rounds: 4, budgetMs: 9000 }, {}, 3)).toMatchObject({ rounds: 4, budgetMs: 9000 });
    });

    it('deals requests over the rounds exactly, never more rounds than requests; a duration on the command line switches to time mode', () => {
        const plan = measurementPlan({ ...benchmark, requests: 20 }, {}, 3);
        const shares = Array.from({ length: plan.rounds }, (_, r) => plan.round(r).requests!);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(20);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        expect(measurementPlan({ ...benchmark, requests: 3 }, {}, 3).rounds).toBe(3);
        expect(measurementPlan({ ...benchmark, requests: 20 }, { durationMs: 1000 }, 3).requests).toBeUndefined();
        expect(measurementPlan({ ...benchmark, requests: 20 }, { durationMs: 1000 }, 3).roundMs).toBe(1000 / DEFAULT_ROUNDS);
    });
});

describe('the extension', () => {
    it('asks for what the SLO percentiles and min_requests need', () => {
        expect(requestsNeeded(mlpTenant('a', { slos: [{ percentile: 'p99', ms: 10 }, { percentile: 'p50', ms: 5 }] }), 0)).toBe(299);
        expect(requestsNeeded(mlpTenant('a'), 100)).toBe(100);
        expect(requestsNeeded(mlpTenant('a'), 0)).toBe(0);
    });

    it('adds the rounds the shortest tenant needs at its rate so far; none when nobody is short; Infinity when a short tenant got nothing', () => {
        expect(roundsToAdd([{ needed: 299, measured: 100, rounds: 4 }, { needed: 59, measured: 80, rounds: 4 }])).toBe(8);
        expect(roundsToAdd([{ needed: 10, measured: 10, rounds: 2 }])).toBe(0);
        expect(roundsToAdd([{ needed: 10, measured: 0, rounds: 2 }])).toBe(Infinity);
    });
});
