/**
 * The tables the measuring commands print. `tenancy run`'s interference table: per tenant,
 * requests, co-run p50 and p99 with their bounds (or how many requests a percentile still
 * needs), slowdowns with their 95 % intervals, SLO verdicts; then what the rounds did, the
 * host's noise, where the time went, who slowed whom, and whether the figures are valid.
 * `tenancy compare`'s: the same per schedule, with each schedule's gain over the baseline beside
 * the predicted one. `tenancy capacity`'s: each schedule's measured capacity and its probes. Pure.
 */
import { formatCapacityLoad, formatGain, formatNeeds, formatPredictedMeasured, formatRange, formatSlowdown, sloMark } from '../../protocol/figures.js';
import { formatMs, formatPercent, formatRatio, msValue, plural } from '../../protocol/units.js';
import type { Capacity, CapacityReport, Comparison } from './compare.js';
import type { PhaseStats, Results, SloResult, TenantResult } from './schema.js';
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

function sloCell(t: { slos: readonly SloResult[] }): string {
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

/** `tenancy compare`'s table: per schedule and tenant the co-run figures with bounds, SLO verdicts and the gain over the baseline. */
export function comparisonTable(c: Comparison): string {
    const header = ['schedule', 'tenant', 'requests', 'p50', 'p99', 'SLO', `vs ${c.baseline}`];
    const rows = [header];
    for (const s of c.schedules) {
        s.tenants.forEach((t, i) => {
            const cell = (p: 'p50' | 'p99') => {
                if (!t.latencyMs || !t.boundsMs) return '—';
                const b = t.boundsMs[p];
                return b && b.high !== null ? `${msValue(t.latencyMs[p])} (${formatRange(b.low, b.high)})` : formatNeeds(requiredSamples(p), t.requests);
            };
            rows.push([
                i === 0 ? `${s.name}${s.baseline ? ' (baseline)' : ''}` : '', t.name, String(t.requests), cell('p50'), cell('p99'), sloCell(t),
                s.baseline ? '—' : t.gain ? `${t.gainStatistic} ${formatGain(t.gain)}` : `${t.gainStatistic} —`,
            ]);
        });
    }
    const m = c.measurement;
    const lines = [
        `workload ${c.workload} — ${plural(c.schedules.length, 'schedule')} measured in turn, ${plural(m.rounds, 'round')}${m.roundMs !== null ? ` of ${formatMs(m.roundMs)} per phase` : ''}, seed ${c.config.seed}` + (c.adapter ? ` — ${c.adapter.vendor} ${c.adapter.device}`.trimEnd() : ''),
        alignTable(rows),
        `latencies in ms with 95 % confidence bounds; a gain is ${c.baseline}'s latency / the schedule's (above 1: better) with its 95 % interval`,
    ];
    for (const s of c.schedules) {
        if (!s.gain) continue;
        const what = s.gain.metric === 'capacity' ? 'capacity' : `${s.gain.tenant}'s ${s.gain.statistic}`;
        lines.push(`${s.name}: ${what} ${formatPredictedMeasured(s.gain.predicted, s.gain.measured)}`);
    }
    const capacities = c.schedules.filter(s => s.capacity);
    if (capacities.length) lines.push('', capacityRows(capacities.map(s => ({ name: s.name, capacity: s.capacity!, predictedThroughput: s.predicted.qosThroughput }))));
    lines.push(c.best ? `best: ${c.bestWhy}` : `best: ${c.baseline} stays — ${c.bestWhy}`);
    if (m.note) lines.push(`rounds: ${m.note}`);
    if (c.host.warning) lines.push(`warning: ${c.host.warning}`);
    if (c.status !== 'complete') lines.push(`status: ${c.status}${c.reason ? ` — ${c.reason}` : ''}`);
    lines.push(c.valid ? 'valid: every SLO verdict is bounded' : `not valid: ${c.invalidReasons.join('; ')}`);
    return lines.join('\n');
}

/** `tenancy capacity`'s table: per schedule the measured capacity (the load bracket and the throughput) beside the predicted, then the probes. */
export function capacityTable(r: CapacityReport): string {
    const searched = r.schedules.filter(s => s.capacity);
    const lines = [
        `workload ${r.workload} — capacity: the highest load (× every tenant's traffic) at which every SLO was met` + (r.adapter ? ` — ${r.adapter.vendor} ${r.adapter.device}`.trimEnd() : ''),
        searched.length ? capacityRows(searched.map(s => ({ name: s.name, capacity: s.capacity!, predictedThroughput: s.predicted.qosThroughput }))) : 'no schedule was searched',
    ];
    for (const s of searched) {
        lines.push(`${s.name} probes: ${s.capacity!.probes.map(probeText).join(', ')}`);
        const flat = flatSlo(s.capacity!);
        if (flat) lines.push(`${s.name}: ${flat}`);
        if (s.why) lines.push(`${s.name}: ${s.why}`);
    }
    if (r.status !== 'complete') lines.push(`status: ${r.status}${r.reason ? ` — ${r.reason}` : ''}`);
    return lines.join('\n');
}

/** A probe as the table lists it: load, mark, and why (a probe measured again says so: the next one decides its load). */
function probeText(p: Capacity['probes'][number]): string {
    const why = [p.reason, p.remeasured ? 'measured again, longer' : undefined].filter(Boolean).join('; ');
    return `${p.load.toFixed(2)}× ${p.verdict === 'met' ? '✓' : p.verdict === 'violated' ? '✗' : '~'}${why ? ` (${why})` : ''}`;
}

/** How far apart (a factor) the loads an SLO straddled at must be to call its percentile flat there. */
const FLAT_SPREAD = 2;

/**
 * An SLO whose bounds still straddled its target in the probes that decided their loads, at loads
 * a factor of 2 or more apart: there its percentile barely follows the load (what sets it is its
 * co-runners, not its traffic), so no bisection over the load pins a capacity down. Said in
 * words, else undefined. Straddling at two neighbouring loads is only the knee, narrowly bracketed.
 */
function flatSlo(c: Capacity): string | undefined {
    const byslo = new Map<string, { text: string; loads: Set<number> }>();
    for (const p of c.probes) {
        if (p.remeasured || !p.straddles) continue;
        const key = `${p.straddles.tenant} ${p.straddles.percentile}`;
        const entry = byslo.get(key) ?? { text: `${key} straddled its ${formatMs(p.straddles.targetMs)} target`, loads: new Set<number>() };
        entry.loads.add(p.load);
        byslo.set(key, entry);
    }
    const spread = (e: { loads: Set<number> }) => Math.max(...e.loads) / Math.min(...e.loads);
    const flat = [...byslo.values()].find(e => spread(e) >= FLAT_SPREAD);
    if (!flat) return undefined;
    const loads = [...flat.loads].sort((a, b) => a - b);
    return `${flat.text} at ${loads.length} loads from ${loads[0].toFixed(2)}× to ${loads.at(-1)!.toFixed(2)}×: ` +
        'there it barely follows the load (its co-runners set it, not its traffic), so the capacity is not pinned down; ' +
        'a schedule that protects it from its co-runners, or a longer --capacity-budget, can decide it';
}

function capacityRows(list: readonly { name: string; capacity: Capacity; predictedThroughput: number }[]): string {
    const rows = [['schedule', 'capacity (load)', 'QoS throughput', 'predicted', 'probes']];
    for (const { name, capacity: c, predictedThroughput } of list) {
        rows.push([name, formatCapacityLoad(c), `${c.throughputPerSecond.toFixed(1)}/s`, `${predictedThroughput.toFixed(1)}/s at ${c.predictedLoad.toFixed(2)}×`, `${c.probes.length}${c.budgetReached ? ' (budget reached)' : ''}`]);
    }
    return alignTable(rows);
}
