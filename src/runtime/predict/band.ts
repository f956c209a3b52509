/**
 * Error bands of predictions: how far a predicted time is to be trusted, from the profile's own
 * evidence. Pure.
 *
 * The error of a prediction is (predicted − measured) / measured (the error hints and reports
 * print). A 90 % band of relative half-width h says: on this profile's own calibration points,
 * 90 % of such errors lay within ±h. So a measured value m is inside the band of a prediction p
 * when |p − m| / m ≤ h, i.e. m ∈ [p / (1 + h), p / (1 − h)] (bandRange).
 *
 *   family:  h = √(looP90² + noiseP90²)
 *            looP90: the 90th percentile of the family's leave-one-out relative errors (the model
 *            fitted without a point, asked for it) — the model's error at a shape it was not
 *            fitted on; for a family with too few points, its class's or every family's pooled;
 *            noiseP90: the 90th percentile of one measurement's run-to-run error (the same launch
 *            timed in interleaved rounds) — the host's noise, which a measured figure carries
 *            on top of the model's error (calibrate/band-evidence.ts). The two are independent
 *            sources (model vs host), so their squares add (exact for normal errors, whose 90 %
 *            quantiles scale with their standard deviations). A profile without this evidence
 *            (older profiles, the default profile) gets DEFAULT_BAND, labelled "uncalibrated band".
 *   a sum of launches (an op, a line's instances, a tenant's request):
 *            h = √(Σ_f (Σ_{i∈f} h_i · t_i)²) / Σ_i t_i
 *            errors of launches of one family are fully correlated (the same fitted curve errs the
 *            same way at similar shapes: their half-widths add), errors of different families
 *            independent (different curves: root-sum-square). A request of one family keeps its
 *            family's relative band; one spread over many families gets a narrower one.
 */

import { quantileSorted, sortedAscending } from '../report/statistics.js';

/**
 * The band a prediction carries without calibration evidence: ±40%. Issue 20's accuracy run on
 * this project's reference adapter found a mean absolute error of 19.7 % over all ops; for
 * roughly normal errors the 90th percentile of |error| is about 2.06× the mean absolute error.
 */
export const DEFAULT_BAND = 0.4;

/** A 90 % error band: the relative half-width, and whether it rests on the profile's calibration evidence. */
export interface ErrorBand {
    relative: number;
    calibrated: boolean;
}

/** The evidence a calibrated family carries (profile.ts familyProfileSchema.error). */
export interface FamilyErrorEvidence {
    looP90: number;
    noiseP90: number;
}

/** The 90 % band of a family's launches: its leave-one-out error and the host's noise combined, else the default band. */
export function familyBand(family: { error?: FamilyErrorEvidence } | undefined): ErrorBand {
    const e = family?.error;
    if (!e) return { relative: DEFAULT_BAND, calibrated: false };
    return { relative: Math.hypot(e.looP90, e.noiseP90), calibrated: true };
}

/** Fewer earlier calibrations than this: the host's drift is not known (hostDrift). */
export const MIN_DRIFT_POINTS = 3;

/** How the host's speed in a calibration is told: its curves' level against the others' (profile.ts curveRatio), or the time of its reference request. */
export const SPEED_MEASURES = ['curves', 'reference request'] as const;
export type SpeedMeasure = typeof SPEED_MEASURES[number];

type HostSpeeds = { hostSpeedProbeMs?: number; hostSpeedHistory?: readonly { probeMs: number; curveLevel?: number }[] };
/**
 * What a profile knows of the host's speed, this calibration's and the earlier ones' on one scale
 * (larger: slower): the curves' levels where at least MIN_DRIFT_POINTS earlier calibrations carry
 * one (this profile's at 1), else the reference request's times; undefined with fewer than
 * MIN_DRIFT_POINTS earlier calibrations.
 */
function earlierSpeeds(profile: HostSpeeds): { now: number; probes: number[]; by: SpeedMeasure } | undefined {
    const history = profile.hostSpeedHistory ?? [];
    const levels = history.flatMap(h => (h.curveLevel !== undefined ? [h.curveLevel] : []));
    if (levels.length >= MIN_DRIFT_POINTS) return { now: 1, probes: levels, by: 'curves' };
    const now = profile.hostSpeedProbeMs;
    return now === undefined || history.length < MIN_DRIFT_POINTS ? undefined : { now, probes: history.map(h => h.probeMs), by: 'reference request' };
}

/**
 * How far the host's speed moves between a calibration and a later moment, as a prediction's
 * relative error: a figure predicted at this calibration's speed (earlierSpeeds) and measured
 * when the host runs as it did at an earlier calibration of this adapter (hostSpeedHistory) is
 * off by (now − then) / then. `p90`: the 90th percentile of |that| over the earlier
 * calibrations; undefined with fewer than MIN_DRIFT_POINTS of them. On a software adapter every
 * figure moves with the host's cores (other processes, frequency); a dedicated GPU's history is
 * flat and adds nothing.
 */
export function hostDrift(profile: HostSpeeds): { p90: number; points: number } | undefined {
    const speeds = earlierSpeeds(profile);
    if (!speeds) return undefined;
    const errors = sortedAscending(speeds.probes.map(then => Math.abs(speeds.now - then) / then));
    return { p90: quantileSorted(errors, 0.9), points: errors.length };
}

/**
 * How many earlier calibrations of this adapter a profile remembers while the host's drift is
 * not known yet (fewer than MIN_DRIFT_POINTS): its bands then leave the drift out, and the
 * hover and `tenancy predict` say so. Undefined when the drift is known or the profile has no
 * reference request (an older profile, the default one).
 */
export function hostDriftPending(profile: HostSpeeds): number | undefined {
    if (profile.hostSpeedProbeMs === undefined || earlierSpeeds(profile)) return undefined;
    return profile.hostSpeedHistory?.length ?? 0;
}

/**
 * How fast the host ran during this calibration against its earlier calibrations of this adapter:
 * its speed (earlierSpeeds) over the median of theirs (> 1: slower than usual), with how many
 * there were and how the speed was told (`medianMs`: the reference request's median, when told
 * by it); undefined with fewer than MIN_DRIFT_POINTS. A profile calibrated at a slow moment
 * reads every figure high by about that ratio, unless scaled to the usual speed (atUsualSpeed).
 */
export function hostMoment(profile: HostSpeeds): { ratio: number; points: number; by: SpeedMeasure; medianMs?: number } | undefined {
    const speeds = earlierSpeeds(profile);
    if (!speeds) return undefined;
    const median = quantileSorted(sortedAscending(speeds.probes), 0.5);
    return { ratio: speeds.now / median, points: speeds.probes.length, by: speeds.by, ...(speeds.by === 'reference request' ? { medianMs: median } : {}) };
}

/**
 * The host's usual speed: the median speed (earlierSpeeds) of this calibration and the earlier
 * ones of this adapter here, as the factor that takes this calibration's times to it (median /
 * now; < 1: this calibration ran slower than usual), over `calibrations` of them (this one
 * included), and how the speed was told; undefined while the drift is not known (fewer than
 * MIN_DRIFT_POINTS earlier ones). A software adapter's speed moves with the host's other
 * processes from one minute to the next, so one calibration's moment is a noisy estimate of how
 * fast the host usually runs; the median of several is a robust one (profile.ts atUsualSpeed).
 */
export function usualHostSpeed(profile: HostSpeeds): { factor: number; calibrations: number; by: SpeedMeasure } | undefined {
    const speeds = earlierSpeeds(profile);
    if (!speeds) return undefined;
    const median = quantileSorted(sortedAscending([...speeds.probes, speeds.now]), 0.5);
    return { factor: median / speeds.now, calibrations: speeds.probes.length + 1, by: speeds.by };
}

/** A calibration this much slower (or its inverse faster) than the host's usual speed is worth repeating. */
export const UNUSUAL_HOST_MOMENT = 1.3;

/**
 * A figure's band with a term that moves every launch of the figure alike added once, in
 * quadrature (independent of the model's error and of the run-to-run noise), never per family
 * (combineBands would shrink it across families); undefined or 0: unchanged. The terms: the
 * host's drift (hostDrift's p90), and for an op's co-run time its tenant's co-run term
 * (workload.ts opCorunTerm).
 */
export function widenBand(band: ErrorBand, term: number | undefined): ErrorBand {
    return term !== undefined && term > 0 ? { ...band, relative: Math.hypot(band.relative, term) } : band;
}

/** The band of a sum of launches (see the module comment): half-widths add within a family, root-sum-square across families. */
export function combineBands(parts: readonly { family: string; ms: number; band: ErrorBand }[]): ErrorBand {
    let total = 0;
    let calibrated = true;
    const byFamily = new Map<string, number>();
    for (const p of parts) {
        if (!(p.ms > 0) || !Number.isFinite(p.ms)) continue;
        total += p.ms;
        calibrated &&= p.band.calibrated;
        byFamily.set(p.family, (byFamily.get(p.family) ?? 0) + p.band.relative * p.ms);
    }
    if (total === 0) return { relative: 0, calibrated };
    let sq = 0;
    for (const e of byFamily.values()) sq += e * e;
    return { relative: Math.sqrt(sq) / total, calibrated };
}

/** The measured values inside a prediction's band: [p / (1 + h), p / (1 − h)] (∞ above when h ≥ 1). */
export function bandRange(predictedMs: number, relative: number): { low: number; high: number } {
    return { low: predictedMs / (1 + relative), high: relative < 1 ? predictedMs / (1 - relative) : Infinity };
}

/** Whether a measured value fell inside a prediction's band: |predicted − measured| / measured ≤ h. */
export function insideBand(predictedMs: number, measuredMs: number, relative: number): boolean {
    return measuredMs > 0 && Math.abs(predictedMs - measuredMs) / measuredMs <= relative;
}
