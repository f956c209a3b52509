/**
 * Figures of the analysis for hover, inlay hints and messages: numbers as src/protocol/units.ts
 * writes them everywhere, plus what only the analysis has — symbolic dims (`4*batch*784 B`) and
 * products past what a double holds.
 */
import * as units from '../../protocol/units.js';
import type { Dim } from './dims.js';

/** `1.5 MiB`; symbolic dims print as their formula with a unit (`4*batch*784 B`). */
export function formatBytes(bytes: number | Dim): string {
    return figure(bytes, 'B', units.formatBytes);
}

/** `3.6 GFLOP`; symbolic counts print as their formula. */
export function formatFlops(flops: number | Dim): string {
    return figure(flops, 'FLOP', units.formatFlops);
}

/** `11.7 M` (parameter counts). */
export function formatCount(count: number | Dim): string {
    return figure(count, '', units.formatCount);
}

function figure(x: number | Dim, unit: string, format: (value: number) => string): string {
    const v = typeof x === 'number' ? x : x.value;
    const suffix = unit ? ` ${unit}` : '';
    if (v === undefined) return `${x.toString()}${suffix}`;
    // A product of huge dims overflows to Infinity (and a difference of two to NaN): said, not printed as `∞`.
    if (!Number.isFinite(v)) return `more than 1.8e308${suffix}`;
    return format(v);
}
