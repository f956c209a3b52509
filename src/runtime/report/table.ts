/**
 * The "interference table" printed by `tenancy run`: per tenant, requests, co-run p50 and p99
 * with their bounds (or how many requests a percentile still needs), slowdowns with their 95 %
 * intervals, SLO verdicts; then what the rounds did, the host's noise, where the time went, who
 * slowed whom, and whether the figures are valid. Pure.
 */
import { formatNeeds, formatRange, formatSlowdown, sloMark } from '../../protocol/figures.js';
import { formatMs, formatPercent, formatRatio, msValue, plural } from '../../protocol/units.js';
import type { PhaseStats, Results, TenantResult } from './schema.js';
import { requiredSamples } from './statistics.js';

/** Renders rows as an aligned text table (first column left-aligned, the rest right-aligned). */
export function alignTable(rows: string[][]): string {
    const widths = rows[0].map((_, c) => Math.max(...rows.map(r => [...(r[c] ?? '')].length)));
    return rows.map(r => r.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])).join('  ').trimEnd()).join('\n');
}

/** A percentile of a phase with its bounds, or what it still needs. */
function percentileCell(stats: PhaseStats | null, p: 'p50' | 'p99'): string {
    if (!stats) return '—';
    const b = stats.boundsMs[p];
    if (!b || b.high === null) return formatNeeds(requiredSamples(p), stats.requests);
    return `${msValue(stats.latencyMs[p])} (${formatRange(b.low, b.high)})`;
}

function slowdownCell(t: TenantResult, s: 'p50' | 'p99'): string {
    const r = t.slowdown[s];
    if (r) return formatSlowdown(r);
    if (!t.corun || !t.solo) return '—';
    return s === 'p99' ? `n/a: needs ${requiredSamples('p99')} requests a phase` : '—';
}

function sloCell(t: TenantResult): string {
    if (t.slos.length === 0) return '—';
    return t.slos.map(s => {
        const target = `${s.percentile}≤${msValue(s.targetMs)}`;
        if (s.verdict === 'invalid') return `${target} invalid (needs ${s.requestsNeeded} requests)`;
        return `${target} ${sloMark(s.verdict)}${s.boundsMs ? ` (${formatRange(s.boundsMs.low, s.boundsMs.high)})` : ''}`;
    }).join(' ');
}

/** The interference table of a results document (latencies in ms). */
export function interferenceTable(results: Results): string {
    const header = ['tenant', 'requests', 'co-run p50', 'co-run p99', 'slowdown p50', 'slowdown p99', 'SLO'];
    const rows = [header];
    for (const t of results.tenants) {
        const main = t.corun ?? t.solo;
        rows.push([
            t.name,
            t.corun && t.solo ? `${t.solo.requests}/${t.corun.requests}` : String(main?.requests ?? 0),
            percentileCell(main, 'p50'), percentileCell(main, 'p99'),
            slowdownCell(t, 'p50'), slowdownCell(t, 'p99'),
            sloCell(t),
        ]);
    }
    const a = results.adapter, m = results.measurement;
    const rounds = `${plural(m.rounds, 'round')}${m.roundMs !== null ? ` of ${formatMs(m.roundMs)} per phase` : ''} ${m.warmupMs > 0 ? ' after a warm-up round' : ''}`;
    const lines = [
        `workload ${results.workload} — schedule ${results.config.policy}, ${rounds}, seed ${results.config.seed}` + (a ? ` — ${a.vendor} ${a.device}`.trimEnd() : ''),
        alignTable(rows),
        'latencies in ms with 95 % confidence bounds; requests solo/co-run; slowdown = co-run / solo with its 95 % interval',
    ];
    if (results.config.scheduleWhy) lines.push(`schedule: ${results.config.scheduleWhy}`);
    if (m.note) lines.push(`rounds: ${m.note}`);
    const noisy = results.tenants.filter(t => t.noise?.low != null && t.noise.high != null);
    if (noisy.length) lines.push(`A/A noise (solo rounds against solo rounds, mean): ${noisy.map(t => `${t.name} ${formatRange(t.noise!.low, t.noise!.high)}`).join(', ')} — slowdowns inside these are the host's noise`);
    const split = results.tenants.filter(t => t.corun?.breakdown && t.solo?.breakdown);
    for (const t of split) {
        const s = t.solo!.breakdown!, c = t.corun!.breakdown!;
        lines.push(`${t.name}: mean latency solo → co-run: queueing ${formatMs(s.queueingMs)} → ${formatMs(c.queueingMs)}, GPU ${formatMs(s.gpuMs)} → ${formatMs(c.gpuMs)}, host ${formatMs(s.hostMs)} → ${formatMs(c.hostMs)}`);
    }
    for (const t of results.tenants) {
        const worst = [...t.interference].filter(i => i.overlappedFraction > 0).sort((x, y) => y.overlappedFraction - x.overlappedFraction)[0];
        if (worst) lines.push(`${t.name}: ${worst.aggressor} ran during ${formatPercent(worst.overlappedFraction)} of its co-run GPU time${worst.slowdown !== null ? `, its kernels ${formatRatio(worst.slowdown)} their solo time then` : ''}`);
    }
    const unfinished = results.tenants.filter(t => (t.corun?.unfinished ?? 0) + (t.solo?.unfinished ?? 0) > 0);
    if (unfinished.length) lines.push(`overloaded: ${unfinished.map(t => `${t.name} left ${plural((t.corun?.unfinished ?? 0) + (t.solo?.unfinished ?? 0), 'request')} unfinished`).join('; ')} (their latencies are not in the percentiles)`);
    if (results.host.warning) lines.push(`warning: ${results.host.warning}`);
    if (results.status !== 'complete') lines.push(`status: ${results.status}${results.reason ? ` — ${results.reason}` : ''}`);
    lines.push(results.valid ? 'valid: every SLO verdict is bounded' : `not valid: ${results.invalidReasons.join('; ')}`);
    return lines.join('\n');
}
