/**
 * The host-effect figures of several device profiles side by side (how repeatable calibration's
 * host effects are): service CV and tails, co-run tail, host mean/median factors, idle penalty,
 * with each figure's spread (max / min) over the profiles. Then, for each pair of profiles, how
 * far apart they put the typical (median) times of the evaluation set's ops (the solo workloads
 * of workloads.ts, the ops the accuracy benchmark scores): the repeatability of calibration
 * itself, the error a single calibration brings before any model error. Each profile is read as
 * predictions read it: at the host's usual speed where it remembers enough earlier calibrations
 * (profile.ts atUsualSpeed; the factor is the table's first figure); --as-calibrated reads them
 * as calibration wrote them.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/host-effects.ts [--as-calibrated] PROFILE.json [PROFILE.json …]
 *
 * Profiles come from `tenancy calibrate --json --no-workspace-copy > P.json` (or the workspace's
 * .tenancy/device-profile.json).
 */
import { resolve } from 'node:path';
import { readProfileFile, readProfileToPredict } from '../../src/runtime/predict/profile-store.js';
import type { DeviceProfile } from '../../src/runtime/predict/profile.js';
import { predictWorkload } from '../../src/runtime/predict/workload.js';
import { evaluationSet } from './workloads.js';

const asCalibrated = process.argv.includes('--as-calibrated');
const files = process.argv.slice(2).filter(a => a !== '--as-calibrated');
if (files.length === 0) {
    console.error('usage: host-effects.ts PROFILE.json [PROFILE.json …] (profiles written by tenancy calibrate --json)');
    process.exit(64);
}
const profiles = files.map(f => ({ file: f, profile: (asCalibrated ? readProfileFile : readProfileToPredict)(resolve(f)) }));

const figures: [string, (p: DeviceProfile) => number | undefined][] = [
    ['host load before → after', () => undefined],
    ['times scaled to the usual speed by', p => p.usualSpeed?.factor],
    ['reference request as calibrated, ms', p => (p.hostSpeedProbeMs !== undefined ? p.hostSpeedProbeMs / (p.usualSpeed?.factor ?? 1) : undefined)],
    ['service CV', p => p.serviceCv],
    ['request median (serviceCvAtMs), ms', p => p.serviceCvAtMs],
    ['service tail p99, ms', p => p.serviceTailMs?.p99],
    ['co-run tail p99, ms', p => p.corunTailMs?.p99],
    ['host mean factor, GPU', p => p.hostMeanFactor?.gpu],
    ['host mean factor, wall', p => p.hostMeanFactor?.wall],
    ['idle penalty, ms', p => p.idlePenalty?.wallMs],
    ['idle penalty per pass, ms', p => p.idlePenalty?.gpuMsPerPass],
    ['idle penalty of a 10-pass request, ms', p => (p.idlePenalty ? p.idlePenalty.wallMs + 10 * p.idlePenalty.gpuMsPerPass : undefined)],
];
const fmt = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3));
const lines = [
    `| figure | ${profiles.map(p => p.file.replace(/^.*\//, '')).join(' | ')} | spread (max/min) |`,
    `|---|${profiles.map(() => '---:').join('|')}|---:|`,
];
for (const [name, get] of figures) {
    if (name.startsWith('host load')) {
        lines.push(`| ${name} | ${profiles.map(({ profile: p }) => (p.hostLoad ? `${p.hostLoad.before.toFixed(1)} → ${p.hostLoad.after.toFixed(1)}` : '—')).join(' | ')} | |`);
        continue;
    }
    const xs = profiles.map(({ profile }) => get(profile));
    const known = xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
    const spread = known.length >= 2 && Math.min(...known) > 0 ? `${(Math.max(...known) / Math.min(...known)).toFixed(2)}×` : known.length >= 2 ? '∞' : '—';
    lines.push(`| ${name} | ${xs.map(fmt).join(' | ')} | ${spread} |`);
}
console.log(lines.join('\n'));

// The scored ops' typical times on each profile, and every pair's MAPE (one against the other) and geometric mean ratio.
const solo = (await evaluationSet(2500)).filter(w => w.tenants.length === 1);
const typical = profiles.map(({ profile }) => {
    const ms = new Map<string, number>();
    for (const ir of solo) for (const t of predictWorkload(ir, profile).tenants) for (const o of t.ops) if (o.launches.length > 0) ms.set(`${ir.workload} ${o.path}`, o.soloP50Ms);
    return ms;
});
// The MAPE again after dividing the first by the geometric mean ratio: what is left when the common factor (a host
// uniformly faster or slower during one calibration) is taken out — the part of the disagreement that is per op.
const pairs = ['', '| profiles | ops | per-op typical time, MAPE (first vs second) | geometric mean ratio | MAPE without the common factor |', '|---|---:|---:|---:|---:|'];
for (let i = 0; i < profiles.length; i++) {
    for (let j = i + 1; j < profiles.length; j++) {
        const both: [number, number][] = [];
        for (const [op, a] of typical[i]) {
            const b = typical[j].get(op);
            if (b !== undefined && b > 0) both.push([a, b]);
        }
        const n = both.length;
        const common = Math.exp(both.reduce((s, [a, b]) => s + Math.log(a / b), 0) / n);
        const mapeOf = (f: number) => `${(100 * both.reduce((s, [a, b]) => s + Math.abs(a / f / b - 1), 0) / n).toFixed(1)}%`;
        const name = (k: number) => profiles[k].file.replace(/^.*\//, '');
        pairs.push(`| ${name(i)} vs ${name(j)} | ${n} | ${n ? mapeOf(1) : '—'} | ${n ? common.toFixed(2) : '—'} | ${n ? mapeOf(common) : '—'} |`);
    }
}
if (profiles.length >= 2) console.log(pairs.join('\n'));
