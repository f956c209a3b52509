/// <reference types="@webgpu/types" />
/**
 * GPU timing primitives for calibration: per-launch GPU time with timestamp queries (one
 * compute pass per launch, as the runtime encodes ops), wall time of whole submissions, and an
 * aggressor loop that keeps a second device busy. Every wait is bounded (execute/wait.ts).
 */
import { withTimeout } from '../gpu/wait.js';
import { submitChecked } from '../gpu/submit.js';
import { createOpBuffers, median, prepareLaunches, type KernelPipelines, type OpBuffers } from '../gpu/harness.js';
import { kernelsFor } from '../kernels/index.js';
import type { DeviceCaps, OpKernels } from '../kernels/kernel.js';
import { numel } from '../ir/types.js';
import { randomIds } from '../plan/weights.js';
import { createRandom } from '../plan/random.js';
import type { SyntheticCase } from './synthetic.js';

/** Longest a single GPU wait may take during calibration (a lost device must not hang the command); lavapipe JIT-compiles a pipeline at its first dispatch, which took up to 20 s for workgroup-memory kernels on a loaded 2-core machine. */
export const WAIT_LIMIT_MS = 120_000;

type Step = { pipeline: GPUComputePipeline; group: GPUBindGroup; dispatch: [number, number, number] };

/** A synthetic op with its buffers and bind groups on a device, ready to time. */
export interface PreparedCase {
    case: SyntheticCase;
    kernels: OpKernels;
    steps: Step[];
    destroy(): void;
}

/** Deterministic small input data (values do not change timing; NaN-free keeps every backend on its fast path). */
function inputData(shape: number[], seed: number): Float32Array {
    const a = new Float32Array(numel(shape));
    let s = seed >>> 0;
    for (let i = 0; i < a.length; i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        a[i] = (s / 4294967296) - 0.5;
    }
    return a;
}

/**
 * A synthetic op's input data: seeded floats in [−0.5, 0.5), and an embedding's ids as a run
 * draws them (plan/weights.ts randomIds), across the whole table — float bits read as ids clamp
 * to the table's first and last rows, a gather that would always hit the cache.
 */
export function caseInputs(c: SyntheticCase): (Float32Array | Int32Array)[] {
    return c.inputShapes.map((s, i) => (c.op.kind === 'embedding' && i === 0 ? randomIds(numel(s), Number(c.op.attrs.vocab), createRandom(17 + i)) : inputData(s, 17 + i)));
}

/** Builds the kernels, buffers and bind groups of a synthetic op. */
export async function prepareCase(device: GPUDevice, pipelines: KernelPipelines, c: SyntheticCase, caps: DeviceCaps): Promise<PreparedCase> {
    const kernels = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps });
    let bufs: OpBuffers | undefined;
    try {
        bufs = createOpBuffers(device, c.shape, kernels, {
            inputs: caseInputs(c),
            outputElements: numel(c.outputShape),
            seed: 7,
        });
        const prepared = await prepareLaunches(device, pipelines, kernels, bufs);
        const b = bufs;
        return { case: c, kernels, steps: prepared.steps, destroy: () => { prepared.destroy(); b.destroy(); } };
    } catch (e) {
        bufs?.destroy();
        throw e;
    }
}

/** Encodes each step in its own compute pass, optionally timestamped at pass boundaries. */
function encodePasses(encoder: GPUCommandEncoder, steps: Step[], querySet?: GPUQuerySet, firstQuery = 0): void {
    steps.forEach((s, i) => {
        const pass = encoder.beginComputePass(querySet
            ? { timestampWrites: { querySet, beginningOfPassWriteIndex: firstQuery + 2 * i, endOfPassWriteIndex: firstQuery + 2 * i + 1 } }
            : {});
        pass.setPipeline(s.pipeline);
        pass.setBindGroup(0, s.group);
        pass.dispatchWorkgroups(...s.dispatch);
        pass.end();
    });
}

/**
 * GPU time (ms) of each launch over `reps` repetitions: result[launch][rep]. One submission per
 * repetition. With `scrub`, an untimed pass of that case runs first in every repetition: it
 * evicts the caches, as the rest of a model's request does between two runs of one op (on a
 * CPU adapter a small op repeated back to back would otherwise run from a warm L2).
 */
export async function timeLaunches(device: GPUDevice, prepared: PreparedCase, reps: number, signal?: AbortSignal, scrub?: PreparedCase): Promise<number[][]> {
    const L = prepared.steps.length;
    const count = 2 * L * reps;
    const qs = device.createQuerySet({ label: `${prepared.case.shape}.timestamps`, type: 'timestamp', count });
    const resolve = device.createBuffer({ size: 8 * count, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const staging = device.createBuffer({ size: 8 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    try {
        for (let r = 0; r < reps; r++) {
            signal?.throwIfAborted();
            const enc = device.createCommandEncoder({ label: prepared.case.shape });
            if (scrub) encodePasses(enc, scrub.steps);
            encodePasses(enc, prepared.steps, qs, 2 * L * r);
            device.queue.submit([enc.finish()]);
            await withTimeout(device.queue.onSubmittedWorkDone(), WAIT_LIMIT_MS, `calibration kernel ${prepared.case.shape}`, signal);
        }
        const enc = device.createCommandEncoder();
        enc.resolveQuerySet(qs, 0, count, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, staging, 0, 8 * count);
        device.queue.submit([enc.finish()]);
        await withTimeout(staging.mapAsync(GPUMapMode.READ), WAIT_LIMIT_MS, 'timestamp readback', signal);
        const t = new BigUint64Array(staging.getMappedRange().slice(0));
        staging.unmap();
        const out: number[][] = Array.from({ length: L }, () => []);
        for (let r = 0; r < reps; r++) {
            for (let l = 0; l < L; l++) {
                const i = 2 * (L * r + l);
                out[l].push(Math.max(0, Number(t[i + 1] - t[i]) / 1e6));
            }
        }
        return out;
    } finally {
        qs.destroy();
        resolve.destroy();
        staging.destroy();
    }
}

/** What timeSequence measured: per case, per launch, per repetition GPU time; per repetition wall time and the number of passes. */
export interface SequenceTimes {
    /** GPU time (ms) of each launch: launches[case][launch][rep]. */
    launches: number[][][];
    /** Wall time (ms) of each repetition: submit → onSubmittedWorkDone seen by this process. */
    walls: number[];
    /** Σ of the repetition's pass times (ms), per repetition. */
    gpu: number[];
    passes: number;
}

/**
 * Times cases the way the runtime runs a tenant's request: every launch in its own timestamped
 * pass, all the cases one after another in ONE submission (validation scope, query resolve and
 * readback copy as the runtime's TenantRunner encodes them), awaited with onSubmittedWorkDone,
 * repetitions back to back. Each op therefore runs with the caches a model leaves (what the
 * previous op touched) and the driver's worker threads in the state a request keeps them in,
 * instead of after an artificial scrub or warm repeats of itself.
 */
export async function timeSequence(device: GPUDevice, cases: readonly PreparedCase[], reps: number, signal?: AbortSignal): Promise<SequenceTimes> {
    const timer = sequenceTimer(device, cases);
    try {
        return await timer.run(reps, signal);
    } finally {
        timer.destroy();
    }
}

/** timeSequence's resources kept between calls (query set, resolve and readback buffers), for requests timed one at a time. */
export function sequenceTimer(device: GPUDevice, cases: readonly PreparedCase[]): { run(reps: number, signal?: AbortSignal): Promise<SequenceTimes>; destroy(): void } {
    const steps = cases.flatMap(c => c.steps);
    const L = steps.length;
    const qs = device.createQuerySet({ label: 'calibration.sequence', type: 'timestamp', count: 2 * L });
    const resolve = device.createBuffer({ size: 16 * L, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const free: GPUBuffer[] = [];
    const all: GPUBuffer[] = [];
    const run = async (reps: number, signal?: AbortSignal): Promise<SequenceTimes> => {
        const pending: Promise<BigUint64Array>[] = [];
        const walls: number[] = [];
        for (let r = 0; r < reps; r++) {
            signal?.throwIfAborted();
            let readback = free.pop();
            if (!readback) { readback = device.createBuffer({ size: 16 * L, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }); all.push(readback); }
            const rb = readback;
            const enc = device.createCommandEncoder({ label: 'calibration.sequence' });
            encodePasses(enc, steps, qs, 0);
            enc.resolveQuerySet(qs, 0, 2 * L, resolve, 0);
            enc.copyBufferToBuffer(resolve, 0, rb, 0, 16 * L);
            const t0 = performance.now();
            const submitted = await submitChecked(device, enc, WAIT_LIMIT_MS, `calibration sequence ${cases[0]?.case.shape ?? ''}`, signal);
            if (submitted.error) throw new Error(`calibration sequence (${cases.map(c => c.case.shape).join(', ')}): GPU validation error: ${submitted.error.message}`);
            walls.push(submitted.doneAt - t0);
            // Read back off the critical path, as the runtime does.
            pending.push(withTimeout(rb.mapAsync(GPUMapMode.READ), WAIT_LIMIT_MS, 'timestamp readback', signal)
                .then(() => { const t = new BigUint64Array(rb.getMappedRange().slice(0)); rb.unmap(); free.push(rb); return t; }));
        }
        const stamps = await Promise.all(pending);
        const launches = cases.map(c => c.steps.map(() => [] as number[]));
        const gpu: number[] = [];
        for (const t of stamps) {
            let i = 0, total = 0;
            cases.forEach((c, ci) => c.steps.forEach((_, li) => {
                const ms = Math.max(0, Number(t[2 * i + 1] - t[2 * i]) / 1e6);
                launches[ci][li].push(ms);
                total += ms;
                i++;
            }));
            gpu.push(total);
        }
        return { launches, walls, gpu, passes: L };
    };
    return {
        run,
        destroy: () => {
            qs.destroy();
            resolve.destroy();
            for (const b of all) b.destroy();
        },
    };
}

/** Wall time (ms) of one submission holding `passes` copies of the case's launches, to completion. */
export async function wallTimeOfSubmit(device: GPUDevice, prepared: PreparedCase, passes: number, signal?: AbortSignal): Promise<number> {
    const steps: Step[] = [];
    for (let i = 0; i < passes; i++) steps.push(...prepared.steps);
    const t0 = performance.now();
    const enc = device.createCommandEncoder();
    encodePasses(enc, steps);
    device.queue.submit([enc.finish()]);
    await withTimeout(device.queue.onSubmittedWorkDone(), WAIT_LIMIT_MS, 'calibration submit', signal);
    return performance.now() - t0;
}

/**
 * Keeps a device busy with a case's launches until `stop()`; `stop()` resolves when the last
 * submission finished. Each submission repeats the launches `repeat` times and three are kept
 * in flight: completion callbacks reach Node only when Dawn polls its events, and a queue fed
 * one short submission at a time would idle between polls.
 */
export function startAggressor(device: GPUDevice, prepared: PreparedCase, signal?: AbortSignal, repeat = 4): { stop(): Promise<void>; completed(): number } {
    let running = true;
    let done = 0;
    const steps: Step[] = [];
    for (let i = 0; i < repeat; i++) steps.push(...prepared.steps);
    const submitOne = () => {
        const enc = device.createCommandEncoder({ label: 'aggressor' });
        encodePasses(enc, steps);
        device.queue.submit([enc.finish()]);
        return withTimeout(device.queue.onSubmittedWorkDone(), WAIT_LIMIT_MS, 'aggressor kernel', signal).then(() => { done++; });
    };
    const loop = (async () => {
        const inFlight = [submitOne(), submitOne(), submitOne()];
        while (running && !signal?.aborted) {
            await inFlight.shift();
            inFlight.push(submitOne());
        }
        await Promise.all(inFlight);
    })();
    return { stop: async () => { running = false; await loop; }, completed: () => done };
}

/** Median and a robust coefficient of variation (IQR / 1.349 / median: insensitive to other processes' bursts). */
export function robustStats(xs: readonly number[]): { median: number; cv: number } {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p: number) => {
        const h = (s.length - 1) * p, lo = Math.floor(h), hi = Math.min(lo + 1, s.length - 1);
        return s[lo] + (h - lo) * (s[hi] - s[lo]);
    };
    const m = median(s);
    return { median: m, cv: m > 0 ? (q(0.75) - q(0.25)) / 1.349 / m : 0 };
}

/** Least-squares line y = a + b·x. */
export function fitLine(xs: readonly number[], ys: readonly number[]): { intercept: number; slope: number } {
    const n = xs.length;
    const mx = xs.reduce((a, b) => a + b, 0) / n, my = ys.reduce((a, b) => a + b, 0) / n;
    let sxy = 0, sxx = 0;
    for (let i = 0; i < n; i++) {
        sxy += (xs[i] - mx) * (ys[i] - my);
        sxx += (xs[i] - mx) ** 2;
    }
    const slope = sxx > 0 ? sxy / sxx : 0;
    return { intercept: my - slope * mx, slope };
}
