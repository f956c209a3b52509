/**
 * The runtime-path idle measurement of calibration (calibrate/runtime-idle.ts) on its own, with
 * each open-loop phase's idle-arrival latencies (p50, mean, max) and the mean over all its arrivals
 * (those queued behind another included) beside the closed-loop mean, and the estimate
 * (estimators.ts idlePenaltyFromRuntimeTrials). A diagnostic of calibration, not of the evaluation set.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/runtime-idle.ts [--trials K] [--rate R] [--open N] [--closed N] [--blocks 0,8]
 */
import { loadavg } from 'node:os';
import { openGpu, requestTenantDevice } from '../../src/runtime/gpu/adapter.js';
import { capsFromDevice } from '../../src/runtime/gpu/adapter.js';
import { idlePenaltyFromRuntimeTrials, medianOf } from '../../src/runtime/calibrate/estimators.js';
import { measureRuntimeIdle } from '../../src/runtime/calibrate/runtime-idle.js';
import { idleProbeTenant } from '../../src/runtime/calibrate/synthetic.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const trialsN = Number(flag('--trials', '7')), rate = Number(flag('--rate', '20')), openN = Number(flag('--open', '20'));
const blocks = flag('--blocks', '0,8').split(',').map(Number);

const gpu = openGpu();
const d = await requestTenantDevice(gpu, 'auto', 'runtime-idle', { timestamps: true });
console.log(`load ${loadavg()[0].toFixed(2)}; ${trialsN} trials, ${rate}/s, ${openN} open requests, blocks ${blocks.join(',')}`);
const trials = await measureRuntimeIdle(d.device, capsFromDevice(d.device), blocks.map(idleProbeTenant), {
    trials: trialsN, closedRequests: Number(flag('--closed', '60')), openRequests: openN, ratePerSecond: rate,
    onTrial: t => {
        const l = t.openLatenciesMs ?? [];
        console.log(`${String(t.passes).padStart(3)} passes: closed ${t.closedMeanMs.toFixed(2)} ms (GPU ${t.closedGpuMs.toFixed(2)}), open (idle arrivals: ${l.length}) mean ${t.openMeanMs.toFixed(2)} p50 ${medianOf(l).toFixed(2)} max ${Math.max(...l).toFixed(1)} (GPU ${t.openGpuMs.toFixed(2)}), all arrivals mean ${(t.openAllMeanMs ?? NaN).toFixed(2)} [${l.map(x => x.toFixed(1)).join(' ')}]`);
    },
});
const e = idlePenaltyFromRuntimeTrials(trials);
console.log(`estimate: +${e.wallMs.toFixed(2)} ms + ${e.gpuMsPerPass.toFixed(3)} ms/pass; ${e.lengths.map(l => `${l.passes} passes +${l.extraMs.toFixed(2)} ms`).join(', ')}; load ${loadavg()[0].toFixed(2)}`);
d.device.destroy();
