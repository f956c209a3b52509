/// <reference types="@webgpu/types" />
/**
 * `tenancy calibrate`: measures a device profile (predict/profile.ts) on the local adapter.
 *
 * 1. Kernel floor: GPU time of a one-workgroup kernel.
 * 2. Per kernel family, a ladder of synthetic ops (synthetic.ts) served by the real kernel
 *    generators, run as a tenant's request runs (measure.ts timeSequence: the ladder's ops one
 *    after another in one submission, a timestamped pass per launch, repetitions back to back):
 *    the median GPU time of every launch at every size — the throughput-vs-size curve.
 * 3. Memory bandwidth: the largest copy-like kernel (relu.map4: read once, write once).
 * 4. Dispatch and submit overhead: what those requests took beyond their passes (submit,
 *    completion seen by Node, gaps), fitted over the ladders as u + passes·d.
 * 5. Service jitter: robust CV and tail of the wall time of a repeated mid-size request; the
 *    mean/median of GPU and wall time of every request timed (the host's stalls); the same
 *    request as an open-loop Poisson stream at two rates (what a request that finds the device
 *    idle pays beyond back to back).
 * 6. Interference: a victim kernel timed on one device while a second device (a second adapter,
 *    so a second queue) runs an aggressor continuously: compute×compute, compute×memory,
 *    memory×compute, memory×memory and a workgroup-capped variant against compute both ways.
 * 7. Co-run tail: the mid-size request's wall-time tail while the second device computes.
 */
import { availableParallelism, loadavg } from 'node:os';
import { adapterInfo, openGpu, requestAdapter, type AdapterPreference } from '../gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../kernels/harness.js';
import { KernelError, capsFromDevice } from '../kernels/index.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { familyOf, launchEffectiveFlops } from '../predict/plan.js';
import {
    PROFILE_SCHEMA_VERSION, parseProfile, profileKey, type CurvePoint, type DemandKind, type DeviceProfile, type FamilyProfile,
    type InterferencePair,
} from '../predict/profile.js';
import { kingmanWaitMs, normalQuantile } from '../predict/queueing.js';
import { fitLine, prepareCase, robustStats, sequenceTimer, startAggressor, timeLaunches, timeSequence, type PreparedCase, type SequenceTimes } from './measure.js';
import { calibrationCases, convCase, interferenceKernels, matmulCase, reluCase, type SyntheticCase } from './synthetic.js';

export interface CalibrateOptions {
    quick?: boolean;
    preference?: AdapterPreference;
    tenancyVersion: string;
    signal?: AbortSignal;
    /** Progress: fraction done (0…1) and what is being measured. */
    onProgress?: (fraction: number, message: string) => void;
    /** Overrides of what is measured (tests use tiny shapes): the size ladders and the interference kernels. */
    ladders?: { family: string; cases: SyntheticCase[] }[];
    interference?: Record<DemandKind, SyntheticCase>;
}

/** Bytes-basis families (memory kernels, by the stem before the dot: `copy.im2col` is a copy); everything else is interpolated over FLOPs. */
const BYTES_FAMILIES = new Set(['elementwise', 'reduction', 'pool', 'copy', 'depthwise_conv2d']);

interface Gpu {
    device: GPUDevice;
    pipelines: KernelPipelines;
    caps: DeviceCaps;
}

async function openDevice(gpu: GPU, preference: AdapterPreference, label: string): Promise<{ dev: Gpu; adapter: GPUAdapter }> {
    const adapter = await requestAdapter(gpu, preference);
    if (!adapter.features.has('timestamp-query')) {
        throw new Error(`the adapter '${adapter.info.device || adapter.info.description}' lacks the timestamp-query feature; calibration needs GPU timestamps`);
    }
    const device = await adapter.requestDevice(kernelDeviceDescriptor(adapter, label));
    return { dev: { device, pipelines: new KernelPipelines(device), caps: capsFromDevice(device) }, adapter };
}

/** Runs calibration and returns the profile (writing it is the caller's business). */
export async function calibrate(options: CalibrateOptions): Promise<DeviceProfile> {
    const started = performance.now();
    const loadBefore = loadavg()[0];
    const quick = options.quick ?? false;
    const signal = options.signal;
    const progress = options.onProgress ?? (() => undefined);
    let gpu: GPU | undefined = openGpu();
    const opened: Gpu[] = [];
    const prepared: PreparedCase[] = [];
    try {
        const { dev: a, adapter } = await openDevice(gpu, options.preference ?? 'auto', 'calibrate-victim');
        opened.push(a);
        const info = adapterInfo(adapter);
        const ladders = options.ladders ?? calibrationCases(quick);
        const totalSteps = ladders.reduce((s, l) => s + l.cases.length, 0) + 5 + 7;
        let step = 0;
        const tick = (message: string) => progress(Math.min(1, ++step / totalSteps), message);
        const prep = async (d: Gpu, c: SyntheticCase) => {
            const p = await prepareCase(d.device, d.pipelines, c, d.caps);
            prepared.push(p);
            return p;
        };
        const minReps = 5, maxReps = quick ? 9 : 40;

        // 1. Kernel floor: a one-workgroup kernel in a request of its own (the launch cost itself).
        const trivial = await prep(a, reluCase(4));
        await timeSequence(a.device, [trivial], 3, signal);
        const kernelFloorMs = robustStats((await timeSequence(a.device, [trivial], 15, signal)).launches[0][0]).median;
        tick(`kernel floor ${kernelFloorMs.toFixed(3)} ms`);

        // 2. Curves per family: each ladder runs as one request-like sequence (timeSequence: one
        //    submission, a pass per launch, repetitions back to back), every launch's median
        //    time lands in its own family's curve. The repetitions are spread over rounds through
        //    all ladders, so a burst of other processes on the host hits a share of every
        //    ladder's samples instead of all of one ladder's. What a request adds beyond its
        //    passes (submit, completion seen by this process, gaps) is kept per ladder for
        //    step 4, and the mean/median of launch and wall times for the host's mean factor.
        const points = new Map<string, CurvePoint[]>();
        const overheads: { passes: number; ms: number }[] = [];
        const sums = { gpuMean: 0, gpuMedian: 0, wallMean: 0, wallMedian: 0 };
        const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
        // Per-case medians moved ±50% between runs on a shared 2-core host with 1.5 s per ladder: more samples, more rounds.
        const ladderBudgetMs = quick ? 500 : 4000;
        const ladderRounds = quick ? 2 : 5;
        const runs: { family: string; cases: PreparedCase[]; reps: number; times: SequenceTimes[] }[] = [];
        for (const ladder of ladders) {
            const cases: PreparedCase[] = [];
            for (const c of ladder.cases) {
                try {
                    cases.push(await prep(a, c));
                } catch (error) {
                    // A variant this device cannot run (e.g. subgroup GEMMs without subgroups): not measured, said so.
                    if (error instanceof KernelError) { tick(`${ladder.family}: ${c.shape} skipped — ${error.message}`); continue; }
                    throw error;
                }
            }
            if (cases.length === 0) continue;
            // Warm-up: pipeline compilation at first dispatch, first touch of memory.
            const warm = await timeSequence(a.device, cases, 2, signal);
            const reps = Math.max(minReps, Math.min(maxReps, Math.round(ladderBudgetMs / Math.max(0.05, robustStats(warm.walls).median))));
            runs.push({ family: ladder.family, cases, reps: Math.ceil(reps / ladderRounds), times: [] });
        }
        for (let round = 0; round < ladderRounds; round++) {
            for (const run of runs) run.times.push(await timeSequence(a.device, run.cases, run.reps, signal));
        }
        for (const run of runs) {
            const t: SequenceTimes = {
                launches: run.cases.map((c, ci) => c.steps.map((_, li) => run.times.flatMap(x => x.launches[ci][li]))),
                walls: run.times.flatMap(x => x.walls), gpu: run.times.flatMap(x => x.gpu), passes: run.times[0].passes,
            };
            run.cases.forEach((p, ci) => {
                const c = p.case;
                const outputs = c.outputShape.reduce((x, y) => x * y, 1);
                const ms = t.launches[ci].map(xs => robustStats(xs).median);
                p.kernels.launches.forEach((l, i) => {
                    const fam = familyOf(l.name);
                    const list = points.get(fam) ?? [];
                    list.push({
                        flops: l.flops, bytes: Math.max(1, l.bytes), workgroups: l.dispatch[0] * l.dispatch[1] * l.dispatch[2],
                        effectiveFlops: launchEffectiveFlops(l, outputs),
                        ms: Math.max(ms[i], 1e-6), shape: `${c.shape} [${l.name}]`,
                    });
                    points.set(fam, list);
                });
                const total = ms.reduce((s, x) => s + x, 0);
                const flops = p.kernels.launches.reduce((s, l) => s + l.flops, 0);
                tick(`${run.family}: ${c.shape} ${total.toFixed(3)} ms${flops > 0 ? ` (${(flops / total / 1e6).toFixed(2)} GFLOP/s)` : ''}`);
            });
            overheads.push({ passes: t.passes, ms: robustStats(t.walls.map((w, r) => w - t.gpu[r])).median });
            // Per launch: a stall lands on whichever op is running, so an op's mean time exceeds its median.
            for (const c of t.launches) for (const xs of c) { sums.gpuMean += mean(xs); sums.gpuMedian += robustStats(xs).median; }
            sums.wallMean += mean(t.walls); sums.wallMedian += robustStats(t.walls).median;
            for (const p of run.cases) { p.destroy(); prepared.splice(prepared.indexOf(p), 1); }
        }
        const families: Record<string, FamilyProfile> = {};
        for (const [fam, pts] of points) {
            const basis = BYTES_FAMILIES.has(fam.split('.')[0]) || pts.every(p => p.flops === 0) ? 'bytes' : 'flops';
            const usable = basis === 'flops' ? pts.filter(p => p.flops > 0) : pts;
            if (usable.length === 0) continue;
            families[fam] = { basis, points: mergeSameWork(usable, basis) };
        }

        // 3. Bandwidth from the largest elementwise (copy-like) point.
        const copyPoints = (families.elementwise?.points ?? []).filter(p => p.shape.startsWith('relu'));
        const largest = copyPoints[copyPoints.length - 1];
        if (!largest) throw new Error('internal: no copy kernel was measured for the memory bandwidth');
        const bandwidthBytesPerMs = largest.bytes / largest.ms;
        tick(`memory bandwidth ${(bandwidthBytesPerMs / 1e6).toFixed(2)} GB/s`);

        // 4. Dispatch and submit overhead from the ladders' requests: wall − Σ pass times = u + passes·d.
        const distinct = new Set(overheads.map(o => o.passes)).size;
        const line = distinct >= 2 ? fitLine(overheads.map(o => o.passes), overheads.map(o => o.ms)) : { intercept: robustStats(overheads.map(o => o.ms)).median, slope: 0 };
        const dispatchOverheadMs = Math.max(0, line.slope);
        const submitOverheadMs = Math.max(0, line.intercept + Math.min(0, line.slope) * robustStats(overheads.map(o => o.passes)).median);
        tick(`dispatch overhead ${(dispatchOverheadMs * 1000).toFixed(1)} µs per pass, submit ${(submitOverheadMs * 1000).toFixed(0)} µs per request`);

        // 5. Service jitter of a mid-size request (a conv and two matmuls in one submission, as a tenant's request).
        const requestCases = [convCase(16, 32, 32, 3), matmulCase(128, 128, 128), matmulCase(96, 256, 64)];
        const req = await Promise.all(requestCases.map(c => prep(a, c)));
        await timeSequence(a.device, req, 2, signal);
        const jitter = await timeSequence(a.device, req, quick ? 30 : 100, signal);
        const walled = jitter.walls;
        for (const c of jitter.launches) for (const xs of c) { sums.gpuMean += mean(xs); sums.gpuMedian += robustStats(xs).median; }
        sums.wallMean += mean(walled); sums.wallMedian += robustStats(walled).median;
        const { median: requestMedian, cv: serviceCv } = robustStats(walled);
        const sortedWalls = [...walled].sort((x, y) => x - y);
        const quantile = (q: number) => {
            const h = (sortedWalls.length - 1) * q, lo = Math.floor(h), hi = Math.min(lo + 1, sortedWalls.length - 1);
            return sortedWalls[lo] + (h - lo) * (sortedWalls[hi] - sortedWalls[lo]);
        };
        const tailAt = (q: number) => Math.max(0, quantile(q) - requestMedian * (1 + normalQuantile(q) * serviceCv));
        const serviceTailMs = { p90: tailAt(0.9), p95: tailAt(0.95), p99: tailAt(0.99) };
        // Means over medians of every request timed above: what the host's stalls (other processes on the
        // cores a software adapter computes on) add to an average request, GPU time and wall time.
        const hostMeanFactor = {
            gpu: Math.max(1, sums.gpuMedian > 0 ? sums.gpuMean / sums.gpuMedian : 1),
            wall: Math.max(1, sums.wallMedian > 0 ? sums.wallMean / sums.wallMedian : 1),
        };
        tick(`service jitter (robust CV) ${(serviceCv * 100).toFixed(1)}%, tail beyond it at p99 ${serviceTailMs.p99.toFixed(2)} ms; mean/median ${hostMeanFactor.gpu.toFixed(2)} (GPU) ${hostMeanFactor.wall.toFixed(2)} (wall)`);

        // 5b. The same request as an open-loop Poisson stream, arrivals waited for on timers as the
        //     runtime's phase loop does, latency from arrival to completion: on a software adapter a
        //     request that finds the device idle takes longer (the driver's worker threads sleep,
        //     other processes take the cores and caches in the gap, the wake-up is late). At two
        //     rates the extra time per idle arrival `a` solves mean latency = S' + W(S') with
        //     S' = (S + a)/(1 + aλ) — the model's own form (latency.ts idleAdjustment) — and the
        //     extra GPU time per pass comes from the passes' mean over back to back.
        // Means, as the model predicts means (the stream's stalls after idle gaps are part of what it pays),
        // winsorized at the 97.5th percentile on both sides: plain means of 80 such latencies ranged
        // +2.4…+15 ms between calibrations a few minutes apart, driven by two or three stalls.
        const winsorized = (xs: readonly number[]) => {
            const sorted = [...xs].sort((x, y) => x - y), cap = sorted[Math.min(sorted.length - 1, Math.floor(0.975 * sorted.length))];
            return mean(xs.map(x => Math.min(x, cap)));
        };
        const backToBack = winsorized(walled), passes = jitter.passes;
        const penalties: { wallMs: number; gpuMsPerPass: number }[] = [];
        let seed = 0x9e3779b9;
        const uniform = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return (seed + 0.5) / 4294967296; };
        const stream = sequenceTimer(a.device, req);
        for (const load of [0.2, 0.35]) {
            signal?.throwIfAborted();
            const lambda = load / backToBack; // per ms
            const latencies: number[] = [], gpuTimes: number[] = [];
            const start = performance.now();
            let arrival = 0;
            for (let r = 0; r < (quick ? 15 : 120); r++) {
                arrival += -Math.log(uniform()) / lambda;
                const wait = start + arrival - performance.now();
                if (wait > 0) await new Promise<void>(resolve => setTimeout(resolve, wait));
                const t = await stream.run(1, signal);
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
            const wallMs = hi;
            const pIdle = Math.max(0.1, 1 - lambda * (backToBack + wallMs) / (1 + wallMs * lambda));
            const gpuMsPerPass = Math.max(0, (winsorized(gpuTimes) - winsorized(jitter.gpu)) / passes / pIdle);
            // The fixed part: what remains of the extra wall time beyond its passes' extra GPU time.
            penalties.push({ wallMs: Math.max(0, wallMs - passes * gpuMsPerPass), gpuMsPerPass });
        }
        stream.destroy();
        const idlePenalty = {
            wallMs: mean(penalties.map(p => p.wallMs)),
            gpuMsPerPass: mean(penalties.map(p => p.gpuMsPerPass)),
        };
        tick(`open loop: a request that finds the device idle takes +${idlePenalty.wallMs.toFixed(2)} ms, and +${idlePenalty.gpuMsPerPass.toFixed(3)} ms per pass`);

        // 6. Interference on a second device (second adapter ⇒ second queue).
        const { dev: b } = await openDevice(gpu, options.preference ?? 'auto', 'calibrate-aggressor');
        opened.push(b);
        const kinds = options.interference ?? interferenceKernels();
        const victims: Record<DemandKind, PreparedCase> = {
            compute: await prep(a, kinds.compute), memory: await prep(a, kinds.memory), capped: await prep(a, kinds.capped),
        };
        const aggressors: Record<DemandKind, PreparedCase> = {
            compute: await prep(b, kinds.compute), memory: await prep(b, kinds.memory), capped: await prep(b, kinds.capped),
        };
        const combos: [DemandKind, DemandKind][] = [
            ['compute', 'compute'], ['compute', 'memory'], ['memory', 'compute'], ['memory', 'memory'], ['capped', 'compute'], ['compute', 'capped'],
        ];
        // Solo and co-run repetitions alternate in rounds, so drifting load from other processes hits both alike.
        // Many short rounds: one pair's slowdown moved 1.3–2.7× between runs with 4 rounds of 3 on a shared host.
        const rounds = quick ? 3 : 12, perRound = 5;
        const pairs: InterferencePair[] = [];
        for (const [v, g] of combos) {
            await timeLaunches(b.device, aggressors[g], 1, signal); // compile + warm the aggressor alone
            await timeLaunches(a.device, victims[v], 1, signal);
            const soloT: number[] = [], coT: number[] = [];
            for (let r = 0; r < rounds; r++) {
                soloT.push(...(await timeLaunches(a.device, victims[v], perRound, signal))[0]);
                const agg = startAggressor(b.device, aggressors[g], signal);
                try {
                    await timeLaunches(a.device, victims[v], 1, signal); // let the aggressor reach its steady state
                    coT.push(...(await timeLaunches(a.device, victims[v], perRound, signal))[0]);
                } finally {
                    await agg.stop();
                }
            }
            const slowdown = robustStats(coT).median / robustStats(soloT).median;
            pairs.push({ victim: v, aggressor: g, slowdown, victimKernel: kinds[v].shape, aggressorKernel: kinds[g].shape });
            tick(`interference ${v} × ${g}: ${slowdown.toFixed(2)}×`);
        }

        // 7. The request's tail while another device computes continuously: co-running tenants on
        //    a software adapter share the cores through the OS scheduler, whose stalls put a far
        //    heavier tail on a request than running alone. Beyond the normal body of its own
        //    mean and CV, like serviceTailMs.
        await timeLaunches(b.device, aggressors.compute, 1, signal);
        const agg = startAggressor(b.device, aggressors.compute, signal);
        let coWalls: number[];
        try {
            await timeSequence(a.device, req, 2, signal);
            coWalls = (await timeSequence(a.device, req, quick ? 30 : 150, signal)).walls;
        } finally {
            await agg.stop();
        }
        const coSorted = [...coWalls].sort((x, y) => x - y);
        const coQuantile = (q: number) => {
            const h = (coSorted.length - 1) * q, lo = Math.floor(h), hi = Math.min(lo + 1, coSorted.length - 1);
            return coSorted[lo] + (h - lo) * (coSorted[hi] - coSorted[lo]);
        };
        const coMean = mean(coWalls);
        const coCv = robustStats(coWalls).cv;
        const coTailAt = (q: number) => Math.max(0, coQuantile(q) - coMean * (1 + normalQuantile(q) * coCv));
        const corunTailMs = { p90: coTailAt(0.9), p95: coTailAt(0.95), p99: coTailAt(0.99) };
        tick(`co-running: request tail beyond its normal body at p99 ${corunTailMs.p99.toFixed(2)} ms (alone ${serviceTailMs.p99.toFixed(2)} ms)`);

        const profile: DeviceProfile = {
            schemaVersion: PROFILE_SCHEMA_VERSION,
            uncalibrated: false,
            key: profileKey(info),
            adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
            createdAt: new Date().toISOString(),
            tenancyVersion: options.tenancyVersion,
            quick,
            limits: {
                maxStorageBufferBindingSize: a.device.limits.maxStorageBufferBindingSize,
                maxBufferSize: a.device.limits.maxBufferSize,
                maxComputeWorkgroupsPerDimension: a.device.limits.maxComputeWorkgroupsPerDimension,
                ...(a.caps.subgroupSize !== undefined ? { subgroupSize: a.caps.subgroupSize } : {}),
            },
            bandwidthBytesPerMs,
            kernelFloorMs,
            dispatchOverheadMs,
            submitOverheadMs,
            serviceCv,
            serviceCvAtMs: requestMedian,
            serviceTailMs,
            corunTailMs,
            hostMeanFactor,
            idlePenalty,
            families,
            interference: { pairs },
            calibrationMs: performance.now() - started,
            hostLoad: { before: loadBefore, after: loadavg()[0], cores: availableParallelism() },
        };
        return parseProfile(profile, 'measured profile');
    } finally {
        for (const p of prepared) p.destroy();
        for (const d of opened) d.device.destroy();
        gpu = undefined;
    }
}

/** Points of equal work and workgroups (e.g. repeated launches of one op) merged by mean time, ascending by the basis. */
function mergeSameWork(points: CurvePoint[], basis: 'flops' | 'bytes'): CurvePoint[] {
    const key = (p: CurvePoint) => (basis === 'flops' ? p.flops : p.bytes);
    const sorted = [...points].sort((x, y) => key(x) - key(y) || x.workgroups - y.workgroups);
    const out: CurvePoint[] = [];
    for (const p of sorted) {
        const last = out[out.length - 1];
        if (last && key(last) === key(p) && last.workgroups === p.workgroups && last.effectiveFlops === p.effectiveFlops) last.ms = (last.ms + p.ms) / 2;
        else out.push({ ...p });
    }
    return out;
}
