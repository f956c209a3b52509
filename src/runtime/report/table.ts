/**
 * The "interference table" printed by `tenancy run`: per tenant, requests, solo and co-run
 * p50/p99, slowdown and SLO verdicts; then the status line. Pure.
 */
import { formatRatio as times, msValue as ms } from '../../protocol/units.js';
import type { Results } from './schema.js';

/** Renders rows as an aligned text table (first column left-aligned, the rest right-aligned). */
export function alignTable(rows: string[][]): string {
    const widths = rows[0].map((_, c) => Math.max(...rows.map(r => [...(r[c] ?? '')].length)));
    return rows.map(r => r.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])).join('  ').trimEnd()).join('\n');
}

/** The interference table of a results document (latencies in ms). */
export function interferenceTable(results: Results): string {
    const header = ['tenant', 'requests', 'solo p50', 'solo p99', 'co-run p50', 'co-run p99', 'slowdown p99', 'slowdown mean', 'SLO'];
    const rows = [header];
    for (const t of results.tenants) {
        const slo = t.slos.length === 0 ? '—' : t.slos.map(s => `${s.percentile}≤${ms(s.targetMs)} ${s.met === null ? '?' : s.met ? '✓' : '✗'}`).join(' ');
        rows.push([
            t.name,
            String((t.corun ?? t.solo)?.requests ?? 0),
            ms(t.solo?.latencyMs.p50), ms(t.solo?.latencyMs.p99),
            ms(t.corun?.latencyMs.p50), ms(t.corun?.latencyMs.p99),
            times(t.slowdown.p99), times(t.slowdown.mean),
            slo,
        ]);
    }
    const a = results.adapter;
    const lines = [
        `workload ${results.workload} — schedule ${results.config.policy}, ${results.config.requests !== null ? `${results.config.requests} requests` : `${(results.config.durationMs / 1000).toFixed(1)} s`} per phase, seed ${results.config.seed}` +
        (a ? ` — ${a.vendor} ${a.device}`.trimEnd() : ''),
        alignTable(rows),
        'latencies in ms; slowdown = co-run / solo',
    ];
    const unfinished = results.tenants.filter(t => (t.corun?.unfinished ?? 0) + (t.solo?.unfinished ?? 0) > 0);
    if (unfinished.length) lines.push(`overloaded: ${unfinished.map(t => `${t.name} left ${(t.corun?.unfinished ?? 0) + (t.solo?.unfinished ?? 0)} requests unfinished`).join('; ')} (their latencies are not in the percentiles)`);
    if (results.status !== 'complete') lines.push(`status: ${results.status}${results.reason ? ` — ${results.reason}` : ''}`);
    return lines.join('\n');
}
