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
 *   3. GACER: regulated without splitting (split 1) vs split — its long ops split within into
 *      chunks of their grid, each a dispatch of its own (plan/split.ts) — at a fixed split and
 *      at `auto`, on the critical + batch mix (a small CNN beside a transformer's large ops);
 *   4. ConCo: the C × R grid — one tenant's hot ops compiled at each share C, run at each share
 *      R its co-runner's own share leaves it (co_tuned's versions forced, one session).
 *
 * Run: node bench/bundle-and-run.mjs bench/schedules/main.ts [--mixes FILE] [--only light,heavy]
 *      [--capacity-budget 30s] [--budget 20s] [--no-findings | --findings 3,4] [--no-mixes] [--quick]
 *      [--schedules layer_block,regulated] (the mixes compare concurrent with these only: sequential,
 *      layer_block, regulated, co_tuned; default all)
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
import { versionShare } from '../../src/runtime/schedule/co-tuned.js';
import { wilsonInterval } from '../../src/runtime/report/statistics.js';
import { formatCapacityLoad } from '../../src/protocol/figures.js';

const argv = process.argv.slice(2);
const flag = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
const seconds = (text: string | undefined, fallback: number) => text ? Number(text.replace(/s$/, '')) * 1000 : fallback;
const capacityBudgetMs = seconds(flag('--capacity-budget'), quick ? 15_000 : 30_000);
/** The budget of each comparison's measurement (default: the mix's benchmark block). */
const measureBudgetMs = flag('--budget') ? seconds(flag('--budget'), 0) : undefined;
const mixesFile = flag('--mixes') ?? 'bench/schedules/mixes.tenancy';
const only = flag('--only')?.split(',');
const findingList = flag('--findings')?.split(',').map(Number);
const findings = !argv.includes('--no-findings');
/** Whether finding k runs (all by default; --findings 3,4 names some). */
const finding = (k: number) => findings && (!findingList || findingList.includes(k));
const runMixes = !argv.includes('--no-mixes');

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
/** The schedules each mix compares with concurrent (--schedules names some by policy). */
const asked = flag('--schedules')?.split(',');
const MIX_SCHEDULES = [sequential, ...SEEDS_SCHEDULES].filter(s => !asked || asked.includes(s.policy));

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

/**
 * Capacity ratio to the baseline, as a bracket from the bisection's met and failed loads. A
 * baseline that met no load it probed (failed at b.failedLoad) still bounds the ratio from below
 * by a schedule's met load: no estimate then, only `low`.
 */
function capacityRatio(s: ComparedSchedule, base: ComparedSchedule): { estimate: number | null; low: number; high: number | null } | null {
    const c = s.capacity, b = base.capacity;
    if (!c || !b) return null;
    if (b.load === 0) return b.failedLoad !== null && c.load > 0 ? { estimate: null, low: c.load / b.failedLoad, high: null } : null;
    const low = c.load / (b.failedLoad ?? b.load);
    const high = c.failedLoad === null ? null : c.failedLoad / b.load;
    return { estimate: c.load / b.load, low, high };
}

/** A capacity ratio in words: `1.50× (1.20–1.80)`, or `> 2.00×` where the baseline met no load. */
function ratioText(r: NonNullable<ReturnType<typeof capacityRatio>>): string {
    return r.estimate === null ? `> ${r.low.toFixed(2)}× (concurrent met no load it probed)` : `${r.estimate.toFixed(2)}× ${interval(r.low, r.high, x => x.toFixed(2))}`;
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
        rows.push(`| ${s.name} | ${s.predicted.capacityLoad.toFixed(2)}× | ${capacityCell(s)} | ${s.baseline ? '—' : r ? ratioText(r) : 'n/a'} | ${v ? `${pct(v.rate)} ${interval(v.low, v.high, pct)} of ${v.requests}` : 'no SLO'} | ${meanLatency(s)} | ${s.valid ? 'yes' : `no: ${s.invalidReasons.join('; ')}`} |`);
    }
    return rows;
}

/** Each tenant alone in the same rounds (the shared solo phases) beside concurrent's co-run: the floor no schedule can go below. */
function aloneTable(cmp: Comparison): string[] {
    const base = cmp.schedules.find(s => s.baseline)!;
    const rows = [
        `| tenant (statistic) | alone, ms (95 % bounds) | under ${base.name}, ms (95 % bounds) | floor: alone / ${base.name} (95 %) |`,
        '|---|---|---|---|',
    ];
    for (const t of base.tenants) {
        const stat = t.gainStatistic === 'p90' || t.gainStatistic === 'p999' ? 'p99' : t.gainStatistic;
        const solo = t.solo, b = (x: { low: number | null; high: number | null } | undefined) => x ? interval(x.low, x.high, ms) : '';
        const f = solo?.floor;
        rows.push(`| ${t.name} (${stat}) | ${solo ? `${ms(solo.latencyMs[stat])} ${b(solo.boundsMs[stat])}` : 'not measured'} | ${t.latencyMs ? `${ms(t.latencyMs[stat])} ${b(t.boundsMs?.[stat])}` : '—'} | ${f ? `${f.estimate.toFixed(2)}× ${interval(f.low, f.high, x => x.toFixed(2))}` : 'n/a'} |`);
    }
    return rows;
}

/** The workload with another schedule (the baseline of a comparison is the workload's own). */
const withSchedule = (ir: WorkloadIR, schedule: IrSchedule): WorkloadIR => ({ ...ir, schedule });

/**
 * How long one submission (and a tenant's first run of every kernel, chunks included) may take: a
 * transformer's first run took over the runtime's default 60 s on the shared two-core host at load 19.
 */
const STEP_TIMEOUT_MS = 240_000;

async function compare(ir: WorkloadIR, schedules: IrSchedule[], capacity: boolean, versions?: boolean): Promise<Comparison> {
    let last = -1;
    return compareWorkload({
        ir, profile, schedules, stepTimeoutMs: STEP_TIMEOUT_MS, ...(measureBudgetMs ? { budgetMs: measureBudgetMs } : {}), ...(capacity ? { capacity: { budgetMs: capacityBudgetMs } } : {}), ...(versions === undefined ? {} : { versions }),
        onEvent: e => {
            if (e.type === 'progress' && Math.floor(e.fraction * 10) !== last) { last = Math.floor(e.fraction * 10); progress(`  ${ir.workload}: ${(e.fraction * 100).toFixed(0)} %`); }
        },
    });
}

// ---- the mixes --------------------------------------------------------------------------------

lines.push(`Profile: ${located.file ?? 'built-in default'}${profile.uncalibrated ? ' (**uncalibrated**: auto arguments and predictions from the default profile)' : ''}. Capacity: bisection from the predicted load (no lower than the load whose SLO requests a third of the budget can bring), ≤ 7 probes, each sized to the requests its load brings, ${capacityBudgetMs / 1000} s per schedule. Violations: requests over their tenant's SLO at the declared load, Wilson 95 % interval. Mean latency: 95 % bounds over rounds.`, '');

const comparisons: Record<string, Comparison> = {};
for (const mix of runMixes ? mixes : []) {
    const ir = withSchedule(workspace.lower(mix, mixesFile), concurrent);
    progress(`mix ${mix}: ${ir.tenants.map(t => t.name).join(', ')}`);
    const auto = resolveSchedule(withSchedule(ir, { policy: 'auto' }), profile);
    const cmp = await compare(ir, MIX_SCHEDULES, capacityBudgetMs > 0);
    comparisons[mix] = cmp;
    out.adapter ??= cmp.adapter;
    (out.mixes as Record<string, unknown>)[mix] = { auto: { name: auto.name, why: auto.why }, comparison: cmp };
    lines.push(`### Mix \`${mix}\` — ${ir.tenants.map(t => `${t.name} (${t.graph.model}, ${t.arrival.kind === 'poisson' ? `${t.arrival.ratePerSecond}/s` : t.arrival.kind === 'closed' ? `closed ×${t.arrival.clients}` : 'periodic'}${t.slos[0] ? `, ${t.slos[0].percentile} ≤ ${t.slos[0].ms} ms` : ''}, ${t.priority})`).join(', ')}`, '');
    lines.push(...scheduleTable(cmp), '', ...aloneTable(cmp), '');
    lines.push(`\`auto\` picks ${auto.name}${auto.why ? `: ${auto.why}` : ''}. Measured best: ${cmp.best ?? 'none beat concurrent beyond its interval'} (${cmp.bestWhy}). Status ${cmp.status}${cmp.valid ? '' : `, not valid: ${cmp.invalidReasons.join('; ')}`}.`, '');
}

// ---- the goals --------------------------------------------------------------------------------

if (runMixes) lines.push('### Goals', '', '| goal | measured | met |', '|---|---|---|');
const heavy = comparisons.heavy;
if (heavy) {
    const base = heavy.schedules.find(s => s.baseline)!;
    const seeds = heavy.schedules.filter(s => !s.baseline && s.name !== 'sequential');
    // Best by QoS-satisfied throughput; where no capacity was found, by violations at the declared load.
    const best = seeds.map(s => ({ s, r: capacityRatio(s, base), v: violations(s)?.rate ?? Infinity }))
        .sort((a, b) => (b.r?.estimate ?? b.r?.low ?? -1) - (a.r?.estimate ?? a.r?.low ?? -1) || a.v - b.v)[0];
    if (best) {
        lines.push(`| heavy: best seeds' schedule ≥ 1.45× concurrent's QoS-satisfied throughput | ${best.s.name}: ${best.r ? ratioText(best.r) : 'n/a: no schedule met a load it probed'} | ${best.r && best.r.low >= 1.45 ? 'yes' : best.r?.estimate != null && best.r.estimate >= 1.45 ? 'estimate only (interval reaches below)' : 'no'} |`);
        const vb = violations(base), vs = violations(best.s);
        const vr = vb && vs && vb.rate > 0 ? vs.rate / vb.rate : null;
        lines.push(`| heavy: its violations ≤ 0.5× concurrent's | ${vs && vb ? `${pct(vs.rate)} vs ${pct(vb.rate)} (${ratio(vr)})` : 'n/a'} | ${vr !== null && vr <= 0.5 ? 'yes' : 'no'} |`);
    }
}
const critical = comparisons.critical_batch;
if (critical) {
    const base = critical.schedules.find(s => s.baseline)!;
    const high = base.tenants.find(t => t.priority === 'high'), low = base.tenants.find(t => t.priority === 'low');
    // No schedule runs a tenant faster than alone: solo / concurrent is the lowest ratio any schedule can reach.
    const floor = high?.solo?.floor;
    const stat = high?.gainStatistic ?? 'p95';
    if (high) {
        const text = floor ? `${floor.estimate.toFixed(2)}× ${interval(floor.low, floor.high, x => x.toFixed(2))}` : high.solo ? `n/a: too few requests alone or under concurrent to bound the ratio of their ${stat}s` : 'n/a (no solo phases)';
        const verdict = !floor ? 'unknown'
            : floor.low !== null && floor.low > 0.2 ? `**infeasible on this adapter**: alone the critical tenant's ${stat} is already above 0.2× concurrent's (the whole interval), so no schedule can meet the goal`
                : floor.estimate > 0.2 ? `infeasible by the estimate (its interval reaches below 0.2×): a schedule would have to beat the tenant alone`
                    : floor.high === null || floor.high > 0.2 ? 'feasible by the estimate only: its interval reaches above 0.2×'
                        : 'feasible: alone is below 0.2× (the whole interval)';
        lines.push(`| critical+batch, the floor: critical ${stat} alone / under concurrent (no schedule can go lower) | ${text} | ${verdict} |`);
    }
    for (const s of critical.schedules.filter(x => !x.baseline && x.name !== 'sequential')) {
        const h = s.tenants.find(t => t.name === high?.name), l = s.tenants.find(t => t.name === low?.name);
        // gain = baseline's statistic / this one's: the p95 ratio asked for is its inverse.
        const g = h?.gain;
        const p95 = g ? { estimate: 1 / g.estimate, low: g.high ? 1 / g.high : null, high: g.low ? 1 / g.low : null } : null;
        const keep = l && low && low.throughputPerSecond > 0 ? l.throughputPerSecond / low.throughputPerSecond : null;
        lines.push(`| critical+batch, ${s.name}: critical ${h?.gainStatistic ?? 'p95'} ≤ 0.2× concurrent's, batch ≥ 0.9× its throughput | ${p95 ? `${p95.estimate.toFixed(2)}× ${interval(p95.low, p95.high, x => x.toFixed(2))}` : 'n/a'}; batch ${ratio(keep)} | ${p95 && p95.high !== null && p95.high <= 0.2 && keep !== null && keep >= 0.9 ? 'yes' : 'no'} |`);
    }
}
if (runMixes && !heavy && !critical) lines.push('| (the heavy and critical_batch mixes were not run) | | |');
if (runMixes) lines.push('');

// ---- the findings -----------------------------------------------------------------------------

if (findings) {
    const f = out.findings as Record<string, unknown>;
    // 1. VELTAIR's U-shape: capacity vs block size, on the medium mix (or the first).
    const uMix = mixes.includes('medium') ? 'medium' : mixes[0];
    if (uMix && finding(1)) {
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
    if (vMix && finding(2)) {
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
    // 3. GACER: ops split within vs not, on the critical + batch mix (or the first).
    const sMix = mixes.includes('critical_batch') ? 'critical_batch' : mixes[0];
    if (sMix && finding(3)) {
        const ir = withSchedule(workspace.lower(sMix, mixesFile), regulated(1, 'auto'));
        const split = quick ? [regulated(8, 'auto')] : [regulated(8, 'auto'), regulated('auto', 'auto')];
        progress(`finding 3: regulated split 1 vs ${split.map(s => s.policy === 'regulated' ? s.split : '').join(', ')} on ${sMix}`);
        const cmp = await compare(ir, split, true);
        f.split = cmp;
        lines.push(`### Finding 3 (GACER): regulated without splitting (baseline, split 1) vs split, long ops split within into chunks — mix \`${sMix}\``, '',
            ...scheduleTable(cmp).map(r => r.replace('vs concurrent', 'vs no split')), '',
            '| schedule | per tenant: co-run p50 / p95 ms (95 % bounds of p95), throughput req/s | ops split within |', '|---|---|---|');
        for (const s of cmp.schedules) {
            const cells = s.tenants.map(t => t.latencyMs ? `${t.name} ${ms(t.latencyMs.p50)} / ${ms(t.latencyMs.p95)} ${t.boundsMs?.p95 ? interval(t.boundsMs.p95.low, t.boundsMs.p95.high, ms) : ''}, ${t.throughputPerSecond.toFixed(1)}` : `${t.name} —`).join('; ');
            lines.push(`| ${s.name} | ${cells} | ${/ops split within: (.*)$/.exec(s.why ?? '')?.[1] ?? 'none'} |`);
        }
        lines.push('');
    }
    // 4. ConCo's C × R grid: tenant A's hot ops at each compiled share C, its running share R set by its co-runner's share.
    const gMix = mixes.includes('critical_batch') ? 'critical_batch' : mixes[0];
    if (gMix && finding(4)) await conCoGrid(workspace.lower(gMix, mixesFile), gMix, f);
}

/**
 * Finding 4: co_tuned's versions forced, every pair of shares (C_A, C_B) of the mix's first two
 * tenants, measured in one session (interleaved rounds); A runs at R_A = C_A / max(1, C_A + C_B).
 */
async function conCoGrid(base: WorkloadIR, mix: string, f: Record<string, unknown>): Promise<void> {
    const ir = withSchedule(base, { policy: 'co_tuned', variants: 3 });
    const [a, b] = ir.tenants;
    // The shares are W / P, P as the predictor takes it (predict/co-tuned.ts deviceParallelism: on a software adapter at least the host's cores).
    const search = resolveSchedule(ir, profile).settings.coTuned!;
    const parallelism = search.parallelism;
    const shares = [0, ...search.workgroups.map((_, k) => k + 1)];
    const configs = shares.flatMap(va => shares.map(vb => ({ ...search, versions: { [a.name]: va, [b.name]: vb } })));
    // co_tuned resolves through its store: a store that hands out the forced configurations in turn (every resolution of
    // the session's schedules asks once per schedule, in order) makes each asked co_tuned one cell of the grid.
    let next = 0;
    const store = { lookup: () => ({ coTuned: configs[next++ % configs.length], why: 'forced by the benchmark (C × R grid)' }), record: () => undefined };
    progress(`finding 4: C × R grid, ${configs.length} forced co_tuned configurations on ${mix}`);
    let last = -1;
    const cmp = await compareWorkload({
        // Nine co-runs a round: a budget that lets the planned rounds run.
        ir, profile, schedules: configs.slice(1).map(() => ir.schedule), coTunedCache: { store, save: async () => undefined }, budgetMs: quick ? 90_000 : 180_000, stepTimeoutMs: STEP_TIMEOUT_MS,
        onEvent: e => {
            if (e.type === 'progress' && Math.floor(e.fraction * 10) !== last) { last = Math.floor(e.fraction * 10); progress(`  ${mix} grid: ${(e.fraction * 100).toFixed(0)} %`); }
        },
    });
    f.grid = cmp;
    const shareOf = (v: number) => versionShare(search, v);
    const cellOf = (va: number, vb: number) => cmp.schedules.find(s => s.name === coTunedName(a.name, b.name, shareOf(va), shareOf(vb)));
    lines.push(`### Finding 4 (ConCo): the C × R grid — mix \`${mix}\`, ${a.name}'s co-run p50 ms (95 % bounds) by its compiled share C (rows) and running share R = C / max(1, C + C_${b.name}) (columns: ${b.name}'s share)`, '',
        `| C of ${a.name} \\ C of ${b.name} | ${shares.map(v => `${pctShare(shareOf(v))}`).join(' | ')} |`, `|---|${shares.map(() => '---|').join('')}`);
    for (const va of shares) {
        const row = shares.map(vb => {
            const s = cellOf(va, vb), t = s?.tenants.find(x => x.name === a.name), o = s?.tenants.find(x => x.name === b.name);
            const r = shareOf(va) / Math.max(1, shareOf(va) + shareOf(vb));
            if (!t?.latencyMs) return `R ${pctShare(r)}: —`;
            const bnd = t.boundsMs?.p50;
            return `R ${pctShare(r)}: ${ms(t.latencyMs.p50)} ${bnd ? interval(bnd.low, bnd.high, ms) : ''}; ${b.name} ${o?.throughputPerSecond.toFixed(1) ?? '—'} req/s`;
        });
        lines.push(`| ${pctShare(shareOf(va))} | ${row.join(' | ')} |`);
    }
    lines.push('', `Status ${cmp.status}${cmp.reason ? ` (${cmp.reason})` : ''}${cmp.valid ? '' : `, not valid: ${cmp.invalidReasons.join('; ')}`}. Shares of ${parallelism} workgroups in flight (predict/co-tuned.ts deviceParallelism: the profile's GEMM concurrency, on a software adapter at least its host's cores); caps ${search.workgroups.join(', ')}.`, '');
}

/** The name co_tuned runs under with these shares (schedule/co-tuned.ts coTunedName). */
function coTunedName(a: string, b: string, ca: number, cb: number): string {
    return `co_tuned(variants: 3; ${a}: C ${Math.round(100 * ca)}%, ${b}: C ${Math.round(100 * cb)}%)`;
}

function pctShare(x: number): string {
    return `${Math.round(100 * x)} %`;
}

const elapsed = ((performance.now() - started) / 1000).toFixed(0);
const adapter = out.adapter as Comparison['adapter'];
lines.unshift(`Schedules on ${adapter ? `${adapter.vendor} ${adapter.device} (${adapter.description})` : 'an unknown adapter'}; mixes from ${mixesFile}; ${elapsed} s; host load ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at the end, on ${availableParallelism()} cores.`, '');
const dir = join(process.cwd(), 'bench', '.work');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'schedules.json'), JSON.stringify({ ...out, lines }, null, 2));
console.log(lines.join('\n'));
