/**
 * Re-scores a stored accuracy run with the model as it is now: the measurements of run.ts's
 * accuracy.json (run 1 of every workload) against today's predictions on a profile, without
 * measuring again. A model change is judged on the same measurements it was scored on before,
 * so the host's run-to-run noise is held fixed; the noise floor beside each figure is that run's
 * own (run 2 vs run 1: accuracy.json's `noise`, or, for files written before run.ts stored it,
 * the table of the accuracy.md beside it), and beside it the floor across the run (a later pass
 * vs run 1: `spanNoise`) where the run measured it.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/rescore.ts [--from bench/.work/accuracy.json] [--profile P] [--also-profiles P2,P3…] [--duration-ms N] [--worst N] [--no-tail] [--without-refinement] [--host-speed] [--as-calibrated] [--corun] [--time N]
 *
 * --profile: the profile to predict with (default: the one the run used, as its file records),
 * read as predictions read it (at the host's usual speed: profile.ts atUsualSpeed).
 * --as-calibrated: reads the profiles as calibration wrote them (the times of its moment).
 * --no-tail: predicts without the profiles' host tail (serviceTailMs, corunTailMs): how much of
 * the co-run error is the tail. The co-run slowdown (co-run mean / solo mean, each side's own) is
 * scale-free: it scores the co-run model apart from the solo op times' error.
 * --without-refinement: also predicts on the first profile less the points calibration's adaptive
 * sampling added (profile.refinement.added; the anchors it measured again keep their averaged time):
 * what the added points did, on the same calibration and the same measurements.
 * --host-speed: predicts each workload on the profile at the host's speed run.ts measured before it (accuracy.json's `hostSpeed`).
 * --corun: also lists every co-run figure (mean, p99, slowdown): in the run, now, measured, and whether it fell inside its band now.
 * --time N: also times, N times per multi-tenant workload, what the editor's schedule hints compute
 * (compareSchedules over autoCandidates on the first profile) and prints the median ms.
 * Goals (issue 20): goals.ts, on each floor.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readProfileFile, readProfileToPredict } from '../../src/runtime/predict/profile-store.js';
import { atHostSpeed, type DeviceProfile } from '../../src/runtime/predict/profile.js';
import { predictWorkload, typicalOpMs, type WorkloadPrediction } from '../../src/runtime/predict/workload.js';
import { insideBand } from '../../src/runtime/predict/band.js';
import { caseShapeOf } from '../../src/runtime/calibrate/refine.js';
import { goalPercent, type GoalFigure } from './goals.js';
import { bandCoverage } from './coverage.js';
import { scaleFreeMape } from './scale-free.js';
import { boundedP99, percentileOf } from './tails.js';
import { autoCandidates, compareSchedules } from '../../src/runtime/predict/schedules.js';
import { evaluationSet } from './workloads.js';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };

interface Sample { workload: string; what: string; predicted: number; measured: number; band?: number; requests?: number }
interface Stored {
    profile?: string;
    durationMs?: number;
    ops: Record<string, Sample[]>;
    tenantMean: Sample[];
    tenantP50: Sample[];
    corunMean: Sample[];
    corunP99: Sample[];
    /** Each co-run tenant at the highest percentile its run bounded (tails.ts; files written since), and that tail over its co-run mean. */
    corunTail?: Sample[];
    corunShape?: Sample[];
    slowdown?: Sample[];
    /** Each co-running op's median GPU time per request (files written since run.ts scored it). */
    opCorun?: Sample[];
    /** The host's speed measured before each workload: its reference request's time over the calibrated one. */
    hostSpeed?: Record<string, number>;
    /** The reference request's time those factors are relative to (absent in older files: the profile's as calibrated). */
    hostSpeedReferenceMs?: number;
    /** Run 2 scored against run 1 (written by run.ts since the re-score path exists). */
    noise?: Floor;
    /** A later pass scored against run 1: the floor across the run (run.ts --passes). */
    spanNoise?: Floor;
}
/** Measured-vs-measured samples: a noise floor. */
interface Floor { ops: Record<string, Sample[]>; tenantMean: Sample[]; tenantP50: Sample[]; corunMean: Sample[]; corunP99: Sample[]; corunTail?: Sample[]; corunShape?: Sample[]; slowdown?: Sample[]; opCorun?: Sample[] }

const from = resolve(flag('--from') ?? 'bench/.work/accuracy.json');
const stored = JSON.parse(readFileSync(from, 'utf8')) as Stored;
const profileFile = flag('--profile') ?? stored.profile;
if (!profileFile) throw new Error(`${from} names no profile; pass --profile P`);
const read = args.includes('--as-calibrated') ? readProfileFile : readProfileToPredict;
const profiles = [profileFile, ...(flag('--also-profiles')?.split(',').filter(Boolean) ?? [])].map(f => ({ file: f, profile: read(resolve(f)) }));
if (args.includes('--no-tail')) for (const { profile } of profiles) { delete profile.serviceTailMs; delete profile.corunTailMs; }
if (args.includes('--without-refinement')) profiles.push({ file: `${profiles[0].file} without refinement`, profile: withoutRefinement(profiles[0].profile) });
const times = Number(flag('--time') ?? 0);

/** A profile without the points of the cases its calibration's refinement added (calibrate/refine.ts). */
function withoutRefinement(profile: DeviceProfile): DeviceProfile {
    const added = new Set(profile.refinement?.added ?? []);
    if (added.size === 0) throw new Error('--without-refinement: the profile records no refinement (calibrated before adaptive sampling, or nothing was refined)');
    const families = Object.fromEntries(Object.entries(profile.families).map(([name, f]) => {
        const points = f.points.filter(p => !added.has(caseShapeOf(p.shape)));
        return [name, { ...f, points }];
    }).filter(([, f]) => (f as DeviceProfile['families'][string]).points.length > 0));
    return { ...profile, families, refinement: undefined };
}
const durationMs = Number(flag('--duration-ms') ?? stored.durationMs ?? 2500);
const worstN = Number(flag('--worst') ?? 8);

const ape = (p: number, m: number) => Math.abs(p - m) / m;
const mape = (xs: readonly { predicted: number; measured: number }[]) => (xs.length ? (100 * xs.reduce((s, x) => s + ape(x.predicted, x.measured), 0)) / xs.length : NaN);
const bias = (xs: readonly { predicted: number; measured: number }[]) => (xs.length ? (100 * xs.reduce((s, x) => s + (x.predicted - x.measured) / x.measured, 0)) / xs.length : NaN);
const pct = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)}%` : '—');

/** A floor's figures by row name. */
function floorsOf(noise: Floor): Map<string, number> {
    const out = new Map<string, number>();
    for (const [kind, xs] of Object.entries(noise.ops)) out.set(`op ${kind}`, mape(xs));
    out.set('all ops', mape(Object.values(noise.ops).flat()));
    for (const k of ['tenantMean', 'tenantP50', 'corunMean'] as const) out.set(k, mape(noise[k]));
    out.set('corunP99', mape(boundedP99(noise.corunP99)));
    if (noise.corunTail) out.set('corunTail', mape(noise.corunTail));
    if (noise.corunShape) out.set('corunShape', mape(noise.corunShape));
    if (noise.slowdown) out.set('slowdown', mape(noise.slowdown));
    if (noise.opCorun) out.set('opCorun', mape(noise.opCorun));
    return out;
}

/** The back-to-back noise floors by row name: stored in the json, else read off the accuracy.md table beside it. */
function floors(): Map<string, number> {
    if (stored.noise) return floorsOf(stored.noise);
    const out = new Map<string, number>();
    const md = join(dirname(from), 'accuracy.md');
    if (!existsSync(md)) return out;
    const names: [RegExp, (m: RegExpExecArray) => string][] = [
        [/^op (\S+) \(/, m => `op ${m[1]}`], [/^all ops \(median/, () => 'all ops'], [/^tenant mean latency/, () => 'tenantMean'],
        [/^tenant p50 latency/, () => 'tenantP50'], [/^co-run mean latency/, () => 'corunMean'], [/^co-run p99 latency/, () => 'corunP99'],
        [/^co-run slowdown/, () => 'slowdown'],
    ];
    for (const line of readFileSync(md, 'utf8').split('\n')) {
        const cells = line.split('|').map(c => c.trim());
        if (cells.length < 6) continue;
        const floor = Number(cells[4].replace('%', ''));
        if (!Number.isFinite(floor)) continue;
        for (const [re, name] of names) {
            const m = re.exec(cells[1]);
            if (m) out.set(name(m), floor);
        }
    }
    return out;
}

const set = await evaluationSet(durationMs);
const byName = new Map(set.map(w => [w.workload, w]));

/** Today's prediction of a stored sample's figure on a profile, with its 90 % band where it has one (undefined: the workload or figure is gone). */
function predicted(preds: Map<string, WorkloadPrediction>, row: string, s: Sample): { ms: number; band?: number } | undefined {
    const pred = preds.get(s.workload);
    if (!pred) return undefined;
    if (row.startsWith('op ')) {
        for (const t of pred.tenants) {
            const op = t.ops.find(o => o.path === s.what);
            if (op) return { ms: op.soloP50Ms, band: op.band.relative };
        }
        return undefined;
    }
    if (row === 'opCorun') {
        const path = s.what.replace(/ co-run$/, '');
        for (const t of pred.tenants) {
            const op = t.ops.find(o => o.path === path);
            if (op) return { ms: typicalOpMs(op).corun, band: op.corunBand.relative };
        }
        return undefined;
    }
    const name = s.what.split(' ')[0];
    const t = pred.tenants.find(x => x.name === name);
    if (!t) return undefined;
    switch (row) {
        case 'tenantMean': return { ms: t.solo.mean, band: t.band.relative };
        case 'tenantP50': return { ms: t.solo.p50, band: t.band.relative };
        case 'corunMean': return { ms: t.corun.mean, band: t.corunBand.mean };
        case 'corunP99': return { ms: t.corun.p99, band: t.corunBand.p99 };
        case 'corunTail': { const p = percentileOf(s.what); return p && { ms: t.corun[p], band: t.corunBand[p] }; }
        case 'corunShape': { const p = percentileOf(s.what); return p && { ms: t.corun[p] / t.corun.mean }; }
        case 'slowdown': return { ms: t.meanRatio.estimate, band: t.corunBand.mean };
    }
    return undefined;
}


/** The host's speed run.ts measured before workload w, as a factor on this profile's reference request (1 where unknown). */
function hostSpeedOn(profile: DeviceProfile, w: string): number {
    const factor = stored.hostSpeed?.[w], first = profiles[0].profile;
    // Older files measured against the first profile's reference request as calibrated.
    const referenceMs = stored.hostSpeedReferenceMs ?? (first.hostSpeedProbeMs !== undefined ? first.hostSpeedProbeMs / (first.usualSpeed?.factor ?? 1) : undefined);
    return factor !== undefined && referenceMs !== undefined && profile.hostSpeedProbeMs !== undefined ? factor * referenceMs / profile.hostSpeedProbeMs : 1;
}

function predictionsOn(profile: DeviceProfile): Map<string, WorkloadPrediction> {
    const preds = new Map<string, WorkloadPrediction>();
    const needed = new Set([...Object.values(stored.ops).flat(), ...stored.tenantMean, ...stored.corunP99, ...(stored.corunTail ?? []), ...(stored.opCorun ?? [])].map(s => s.workload));
    for (const w of needed) {
        const ir = byName.get(w);
        const speed = args.includes('--host-speed') ? hostSpeedOn(profile, w) : 1;
        if (ir) preds.set(w, predictWorkload(ir, atHostSpeed(profile, speed)));
    }
    return preds;
}

const allOps = Object.values(stored.ops).flat();
/** Each stored op sample's class row (`op <kind>`): the 'all ops' row predicts each op as its class does. */
const classOf = new Map(Object.entries(stored.ops).flatMap(([kind, xs]) => xs.map(s => [s, `op ${kind}`] as const)));
const rows: [string, Sample[]][] = [
    ...Object.entries(stored.ops).sort(([a], [b]) => a.localeCompare(b)).map(([kind, xs]): [string, Sample[]] => [`op ${kind}`, xs]),
    ['all ops', allOps],
    ['tenantMean', stored.tenantMean], ['tenantP50', stored.tenantP50], ['corunMean', stored.corunMean], ['corunP99', boundedP99(stored.corunP99)], ['corunTail', stored.corunTail ?? []], ['corunShape', stored.corunShape ?? []],
    ['slowdown', stored.slowdown ?? []], ['opCorun', stored.opCorun ?? []],
];
const floor = floors();
/** The floors across the run (a later pass against run 1), where the run measured them. */
const spanFloor = stored.spanNoise ? floorsOf(stored.spanNoise) : undefined;
const rescored = profiles.map(({ file, profile }) => {
    const preds = predictionsOn(profile);
    const out = new Map<string, Sample[]>();
    for (const [row, xs] of rows) {
        const now: Sample[] = [];
        for (const s of xs) {
            const p = predicted(preds, row === 'all ops' ? classOf.get(s)! : row, s);
            if (p !== undefined && Number.isFinite(p.ms)) now.push({ ...s, predicted: p.ms, band: p.band });
        }
        out.set(row, now);
    }
    return { file, out };
});

/** The goal a row is judged by (goals.ts), if any. */
const goalFigureOf = (row: string): GoalFigure | undefined =>
    (row.startsWith('op ') || row === 'all ops' ? 'op' : row === 'tenantMean' || row === 'corunP99' ? row : undefined);
const goalOf = (row: string, n: number, f: number | undefined) => { const g = goalFigureOf(row); return g && goalPercent(g, n, f); };
const lines = [
    `Re-scored ${from} (${allOps.length} ops); measurements of run 1, predictions of this checkout.`, '',
    `| figure | n | in the run | ${rescored.map(r => `now: ${r.file.replace(/^.*\//, '')} (bias)`).join(' | ')} | floor back to back | floor across the run | goal (on each floor) | inside 90 % band now (goal 85–95 %; median band) |`,
    `|---|---:|---:|${rescored.map(() => '---:').join('|')}|---:|---:|---:|---:|`,
];
for (const [row, xs] of rows) {
    const goals = [floor.get(row), spanFloor?.get(row)].map(f => goalOf(row, xs.length, f)).map(g => (g === undefined ? '—' : `≤ ${g.toFixed(1)}%`)).join(' / ');
    lines.push(`| ${row} | ${xs.length} | ${pct(mape(xs))} | ${rescored.map(r => { const ys = r.out.get(row)!; return `${pct(mape(ys))} (${bias(ys) >= 0 ? '+' : ''}${pct(bias(ys))})${ys.length !== xs.length ? ` n=${ys.length}` : ''}`; }).join(' | ')} | ${pct(floor.get(row) ?? NaN)} | ${pct(spanFloor?.get(row) ?? NaN)} | ${goals} | ${bandCoverage(rescored[0].out.get(row)!)} |`);
}
// Each workload's common factor removed (scale-free.ts): the model's error at one shape against another, apart from the host's speed.
const opsOf = (out: Map<string, Sample[]>) => Object.fromEntries(Object.keys(stored.ops).map(kind => [kind, out.get(`op ${kind}`)!]));
const scaleFree = rescored.map(r => scaleFreeMape(opsOf(r.out)).mape);
const floorScaleFree = stored.noise ? scaleFreeMape(stored.noise.ops).mape : undefined;
lines.push('', "Op error with each workload's common factor removed:", '', `| ops | ${rescored.map(r => r.file.replace(/^.*\//, '')).join(' | ')} | noise floor |`, `|---|${rescored.map(() => '---:').join('|')}|---:|`);
for (const k of [...rows.map(([r]) => r).filter(r => r.startsWith('op ')), 'all ops']) {
    lines.push(`| ${k} | ${scaleFree.map(m => pct(m.get(k) ?? NaN)).join(' | ')} | ${pct(floorScaleFree?.get(k) ?? NaN)} |`);
}
const first = rescored[0].out;
const worst = [...first.get('all ops')!].sort((a, b) => ape(b.predicted, b.measured) - ape(a.predicted, a.measured)).slice(0, worstN);
lines.push('', `Worst ops now (${rescored[0].file.replace(/^.*\//, '')}):`, '', '| workload | op | in the run | now | measured | error now |', '|---|---|---:|---:|---:|---:|');
const before = new Map(allOps.map(s => [`${s.workload} ${s.what}`, s.predicted]));
for (const s of worst) lines.push(`| ${s.workload} | ${s.what} | ${before.get(`${s.workload} ${s.what}`)!.toFixed(3)} | ${s.predicted.toFixed(3)} | ${s.measured.toFixed(3)} | ${(100 * (s.predicted - s.measured) / s.measured).toFixed(1)}% |`);
if (args.includes('--corun')) {
    lines.push('', `Co-run figures now (${rescored[0].file.replace(/^.*\//, '')}):`, '', '| workload | figure | in the run | now | measured | error now | band now | inside |', '|---|---|---:|---:|---:|---:|---:|---|');
    for (const row of ['corunMean', 'corunP99', 'corunTail', 'corunShape', 'slowdown']) {
        const was = new Map(rows.find(([r]) => r === row)![1].map(s => [`${s.workload} ${s.what}`, s.predicted]));
        for (const s of first.get(row)!) {
            const band = s.band !== undefined ? `±${(100 * s.band).toFixed(0)}%` : '—';
            const inside = s.band !== undefined ? (insideBand(s.predicted, s.measured, s.band) ? 'yes' : 'no') : '—';
            lines.push(`| ${s.workload} | ${s.what} | ${was.get(`${s.workload} ${s.what}`)!.toFixed(2)} | ${s.predicted.toFixed(2)} | ${s.measured.toFixed(2)} | ${(100 * (s.predicted - s.measured) / s.measured).toFixed(1)}% | ${band} | ${inside} |`);
        }
    }
}
if (times > 0) {
    lines.push('', `| workload | schedules compared (hints), median ms of ${times} |`, '|---|---:|');
    for (const ir of set.filter(w => w.tenants.length > 1)) {
        const ms: number[] = [];
        for (let k = 0; k < times; k++) {
            const started = performance.now();
            compareSchedules(ir, profiles[0].profile, autoCandidates(profiles[0].profile));
            ms.push(performance.now() - started);
        }
        ms.sort((a, b) => a - b);
        lines.push(`| ${ir.workload} | ${ms[Math.floor(ms.length / 2)].toFixed(1)} |`);
    }
}
console.log(lines.join('\n'));
