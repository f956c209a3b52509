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
 *    mean/median of GPU and wall time of every request timed (the host's stalls); what a request
 *    that finds the device idle pays beyond back to back, through the runtime's own path
 *    (synthetic tenants in the phase loop, closed loop vs low-rate Poisson: the idle penalty).
 * 6. Interference: a victim kernel timed on one device while a second device (a second adapter,
 *    so a second queue) runs an aggressor continuously: compute×compute, compute×memory,
 *    memory×compute, memory×memory and a workgroup-capped variant against compute both ways.
 * 7. Co-run tail: the mid-size request's wall-time tail while the second device computes.
 */
import { availableParallelism, loadavg } from 'node:os';
import { adapterInfo, openGpu, requestAdapter, requestTenantDevice, type AdapterPreference } from '../gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../gpu/harness.js';
import { KernelError } from '../kernels/index.js';
import { capsFromDevice } from '../gpu/adapter.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { familyOf, launchEffectiveFlops } from '../plan/launch.js';
import {
    PROFILE_SCHEMA_VERSION, parseProfile, profileKey, type CurvePoint, type DemandKind, type DeviceProfile, type FamilyProfile,
    type InterferencePair,
} from '../predict/profile.js';
import { normalQuantile } from '../predict/queueing.js';
import { idlePenaltyFromRuntimeTrials, levelledByTrial, mean, meanFactorFromTrials, medianOf, quantileOf, type RuntimeIdleTrial } from './estimators.js';
import { measureRuntimeIdle } from './runtime-idle.js';
import { fitLine, prepareCase, robustStats, startAggressor, timeLaunches, timeSequence, type PreparedCase, type SequenceTimes } from './measure.js';
import { calibrationCases, convCase, idleProbeTenant, interferenceKernels, matmulCase, reluCase, type SyntheticCase } from './synthetic.js';

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

/** Runtime-path idle measurement (step 5b): the synthetic tenants' pointwise blocks (two request lengths: 3 and 11 passes), trials per length, the open-loop rate (requests per second). */
const RUNTIME_IDLE_BLOCKS = [0, 8], RUNTIME_IDLE_TRIALS = 7, RUNTIME_IDLE_RATE = 20;

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
        // One tick per ladder case, six single steps, six interference pairs.
        const totalSteps = ladders.reduce((s, l) => s + l.cases.length, 0) + 6 + 6;
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
        // Per-launch: a stall lands on whichever op is running, so an op's mean time exceeds its median.
        // Each round through all ladders is one trial of the host's mean/median factors (Σ means of
        // that round), over the medians pooled over all rounds; the factor is the median over trials.
        const ladderRounds = quick ? 2 : 5;
        const trialSums = Array.from({ length: ladderRounds }, () => ({ gpuMean: 0, wallMean: 0 }));
        const pooled = { gpuMedian: 0, wallMedian: 0 };
        // Per-case medians moved ±50% between runs on a shared 2-core host with 1.5 s per ladder: more samples, more rounds.
        const ladderBudgetMs = quick ? 500 : 4000;
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
        // The mid-size request of step 5 (a conv and two matmuls in one submission, as a tenant's
        // request) runs in every round too, so its jitter is sampled over the same window as the ladders.
        const requestCases = [convCase(16, 32, 32, 3), matmulCase(128, 128, 128), matmulCase(96, 256, 64)];
        const req = await Promise.all(requestCases.map(c => prep(a, c)));
        await timeSequence(a.device, req, 2, signal);
        const jitterRuns: SequenceTimes[] = [];
        // 300 in all (60 a round): its tail is an empirical p99, which 100 walls spread over the rounds left at 2.6–24 ms.
        const jitterReps = Math.ceil((quick ? 30 : 300) / ladderRounds);
        for (let round = 0; round < ladderRounds; round++) {
            for (const run of runs) run.times.push(await timeSequence(a.device, run.cases, run.reps, signal));
            jitterRuns.push(await timeSequence(a.device, req, jitterReps, signal));
        }
        /** Adds a request's times to the trial sums (round by round) and the pooled medians. */
        const addHostSamples = (perRound: SequenceTimes[]) => {
            const rounds = perRound.length;
            for (let ci = 0; ci < perRound[0].launches.length; ci++) {
                for (let li = 0; li < perRound[0].launches[ci].length; li++) {
                    pooled.gpuMedian += robustStats(perRound.flatMap(x => x.launches[ci][li])).median;
                    perRound.forEach((x, r) => { trialSums[r % rounds].gpuMean += mean(x.launches[ci][li]); });
                }
            }
            pooled.wallMedian += robustStats(perRound.flatMap(x => x.walls)).median;
            perRound.forEach((x, r) => { trialSums[r % rounds].wallMean += mean(x.walls); });
        };
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
            addHostSamples(run.times);
            for (const p of run.cases) { p.destroy(); prepared.splice(prepared.indexOf(p), 1); }
        }
        addHostSamples(jitterRuns);
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

        // 5. Service jitter of the mid-size request, sampled in every round of step 2.
        const jitter: SequenceTimes = {
            launches: req.map((c, ci) => c.steps.map((_, li) => jitterRuns.flatMap(x => x.launches[ci][li]))),
            walls: jitterRuns.flatMap(x => x.walls), gpu: jitterRuns.flatMap(x => x.gpu), passes: jitterRuns[0].passes,
        };
        const walled = jitter.walls;
        // The CV within each round (the jitter of a request at one host state), the median over rounds: the
        // CV of all walls pooled swung 3.5…60% between calibrations as other processes came and went.
        const requestMedian = robustStats(walled).median;
        const serviceCv = medianOf(jitterRuns.map(x => robustStats(x.walls).cv));
        // The tail within a host state: each round levelled to the pooled median (a round a burst slowed as a
        // whole is load, not tail; the 100 walls now span the ladders' window instead of 0.2 s back to back).
        const levelled = levelledByTrial(jitterRuns.map(x => x.walls));
        const tailAt = (q: number) => Math.max(0, quantileOf(levelled, q) - requestMedian * (1 + normalQuantile(q) * serviceCv));
        const serviceTailMs = { p90: tailAt(0.9), p95: tailAt(0.95), p99: tailAt(0.99) };
        // Means over medians of every request timed above: what the host's stalls (other processes on the
        // cores a software adapter computes on) add to an average request, GPU time and wall time; the
        // median over the rounds (trials), so one round a burst of other work landed on cannot carry it.
        const hostMeanFactor = {
            gpu: meanFactorFromTrials(trialSums.map(t => t.gpuMean), pooled.gpuMedian),
            wall: meanFactorFromTrials(trialSums.map(t => t.wallMean), pooled.wallMedian),
        };
        tick(`service jitter (robust CV) ${(serviceCv * 100).toFixed(1)}%, tail beyond it at p99 ${serviceTailMs.p99.toFixed(2)} ms; mean/median ${hostMeanFactor.gpu.toFixed(2)} (GPU) ${hostMeanFactor.wall.toFixed(2)} (wall), per round ${trialSums.map(t => (t.wallMean / pooled.wallMedian).toFixed(2)).join(' ')}`);

        // 5b. What a request that finds the device idle pays beyond back to back, through the
        //     runtime's own path (runtime-idle.ts): two synthetic tenants of different lengths
        //     compiled and run by TenantRunner in the phase loop, closed loop back to back vs a
        //     low-rate Poisson stream, on a device requested as a tenant's. Idle arrivals timed on
        //     timers outside the runtime (bench/accuracy/idle-penalty.ts) miss most of what
        //     open-loop tenants pay in the runtime on this host.
        const runtimeIdleStarted = performance.now();
        const runtimeDevice = await requestTenantDevice(gpu!, options.preference ?? 'auto', 'calibrate-runtime-idle', { timestamps: true });
        let runtimeTrials: RuntimeIdleTrial[];
        try {
            runtimeTrials = await measureRuntimeIdle(runtimeDevice.device, capsFromDevice(runtimeDevice.device), RUNTIME_IDLE_BLOCKS.map(idleProbeTenant), {
                trials: quick ? 2 : RUNTIME_IDLE_TRIALS, closedRequests: quick ? 8 : 60, openRequests: quick ? 6 : 20, ratePerSecond: RUNTIME_IDLE_RATE, signal,
            });
        } finally {
            runtimeDevice.device.destroy();
        }
        const runtimeIdle = idlePenaltyFromRuntimeTrials(runtimeTrials);
        const idlePenalty = { wallMs: runtimeIdle.wallMs, gpuMsPerPass: runtimeIdle.gpuMsPerPass };
        tick(`idle arrivals (runtime path): +${runtimeIdle.wallMs.toFixed(2)} ms, and +${runtimeIdle.gpuMsPerPass.toFixed(3)} ms per pass (${runtimeIdle.lengths.map(l => `${l.passes} passes: +${l.extraMs.toFixed(2)} ms, GPU +${l.extraGpuMs.toFixed(2)}, trials ${l.trialsMs.map(x => x.toFixed(1)).join(' ')}`).join('; ')}; ${((performance.now() - runtimeIdleStarted) / 1000).toFixed(1)} s)`);

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
            // 300 walls: an empirical p99 of 150 rests on their one or two largest (27…59 ms between calibrations).
            coWalls = (await timeSequence(a.device, req, quick ? 30 : 300, signal)).walls;
        } finally {
            await agg.stop();
        }
        const coMean = mean(coWalls);
        const coCv = robustStats(coWalls).cv;
        const coTailAt = (q: number) => Math.max(0, quantileOf(coWalls, q) - coMean * (1 + normalQuantile(q) * coCv));
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
