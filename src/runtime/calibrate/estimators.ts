/**
 * Robust estimators for calibration's host effects (the idle penalty, the host's mean/median
 * factors, request tails). On a shared host a burst of other processes lands on a few seconds of
 * a calibration; a plain mean or an empirical p99 over one window then moves by 2× between
 * calibrations minutes apart. These estimate the same quantities from several short trials
 * (contiguous blocks of samples, i.e. time windows) and take the median across them, so one
 * disturbed trial cannot carry the figure. Pure.
 *
 * Tails: peaks over p80 with an exponential excess were tried (mean excess, then median excess)
 * and dropped: the co-run tail of four calibrations ranged 19–53 ms with the mean excess (27–59 ms
 * empirical), and the median excess gave 0 under heavy stalls; the tails stay empirical quantiles.
 */

import { quantileSorted, sortedAscending } from '../report/statistics.js';
import { normalQuantile } from '../predict/queueing.js';

/** Arithmetic mean (0 for no samples). */
export function mean(xs: readonly number[]): number {
    return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Median (linear interpolation between the middle two; NaN for no samples). */
export function medianOf(xs: readonly number[]): number {
    return quantileSorted(sortedAscending(xs), 0.5);
}

/** Splits samples, in order, into `blocks` contiguous blocks of near-equal size (at least one sample each). */
export function contiguousBlocks<T>(xs: readonly T[], blocks: number): T[][] {
    const k = Math.max(1, Math.min(Math.floor(blocks), xs.length));
    const out: T[][] = [];
    for (let b = 0; b < k; b++) out.push(xs.slice(Math.floor((b * xs.length) / k), Math.floor(((b + 1) * xs.length) / k)));
    return out;
}

/**
 * Median of means: the samples (in time order) cut into `blocks` contiguous trials, the mean of
 * each, the median of those means. An estimate of the mean that a minority of disturbed trials
 * (fewer than half) cannot move far; with one block it is the plain mean. Throws on no samples.
 */
export function medianOfMeans(xs: readonly number[], blocks: number): number {
    if (xs.length === 0) throw new Error('medianOfMeans: no samples');
    return medianOf(contiguousBlocks(xs, blocks).map(mean));
}

/** One idle/back-to-back pair of the same request, measured one right after the other (same host state). */
export interface IdlePair {
    /** Latency (ms) of a request that arrived at an idle device: from its scheduled arrival to completion seen by the process. */
    idleWallMs: number;
    /** Σ of that request's pass times (ms). */
    idleGpuMs: number;
    /** Wall time (ms) of the same request run right after another (device kept busy). */
    backToBackWallMs: number;
    /** Σ of its pass times (ms). */
    backToBackGpuMs: number;
}

/** The idle penalty as the profile stores it, with the per-trial totals it came from (for reports). */
export interface IdlePenaltyEstimate {
    /** Fixed extra wall time (ms) of a request that finds the device idle, beyond its passes' extra GPU time. */
    wallMs: number;
    /** Extra GPU time (ms) per pass of such a request. */
    gpuMsPerPass: number;
    /** Each trial's mean extra wall time (ms) per idle request, passes included: the spread of the estimate. */
    trialsMs: number[];
}

/**
 * The idle penalty from paired measurements: each pair's difference (idle − back to back) taken
 * in the same host state, so load drifting between trials cancels; the extra wall time and the
 * extra GPU time are each the median of means of those differences over `blocks` trials, never
 * below zero; the fixed part is the extra wall time beyond the passes' extra GPU time.
 */
export function idlePenaltyFromPairs(pairs: readonly IdlePair[], passes: number, blocks: number): IdlePenaltyEstimate {
    if (pairs.length === 0) throw new Error('idlePenaltyFromPairs: no idle/back-to-back pairs were measured');
    const wall = pairs.map(p => p.idleWallMs - p.backToBackWallMs);
    const gpu = pairs.map(p => p.idleGpuMs - p.backToBackGpuMs);
    const extraWall = Math.max(0, medianOfMeans(wall, blocks));
    const gpuMsPerPass = passes > 0 ? Math.max(0, medianOfMeans(gpu, blocks)) / passes : 0;
    return {
        wallMs: Math.max(0, extraWall - passes * gpuMsPerPass),
        gpuMsPerPass,
        trialsMs: contiguousBlocks(wall, blocks).map(mean),
    };
}

/**
 * The host's mean/median factor from trials: each trial's Σ of means (of the same quantities)
 * over the Σ of their medians pooled over all trials, the median of those ratios, at least 1
 * (stalls only add time). A stall-heavy minority of trials cannot carry it. `trialMeanSums[r]`
 * is trial r's Σ of means; `pooledMedianSum` the Σ of the medians over all trials.
 */
export function meanFactorFromTrials(trialMeanSums: readonly number[], pooledMedianSum: number): number {
    if (!(pooledMedianSum > 0) || trialMeanSums.length === 0) return 1;
    return Math.max(1, medianOf(trialMeanSums.map(s => s / pooledMedianSum)));
}

/**
 * Samples of several trials, each trial scaled to the median pooled over all of them (× pooled
 * median / the trial's median): the spread within a host state, without the level shifts between
 * trials (a burst of other work that slows a whole trial is a different load, not a tail), for
 * tail estimates. Empty trials are skipped.
 */
export function levelledByTrial(trials: readonly (readonly number[])[]): number[] {
    const pooled = medianOf(trials.flat());
    return trials.filter(t => t.length > 0).flatMap(t => {
        const m = medianOf(t);
        return m > 0 ? t.map(x => (x * pooled) / m) : [...t];
    });
}

/** Empirical quantile q ∈ [0, 1] (linear interpolation between order statistics). Throws on no samples. */
export function quantileOf(xs: readonly number[], q: number): number {
    if (xs.length === 0) throw new Error('quantileOf: no samples');
    if (!(q >= 0 && q <= 1)) throw new Error(`quantileOf: the quantile must lie in [0, 1]; found ${q}`);
    return quantileSorted(sortedAscending(xs), q);
}

/**
 * A request's tail beyond the body the model draws (profile.ts serviceTailMs, corunTailMs): at
 * q = 0.9, 0.95 and 0.99, how far the walls' empirical quantile lies above medianMs·(1 + z_q·cv),
 * at least 0. `cv` is the jitter the model draws (the solo service CV, alone and co-running
 * alike), so whatever spread the walls have beyond it is tail.
 */
export function tailBeyondBody(walls: readonly number[], medianMs: number, cv: number): { p90: number; p95: number; p99: number } {
    const sorted = sortedAscending(walls);
    const at = (q: number) => Math.max(0, quantileSorted(sorted, q) - medianMs * (1 + normalQuantile(q) * cv));
    return { p90: at(0.9), p95: at(0.95), p99: at(0.99) };
}

/**
 * One trial of the runtime-path idle measurement: the same synthetic request run by the runtime's
 * own phase loop (execute/phase.ts, TenantRunner) closed loop back to back, then right after as a
 * low-rate Poisson stream (almost every arrival finds the device idle).
 */
export interface RuntimeIdleTrial {
    /** Compute passes of the request (ops with launches). */
    passes: number;
    /** Mean latency (ms) of the closed-loop, back-to-back requests. */
    closedMeanMs: number;
    /** Mean latency (ms) of the open-loop requests, from their scheduled arrival. */
    openMeanMs: number;
    /** Mean Σ of pass times (ms) per request, closed loop and open loop. */
    closedGpuMs: number;
    openGpuMs: number;
    /** The open-loop requests' latencies (ms), for diagnostics (the estimate uses the means). */
    openLatenciesMs?: number[];
    /** The mean latency (ms) of all the open-loop requests, those that queued behind another included (diagnostics). */
    openAllMeanMs?: number;
    /**
     * What the request's first pass took beyond the same kernel later in the request (ms, median over the phase's
     * requests), closed loop back to back and open loop from idle; absent when the probe's first pass has no twin.
     */
    firstPass?: { busyMs: number; idleMs: number };
}

/** The runtime-path idle penalty, with each request length's extra wall time (for reports). */
export interface RuntimeIdlePenaltyEstimate {
    /** Fixed extra wall time (ms) of an idle arrival: the intercept of extra wall time over passes. */
    wallMs: number;
    /** Extra wall time (ms) per pass of an idle arrival: the slope over passes (host- or GPU-side; the mean alone cannot tell). */
    gpuMsPerPass: number;
    /** Per request length: passes, the median extra wall time (ms), its extra GPU time (ms), and every trial's extra wall time. */
    lengths: { passes: number; extraMs: number; extraGpuMs: number; trialsMs: number[] }[];
    /** A request's first pass beyond the same kernel later (profile.ts firstPassMs): medians over the trials that timed it, at least 0. */
    firstPass?: { busy: number; idle: number };
}

/**
 * The idle penalty from runtime-path trials. Each trial's open − closed mean is taken within the
 * trial (the two phases run one right after the other, so load drifting between trials cancels);
 * per request length the extra is the median over trials (a median of trial means, as for the
 * paired estimator), never below zero. Over the lengths (two or more pass counts) a least-squares
 * line extra = wallMs + passes·gpuMsPerPass, both parts at least zero (a negative slope is noise:
 * then the fixed part is the lengths' mean extra). With one length the extra is all fixed. The
 * first pass's extra, back to back and idle, is the median over the trials that timed it: the
 * idle one is part of the fixed extra already (it is wall time too), told apart so a prediction
 * can put it on the first op.
 */
export function idlePenaltyFromRuntimeTrials(trials: readonly RuntimeIdleTrial[]): RuntimeIdlePenaltyEstimate {
    if (trials.length === 0) throw new Error('idlePenaltyFromRuntimeTrials: no runtime-path trials were measured');
    const byPasses = new Map<number, RuntimeIdleTrial[]>();
    for (const t of trials) byPasses.set(t.passes, [...(byPasses.get(t.passes) ?? []), t]);
    const lengths = [...byPasses.entries()].sort((x, y) => x[0] - y[0]).map(([passes, ts]) => {
        const trialsMs = ts.map(t => t.openMeanMs - t.closedMeanMs);
        return { passes, extraMs: Math.max(0, medianOf(trialsMs)), extraGpuMs: Math.max(0, medianOf(ts.map(t => t.openGpuMs - t.closedGpuMs))), trialsMs };
    });
    const xs = lengths.map(l => l.passes), ys = lengths.map(l => l.extraMs);
    const mx = mean(xs), my = mean(ys);
    const sxx = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
    const slope = sxx > 0 ? Math.max(0, xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / sxx) : 0;
    let wallMs = my - slope * mx;
    let gpuMsPerPass = slope;
    if (wallMs < 0) {
        // The line crosses zero before the shortest request: all of the extra per pass (through the origin).
        wallMs = 0;
        gpuMsPerPass = xs.reduce((s, x, i) => s + x * ys[i], 0) / xs.reduce((s, x) => s + x * x, 0);
    }
    const timed = trials.flatMap(t => t.firstPass ? [t.firstPass] : []);
    const firstPass = timed.length > 0
        ? { busy: Math.max(0, medianOf(timed.map(f => f.busyMs))), idle: Math.max(0, medianOf(timed.map(f => f.idleMs))) }
        : undefined;
    return { wallMs, gpuMsPerPass, lengths, ...(firstPass ? { firstPass } : {}) };
}

/**
 * Whether each request (in completion order, FIFO: one at a time) found the device idle: the first
 * did, and each later one did when it arrived no earlier than the previous one completed.
 */
export function foundIdle(requests: readonly { arrivalMs: number; doneMs: number }[]): boolean[] {
    return requests.map((r, i) => i === 0 || r.arrivalMs >= requests[i - 1].doneMs);
}
