/** Human-readable figures for hover, inlay hints and messages. */
import type { Dim } from './dims.js';

const units: [number, string][] = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];

/** `1.5 MiB`; symbolic dims print as their formula with a unit (`4*batch*784 B`). */
export function formatBytes(bytes: number | Dim): string {
    const v = typeof bytes === 'number' ? bytes : bytes.value;
    if (v === undefined) return `${bytes.toString()} B`;
    if (!Number.isFinite(v)) return beyondRange('B');
    for (const [size, unit] of units) if (v >= size) return `${trim(v / size)} ${unit}`;
    return `${v} B`;
}

/** `3.6 GFLOP`; symbolic counts print as their formula. */
export function formatFlops(flops: number | Dim): string {
    return withPrefix(flops, 'FLOP');
}

/** `11.7 M` (parameter counts). */
export function formatCount(count: number | Dim): string {
    return withPrefix(count, '').trim();
}

function withPrefix(x: number | Dim, unit: string): string {
    const v = typeof x === 'number' ? x : x.value;
    if (v === undefined) return `${x.toString()}${unit ? ` ${unit}` : ''}`;
    if (!Number.isFinite(v)) return beyondRange(unit);
    for (const [size, prefix] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']] as const) {
        if (Math.abs(v) >= size) return `${trim(v / size)} ${prefix}${unit}`;
    }
    return `${v}${unit ? ` ${unit}` : ''}`;
}

function trim(x: number): string {
    return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** A count past what a double holds (a product of huge dims): said, not printed as `Infinity`. */
function beyondRange(unit: string): string {
    return `more than 1.8e308${unit ? ` ${unit}` : ''}`;
}
