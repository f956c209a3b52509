/**
 * The measurement protocol of a run, A/B-benchmark style: rounds in which every tenant runs alone
 * and then all co-run, back to back, so slow drift of the host hits both sides alike. The first
 * round after compiling is a warm-up (pipelines compiled at first dispatch, caches, the driver's
 * threads) and is discarded. Rounds alternate their order (solo first, then co-run first) so
 * that what a phase leaves behind does not always land on the same side. When a tenant lacks the
 * requests its SLO percentiles need, rounds are added, capped by the budget. Pure.
 */
import type { IrBenchmark, IrTenant } from '../ir/types.js';
import { requiredSamples } from '../report/statistics.js';
import type { ArrivalLimit } from '../schedule/arrivals.js';

/** Measured rounds when the benchmark block names none. */
export const DEFAULT_ROUNDS = 8;
/** The least budget (ms): enough for the examples to reach valid figures on the software adapter. */
export const MIN_DEFAULT_BUDGET_MS = 30_000;
/** The budget in request-count mode, where the planned time is not known ahead (ms). */
export const REQUEST_MODE_BUDGET_MS = 600_000;
/** Rounds that always run, budget or not: an interval over rounds needs at least two. */
export const MIN_ROUNDS = 2;

/** What a run measures and for how long. */
export interface MeasurementPlan {
    /** Measured rounds planned (the warm-up round not counted). */
    rounds: number;
    /** Each phase's arrivals in measured round r (request-count mode deals the requests over the rounds), and in the warm-up round (nothing measured). */
    round(r: number): ArrivalLimit;
    warmup: ArrivalLimit;
    /** Measured time per phase in one round (time mode), ms. */
    roundMs?: number;
    /** The cap on the whole measurement, warm-up and extension included, ms. */
    budgetMs: number;
    /** Requests each tenant needs per phase before an SLO or `min_requests` is satisfied. */
    minRequests: number;
    /** Request-count mode: measured requests per tenant and phase over the planned rounds. */
    requests?: number;
}

/** Overrides of the benchmark block (CLI flags, tests). */
export interface MeasurementOverrides {
    durationMs?: number;
    warmupMs?: number;
    requests?: number;
    rounds?: number;
    budgetMs?: number;
    minRequests?: number;
}

/** The plan of a run's rounds from the workload's benchmark block and the caller's overrides. */
export function measurementPlan(benchmark: IrBenchmark, overrides: MeasurementOverrides, phasesPerRound: number): MeasurementPlan {
    const durationMs = overrides.durationMs ?? benchmark.durationMs;
    const warmupMs = overrides.warmupMs ?? benchmark.warmupMs;
    // A duration given on the command line switches a request-count benchmark to time mode.
    const requests = overrides.requests ?? (overrides.durationMs !== undefined ? undefined : benchmark.requests);
    // No more rounds than requests: every round measures at least one.
    const rounds = Math.min(overrides.rounds ?? benchmark.rounds ?? DEFAULT_ROUNDS, requests ?? Infinity);
    const minRequests = overrides.minRequests ?? benchmark.minRequests ?? 0;
    const round = (r: number): ArrivalLimit => {
        if (requests === undefined) return { warmupMs: 0, durationMs: durationMs / rounds };
        // The planned requests dealt over the planned rounds; rounds added later measure a full share.
        const share = Math.floor(requests / rounds) + (r < requests % rounds ? 1 : 0);
        return { warmupMs: 0, durationMs: 0, requests: r < rounds ? share : Math.ceil(requests / rounds) };
    };
    const warmup: ArrivalLimit = { warmupMs, durationMs: 0, ...(requests !== undefined ? { requests: 0 } : {}) };
    const plannedMs = requests !== undefined ? undefined : (warmupMs + durationMs) * phasesPerRound;
    const budgetMs = overrides.budgetMs ?? benchmark.budgetMs ?? (plannedMs === undefined ? REQUEST_MODE_BUDGET_MS : Math.max(MIN_DEFAULT_BUDGET_MS, 2 * plannedMs));
    return { rounds, round, warmup, budgetMs, minRequests, ...(requests !== undefined ? { requests } : { roundMs: durationMs / rounds }) };
}

/** Requests a tenant needs in a phase: the most any of its SLO statistics needs to be bounded, and `min_requests`. */
export function requestsNeeded(tenant: IrTenant, minRequests: number): number {
    return Math.max(minRequests, ...tenant.slos.map(s => requiredSamples(s.percentile)));
}

/**
 * Rounds to add so that every tenant's judged phase reaches what it needs: the largest shortfall
 * over the tenants, divided by the requests a round gave that tenant so far. 0 when nobody is
 * short; Infinity when a short tenant completed nothing (more rounds cannot be estimated).
 */
export function roundsToAdd(tenants: readonly { needed: number; measured: number; rounds: number }[]): number {
    let add = 0;
    for (const t of tenants) {
        const missing = t.needed - t.measured;
        if (missing <= 0) continue;
        const perRound = t.rounds > 0 ? t.measured / t.rounds : 0;
        add = Math.max(add, perRound > 0 ? Math.ceil(missing / perRound) : Infinity);
    }
    return add;
}
