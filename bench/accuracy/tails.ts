/**
 * Which co-run tail a run can be scored on. A percentile measured from too few requests is not
 * that percentile: the p99 of 12 requests is about their largest, the 92nd percentile or so, and
 * reads far below a true p99 (2026-12-06: zoo_triple_open's mobilenet, 12 requests at 2.5/s,
 * "measured" 85–98 ms against a predicted 227–368 ms in four runs, while its predicted p90 lay
 * near the measurement). `tenancy run` reports such a figure as n/a (report/statistics.ts
 * requiredSamples: a p99 needs 299 requests for its 95 % upper bound). The benchmark follows the
 * product: a co-run p99 is scored where the run bounds it, and every tenant at the highest
 * percentile its run bounds (p90 to p99), named in its `what`.
 */
import { highestBoundedPercentile, requiredSamples } from '../../src/runtime/report/statistics.js';

export type TailPercentile = 'p90' | 'p95' | 'p99';

/** Requests a run needs for a bounded p99 (299). */
export const P99_REQUESTS = requiredSamples('p99');

/** The highest of p90, p95 and p99 that a run of `requests` requests bounds, or undefined (fewer than a p90 needs). */
export function tailPercentile(requests: number): TailPercentile | undefined {
    const p = highestBoundedPercentile(requests);
    return p === 'p999' ? 'p99' : p === 'p50' ? undefined : p;
}

/** The percentile a tail sample's `what` names ("mlp co-run p95" → p95). */
export function percentileOf(what: string): TailPercentile | undefined {
    const m = / (p90|p95|p99)$/.exec(what);
    return m ? (m[1] as TailPercentile) : undefined;
}

/** The samples whose run bounded their p99 (samples without a request count: all, as files written before counts were stored). */
export function boundedP99<T extends { requests?: number }>(xs: readonly T[]): T[] {
    return xs.filter(x => x.requests === undefined || x.requests >= P99_REQUESTS);
}
