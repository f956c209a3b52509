import { insideBand } from '../../src/runtime/predict/band.js';

/**
 * Band coverage: the share of samples with a band whose measurement fell inside it (goal 85–95 % for 90 % bands), with the
 * bands' median half-width beside it (a band wide enough covers anything: the width says what the coverage cost), or — without bands.
 */
export function bandCoverage(xs: readonly { predicted: number; measured: number; band?: number }[]): string {
    const banded = xs.filter(x => x.band !== undefined);
    if (banded.length === 0) return '—';
    const inside = banded.filter(x => insideBand(x.predicted, x.measured, x.band!)).length;
    const widths = banded.map(x => x.band!).sort((a, b) => a - b);
    return `${(100 * inside / banded.length).toFixed(0)}% (±${(100 * widths[Math.floor(widths.length / 2)]).toFixed(0)}%)`;
}
