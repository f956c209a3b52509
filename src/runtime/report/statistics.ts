/**
 * Latency statistics for results: percentiles (linear interpolation between order statistics,
 * NumPy's default "linear" method) and a distribution-free confidence interval for a quantile
 * from order statistics with exact binomial coverage. Pure.
 */

/** Sorted copy, ascending (numeric, unlike Array.prototype.sort's default). */
export function sortedAscending(values: ArrayLike<number>): Float64Array {
    return Float64Array.from(values).sort();
}

/** The q-quantile (0 ≤ q ≤ 1) of ascending-sorted values, linear interpolation (R type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
    const n = sorted.length;
    if (n === 0) return NaN;
    const h = (n - 1) * q;
    const lo = Math.floor(h);
    const hi = Math.min(lo + 1, n - 1);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function mean(values: ArrayLike<number>): number {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[i];
    return values.length === 0 ? NaN : sum / values.length;
}

/** A confidence interval of a quantile; `high` is null when there are too few samples to bound it. */
export interface QuantileInterval {
    low: number | null;
    high: number | null;
    confidence: number;
    method: 'order-statistic-binomial';
}

/**
 * Distribution-free CI for the q-quantile: [x(l), x(u)] (1-based order statistics) with
 * l the largest rank such that P(B < l) ≤ α/2 and u the smallest such that P(B ≥ u) ≤ α/2,
 * B ~ Binomial(n, q). Coverage is at least `confidence`. An end that does not exist (too
 * few samples, e.g. p99 from fewer than ~300 requests has no upper bound at 95%) is null.
 */
export function quantileConfidenceInterval(sorted: ArrayLike<number>, q: number, confidence = 0.95): QuantileInterval {
    const n = sorted.length;
    const alpha = 1 - confidence;
    const result: QuantileInterval = { low: null, high: null, confidence, method: 'order-statistic-binomial' };
    if (n === 0) return result;
    const cdf = binomialCdf(n, q); // cdf[k] = P(B ≤ k)
    // Lower: largest l ≥ 1 with P(B ≤ l-1) ≤ α/2.
    let l = 0;
    for (let k = 1; k <= n; k++) {
        if (cdf[k - 1] <= alpha / 2) l = k; else break;
    }
    // Upper: smallest u ≤ n with P(B ≥ u) = 1 - P(B ≤ u-1) ≤ α/2.
    let u = 0;
    for (let k = n; k >= 1; k--) {
        if (1 - cdf[k - 1] <= alpha / 2) u = k; else break;
    }
    if (l >= 1) result.low = sorted[l - 1];
    if (u >= 1) result.high = sorted[u - 1];
    return result;
}

/** P(B ≤ k) for k = 0..n, B ~ Binomial(n, p), computed in log space (no underflow for large n). */
export function binomialCdf(n: number, p: number): Float64Array {
    const cdf = new Float64Array(n + 1);
    if (p <= 0) { cdf.fill(1); return cdf; }
    if (p >= 1) { cdf[n] = 1; return cdf; }
    const logP = Math.log(p), logQ = Math.log1p(-p);
    // ln k! by summation: exact up to rounding for the integer arguments needed here.
    const logFactorial = new Float64Array(n + 1);
    for (let k = 1; k <= n; k++) logFactorial[k] = logFactorial[k - 1] + Math.log(k);
    let acc = 0;
    for (let k = 0; k <= n; k++) {
        const logPmf = logFactorial[n] - logFactorial[k] - logFactorial[n - k] + k * logP + (n - k) * logQ;
        acc += Math.exp(logPmf);
        cdf[k] = Math.min(1, acc);
    }
    return cdf;
}

/** Latency summary of one phase, in milliseconds. */
export interface LatencySummary {
    count: number;
    mean: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p95: number;
    p99: number;
    p999: number;
    p99Interval: QuantileInterval;
}

/** Summarises latencies (ms); undefined for an empty sample. */
export function summarizeLatencies(latenciesMs: readonly number[]): LatencySummary | undefined {
    if (latenciesMs.length === 0) return undefined;
    const s = sortedAscending(latenciesMs);
    return {
        count: s.length,
        mean: mean(s),
        min: s[0],
        max: s[s.length - 1],
        p50: quantileSorted(s, 0.5),
        p90: quantileSorted(s, 0.9),
        p95: quantileSorted(s, 0.95),
        p99: quantileSorted(s, 0.99),
        p999: quantileSorted(s, 0.999),
        p99Interval: quantileConfidenceInterval(s, 0.99),
    };
}
