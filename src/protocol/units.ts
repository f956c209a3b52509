/**
 * How Tenancy writes quantities: milliseconds, bytes, FLOPs, counts, ratios and percentages.
 * One rule for every place a figure is shown — hover, inlay hint, code lens, diagnostic, CLI
 * table, report, error message — so the same size never prints two ways. Three significant
 * figures, trailing zeros dropped, unit chosen by size. No dependencies (the extension's
 * webview, the language server and the runtime all import it).
 */

/** `12.3`, `0.42`, `1500`: three significant figures without trailing zeros (integers ≥ 1000 in full). */
export function significant(x: number): string {
    if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '−∞' : '—';
    if (x === 0) return '0';
    if (Math.abs(x) >= 1000) return String(Math.round(x));
    const text = x.toPrecision(3);
    return text.includes('e') ? String(Number(text)) : text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** `0.42 ms`, `12.3 ms`, `1.25 s`, `38 µs`; `∞` for an unbounded figure. */
export function formatMs(ms: number): string {
    if (!Number.isFinite(ms)) return ms > 0 ? '∞' : '—';
    const a = Math.abs(ms);
    if (a >= 1000) return `${significant(ms / 1000)} s`;
    if (a >= 0.1 || a === 0) return `${significant(ms)} ms`;
    return `${significant(ms * 1000)} µs`;
}

/** A latency in ms without its unit, for tables whose header names the unit: `12.3`, `0.42`, `1500`. */
export function msValue(ms: number | null | undefined): string {
    return ms === null || ms === undefined ? '—' : significant(ms);
}

const BYTE_UNITS: readonly [number, string][] = [[2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];

/** `1.5 MiB`, `512 B` (binary units). */
export function formatBytes(bytes: number): string {
    if (!Number.isFinite(bytes)) return bytes > 0 ? '∞' : '—';
    for (const [scale, unit] of BYTE_UNITS) if (Math.abs(bytes) >= scale) return `${significant(bytes / scale)} ${unit}`;
    return `${Math.round(bytes)} B`;
}

const DECIMAL_PREFIXES: readonly [number, string][] = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];

/** `3.6 GFLOP`, `340 MFLOP`, `12 FLOP`. */
export function formatFlops(flops: number): string {
    return withPrefix(flops, 'FLOP');
}

/** `11.7 M`, `512` (parameter and element counts). */
export function formatCount(count: number): string {
    return withPrefix(count, '');
}

function withPrefix(x: number, unit: string): string {
    const suffix = unit ? ` ${unit}` : '';
    if (!Number.isFinite(x)) return x > 0 ? '∞' : '—';
    for (const [scale, prefix] of DECIMAL_PREFIXES) {
        if (Math.abs(x) >= scale) return `${significant(x / scale)} ${prefix}${unit}`;
    }
    return `${significant(x)}${suffix}`;
}

/** `1.85×` (slowdowns and other ratios; two decimals, since 1.04× and 1.4× differ). */
export function formatRatio(x: number | null | undefined): string {
    return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${x.toFixed(2)}×`;
}

/** `75%`, `4.5%` (a fraction 0…1). */
export function formatPercent(fraction: number): string {
    if (!Number.isFinite(fraction)) return fraction > 0 ? '∞' : '—';
    const p = fraction * 100;
    return `${Math.abs(p) >= 10 ? p.toFixed(0) : significant(Number(p.toFixed(1)))}%`;
}

/** `+8%`, `−12%`: a signed relative difference (a fraction), with a true minus sign. */
export function formatSignedPercent(fraction: number): string {
    if (!Number.isFinite(fraction)) return 'n/a';
    const p = fraction * 100;
    const r = Math.abs(p) >= 10 ? Math.round(p) : Math.round(p * 10) / 10;
    return `${r >= 0 ? '+' : '−'}${Math.abs(r)}%`;
}

/** `1 request`, `3 requests`. */
export function plural(count: number, noun: string): string {
    return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
