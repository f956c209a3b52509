/**
 * Scores the co-run predictions of the model as built against a recorded accuracy run, offline:
 * the run's measured co-run p99 and mean per tenant (its accuracy.json) and the profile it was
 * predicted on, the workloads rebuilt as run.ts builds them. Two builds of this script (two
 * commits) score two models on the very same measurements, with the run's noise floor beside
 * (its accuracy.md's "noise floor (run 2 vs run 1)" column, when given).
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/rescore.ts --accuracy DIR/accuracy.json --profile P [--floor DIR/accuracy.md] [--no-tail] [--time N]
 *
 * Besides p99 and mean, the co-run slowdown (co-run mean / solo mean, each side's own): scale-free,
 * so it scores the co-run model apart from the solo op times' error. --no-tail predicts without the
 * profile's host tail (serviceTailMs, corunTailMs): how much of the error is the tail.
 *
 * --time N also times, N times per multi-tenant workload, what the editor's schedule hints compute
 * (compareSchedules over autoCandidates on the profile: every simulation of a comparison) and
 * prints the median ms per workload. Writes JSON to stdout's last line (`{"rows":…}`) for
 * comparing builds.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { readProfileFile } from '../../src/runtime/predict/profile-store.js';
import { predictWorkload } from '../../src/runtime/predict/workload.js';
import { autoCandidates, compareSchedules } from '../../src/runtime/predict/schedules.js';
import { evaluationSet } from './workloads.js';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };

interface Sample { workload: string; what: string; predicted: number; measured: number }

const accuracyFile = flag('--accuracy'), profileFile = flag('--profile');
if (!accuracyFile || !profileFile) {
    console.error('usage: rescore.ts --accuracy accuracy.json --profile profile.json [--floor accuracy.md] [--time N]');
    process.exit(64);
}
const recorded = JSON.parse(readFileSync(resolve(accuracyFile), 'utf8')) as { corunP99: Sample[]; corunMean: Sample[]; slowdown: Sample[] };
const profile = readProfileFile(resolve(profileFile));
if (args.includes('--no-tail')) {
    delete profile.serviceTailMs;
    delete profile.corunTailMs;
}
const floorFile = flag('--floor');
const times = Number(flag('--time') ?? 0);

/** The noise floor of a metric row in accuracy.md (its fourth column), or undefined. */
function floorOf(metric: string): string | undefined {
    if (!floorFile) return undefined;
    const row = readFileSync(resolve(floorFile), 'utf8').split('\n').find(l => l.startsWith(`| ${metric} |`));
    return row?.split('|')[4]?.trim();
}

const workloads = new Map((await evaluationSet(2500)).map(w => [w.workload, w]));
const rows: { workload: string; tenant: string; measuredP99: number; recordedP99: number; p99: number; measuredMean: number; recordedMean: number; mean: number; measuredSlowdown?: number; recordedSlowdown?: number; slowdown: number }[] = [];
const timing: { workload: string; ms: number }[] = [];
for (const [name, ir] of workloads) {
    const measured = recorded.corunP99.filter(s => s.workload === name);
    if (measured.length === 0) continue;
    const prediction = predictWorkload(ir, profile);
    for (const s of measured) {
        const tenant = s.what.replace(/ co-run p99$/, '');
        const t = prediction.tenants.find(x => x.name === tenant);
        const mean = recorded.corunMean.find(x => x.workload === name && x.what === `${tenant} co-run mean`);
        if (!t || !mean) continue;
        const slowdown = recorded.slowdown.find(x => x.workload === name && x.what === `${tenant} slowdown`);
        rows.push({
            workload: name, tenant, measuredP99: s.measured, recordedP99: s.predicted, p99: t.corun.p99, measuredMean: mean.measured, recordedMean: mean.predicted, mean: t.corun.mean,
            measuredSlowdown: slowdown?.measured, recordedSlowdown: slowdown?.predicted, slowdown: t.corun.mean / t.solo.mean,
        });
    }
    if (times > 0) {
        const ms: number[] = [];
        for (let k = 0; k < times; k++) {
            const started = performance.now();
            compareSchedules(ir, profile, autoCandidates(profile));
            ms.push(performance.now() - started);
        }
        ms.sort((a, b) => a - b);
        timing.push({ workload: name, ms: ms[Math.floor(ms.length / 2)] });
    }
}

const ape = (p: number, m: number) => Math.abs(p - m) / m;
const mape = (xs: number[][]) => `${(100 * xs.reduce((s, [p, m]) => s + ape(p, m), 0) / xs.length).toFixed(1)}%`;
const bias = (xs: number[][]) => `${(100 * xs.reduce((s, [p, m]) => s + (p - m) / m, 0) / xs.length).toFixed(1)}%`;
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
console.log(`| metric (${rows.length} co-run tenants) | recorded prediction | this build | noise floor of the run |`, '|---|---:|---:|---:|');
console.log(`| co-run p99, MAPE (bias) | ${mape(rows.map(r => [r.recordedP99, r.measuredP99]))} (${bias(rows.map(r => [r.recordedP99, r.measuredP99]))}) | ${mape(rows.map(r => [r.p99, r.measuredP99]))} (${bias(rows.map(r => [r.p99, r.measuredP99]))}) | ${floorOf('co-run p99 latency') ?? '—'} |`);
console.log(`| co-run mean, MAPE (bias) | ${mape(rows.map(r => [r.recordedMean, r.measuredMean]))} (${bias(rows.map(r => [r.recordedMean, r.measuredMean]))}) | ${mape(rows.map(r => [r.mean, r.measuredMean]))} (${bias(rows.map(r => [r.mean, r.measuredMean]))}) | ${floorOf('co-run mean latency') ?? '—'} |`);
const slow = rows.filter(r => r.measuredSlowdown !== undefined && r.recordedSlowdown !== undefined);
console.log(`| co-run slowdown (mean / solo mean), MAPE (bias) | ${mape(slow.map(r => [r.recordedSlowdown!, r.measuredSlowdown!]))} (${bias(slow.map(r => [r.recordedSlowdown!, r.measuredSlowdown!]))}) | ${mape(slow.map(r => [r.slowdown, r.measuredSlowdown!]))} (${bias(slow.map(r => [r.slowdown, r.measuredSlowdown!]))}) | ${floorOf('co-run slowdown (mean / solo mean)') ?? '—'} |`);
console.log('', '| workload | tenant | measured p99 | recorded | this build | measured mean | recorded | this build | measured slowdown | recorded | this build |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const opt = (x: number | undefined) => (x === undefined ? '—' : fmt(x));
for (const r of rows) console.log(`| ${r.workload} | ${r.tenant} | ${fmt(r.measuredP99)} | ${fmt(r.recordedP99)} | ${fmt(r.p99)} | ${fmt(r.measuredMean)} | ${fmt(r.recordedMean)} | ${fmt(r.mean)} | ${opt(r.measuredSlowdown)} | ${opt(r.recordedSlowdown)} | ${fmt(r.slowdown)} |`);
if (timing.length) {
    console.log('', '| workload | schedules compared (hints), median ms |', '|---|---:|');
    for (const t of timing) console.log(`| ${t.workload} | ${t.ms.toFixed(1)} |`);
}
console.log('', `load ${loadavg().map(x => x.toFixed(2)).join(' / ')}`);
console.log(JSON.stringify({ rows, timing }));
