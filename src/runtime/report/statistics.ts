/**
 * The statistics behind every measured figure (docs/measurement.md says what they mean):
 *
 * - percentiles by linear interpolation between order statistics (NumPy's default);
 * - distribution-free bounds of a percentile from order statistics, each end a one-sided 95 %
 *   confidence bound with exact binomial coverage; a percentile is *bounded* when its upper
 *   bound exists (p99 needs 299 samples, p95 59, p90 29, p50 5);
 * - intervals of ratios (co-run / solo slowdowns) by a two-stage bootstrap: rounds resampled
 *   with replacement, then the requests within each chosen round, so that both the sampling
 *   noise of the requests and the drift of the host between rounds widen the interval.
 *
 * The binomial CDF is computed here in log space (15 lines) rather than imported: the one
 * well-kept library that has it (stdlib) brings 217 packages. Pure.
 */
import type { Random } from '../plan/random.js';
import type { IrPercentile } from '../ir/types.js';
import { normalQuantile } from '../predict/queueing.js';

/** The confidence of every bound and interval Tenancy reports. */
export const CONFIDENCE = 0.95;

/** The quantile each percentile name stands for. */
export const PERCENTILE_Q: Readonly<Record<Exclude<IrPercentile, 'mean'>, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 };

/** Percentiles from the lowest to the highest, as reported. */
export const REPORTED_PERCENTILES = ['p50', 'p90', 'p95', 'p99', 'p999'] as const;

/** Samples a mean needs before its bounds are trusted (the bootstrap's normal approximation). */
export const MEAN_MIN_SAMPLES = 30;

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

/** P(B ≤ k) for k = 0..n, B ~ Binomial(n, p), computed in log space (no underflow for large n). */
export function binomialCdf(n: number, p: number): Float64Array {
    const cdf = new Float64Array(n + 1);
    if (p <= 0) { cdf.fill(1); return cdf; }
    if (p >= 1) { cdf[n] = 1; return cdf; }
    const logP = Math.log(p), logQ = Math.log1p(-p);
    const logFactorial = new Float64Array(n + 1);
    for (let k = 1; k <= n; k++) logFactorial[k] = logFactorial[k - 1] + Math.log(k);
    let acc = 0;
    for (let k = 0; k <= n; k++) {
        acc += Math.exp(logFactorial[n] - logFactorial[k] - logFactorial[n - k] + k * logP + (n - k) * logQ);
        cdf[k] = Math.min(1, acc);
    }
    return cdf;
}

/** Bounds of a statistic: each end a one-sided `confidence` bound; null where the sample cannot give one. */
export interface Bounds {
    low: number | null;
    high: number | null;
}

/**
 * One-sided bounds of the q-quantile from order statistics (1-based ranks): the lower bound is
 * x(l) for the largest l with P(B ≤ l−1) ≤ 1 − c, the upper bound x(u) for the smallest u with
 * P(B ≤ u−1) ≥ c, B ~ Binomial(n, q). Coverage is at least c at each end, whatever the
 * distribution. The upper bound exists only when 1 − qⁿ ≥ c (see requiredSamples).
 */
export function quantileBounds(sorted: ArrayLike<number>, q: number, confidence = CONFIDENCE): Bounds {
    const n = sorted.length;
    if (n === 0) return { low: null, high: null };
    const cdf = binomialCdf(n, q);
    let l = 0;
    for (let k = 1; k <= n && cdf[k - 1] <= 1 - confidence; k++) l = k;
    let u = 0;
    for (let k = 1; k <= n; k++) if (cdf[k - 1] >= confidence) { u = k; break; }
    return { low: l >= 1 ? sorted[l - 1] : null, high: u >= 1 ? sorted[u - 1] : null };
}

/**
 * How far a statistic read off `sorted` would move if the n samples were drawn again: the
 * relative half-width h of its two-sided `confidence` interval, in the form of a prediction band
 * (band.ts: a value m lies inside when |x − m| / m ≤ h). From the statistic's asymptotic normal
 * spread: the mean's standard error; a q-quantile's √(q(1 − q) / n) / f(x_q), the density f
 * read off the sample — by a central difference over q ± 0.05 up to p90, and above it from an
 * exponential tail fitted between x_0.9 and x_q (f = (1 − q) / θ with
 * θ = (x_q − x_0.9) / ln(0.1 / (1 − q))), because order statistics cannot bound a p99 of fewer
 * than 299 requests from above, and its scatter is the tail's. 0 for fewer than 2 samples.
 */
export function samplingHalfWidth(sorted: ArrayLike<number>, statistic: IrPercentile, confidence = 0.9): number {
    const n = sorted.length;
    if (n < 2) return 0;
    const x = statisticOf(sorted, statistic);
    if (!(x > 0) || !Number.isFinite(x)) return 0;
    const z = normalQuantile((1 + confidence) / 2);
    let sd: number;
    if (statistic === 'mean') {
        let ss = 0;
        for (let i = 0; i < n; i++) ss += (sorted[i] - x) ** 2;
        sd = Math.sqrt(ss / (n - 1) / n);
    } else {
        const q = PERCENTILE_Q[statistic];
        if (q <= 0.9) {
            const spread = quantileSorted(sorted, Math.min(1, q + 0.05)) - quantileSorted(sorted, Math.max(0, q - 0.05));
            sd = Math.sqrt((q * (1 - q)) / n) * (spread / 0.1);
        } else {
            const theta = (x - quantileSorted(sorted, 0.9)) / Math.log(0.1 / (1 - q));
            sd = theta * Math.sqrt(q / (n * (1 - q)));
        }
    }
    return (z * sd) / x;
}


/**
 * Samples a statistic needs before its upper bound exists: for the q-quantile the smallest n with
 * 1 − qⁿ ≥ c (the largest sample is then an upper bound), e.g. 299 for p99 at 95 %; for the mean,
 * MEAN_MIN_SAMPLES.
 */
export function requiredSamples(statistic: IrPercentile, confidence = CONFIDENCE): number {
    if (statistic === 'mean') return MEAN_MIN_SAMPLES;
    const q = PERCENTILE_Q[statistic];
    return Math.ceil(Math.log(1 - confidence) / Math.log(q) - 1e-9);
}

/** The highest reported percentile that `samples` bound (undefined when not even p50 is). */
export function highestBoundedPercentile(samples: number): Exclude<IrPercentile, 'mean'> | undefined {
    let best: Exclude<IrPercentile, 'mean'> | undefined;
    for (const p of REPORTED_PERCENTILES) if (samples >= requiredSamples(p)) best = p;
    return best;
}

/** The value of a latency statistic of ascending-sorted samples. */
export function statisticOf(sorted: ArrayLike<number>, statistic: IrPercentile): number {
    return statistic === 'mean' ? mean(sorted) : quantileSorted(sorted, PERCENTILE_Q[statistic]);
}

/** An estimate with its two-sided interval (null ends: not enough data). */
export interface Interval {
    estimate: number;
    low: number | null;
    high: number | null;
}

/** Options of the bootstraps. */
export interface BootstrapOptions {
    random: Random;
    /** Resamples (default 1000). */
    iterations?: number;
    confidence?: number;
}

/** Draws n values from `xs` with replacement into `out` starting at `offset`. */
function resampleInto(xs: ArrayLike<number>, n: number, out: Float64Array, offset: number, random: Random): void {
    for (let i = 0; i < n; i++) out[offset + i] = xs[Math.floor(random.next() * xs.length)];
}

/** One two-stage resample of rounds: rounds drawn with replacement (`picks`), then each drawn round's samples with replacement; sorted. */
function resampleRounds(rounds: readonly ArrayLike<number>[], picks: Int32Array, random: Random): Float64Array {
    let size = 0;
    for (let r = 0; r < picks.length; r++) size += rounds[picks[r]].length;
    const out = new Float64Array(size);
    let offset = 0;
    for (let r = 0; r < picks.length; r++) {
        const xs = rounds[picks[r]];
        resampleInto(xs, xs.length, out, offset, random);
        offset += xs.length;
    }
    return out.sort();
}

/**
 * The interval of `statistic(co-run) / statistic(solo)` over paired rounds (round r's solo and
 * co-run phases ran back to back): a two-stage bootstrap (rounds, then requests within rounds;
 * the same rounds drawn for both sides), percentile interval of the log ratio. The estimate is the
 * ratio of the pooled samples. Null ends when a side is empty in some resample or the statistic
 * is not positive.
 */
export function ratioInterval(solo: readonly ArrayLike<number>[], corun: readonly ArrayLike<number>[], statistic: IrPercentile, options: BootstrapOptions): Interval | null {
    if (solo.length !== corun.length) throw new Error(`ratioInterval: ${solo.length} solo rounds but ${corun.length} co-run rounds`);
    const pooledSolo = sortedAscending(concat(solo)), pooledCorun = sortedAscending(concat(corun));
    if (pooledSolo.length === 0 || pooledCorun.length === 0) return null;
    const estimate = statisticOf(pooledCorun, statistic) / statisticOf(pooledSolo, statistic);
    if (!Number.isFinite(estimate) || estimate <= 0) return null;
    const iterations = options.iterations ?? 1000;
    const confidence = options.confidence ?? CONFIDENCE;
    const logs: number[] = [];
    const picks = new Int32Array(solo.length);
    for (let it = 0; it < iterations; it++) {
        for (let r = 0; r < picks.length; r++) picks[r] = Math.floor(options.random.next() * picks.length);
        const s = resampleRounds(solo, picks, options.random);
        const c = resampleRounds(corun, picks, options.random);
        if (s.length === 0 || c.length === 0) continue;
        const ratio = statisticOf(c, statistic) / statisticOf(s, statistic);
        if (Number.isFinite(ratio) && ratio > 0) logs.push(Math.log(ratio));
    }
    if (logs.length < iterations / 2) return { estimate, low: null, high: null };
    const sorted = sortedAscending(logs);
    const alpha = 1 - confidence;
    return { estimate, low: Math.exp(quantileSorted(sorted, alpha / 2)), high: Math.exp(quantileSorted(sorted, 1 - alpha / 2)) };
}

/**
 * One-sided bounds of a mean over rounds of samples (two-stage bootstrap, percentile method):
 * each end a `confidence` bound. Null ends below MEAN_MIN_SAMPLES samples.
 */
export function meanBounds(rounds: readonly ArrayLike<number>[], options: BootstrapOptions): Bounds {
    const pooled = concat(rounds);
    if (pooled.length < MEAN_MIN_SAMPLES) return { low: null, high: null };
    const iterations = options.iterations ?? 1000;
    const confidence = options.confidence ?? CONFIDENCE;
    const means = new Float64Array(iterations);
    const picks = new Int32Array(rounds.length);
    for (let it = 0; it < iterations; it++) {
        for (let r = 0; r < picks.length; r++) picks[r] = Math.floor(options.random.next() * picks.length);
        means[it] = mean(resampleRounds(rounds, picks, options.random));
    }
    means.sort();
    return { low: quantileSorted(means, 1 - confidence), high: quantileSorted(means, confidence) };
}

/** The samples of all rounds in one array. */
export function concat(rounds: readonly ArrayLike<number>[]): Float64Array {
    let size = 0;
    for (const r of rounds) size += r.length;
    const out = new Float64Array(size);
    let offset = 0;
    for (const r of rounds) {
        out.set(r as ArrayLike<number>, offset);
        offset += r.length;
    }
    return out;
}

/** What an interval of a ratio says: slower or faster than 1 beyond its interval, or no significant change. */
export type RatioVerdict = 'slower' | 'faster' | 'no-change' | 'unknown';

export function ratioVerdict(interval: Interval | null): RatioVerdict {
    if (!interval || interval.low === null || interval.high === null) return 'unknown';
    if (interval.low > 1) return 'slower';
    if (interval.high < 1) return 'faster';
    return 'no-change';
}

/** An SLO verdict: met (upper bound within target), violated (lower bound beyond it), inconclusive (straddles), or invalid (too few samples to bound it). */
export type SloVerdict = 'met' | 'violated' | 'inconclusive' | 'invalid';

export function sloVerdict(bounds: Bounds, targetMs: number): SloVerdict {
    if (bounds.low !== null && bounds.low > targetMs) return 'violated';
    if (bounds.high === null) return 'invalid';
    return bounds.high <= targetMs ? 'met' : 'inconclusive';
}

/** Wilson's score interval of a proportion `successes / n` at 95 % (null for n = 0): two-sided, inside [0, 1]. */
export function wilsonInterval(successes: number, n: number): { low: number; high: number } | null {
    if (n === 0) return null;
    const z = 1.959964, p = successes / n, d = 1 + z * z / n;
    const centre = (p + z * z / (2 * n)) / d, half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
    return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
