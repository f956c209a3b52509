/**
 * The idle-penalty estimators side by side, under the same host conditions: K alternating trials
 * of the estimator calibration used up to baac585 (the mid-size request as an open-loop Poisson
 * stream at 0.2 and 0.35 of its back-to-back capacity, 120 arrivals each, winsorized means, the
 * model's queueing form solved for the penalty) and of the paired estimator calibrate.ts uses now
 * (idle arrivals after exponential gaps, each paired with the same request back to back; median
 * of means over 8 trials; estimators.ts idlePenaltyFromPairs). Prints each trial's figures and
 * each estimator's spread. A diagnostic of calibration, not of the evaluation set.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/idle-penalty.ts [--trials K] [--gap-ms G] [--no-legacy]
 */
import { loadavg } from 'node:os';
import { openGpu, requestAdapter } from '../../src/runtime/gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../../src/runtime/gpu/harness.js';
import { capsFromDevice } from '../../src/runtime/gpu/adapter.js';
import { idlePenaltyFromPairs, mean, medianOf, type IdlePair } from '../../src/runtime/calibrate/estimators.js';
import { prepareCase, robustStats, sequenceTimer, timeSequence } from '../../src/runtime/calibrate/measure.js';
import { convCase, matmulCase } from '../../src/runtime/calibrate/synthetic.js';
import { kingmanWaitMs } from '../../src/runtime/predict/queueing.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : fallback; };
const trials = flag('--trials', 4);
const gapMs = flag('--gap-ms', 30);

const gpu = openGpu();
const adapter = await requestAdapter(gpu, 'auto');
const device = await adapter.requestDevice(kernelDeviceDescriptor(adapter, 'idle-penalty'));
const pipelines = new KernelPipelines(device);
const caps = capsFromDevice(device);
const req = await Promise.all([convCase(16, 32, 32, 3), matmulCase(128, 128, 128), matmulCase(96, 256, 64)].map(c => prepareCase(device, pipelines, c, caps)));
await timeSequence(device, req, 3);
const stream = sequenceTimer(device, req);
let seed = 0x9e3779b9;
const uniform = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return (seed + 0.5) / 4294967296; };
const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/** The estimator of calibrate.ts up to baac585 (copied here to compare; not used by calibration any more). */
async function legacy(): Promise<{ wallMs: number; gpuMsPerPass: number }> {
    const jitter = await stream.run(100);
    const winsorized = (xs: readonly number[]) => {
        const sorted = [...xs].sort((x, y) => x - y), cap = sorted[Math.min(sorted.length - 1, Math.floor(0.975 * sorted.length))];
        return mean(xs.map(x => Math.min(x, cap)));
    };
    const backToBack = winsorized(jitter.walls), passes = jitter.passes, serviceCv = robustStats(jitter.walls).cv;
    const penalties: { wallMs: number; gpuMsPerPass: number }[] = [];
    for (const load of [0.2, 0.35]) {
        const lambda = load / backToBack;
        const latencies: number[] = [], gpuTimes: number[] = [];
        const start = performance.now();
        let arrival = 0;
        for (let r = 0; r < 120; r++) {
            arrival += -Math.log(uniform()) / lambda;
            const wait = start + arrival - performance.now();
            if (wait > 0) await sleep(wait);
            const t = await stream.run(1);
            latencies.push(performance.now() - (start + arrival));
            gpuTimes.push(t.gpu[0]);
        }
        const measured = winsorized(latencies);
        const latencyWith = (extra: number) => {
            const sAdj = (backToBack + extra) / (1 + extra * lambda);
            const rho = lambda * sAdj;
            return rho >= 1 ? Infinity : sAdj + kingmanWaitMs(rho, sAdj, 1, serviceCv * serviceCv);
        };
        let lo = 0, hi = 200;
        if (latencyWith(0) >= measured) hi = 0;
        for (let i = 0; i < 50 && hi > 0; i++) { const mid = (lo + hi) / 2; if (latencyWith(mid) < measured) lo = mid; else hi = mid; }
        const pIdle = Math.max(0.1, 1 - lambda * (backToBack + hi) / (1 + hi * lambda));
        const gpuMsPerPass = Math.max(0, (winsorized(gpuTimes) - winsorized(jitter.gpu)) / passes / pIdle);
        penalties.push({ wallMs: Math.max(0, hi - passes * gpuMsPerPass), gpuMsPerPass });
    }
    return { wallMs: mean(penalties.map(p => p.wallMs)), gpuMsPerPass: mean(penalties.map(p => p.gpuMsPerPass)) };
}

/** The paired estimator calibrate.ts uses (same gaps and counts). */
async function paired(): Promise<{ wallMs: number; gpuMsPerPass: number; trialsMs: number[] }> {
    const pairs: IdlePair[] = [];
    for (let i = 0; i < 96; i++) {
        const gap = Math.min(150, Math.max(3, -Math.log(uniform()) * gapMs));
        const arrival = performance.now() + gap;
        await sleep(gap);
        const idle = await stream.run(1);
        const idleWallMs = performance.now() - arrival;
        const busy = await stream.run(2);
        pairs.push({ idleWallMs, idleGpuMs: idle.gpu[0], backToBackWallMs: mean(busy.walls), backToBackGpuMs: mean(busy.gpu) });
    }
    return idlePenaltyFromPairs(pairs, req.reduce((s, c) => s + c.steps.length, 0), 8);
}

const passes = req.reduce((s, c) => s + c.steps.length, 0);
const total = (p: { wallMs: number; gpuMsPerPass: number }) => p.wallMs + passes * p.gpuMsPerPass;
const results = { legacy: [] as number[], paired: [] as number[] };
for (let k = 0; k < trials; k++) {
    const l = args.includes('--no-legacy') ? undefined : await legacy();
    const p = await paired();
    if (l) results.legacy.push(total(l));
    results.paired.push(total(p));
    console.log(`trial ${k + 1}/${trials} (load ${loadavg()[0].toFixed(1)}): ${l ? `legacy +${l.wallMs.toFixed(2)} ms + ${l.gpuMsPerPass.toFixed(3)}/pass = ${total(l).toFixed(2)} ms; ` : ''}paired (gaps ${gapMs} ms) +${p.wallMs.toFixed(2)} ms + ${p.gpuMsPerPass.toFixed(3)}/pass = ${total(p).toFixed(2)} ms (its trials ${p.trialsMs.map(x => x.toFixed(1)).join(' ')})`);
}
for (const [name, xs] of Object.entries(results)) {
    if (xs.length === 0) continue;
    console.log(`${name}: extra ms per idle request (${passes} passes) median ${medianOf(xs).toFixed(2)}, range ${Math.min(...xs).toFixed(2)}…${Math.max(...xs).toFixed(2)}`);
}
stream.destroy();
for (const p of req) p.destroy();
device.destroy();
