/**
 * What a measured comparison of schedules (`tenancy compare`'s file, read by
 * {@link ResultsWatch.latestComparison}) says, for the features that show it beside the
 * predictions: a schedule's headline gain over the baseline, predicted and measured
 * (`predicted 1.60×, measured 1.40× (1.20–1.70)`), whether the measurement bears out a
 * "better than the baseline" prediction, and the compare lens's line. Pure.
 */
import type { ComparedSchedule, Comparison, Gain } from '../../runtime/report/compare.js';
import { formatPredictedMeasured } from '../../protocol/figures.js';
import { plural } from '../../protocol/units.js';
import type { ResultsWatch } from './results-watch.js';

/** A schedule's headline against the baseline in a measured comparison. */
export interface MeasuredGain {
    /** The schedule as it ran (`auto` arguments resolved) and as it was asked for. */
    schedule: string;
    asked: string;
    /** The schedule the gain is against (the workload's own when it was compared). */
    baseline: string;
    /** With `--capacity` the capacity ratio, else a tenant's latency statistic. */
    metric: 'latency' | 'capacity';
    tenant: string | undefined;
    statistic: string | undefined;
    /** What the gain is of: `critical's p95`, `capacity`. */
    what: string;
    /** The simulation's ratio (null: none), and the measured one with its 95 % interval (null: not measured). */
    predicted: number | null;
    measured: Gain | null;
    /** `predicted 1.60×, measured 1.40× (1.20–1.70)`. */
    text: string;
    /**
     * Whether the measurement bears out "this schedule does better than the baseline":
     * `confirmed` when its interval lies above 1; `contradicted` when it lies below 1, or holds 1
     * and lies wholly below the predicted gain (the predicted gain is ruled out, no gain is not);
     * else `inconclusive` (too wide, or not measured).
     */
    betterThanBaseline: 'confirmed' | 'contradicted' | 'inconclusive';
    /** Whether the comparison completed and its figures are valid (every SLO verdict bounded). */
    complete: boolean;
    valid: boolean;
    /** ISO time the comparison finished. */
    finishedAt: string;
}

/** Schedule text without spaces, so that `layer_block(size:4)` finds `layer_block(size: 4)`. */
function normalized(schedule: string): string {
    return schedule.replace(/\s+/g, '');
}

/** Whether two schedules are written alike (spaces aside). */
export function sameSchedule(a: string, b: string): boolean {
    return normalized(a) === normalized(b);
}

/** The compared schedule named `schedule`, as it ran or as it was asked for (`layer_block(size: auto)`). */
export function comparedSchedule(comparison: Comparison, schedule: string): ComparedSchedule | undefined {
    const wanted = normalized(schedule);
    return comparison.schedules.find(s => normalized(s.name) === wanted) ?? comparison.schedules.find(s => normalized(s.asked) === wanted);
}

/** What the measurement says of "better than the baseline" (see {@link MeasuredGain.betterThanBaseline}). */
export function betterThanBaseline(predicted: number | null, measured: Gain | null): MeasuredGain['betterThanBaseline'] {
    if (!measured) return 'inconclusive';
    if (measured.verdict === 'better') return 'confirmed';
    if (measured.verdict === 'worse') return 'contradicted';
    if (measured.verdict === 'no-change' && predicted !== null && measured.high !== null && measured.high < predicted) return 'contradicted';
    return 'inconclusive';
}

/**
 * The headline gain of `schedule` (as it ran or as asked) over the comparison's baseline;
 * undefined when the comparison has no such schedule or it is the baseline itself.
 */
export function measuredGainOf(comparison: Comparison, schedule: string): MeasuredGain | undefined {
    const s = comparedSchedule(comparison, schedule);
    if (!s || s.baseline || !s.gain) return undefined;
    const g = s.gain;
    const what = g.metric === 'capacity' ? 'capacity' : `${g.tenant}'s ${g.statistic}`;
    return {
        schedule: s.name, asked: s.asked, baseline: comparison.baseline,
        metric: g.metric, tenant: g.tenant, statistic: g.statistic, what,
        predicted: g.predicted, measured: g.measured,
        text: formatPredictedMeasured(g.predicted, g.measured),
        betterThanBaseline: betterThanBaseline(g.predicted, g.measured),
        complete: comparison.status === 'complete', valid: comparison.valid, finishedAt: comparison.finishedAt,
    };
}

/**
 * The measured headline gain of `schedule` for a workload of a document, from its latest
 * comparison; undefined when there is no usable comparison or it did not measure that schedule.
 */
export function measuredGain(watch: ResultsWatch, documentUri: string, workload: string, schedule: string): MeasuredGain | undefined {
    const comparison = watch.measuredComparison(documentUri, workload);
    return comparison ? measuredGainOf(comparison, schedule) : undefined;
}

/**
 * The compare lens's line after a comparison: `measured best: layer_block(size: 4) — critical's
 * p95 predicted 2.40×, measured 1.90× (1.50–2.30)`, or `concurrent stays best (measured against
 * 4 schedules)`; marked when the comparison did not complete or its figures are not valid.
 */
export function comparisonSummary(comparison: Comparison): string {
    const others = comparison.schedules.filter(s => !s.baseline).length;
    let text: string;
    const best = comparison.best !== null ? comparedSchedule(comparison, comparison.best) : undefined;
    if (best && best.gain?.measured?.verdict === 'better') {
        text = `measured best: ${best.name} — ${measuredGainOf(comparison, best.name)!.what} ${formatPredictedMeasured(best.gain.predicted, best.gain.measured)}`;
    } else if (comparison.best !== null) {
        // Best by fewer SLOs violated, not by its headline gain: the reason says it.
        text = `measured best: ${comparison.best} — ${comparison.bestWhy}`;
    } else {
        text = `${comparison.baseline} stays best (measured against ${plural(others, 'other schedule')})`;
    }
    const prefix = comparison.status === 'complete' ? '' : `(${comparison.status}) `;
    return prefix + text + (comparison.valid ? '' : ' · not valid');
}
