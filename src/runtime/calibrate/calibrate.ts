/// <reference types="@webgpu/types" />
/**
 * `tenancy calibrate`: measures a device profile (predict/profile.ts) on the local adapter.
 *
 * 1. Kernel floor: GPU time of a one-workgroup kernel.
 * 2. Per kernel family, a ladder of synthetic ops (synthetic.ts) served by the real kernel
 *    generators: the GPU time of every launch (timestamps, one pass per launch, median of
 *    repeats) at every size — the throughput-vs-size curve.
 * 3. Memory bandwidth: the largest copy-like kernel (relu.map4: read once, write once).
 * 4. Dispatch and submit overhead: wall time of submissions holding 1…48 trivial passes,
 *    fitted as W(K) = u + K·(floor + d).
 * 5. Service jitter: robust CV of the wall time of a repeated mid-size "request".
 * 6. Interference: a victim kernel timed on one device while a second device (a second adapter,
 *    so a second queue) runs an aggressor continuously: compute×compute, compute×memory,
 *    memory×compute, memory×memory and a workgroup-capped variant against compute both ways.
 */
import { availableParallelism, loadavg } from 'node:os';
import { adapterInfo, openGpu, requestAdapter, type AdapterPreference } from '../gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../kernels/harness.js';
import { KernelError, capsFromDevice } from '../kernels/index.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { familyOf, launchEffectiveFlops, writesOutput } from '../predict/plan.js';
import {
    PROFILE_SCHEMA_VERSION, parseProfile, profileKey, type CurvePoint, type DemandKind, type DeviceProfile, type FamilyProfile,
    type InterferencePair,
} from '../predict/profile.js';
import { normalQuantile } from '../predict/queueing.js';
import { fitLine, prepareCase, robustStats, startAggressor, timeLaunches, wallTimeOfSubmit, type PreparedCase } from './measure.js';
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
    /** Elements of the cache scrubber run before every timed repetition (default 8 Mi floats; tests use fewer). */
    scrubElements?: number;
    interference?: Record<DemandKind, SyntheticCase>;
}

/** Bytes-basis families (memory kernels); everything else is interpolated over FLOPs. */
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
        const totalSteps = ladders.reduce((s, l) => s + l.cases.length, 0) + 4 + 6;
        let step = 0;
        const tick = (message: string) => progress(Math.min(1, ++step / totalSteps), message);
        const prep = async (d: Gpu, c: SyntheticCase) => {
            const p = await prepareCase(d.device, d.pipelines, c, d.caps);
            prepared.push(p);
            return p;
        };
        const budgetMs = quick ? 120 : 350;
        const minReps = 3, maxReps = quick ? 9 : 25;
        /** Median GPU time per launch, with repeats sized to the time budget. */
        // Cache scrubber: 8 Mi floats read and written (64 MiB of traffic) evicts the L2 and most of an
        // L3 before every timed repetition, as a model's other ops do between two runs of one op.
        let scrubber: PreparedCase | undefined;
        const measure = async (d: Gpu, p: PreparedCase): Promise<number[]> => {
            // Warm-up (compilation, first touch of memory); a second warm-up only for short kernels.
            let first = await timeLaunches(d.device, p, 1, signal, scrubber);
            if (first.reduce((s, l) => s + l[0], 0) < 20) first = await timeLaunches(d.device, p, 1, signal, scrubber);
            const one = first.reduce((s, l) => s + l[0], 0);
            const reps = Math.max(minReps, Math.min(maxReps, Math.round(budgetMs / Math.max(one, 0.05))));
            const times = await timeLaunches(d.device, p, reps, signal, scrubber);
            return times.map(l => robustStats(l).median);
        };

        // 1. Kernel floor (warm: the floor is the launch cost itself).
        const trivial = await prep(a, reluCase(4));
        const kernelFloorMs = (await measure(a, trivial))[0];
        scrubber = await prep(a, reluCase(options.scrubElements ?? 8 * 1024 * 1024));
        tick(`kernel floor ${kernelFloorMs.toFixed(3)} ms`);

        // 2. Curves per family: every launch's time lands in its own family's curve.
        const points = new Map<string, CurvePoint[]>();
        for (const ladder of ladders) {
            for (const c of ladder.cases) {
                let p: PreparedCase;
                try {
                    p = await prep(a, c);
                } catch (error) {
                    // A variant this device cannot run (e.g. subgroup GEMMs without subgroups): not measured, said so.
                    if (error instanceof KernelError) { tick(`${ladder.family}: ${c.shape} skipped — ${error.message}`); continue; }
                    throw error;
                }
                const ms = await measure(a, p);
                const outputs = c.outputShape.reduce((x, y) => x * y, 1);
                p.kernels.launches.forEach((l, i) => {
                    const fam = familyOf(l.name);
                    const list = points.get(fam) ?? [];
                    list.push({
                        flops: l.flops, bytes: Math.max(1, l.bytes), workgroups: l.dispatch[0] * l.dispatch[1] * l.dispatch[2],
                        effectiveFlops: launchEffectiveFlops(l, writesOutput(l) ? outputs : undefined),
                        ms: Math.max(ms[i], 1e-6), shape: `${c.shape} [${l.name}]`,
                    });
                    points.set(fam, list);
                });
                const total = ms.reduce((s, x) => s + x, 0);
                const flops = p.kernels.launches.reduce((s, l) => s + l.flops, 0);
                tick(`${ladder.family}: ${c.shape} ${total.toFixed(3)} ms${flops > 0 ? ` (${(flops / total / 1e6).toFixed(2)} GFLOP/s)` : ''}`);
                p.destroy();
                prepared.splice(prepared.indexOf(p), 1);
            }
        }
        const families: Record<string, FamilyProfile> = {};
        for (const [fam, pts] of points) {
            const basis = BYTES_FAMILIES.has(fam) || pts.every(p => p.flops === 0) ? 'bytes' : 'flops';
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

        // 4. Dispatch and submit overhead: W(K) = u + K·(floor + d).
        const ks = [1, 4, 16, 48];
        const walls: number[] = [];
        for (const k of ks) {
            await wallTimeOfSubmit(a.device, trivial, k, signal);
            const samples: number[] = [];
            for (let r = 0; r < (quick ? 7 : 15); r++) samples.push(await wallTimeOfSubmit(a.device, trivial, k, signal));
            walls.push(robustStats(samples).median);
        }
        const line = fitLine(ks, walls);
        const dispatchOverheadMs = Math.max(0, line.slope - kernelFloorMs);
        const submitOverheadMs = Math.max(0, line.intercept);
        tick(`dispatch overhead ${(dispatchOverheadMs * 1000).toFixed(1)} µs, submit ${(submitOverheadMs * 1000).toFixed(0)} µs`);

        // 5. Service jitter of a mid-size request (a conv and two matmuls, one submission each).
        const requestCases = [convCase(16, 32, 32, 3), matmulCase(128, 128, 128), matmulCase(96, 256, 64)];
        const req = await Promise.all(requestCases.map(c => prep(a, c)));
        const walled: number[] = [];
        for (let r = 0; r < (quick ? 30 : 100); r++) {
            let total = 0;
            for (const p of req) total += await wallTimeOfSubmit(a.device, p, 1, signal);
            walled.push(total);
        }
        const { median: requestMedian, cv: serviceCv } = robustStats(walled);
        const sortedWalls = [...walled].sort((x, y) => x - y);
        const quantile = (q: number) => {
            const h = (sortedWalls.length - 1) * q, lo = Math.floor(h), hi = Math.min(lo + 1, sortedWalls.length - 1);
            return sortedWalls[lo] + (h - lo) * (sortedWalls[hi] - sortedWalls[lo]);
        };
        const tailAt = (q: number) => Math.max(0, quantile(q) - requestMedian * (1 + normalQuantile(q) * serviceCv));
        const serviceTailMs = { p90: tailAt(0.9), p95: tailAt(0.95), p99: tailAt(0.99) };
        tick(`service jitter (robust CV) ${(serviceCv * 100).toFixed(1)}%, tail beyond it at p99 ${serviceTailMs.p99.toFixed(2)} ms`);

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
        const rounds = quick ? 2 : 4, perRound = 3;
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
            serviceTailMs,
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
