/**
 * Accuracy benchmark of the prediction model: predicted vs measured on a fixed set of
 * workloads (solo models, pairs and a triple; closed and open loop; concurrent and sequential),
 * on the device profile found for this workspace (calibrated on synthetic shapes that none of
 * these workloads use — no fitting to the test set).
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/run.ts [--profile P] [--also-profiles P2,P3…] [--duration-ms N] [--only NAME] [--repeat N] [--passes N] [--no-zoo] [--verbose] [--capacity] [--no-host-speed]
 *
 * Two noise floors, both measured in the run: back to back (--repeat: run 2 of a workload right
 * after run 1) and across the run (--passes: the whole set measured again after the first pass, so
 * each workload's second measurement comes about a pass later, as its prediction comes minutes
 * after calibration). The first is what the host's noise costs a figure; the second adds what the
 * host's speed moves over minutes, which no prediction made at calibration can follow.
 *
 * Before each workload the host's speed is measured (calibrate/host-speed.ts: the calibration's
 * reference request timed again) and the same measurements are also scored against predictions
 * on the profile at that speed (predict/profile.ts atHostSpeed), side by side with the profile as
 * predictions read it (at the host's usual speed where it remembers enough earlier calibrations:
 * atUsualSpeed) and, where that scaled it, as calibrated; --no-host-speed skips it.
 *
 * --also-profiles scores further profiles (other calibrations) against the same measurements:
 * how much of the error is the calibration, with the host's run-to-run noise held fixed.
 *
 * Reports MAPE per op kind (solo GPU time per op: the median per request; the means beside it), per tenant mean latency (solo phase) and
 * co-run p99 and mean (co-run phase), the share of measured values inside their prediction's 90 % error band (band coverage),
 * the worst cases, and writes bench/.work/accuracy.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { WorkloadIR } from '../../src/runtime/ir/types.js';
import { runWorkload } from '../../src/runtime/execute/run.js';
import { locateProfile, readProfileFile, readProfileToPredict } from '../../src/runtime/predict/profile-store.js';
import { predictWorkload, typicalOpMs, type WorkloadPrediction } from '../../src/runtime/predict/workload.js';
import { atHostSpeed } from '../../src/runtime/predict/profile.js';
import { measureHostSpeed } from '../../src/runtime/calibrate/host-speed.js';
import { familyBand } from '../../src/runtime/predict/band.js';
import { bandCoverage } from './coverage.js';
import { scaleFreeMape } from './scale-free.js';
import { goalPercent, goalText, type GoalFigure } from './goals.js';
import type { Results } from '../../src/runtime/report/schema.js';
import { closedLoopProbes, evaluationSet } from './workloads.js';
import { boundedP99, P99_REQUESTS, tailPercentile } from './tails.js';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const durationMs = Number(flag('--duration-ms') ?? 2500);
const only = flag('--only');
/** Runs per workload (default 2): with 2 or more, measured-vs-measured errors give the noise floor of this host. */
const repeat = Math.max(1, Number(flag('--repeat') ?? 2));
/** Passes over the whole set (default 2): each later pass runs every workload once more, scored against its first run (the floor across the run). */
const passes = Math.max(1, Number(flag('--passes') ?? 2));

/** One prediction against its measurement; `band`: the prediction's 90 % error band (relative half-width, predict/band.ts), where it has one. */
interface Sample { workload: string; what: string; predicted: number; measured: number; ape: number; band?: number; requests?: number }

const ape = (p: number, m: number) => Math.abs(p - m) / m;

/**
 * corunP99: every co-run tenant's p99 with its run's request count (scored where bounded, tails.ts); corunTail: each at
 * the highest percentile its run bounds; corunShape: that tail over the tenant's co-run mean, predicted and measured (the
 * host's speed, which moves both alike, cancels: what is left is the tail model's error).
 */
type Samples = { ops: Map<string, Sample[]>; opMeans: Sample[]; opCorun: Sample[]; tenantMean: Sample[]; tenantP50: Sample[]; corunP99: Sample[]; corunTail: Sample[]; corunShape: Sample[]; corunMean: Sample[]; slowdown: Sample[] };
const emptySamples = (): Samples => ({ ops: new Map(), opMeans: [], opCorun: [], tenantMean: [], tenantP50: [], corunP99: [], corunTail: [], corunShape: [], corunMean: [], slowdown: [] });

function compare(ir: WorkloadIR, pred: WorkloadPrediction, res: Results, out: Samples): void {
    const multi = ir.tenants.length > 1;
    for (const t of pred.tenants) {
        const m = res.tenants.find(x => x.name === t.name);
        if (!m) continue;
        if (m.solo && m.solo.requests > 0 && Number.isFinite(t.solo.mean)) {
            out.tenantMean.push({ workload: ir.workload, what: `${t.name} solo mean`, predicted: t.solo.mean, measured: m.solo.latencyMs.mean, ape: ape(t.solo.mean, m.solo.latencyMs.mean), band: t.band.relative });
            // The median as well: on a shared host a few descheduled requests inflate the mean.
            out.tenantP50.push({ workload: ir.workload, what: `${t.name} solo p50`, predicted: t.solo.p50, measured: m.solo.latencyMs.p50, ape: ape(t.solo.p50, m.solo.latencyMs.p50), band: t.band.relative });
        }
        if (multi && m.corun && m.corun.requests > 0 && Number.isFinite(t.corun.p99)) {
            const requests = m.corun.requests;
            out.corunP99.push({ workload: ir.workload, what: `${t.name} co-run p99`, predicted: t.corun.p99, measured: m.corun.latencyMs.p99, ape: ape(t.corun.p99, m.corun.latencyMs.p99), band: t.corunBand.p99, requests });
            const tail = tailPercentile(requests);
            if (tail && Number.isFinite(t.corun[tail])) {
                out.corunTail.push({ workload: ir.workload, what: `${t.name} co-run ${tail}`, predicted: t.corun[tail], measured: m.corun.latencyMs[tail], ape: ape(t.corun[tail], m.corun.latencyMs[tail]), band: t.corunBand[tail], requests });
                const shape = { predicted: t.corun[tail] / t.corun.mean, measured: m.corun.latencyMs[tail] / m.corun.latencyMs.mean };
                if (Number.isFinite(shape.predicted) && shape.measured > 0) out.corunShape.push({ workload: ir.workload, what: `${t.name} co-run ${tail}`, ...shape, ape: ape(shape.predicted, shape.measured), requests });
            }
            out.corunMean.push({ workload: ir.workload, what: `${t.name} co-run mean`, predicted: t.corun.mean, measured: m.corun.latencyMs.mean, ape: ape(t.corun.mean, m.corun.latencyMs.mean), band: t.corunBand.mean });
            // Slowdown (co-run mean / solo mean, as the hover shows it with its band): scale-free, so a uniformly slower or
            // faster host cancels out.
            const ratio = t.meanRatio;
            if (m.slowdown.mean !== null && Number.isFinite(ratio.estimate)) {
                out.slowdown.push({ workload: ir.workload, what: `${t.name} slowdown`, predicted: ratio.estimate, measured: m.slowdown.mean.estimate, ape: ape(ratio.estimate, m.slowdown.mean.estimate), band: t.corunBand.mean });
            }
        }
        // Per-op co-run GPU time (median per request), as the op hints show it beside the solo time: from the workloads
        // that co-run, each op against its own tenant's stretch (workload.ts: the op's solo time × the tenant's slowdown).
        if (multi) {
            for (const op of t.ops) {
                const mo = m.ops.find(o => o.path === op.path);
                const predicted = typicalOpMs(op).corun;
                if (!mo || op.launches.length === 0 || mo.corunP50Ms == null || !(mo.corunP50Ms > 0) || !Number.isFinite(predicted)) continue;
                out.opCorun.push({ workload: ir.workload, what: `${op.path} co-run`, predicted, measured: mo.corunP50Ms, ape: ape(predicted, mo.corunP50Ms), band: op.corunBand.relative });
            }
        }
        // Per-op solo GPU time: only from solo-only workloads (one measurement per op shape). The goal's figure is
        // the median per request (predicted: the launches' typical times); the means are kept beside it.
        if (!multi) {
            for (const op of t.ops) {
                const mo = m.ops.find(o => o.path === op.path);
                if (!mo || op.launches.length === 0) continue;
                if (mo.soloP50Ms != null && mo.soloP50Ms > 0 && Number.isFinite(op.soloP50Ms)) {
                    const list = out.ops.get(op.kind) ?? [];
                    list.push({ workload: ir.workload, what: op.path, predicted: op.soloP50Ms, measured: mo.soloP50Ms, ape: ape(op.soloP50Ms, mo.soloP50Ms), band: op.band.relative });
                    out.ops.set(op.kind, list);
                }
                if (mo.soloMs !== null && mo.soloMs > 0 && Number.isFinite(op.soloMs)) {
                    out.opMeans.push({ workload: ir.workload, what: op.path, predicted: op.soloMs, measured: mo.soloMs, ape: ape(op.soloMs, mo.soloMs) });
                }
            }
        }
    }
}

/** A measured run dressed as a prediction (for run-to-run comparisons): op times, solo and co-run figures. */
function asPrediction(pred: WorkloadPrediction, res: Results): WorkloadPrediction {
    return {
        ...pred,
        tenants: pred.tenants.map(t => {
            const m = res.tenants.find(x => x.name === t.name);
            const fig = (phase: 'solo' | 'corun') => {
                const l = m?.[phase]?.latencyMs;
                return l ? { mean: l.mean, p50: l.p50, p90: l.p90, p95: l.p95, p99: l.p99, p999: l.p999 } : { mean: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, p999: NaN };
            };
            return {
                ...t, solo: fig('solo'), corun: fig('corun'),
                ops: t.ops.map(o => {
                    const mo = m?.ops.find(x => x.path === o.path);
                    const soloMs = mo?.soloMs ?? NaN, soloP50Ms = mo?.soloP50Ms ?? NaN;
                    // The co-run time as typicalOpMs reads it (soloP50Ms × corunMs / soloMs): the measured co-run median.
                    return { ...o, soloMs, soloP50Ms, corunMs: (mo?.corunP50Ms ?? NaN) * soloMs / soloP50Ms };
                }),
            };
        }),
    };
}

const mape = (xs: Sample[]) => (xs.length ? (100 * xs.reduce((s, x) => s + x.ape, 0)) / xs.length : NaN);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const row = (s: Sample) => `| ${s.workload} | ${s.what} | ${fmt(s.predicted)} | ${fmt(s.measured)} | ${(100 * (s.predicted - s.measured) / s.measured).toFixed(1)}% |`;

async function main(): Promise<void> {
    const profileFile = flag('--profile');
    const located = profileFile ? { profile: readProfileToPredict(resolve(profileFile)), file: resolve(profileFile) } : locateProfile(process.cwd());
    const profile = located.profile;
    console.error(`profile: ${located.file ?? 'default (uncalibrated)'}${profile.uncalibrated ? ' — UNCALIBRATED: run tenancy calibrate first' : ''}`);
    const out = emptySamples();
    const started = Date.now();
    let adapter = '';
    const evaluation = await evaluationSet(durationMs, { zoo: !args.includes('--no-zoo'), only });
    // --capacity: every distinct tenant alone and closed-loop (what the open-loop rates in workloads.ts are sized from).
    const set = args.includes('--capacity') ? closedLoopProbes(evaluation) : evaluation;
    const noise = emptySamples();
    const others = (flag('--also-profiles')?.split(',').filter(Boolean) ?? []).map(f => ({
        file: f, profile: readProfileToPredict(resolve(f)),
        samples: emptySamples(),
    }));
    // The same measurements against the profile at the host's speed measured just before each workload, and (where
    // predictions scale it to the host's usual speed) against the profile as calibrated.
    const atSpeed = emptySamples();
    const asCalibrated = profile.usualSpeed && located.file ? { profile: readProfileFile(located.file), samples: emptySamples() } : undefined;
    const speeds: Record<string, number> = {};
    // A later pass's run of each workload against its first run: the floor across the run.
    const span = emptySamples();
    const firsts = new Map<string, { pred: WorkloadPrediction; res: Results }>();
    for (let pass = 0; pass < passes; pass++) for (const ir of set) {
        if (pass > 0) {
            const firstRun = firsts.get(ir.workload);
            if (!firstRun) continue;
            const t0 = Date.now();
            const res = await runWorkload({ ir, predictions: firstRun.pred });
            if (res.status !== 'complete') console.error(`${ir.workload}: run ${res.status}${res.reason ? ` — ${res.reason}` : ''}`);
            compare(ir, asPrediction(firstRun.pred, firstRun.res), res, span);
            console.error(`${ir.workload} (pass ${pass + 1}/${passes}): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
            continue;
        }
        const pred = predictWorkload(ir, profile);
        const speed = args.includes('--no-host-speed') ? undefined : await measureHostSpeed(profile);
        if (speed) speeds[ir.workload] = speed.factor;
        let first: Results | undefined;
        for (let rep = 0; rep < repeat; rep++) {
            const t0 = Date.now();
            const res = await runWorkload({ ir, predictions: pred });
            adapter = res.adapter ? `${res.adapter.vendor} ${res.adapter.device} (${res.adapter.description})` : adapter;
            if (res.status !== 'complete') console.error(`${ir.workload}: run ${res.status}${res.reason ? ` — ${res.reason}` : ''}`);
            if (rep === 0) {
                first = res;
                firsts.set(ir.workload, { pred, res });
                compare(ir, pred, res, out);
                if (speed) compare(ir, predictWorkload(ir, atHostSpeed(profile, speed.factor)), res, atSpeed);
                if (asCalibrated) compare(ir, predictWorkload(ir, asCalibrated.profile), res, asCalibrated.samples);
                for (const o of others) compare(ir, predictWorkload(ir, o.profile), res, o.samples);
            } else if (first) {
                // The first run stands in for the prediction: how far two measurements of the same thing differ here.
                compare(ir, asPrediction(pred, first), res, noise);
            }
            if (args.includes('--verbose') && rep === 0) {
                for (const t of pred.tenants) {
                    const m = res.tenants.find(x => x.name === t.name);
                    for (const op of t.ops) {
                        const mo = m?.ops.find(o => o.path === op.path);
                        console.error(`  ${op.path.padEnd(40)} ${op.launches.map(l => `${l.name}[${l.family}] ${fmt(l.ms)}`).join(' + ').padEnd(70)} pred ${fmt(op.soloMs)} meas ${mo?.soloMs == null ? '—' : fmt(mo.soloMs)}`);
                    }
                }
            }
            console.error(`${ir.workload}${repeat > 1 ? ` (run ${rep + 1}/${repeat})` : ''}: ${((Date.now() - t0) / 1000).toFixed(1)} s${speed && rep === 0 ? `, host at ${speed.factor.toFixed(2)}× its calibrated time` : ''} — ` + pred.tenants.map(t => {
                const m = res.tenants.find(x => x.name === t.name);
                return `${t.name} solo mean ${fmt(t.solo.mean)}/${m?.solo ? fmt(m.solo.latencyMs.mean) : '—'}` + (ir.tenants.length > 1 ? `, co-run p99 ${fmt(t.corun.p99)}/${m?.corun ? fmt(m.corun.latencyMs.p99) : '—'}` : '');
            }).join('; ') + ' (predicted/measured ms)');
        }
    }
    const allOps = [...out.ops.values()].flat();
    const lines: string[] = [];
    lines.push(`# Prediction accuracy — ${adapter}`, '', `profile: ${located.file ?? 'default'} (created ${profile.createdAt}${profile.quick ? ', quick' : ''}${profile.usualSpeed ? `; its times × ${profile.usualSpeed.factor.toFixed(2)}, at the host's usual speed over ${profile.usualSpeed.calibrations} calibrations` : ''}); ${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s`, '');
    // The noise floors beside each figure: run 2 against run 1 of the same workload (back to back), and a later pass's
    // run against run 1 (across the run); the goals of issue 20 are set against a floor, judged here against each.
    const floorOf = (samples: Samples, on: boolean, pick: (s: Samples) => Sample[] | undefined) => { const xs = on ? pick(samples) : undefined; return xs && xs.length ? mape(xs) : undefined; };
    const pct = (x: number | undefined) => (x === undefined ? '—' : `${x.toFixed(1)}%`);
    // Band coverage: the share of measured values inside their prediction's 90 % band (predict/band.ts; goal 85–95 %).
    lines.push(`| metric | n | MAPE (prediction vs run 1) | floor back to back (run 2 vs run 1) | floor across the run (pass 2 vs run 1) | goal | met (back to back / across) | inside 90 % band (goal 85–95 %; median band) |`, '|---|---:|---:|---:|---:|---:|---:|---:|');
    const goalRow = (name: string, xs: Sample[], pick: (s: Samples) => Sample[] | undefined, goal: GoalFigure | undefined, band: string) => {
        const m = mape(xs), b2b = floorOf(noise, repeat > 1, pick), across = floorOf(span, passes > 1, pick);
        const met = (floor: number | undefined) => { const g = goal && goalPercent(goal, xs.length, floor); return g === undefined ? '—' : m <= g ? 'yes' : 'no'; };
        lines.push(`| ${name} | ${xs.length} | ${m.toFixed(1)}% | ${pct(b2b)} | ${pct(across)} | ${goal ? goalText(goal) : '—'} | ${met(b2b)} / ${met(across)} | ${band} |`);
    };
    for (const [kind, xs] of [...out.ops.entries()].sort()) goalRow(`op ${kind} (solo GPU time, median per request)`, xs, s => s.ops.get(kind), 'op', bandCoverage(xs));
    goalRow('all ops (median per request)', allOps, s => [...s.ops.values()].flat(), 'op', bandCoverage(allOps));
    goalRow('all ops, mean per request (stalls included)', out.opMeans, s => s.opMeans, undefined, '—');
    goalRow('op co-run GPU time (median per request), against the op\'s co-run band', out.opCorun, s => s.opCorun, undefined, bandCoverage(out.opCorun));
    goalRow('tenant mean latency (solo)', out.tenantMean, s => s.tenantMean, 'tenantMean', bandCoverage(out.tenantMean));
    goalRow('tenant p50 latency (solo)', out.tenantP50, s => s.tenantP50, undefined, bandCoverage(out.tenantP50));
    goalRow('co-run mean latency', out.corunMean, s => s.corunMean, undefined, bandCoverage(out.corunMean));
    // A p99 is scored where the run bounds it (tails.ts); every tenant's tail at the percentile its run bounds; the p99 of every tenant, bounded or not, as before.
    goalRow(`co-run p99 latency, runs that bound it (≥ ${P99_REQUESTS} requests)`, boundedP99(out.corunP99), s => boundedP99(s.corunP99), 'corunP99', bandCoverage(boundedP99(out.corunP99)));
    goalRow('co-run tail, the highest of p90/p95/p99 each run bounds', out.corunTail, s => s.corunTail, undefined, bandCoverage(out.corunTail));
    goalRow('— that tail over the co-run mean (its shape: the host\'s speed cancels)', out.corunShape, s => s.corunShape, undefined, '—');
    goalRow(`co-run p99 latency, every tenant (${out.corunP99.length - boundedP99(out.corunP99).length} of ${out.corunP99.length} not bounded by their runs)`, out.corunP99, s => s.corunP99, undefined, bandCoverage(out.corunP99));
    goalRow('co-run slowdown (mean / solo mean)', out.slowdown, s => s.slowdown, undefined, bandCoverage(out.slowdown));
    // Signed bias: a model that is systematically low or high shows here, noise does not.
    const bias = (xs: Sample[]) => (xs.length ? `${(100 * xs.reduce((sum, x) => sum + (x.predicted - x.measured) / x.measured, 0) / xs.length).toFixed(1)}%` : '—');
    lines.push('', `Mean signed error (bias): all ops ${bias(allOps)} (means: ${bias(out.opMeans)}), tenant mean ${bias(out.tenantMean)}, co-run p99 where bounded ${bias(boundedP99(out.corunP99))}, co-run tail ${bias(out.corunTail)}.`);
    if (others.length > 0) {
        lines.push('', '## Other calibrations scored against the same measurements (run 1)', '', '| profile | host effects (CV, mean factor GPU/wall, idle penalty ms + per pass) | all ops | tenant mean | co-run p99 where bounded |', '|---|---|---:|---:|---:|');
        for (const o of [{ file: located.file ?? 'default', profile, samples: out }, ...others]) {
            const p = o.profile, ops = [...o.samples.ops.values()].flat();
            const host = `${(100 * p.serviceCv).toFixed(0)}%, ${p.hostMeanFactor ? `${p.hostMeanFactor.gpu.toFixed(2)}/${p.hostMeanFactor.wall.toFixed(2)}` : '—'}, ${p.idlePenalty ? `${p.idlePenalty.wallMs.toFixed(2)} + ${p.idlePenalty.gpuMsPerPass.toFixed(3)}` : '—'}`;
            lines.push(`| ${o.file} | ${host} | ${mape(ops).toFixed(1)}% | ${mape(o.samples.tenantMean).toFixed(1)}% | ${mape(boundedP99(o.samples.corunP99)).toFixed(1)}% |`);
        }
    }
    if (repeat > 1) {
        const model = scaleFreeMape(Object.fromEntries(out.ops)), floor = scaleFreeMape(Object.fromEntries(noise.ops));
        const across = passes > 1 ? scaleFreeMape(Object.fromEntries(span.ops)) : undefined;
        // No op measured (a set of multi-tenant workloads only, --only): no factors.
        const range = (f: Map<string, number>) => { const v = [...f.values()].sort((a, b) => a - b); return v.length ? `${v[0].toFixed(2)}–${v.at(-1)!.toFixed(2)}×` : '—'; };
        lines.push('', "## Op error with each workload's common factor removed (bench/accuracy/scale-free.ts)", '',
            `Each op's predicted / measured over its workload's median ratio: what is left when the host's speed at each workload is taken out (a lower bound on the model's error). The workloads' factors: ${range(model.factors)} (model), ${range(floor.factors)} (run 2 vs run 1)${across ? `, ${range(across.factors)} (pass 2 vs run 1)` : ''}.`, '',
            '| ops | n | MAPE | floor back to back | floor across the run |', '|---|---:|---:|---:|---:|');
        const cell = (f: Map<string, number> | undefined, k: string) => (f?.has(k) ? `${f.get(k)!.toFixed(1)}%` : '—');
        for (const [k, v] of [...model.mape].sort(([a], [b]) => (a === 'all ops' ? 1 : b === 'all ops' ? -1 : a.localeCompare(b)))) {
            lines.push(`| ${k} | ${k === 'all ops' ? allOps.length : out.ops.get(k.slice(3))?.length ?? 0} | ${v.toFixed(1)}% | ${cell(floor.mape, k)} | ${cell(across?.mape, k)} |`);
        }
    }
    const factors = Object.values(speeds);
    if (factors.length > 0) {
        const sorted = [...factors].sort((a, b) => a - b);
        lines.push('', "## At the host's speed measured before each workload (the same measurements)", '',
            `The calibration's reference request (${profile.hostSpeedProbeMs?.toFixed(2)} ms back to back ${profile.usualSpeed ? 'at the host\'s usual speed' : 'when calibrated'}) timed again before each workload: ${sorted[0].toFixed(2)}–${sorted.at(-1)!.toFixed(2)}× that time (median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}×); the profile scaled by that factor (predict/profile.ts atHostSpeed).`, '',
            `| metric | n | as predicted${profile.usualSpeed ? ' (the usual speed)' : ''}: MAPE (bias) | as calibrated | at the host's speed | inside 90 % band, as predicted → at speed |`, '|---|---:|---:|---:|---:|---:|');
        const signed = (xs: Sample[]) => (xs.length ? (100 * xs.reduce((sum, x) => sum + (x.predicted - x.measured) / x.measured, 0) / xs.length) : NaN);
        const cell = (xs: Sample[]) => `${mape(xs).toFixed(1)}% (${signed(xs) >= 0 ? '+' : ''}${signed(xs).toFixed(1)}%)`;
        const raw = asCalibrated?.samples;
        const pairs: [string, Sample[], Sample[], Sample[] | undefined][] = [
            ['all ops (median per request)', allOps, [...atSpeed.ops.values()].flat(), raw && [...raw.ops.values()].flat()],
            ['tenant mean latency (solo)', out.tenantMean, atSpeed.tenantMean, raw?.tenantMean], ['tenant p50 latency (solo)', out.tenantP50, atSpeed.tenantP50, raw?.tenantP50],
            ['co-run mean latency', out.corunMean, atSpeed.corunMean, raw?.corunMean], ['co-run tail (p90–p99, as bounded)', out.corunTail, atSpeed.corunTail, raw?.corunTail],
        ];
        for (const [name, a, b, c] of pairs) lines.push(`| ${name} | ${a.length} | ${cell(a)} | ${c ? cell(c) : '—'} | ${cell(b)} | ${bandCoverage(a)} → ${bandCoverage(b)} |`);
    }
    // What each family's band rests on (calibrate/band-evidence.ts): model error (leave-one-out, own or pooled) and run-to-run noise.
    lines.push('', '## Band evidence per family (profile)', '', '| family | points | leave-one-out p90 (from) | noise p90 | band |', '|---|---:|---:|---:|---:|');
    for (const [name, fam] of Object.entries(profile.families).sort(([a], [b]) => a.localeCompare(b))) {
        const e = fam.error;
        lines.push(e
            ? `| ${name} | ${fam.points.length} | ${(100 * e.looP90).toFixed(1)}% (${e.from}, ${e.points}) | ${(100 * e.noiseP90).toFixed(1)}% | ±${(100 * familyBand(fam).relative).toFixed(0)}% |`
            : `| ${name} | ${fam.points.length} | — | — | default ±${(100 * familyBand(fam).relative).toFixed(0)}% |`);
    }
    const worst = (xs: Sample[], n: number) => [...xs].sort((a, b) => b.ape - a.ape).slice(0, n);
    lines.push('', '## Worst cases (ms)', '', '| workload | what | predicted | measured | error |', '|---|---|---:|---:|---:|');
    for (const s of [...worst(allOps, 6), ...worst(out.tenantMean, 3), ...worst(out.corunTail, 4), ...worst(out.slowdown, 3)]) lines.push(row(s));
    lines.push('', `host load average at the end: ${loadavg().map(x => x.toFixed(1)).join(' / ')} (1/5/15 min) on ${availableParallelism()} cores; profile calibrated at load ${profile.hostLoad ? profile.hostLoad.before.toFixed(1) : '?'}`);
    const text = lines.join('\n');
    console.log(text);
    const dir = resolve('bench/.work');
    mkdirSync(dir, { recursive: true });
    // The noise samples too (run 2 against run 1, and a later pass against run 1), so rescore.ts can put each re-scored figure beside its own run's floor.
    const samplesJson = (s: Samples) => ({ ops: Object.fromEntries(s.ops), opMeans: s.opMeans, opCorun: s.opCorun, tenantMean: s.tenantMean, tenantP50: s.tenantP50, corunP99: s.corunP99, corunTail: s.corunTail, corunShape: s.corunShape, corunMean: s.corunMean, slowdown: s.slowdown });
    writeFileSync(join(dir, 'accuracy.json'), JSON.stringify({ adapter, profile: located.file, durationMs, ...samplesJson(out), ...(repeat > 1 ? { noise: samplesJson(noise) } : {}), ...(passes > 1 ? { spanNoise: samplesJson(span) } : {}), hostSpeed: speeds, hostSpeedReferenceMs: profile.hostSpeedProbeMs, load: loadavg() }, null, 2));
    writeFileSync(join(dir, 'accuracy.md'), text + '\n');
}

await main();
