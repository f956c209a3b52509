/**
 * How a measured figure is written with its uncertainty, the same in the CLI's table, the code
 * lenses, hovers, inlay hints and the report: a slowdown with its 95 % interval and what it says
 * (`1.8× slower (1.5–2.2)`, `no significant change (0.9–1.2)`), a latency with its bounds
 * (`16.7 ms (15.2–18)`), a percentile the requests cannot bound (`p99 n/a: needs 299 requests`),
 * an SLO verdict (✓, ✗, inconclusive, invalid). No dependencies.
 */
import { formatMs, significant } from './units.js';

/** A ratio's interval verdict, as the results file gives it. */
export type RatioVerdictWord = 'slower' | 'faster' | 'no-change' | 'unknown';

/** `1.8× slower (1.5–2.2)`, `0.8× faster (0.7–0.9)`, `no significant change (0.9–1.2)`; without an interval the estimate alone, marked `?`. */
export function formatSlowdown(r: { estimate: number; low: number | null; high: number | null; verdict: RatioVerdictWord }): string {
    const range = r.low !== null && r.high !== null ? ` (${r.low.toFixed(2)}–${r.high.toFixed(2)})` : '';
    switch (r.verdict) {
        case 'slower': return `${r.estimate.toFixed(2)}× slower${range}`;
        case 'faster': return `${r.estimate.toFixed(2)}× faster${range}`;
        case 'no-change': return `no significant change${range}`;
        default: return `${r.estimate.toFixed(2)}× ?`;
    }
}

/** The ends of bounds without a unit: `15.2–18`, `≥ 15.2` (no upper end), `—`. */
export function formatRange(low: number | null, high: number | null): string {
    if (low !== null && high !== null) return `${significant(low)}–${significant(high)}`;
    if (low !== null) return `≥ ${significant(low)}`;
    if (high !== null) return `≤ ${significant(high)}`;
    return '—';
}

/** `16.7 ms (15.2–18)`: a latency with its 95 % bounds. */
export function formatBoundedMs(value: number, low: number | null, high: number | null): string {
    return `${formatMs(value)} (${formatRange(low, high)})`;
}

/** `n/a: needs 299 requests (has 120)`: a percentile the requests cannot bound. */
export function formatNeeds(needed: number, has: number): string {
    return `n/a: needs ${needed} requests (has ${has})`;
}

/** An SLO verdict as a mark: ✓ met, ✗ violated, ~ inconclusive (the bounds straddle the target), ? invalid (too few requests). */
export function sloMark(verdict: 'met' | 'violated' | 'inconclusive' | 'invalid'): string {
    return verdict === 'met' ? '✓' : verdict === 'violated' ? '✗' : verdict === 'inconclusive' ? 'inconclusive' : 'invalid';
}

/** A schedule's gain's interval verdict, as the comparison file gives it (above 1 is better). */
export type GainVerdictWord = 'better' | 'worse' | 'no-change' | 'unknown';

/** `1.40× better (1.20–1.70)`, `0.80× worse (0.70–0.90)`, `no significant change (0.90–1.20)`; without an interval the estimate, marked `?`. */
export function formatGain(g: { estimate: number; low: number | null; high: number | null; verdict: GainVerdictWord }): string {
    const range = g.low !== null && g.high !== null ? ` (${g.low.toFixed(2)}–${g.high.toFixed(2)})` : '';
    switch (g.verdict) {
        case 'better': return `${g.estimate.toFixed(2)}× better${range}`;
        case 'worse': return `${g.estimate.toFixed(2)}× worse${range}`;
        case 'no-change': return `no significant change${range}`;
        default: return `${g.estimate.toFixed(2)}× ?`;
    }
}

/** `predicted 1.60×, measured 1.40× (1.20–1.70)`: a predicted gain beside what a comparison measured. */
export function formatPredictedMeasured(predicted: number | null, measured: { estimate: number; low: number | null; high: number | null } | null): string {
    const p = predicted === null ? 'predicted —' : `predicted ${predicted.toFixed(2)}×`;
    if (!measured) return `${p}, not measured`;
    const range = measured.low !== null && measured.high !== null ? ` (${measured.low.toFixed(2)}–${measured.high.toFixed(2)})` : '';
    return `${p}, measured ${measured.estimate.toFixed(2)}×${range}`;
}

/**
 * A capacity search's bracket (× the declared load): `1.41× (fails at 1.62×)`, `≥ 2× (none failed)`,
 * `< 0.5× (no load met the SLOs)`, or `not found: too few requests within the budget` when no
 * probe could decide.
 */
export function formatCapacityLoad(c: { load: number; failedLoad: number | null }): string {
    if (c.load === 0) return c.failedLoad === null ? 'not found: too few requests within the budget' : `< ${c.failedLoad.toFixed(2)}× (no load met the SLOs)`;
    return c.failedLoad === null ? `≥ ${c.load.toFixed(2)}× (none failed)` : `${c.load.toFixed(2)}× (fails at ${c.failedLoad.toFixed(2)}×)`;
}
