/**
 * Schedules benchmark: do the seeds' findings reproduce on this adapter?
 *
 * For every mix (a workload of bench/schedules/mixes.tenancy, or --mixes FILE at other sizes), one
 * `tenancy compare --capacity` session measures `concurrent` (the baseline), `sequential`,
 * `layer_block(size: auto)`, `regulated(split: auto, sync: auto)` and `co_tuned(variants: 3)` in interleaved rounds (same
 * arrivals and seed), then each schedule's capacity by bisection: QoS-satisfied throughput, the
 * SLO-violation rate at the declared load and the mean latency, each with its 95 % interval. The
 * goals of the issue are judged on the heavy mix and on the critical + batch mix. Then the four
 * findings, each its own table:
 *   1. VELTAIR: capacity vs layer-block size (a U-shape: small blocks pay dispatch overhead, big
 *      ones block the other tenants);
 *   2. VELTAIR: interference-tolerant kernel versions vs the solo-best ones under layer_block
 *      (separate sessions, alternated A B A B: versions are chosen at compile time);
 *   3. GACER: regulated with and without splitting (split 1 vs auto), and without sync points;
 *   4. ConCo: the C × R grid (not measured yet; said so in the output).
 *
 * Run: node bench/bundle-and-run.mjs bench/schedules/main.ts [--mixes FILE] [--only light,heavy]
 *      [--capacity-budget 30s] [--no-findings] [--quick]
 * Predictions use the workspace's device profile (`tenancy calibrate` first; the output says
 * which). Writes bench/.work/schedules.json and prints markdown.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadWorkspace } from '../../src/cli/load-workspace.js';
import { capacityWorkload, compareWorkload } from '../../src/runtime/execute/compare.js';
import type { IrSchedule, WorkloadIR } from '../../src/runtime/ir/types.js';
import { locateProfile } from '../../src/runtime/predict/profile-store.js';
import { resolveSchedule } from '../../src/runtime/predict/schedules.js';
import type { CapacityReport, ComparedSchedule, Comparison } from '../../src/runtime/report/compare.js';
import { RUNNABLE_SCHEDULES } from '../../src/runtime/schedule/policy.js';
import { wilsonInterval } from '../../src/runtime/report/statistics.js';
import { formatCapacityLoad } from '../../src/protocol/figures.js';

const argv = process.argv.slice(2);
const flag = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
const seconds = (text: string | undefined, fallback: number) => text ? Number(text.replace(/s$/, '')) * 1000 : fallback;
const capacityBudgetMs = seconds(flag('--capacity-budget'), quick ? 15_000 : 30_000);
const mixesFile = flag('--mixes') ?? 'bench/schedules/mixes.tenancy';
const only = flag('--only')?.split(',');
const findings = !argv.includes('--no-findings');

const located = locateProfile(process.cwd());
const profile = located.profile;
const workspace = await loadWorkspace([mixesFile]);
const mixes = workspace.workloads(mixesFile).map(w => w.name).filter(w => !only || only.includes(w));
const started = performance.now();
const loadAtStart = loadavg()[0];

const concurrent: IrSchedule = { policy: 'concurrent' };
const sequential: IrSchedule = { policy: 'sequential' };
const layerBlock = (size: number | 'auto'): IrSchedule => ({ policy: 'layer_block', size });
const regulated = (split: number | 'auto', sync: 'auto' | 'none'): IrSchedule => ({ policy: 'regulated', split, sync });
const SEEDS_SCHEDULES: IrSchedule[] = [layerBlock('auto'), regulated('auto', 'auto'), { policy: 'co_tuned', variants: 3 }];

const progress = (text: string) => process.stderr.write(`${text}\n`);
const out: Record<string, unknown> = { adapter: null, profile: located.file ?? null, uncalibrated: profile.uncalibrated ?? false, mixes: {}, findings: {} };
const lines: string[] = [];

// ---- figures ----------------------------------------------------------------------------------

/** Requests beyond their tenant's first SLO over all SLO tenants' co-run requests, with Wilson's interval. */
function violations(s: ComparedSchedule): { rate: number; low: number; high: number; requests: number } | null {
    let bad = 0, n = 0;
    for (const t of s.tenants) {
        const slo = t.slos[0];
        if (!slo || slo.attainment === null) continue;
        bad += Math.round((1 - slo.attainment) * t.requests);
        n += t.requests;
    }
    const w = wilsonInterval(bad, n);
    return w && { rate: bad / n, ...w, requests: n };
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;
const ms = (x: number) => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
const ratio = (x: number | null | undefined) => x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${x.toFixed(2)}×`;
const interval = (low: number | null, high: number | null, f: (x: number) => string) => `(${low === null ? '…' : f(low)}–${high === null ? '…' : f(high)})`;

function meanLatency(s: ComparedSchedule): string {
    return s.tenants.map(t => {
        if (!t.latencyMs) return `${t.name} —`;
        const b = t.boundsMs?.mean;
        return `${t.name} ${ms(t.latencyMs.mean)} ${b ? interval(b.low, b.high, ms) : ''}`;
    }).join('; ');
}

function capacityCell(s: { capacity: ComparedSchedule['capacity'] }): string {
    const c = s.capacity;
    if (!c) return 'not measured';
    return `${formatCapacityLoad(c)}, ${c.throughputPerSecond.toFixed(1)} req/s${c.budgetReached ? ', budget reached' : ''}`;
}

/** Capacity ratio to the baseline, as a bracket from the bisection's met and failed loads. */
function capacityRatio(s: ComparedSchedule, base: ComparedSchedule): { estimate: number; low: number; high: number | null } | null {
    const c = s.capacity, b = base.capacity;
    if (!c || !b || b.load === 0) return null;
    const low = c.load / (b.failedLoad ?? b.load);
    const high = c.failedLoad === null ? null : c.failedLoad / b.load;
    return { estimate: c.load / b.load, low, high };
}

function scheduleTable(cmp: Comparison): string[] {
    const base = cmp.schedules.find(s => s.baseline)!;
    const rows = [
        '| schedule | predicted capacity | measured capacity (× declared load) | vs concurrent | SLO violations at declared load | mean latency, ms (95 %) | valid |',
        '|---|---:|---|---:|---|---|---|',
    ];
    for (const s of cmp.schedules) {
        const v = violations(s);
        const r = s.baseline ? null : capacityRatio(s, base);
        rows.push(`| ${s.name} | ${s.predicted.capacityLoad.toFixed(2)}× | ${capacityCell(s)} | ${s.baseline ? '—' : r ? `${r.estimate.toFixed(2)}× ${interval(r.low, r.high, x => x.toFixed(2))}` : 'n/a'} | ${v ? `${pct(v.rate)} ${interval(v.low, v.high, pct)} of ${v.requests}` : 'no SLO'} | ${meanLatency(s)} | ${s.valid ? 'yes' : `no: ${s.invalidReasons.join('; ')}`} |`);
    }
    return rows;
}

/** The workload with another schedule (the baseline of a comparison is the workload's own). */
const withSchedule = (ir: WorkloadIR, schedule: IrSchedule): WorkloadIR => ({ ...ir, schedule });

async function compare(ir: WorkloadIR, schedules: IrSchedule[], capacity: boolean, versions?: boolean): Promise<Comparison> {
    let last = -1;
    return compareWorkload({
        ir, profile, schedules, ...(capacity ? { capacity: { budgetMs: capacityBudgetMs } } : {}), ...(versions === undefined ? {} : { versions }),
        onEvent: e => {
            if (e.type === 'progress' && Math.floor(e.fraction * 10) !== last) { last = Math.floor(e.fraction * 10); progress(`  ${ir.workload}: ${(e.fraction * 100).toFixed(0)} %`); }
        },
    });
}

// ---- the mixes --------------------------------------------------------------------------------

lines.push(`Profile: ${located.file ?? 'built-in default'}${profile.uncalibrated ? ' (**uncalibrated**: auto arguments and predictions from the default profile)' : ''}. Capacity: bisection from the predicted load, ≤ 7 probes, ${capacityBudgetMs / 1000} s per schedule. Violations: requests over their tenant's SLO at the declared load, Wilson 95 % interval. Mean latency: 95 % bounds over rounds.`, '');

const comparisons: Record<string, Comparison> = {};
for (const mix of mixes) {
    const ir = withSchedule(workspace.lower(mix, mixesFile), concurrent);
    progress(`mix ${mix}: ${ir.tenants.map(t => t.name).join(', ')}`);
    const auto = resolveSchedule(withSchedule(ir, { policy: 'auto' }), profile);
    const cmp = await compare(ir, [sequential, ...SEEDS_SCHEDULES], true);
    comparisons[mix] = cmp;
    out.adapter ??= cmp.adapter;
    (out.mixes as Record<string, unknown>)[mix] = { auto: { name: auto.name, why: auto.why }, comparison: cmp };
    lines.push(`### Mix \`${mix}\` — ${ir.tenants.map(t => `${t.name} (${t.graph.model}, ${t.arrival.kind === 'poisson' ? `${t.arrival.ratePerSecond}/s` : t.arrival.kind === 'closed' ? `closed ×${t.arrival.clients}` : 'periodic'}${t.slos[0] ? `, ${t.slos[0].percentile} ≤ ${t.slos[0].ms} ms` : ''}, ${t.priority})`).join(', ')}`, '');
    lines.push(...scheduleTable(cmp), '');
    lines.push(`\`auto\` picks ${auto.name}${auto.why ? `: ${auto.why}` : ''}. Measured best: ${cmp.best ?? 'none beat concurrent beyond its interval'} (${cmp.bestWhy}). Status ${cmp.status}${cmp.valid ? '' : `, not valid: ${cmp.invalidReasons.join('; ')}`}.`, '');
}

// ---- the goals --------------------------------------------------------------------------------

lines.push('### Goals', '', '| goal | measured | met |', '|---|---|---|');
const heavy = comparisons.heavy;
if (heavy) {
    const base = heavy.schedules.find(s => s.baseline)!;
    const seeds = heavy.schedules.filter(s => !s.baseline && s.name !== 'sequential');
    const best = seeds.map(s => ({ s, r: capacityRatio(s, base) })).sort((a, b) => (b.r?.estimate ?? -1) - (a.r?.estimate ?? -1))[0];
    if (best) {
        lines.push(`| heavy: best seeds' schedule ≥ 1.45× concurrent's QoS-satisfied throughput | ${best.s.name}: ${best.r ? `${best.r.estimate.toFixed(2)}× ${interval(best.r.low, best.r.high, x => x.toFixed(2))}` : 'n/a'} | ${best.r && best.r.low >= 1.45 ? 'yes' : best.r && best.r.estimate >= 1.45 ? 'estimate only (interval reaches below)' : 'no'} |`);
        const vb = violations(base), vs = violations(best.s);
        const vr = vb && vs && vb.rate > 0 ? vs.rate / vb.rate : null;
        lines.push(`| heavy: its violations ≤ 0.5× concurrent's | ${vs && vb ? `${pct(vs.rate)} vs ${pct(vb.rate)} (${ratio(vr)})` : 'n/a'} | ${vr !== null && vr <= 0.5 ? 'yes' : 'no'} |`);
    }
}
const critical = comparisons.critical_batch;
if (critical) {
    const base = critical.schedules.find(s => s.baseline)!;
    const high = base.tenants.find(t => t.priority === 'high'), low = base.tenants.find(t => t.priority === 'low');
    for (const s of critical.schedules.filter(x => !x.baseline && x.name !== 'sequential')) {
        const h = s.tenants.find(t => t.name === high?.name), l = s.tenants.find(t => t.name === low?.name);
        // gain = baseline's statistic / this one's: the p95 ratio asked for is its inverse.
        const g = h?.gain;
        const p95 = g ? { estimate: 1 / g.estimate, low: g.high ? 1 / g.high : null, high: g.low ? 1 / g.low : null } : null;
        const keep = l && low && low.throughputPerSecond > 0 ? l.throughputPerSecond / low.throughputPerSecond : null;
        lines.push(`| critical+batch, ${s.name}: critical ${h?.gainStatistic ?? 'p95'} ≤ 0.2× concurrent's, batch ≥ 0.9× its throughput | ${p95 ? `${p95.estimate.toFixed(2)}× ${interval(p95.low, p95.high, x => x.toFixed(2))}` : 'n/a'}; batch ${ratio(keep)} | ${p95 && p95.high !== null && p95.high <= 0.2 && keep !== null && keep >= 0.9 ? 'yes' : 'no'} |`);
    }
}
if (!heavy && !critical) lines.push('| (the heavy and critical_batch mixes were not run) | | |');
lines.push('');

// ---- the findings -----------------------------------------------------------------------------

if (findings) {
    const f = out.findings as Record<string, unknown>;
    // 1. VELTAIR's U-shape: capacity vs block size, on the medium mix (or the first).
    const uMix = mixes.includes('medium') ? 'medium' : mixes[0];
    if (uMix) {
        const ir = workspace.lower(uMix, mixesFile);
        const sizes = quick ? [1, 4, 16] : [1, 2, 4, 8, 16, 64];
        progress(`finding 1: layer_block sizes ${sizes.join(', ')} on ${uMix}`);
        const report: CapacityReport = await capacityWorkload({ ir, profile, schedules: sizes.map(layerBlock), capacity: { budgetMs: capacityBudgetMs } });
        f.blockSize = report;
        lines.push(`### Finding 1 (VELTAIR): QoS-satisfied throughput vs layer-block size — mix \`${uMix}\``, '', '| block size | predicted capacity | measured capacity |', '|---:|---:|---|');
        for (const s of report.schedules) lines.push(`| ${s.name} | ${s.predicted.capacityLoad.toFixed(2)}× | ${capacityCell(s)} |`);
        lines.push('', `Status ${report.status}${report.reason ? ` (${report.reason})` : ''}.`, '');
    }
    // 2. Tolerant kernel versions vs solo-best under layer_block: A B A B sessions.
    const vMix = mixes.includes('critical_batch') ? 'critical_batch' : mixes[0];
    if (vMix) {
        const ir = withSchedule(workspace.lower(vMix, mixesFile), layerBlock('auto'));
        const runs: { versions: boolean; cmp: Comparison }[] = [];
        for (const versions of quick ? [true, false] : [true, false, false, true]) {
            progress(`finding 2: layer_block with${versions ? '' : 'out'} tolerant versions on ${vMix}`);
            runs.push({ versions, cmp: await compare(ir, [], false, versions) });
        }
        f.versions = runs;
        lines.push(`### Finding 2 (VELTAIR): interference-tolerant kernel versions vs solo-best ones — mix \`${vMix}\`, layer_block(size: auto), sessions alternated`, '',
            '| session | versions | per tenant: co-run p50 / p95 ms (95 % bounds), throughput req/s | versions that ran |', '|---:|---|---|---|');
        runs.forEach(({ versions, cmp }, i) => {
            const s = cmp.schedules[0];
            const cells = s.tenants.map(t => t.latencyMs ? `${t.name} ${ms(t.latencyMs.p50)} / ${ms(t.latencyMs.p95)} ${t.boundsMs?.p95 ? interval(t.boundsMs.p95.low, t.boundsMs.p95.high, ms) : ''}, ${t.throughputPerSecond.toFixed(1)}` : `${t.name} —`).join('; ');
            lines.push(`| ${i + 1} | ${versions ? 'tolerant + solo-best (switched per block)' : 'solo-best only'} | ${cells} | ${versions ? 'see bench/.work/schedules.json' : '—'} |`);
        });
        lines.push('');
    }
    // 3. GACER: splitting and sync points, on the heavy mix (or the first).
    const sMix = mixes.includes('heavy') ? 'heavy' : mixes[0];
    if (sMix) {
        const ir = withSchedule(workspace.lower(sMix, mixesFile), regulated(1, 'auto'));
        progress(`finding 3: regulated split 1 vs auto vs no sync on ${sMix}`);
        const cmp = await compare(ir, [regulated('auto', 'auto'), regulated('auto', 'none')], true);
        f.split = cmp;
        lines.push(`### Finding 3 (GACER): regulated without splitting (baseline) vs split, and without sync points — mix \`${sMix}\``, '', ...scheduleTable(cmp).map(r => r.replace('vs concurrent', 'vs no split')), '');
    }
    // 4. ConCo's C × R grid.
    lines.push('### Finding 4 (ConCo): the C × R grid', '');
    // co_tuned runs (its row is in every mix's table above), but the grid needs each version forced at each share.
    lines.push(RUNNABLE_SCHEDULES.includes('co_tuned')
        ? 'Not measured: `co_tuned` runs (its row is in each mix above, with the versions its search chose), but this benchmark does not force each compiled share C at each running share R, which the grid needs.'
        : 'Not measured: `co_tuned` does not run on this build.', '');
}

const elapsed = ((performance.now() - started) / 1000).toFixed(0);
const adapter = out.adapter as Comparison['adapter'];
lines.unshift(`Schedules on ${adapter ? `${adapter.vendor} ${adapter.device} (${adapter.description})` : 'an unknown adapter'}; mixes from ${mixesFile}; ${elapsed} s; host load ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at the end, on ${availableParallelism()} cores.`, '');
const dir = join(process.cwd(), 'bench', '.work');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'schedules.json'), JSON.stringify({ ...out, lines }, null, 2));
console.log(lines.join('\n'));
