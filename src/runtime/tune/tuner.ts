/// <reference types="@webgpu/types" />
/**
 * Measured variant selection: for one op signature, time a shortlist of kernel variants on the
 * device (GPU timestamps, a few repetitions; CPU wall time when the device has no timestamps),
 * check each candidate's output against the default variant's, and record the fastest correct
 * one in an adapter's tuning cache (./cache.ts). Candidates are timed in interleaved rounds and
 * keep their fastest sample (a busy host only slows samples down); one that loses by 3× on its
 * first run is not repeated, so slow variants (workgroup-memory tiles on a CPU adapter) cost one run.
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelRequest, OpKernels } from '../kernels/kernel.js';
import { kernelsFor, variantsFor } from '../kernels/index.js';
import { channelAxisFor } from '../kernels/common.js';
import { defaultGemmVariant, gemmVariantName, KDOT_MAX_COLUMNS, needsSubgroups } from '../kernels/matmul.js';
import { isWinogradShape } from '../kernels/conv2d.js';
import { KernelPipelines, median, runOpKernels, seededRandom, timeOpKernels, createOpBuffers, prepareLaunches, encodeSteps, type OpRunInput } from '../gpu/harness.js';
import type { TunedEntry } from './cache.js';
import { numel } from '../ir/types.js';

/** What is tuned: one op with concrete shapes and its fused epilogue (variant and caps are the tuner's). */
export interface TuneTarget {
    /** compile/tuning.ts opSignature of the op. */
    signature: string;
    op: IrOp;
    inputShapes: number[][];
    outputShape: number[];
    epilogue: Epilogue[];
}

/** How a candidate is timed: median ms of `reps` runs (tests inject a fake). */
export type MeasureFn = (kernels: OpKernels, run: OpRunInput, reps: number, label: string) => Promise<number>;

export interface TuneOptions {
    device: GPUDevice;
    caps: DeviceCaps;
    /** Kernel generators (default src/runtime/kernels). */
    kernels?: { kernelsFor(request: KernelRequest): OpKernels };
    /** Candidate variants of a target (default {@link shortlistFor}). */
    candidates?: (target: TuneTarget, caps: DeviceCaps) => string[];
    /** Timed rounds over the contenders after the first run of each (default 3; each keeps its fastest sample). */
    reps?: number;
    /** Compare each candidate's output with the default variant's (default true). */
    verify?: boolean;
    /** Relative error (L2) a candidate may differ from the default by (default 1e-3). */
    tolerance?: number;
    /** Timing (default: GPU timestamps when the device has them, else CPU wall time). */
    measure?: MeasureFn;
    signal?: AbortSignal;
    /** Host load (1 min) recorded with each entry, if known. */
    loadAverage?: () => number | undefined;
}

/** GEMM-shaped ops share one shortlist (the variants that ever won somewhere, plus one per family). */
function gemmShortlist(M: number, N: number, K: number, batch: number, caps: DeviceCaps): string[] {
    const out = caps.subgroupSize !== undefined ? ['sgrow_8x4', 'sg_8x4', 'sg_4x4'] : [];
    out.push('vec4_4x8', 'vec4_4x4', 'wgmem_16x16');
    // Split-K only where it can matter: few output tiles and a long K.
    if (M * N * batch <= 256 * 256 && K >= 512) out.push(...(caps.subgroupSize !== undefined ? ['sgsplitk_4'] : []), 'splitk_4');
    // Few columns: lanes splitting K instead of register tiles 32 columns wide.
    if (N <= KDOT_MAX_COLUMNS) out.push('kdot_8');
    // The default is always timed (a 1- or 2-row dense's is tiles of as many rows, listed nowhere else).
    const fallback = gemmVariantName(defaultGemmVariant(M, N, K, batch, caps));
    if (!out.includes(fallback)) out.push(fallback);
    return out;
}

/**
 * The variants worth timing for an op: a shortlist of `variantsFor(op, caps)` (never the
 * capped occupancy variants, which exist for co-location, not speed). Ops with one variant
 * get a one-element list (nothing to tune).
 */
export function shortlistFor(target: TuneTarget, caps: DeviceCaps): string[] {
    const { op, inputShapes, outputShape } = target;
    const valid = variantsFor(op, caps);
    // Generators accept parametrised names beyond the listed ones (im2col_splitk_4); drop only what the device cannot run.
    const keep = (xs: string[]) => [...new Set(xs)].filter(v => caps.subgroupSize !== undefined || !needsSubgroups(v));
    switch (op.kind) {
        case 'dense': {
            const x = inputShapes[0];
            return keep(gemmShortlist(numel(x.slice(0, -1)), outputShape[outputShape.length - 1], x[x.length - 1], 1, caps));
        }
        case 'matmul': {
            const a = inputShapes[0];
            const M = a[a.length - 2], K = a[a.length - 1], N = outputShape[outputShape.length - 1];
            return keep(gemmShortlist(M, N, K, numel(outputShape.slice(0, -2)), caps));
        }
        case 'attention': case 'lstm': {
            const x = inputShapes[0];
            // Their GEMMs are wider than the op's width (attention's qkv 3×, an lstm's gates 4×): no kdot (≤ 16 columns).
            return keep(gemmShortlist(numel(x.slice(0, -1)), x[x.length - 1], x[x.length - 1], 1, caps).filter(v => v !== 'wgmem_16x16' && !v.startsWith('kdot_')));
        }
        case 'conv2d': {
            const [n, c] = inputShapes[0];
            const F = outputShape[1], P = outputShape[2] * outputShape[3];
            const groups = Number(op.attrs.groups ?? 1);
            if (valid.includes('pointwise_vec4_4x8')) {
                return keep([...gemmShortlist(F, P, c, n, caps).map(v => `pointwise_${v}`), 'im2col_vec4_4x8']);
            }
            const sg = caps.subgroupSize !== undefined;
            const wino = isWinogradShape(op) ? [...(sg ? ['winograd_sgrow_8x4'] : []), 'winograd_vec4_4x8'] : [];
            const list = [...wino, ...(sg ? ['im2col_sgrow_8x4', 'im2col_sg_4x4'] : []), 'im2col_vec4_4x8', 'im2col_vec4_4x4', 'gemm_4x8', 'gemm_4x4'];
            if (F / groups < 16) list.push('direct');
            if (F * P <= 256 * 64) list.push(...(sg ? ['im2col_sgsplitk_4'] : []), 'im2col_splitk_4');
            if (P <= KDOT_MAX_COLUMNS) list.push('im2col_kdot_8');
            return keep(list);
        }
        default:
            return valid.filter(v => !/^capped_/.test(v));
    }
}

function randomInput(n: number, seed: number): Float32Array {
    const r = seededRandom(seed);
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = 2 * r() - 1;
    return a;
}

/** Inputs and epilogue tensors for timing a target (seeded, so every candidate sees the same data). */
export function tuneRunInput(target: TuneTarget): OpRunInput {
    const outN = numel(target.outputShape);
    const inputs = target.inputShapes.map((s, i) => target.op.kind === 'embedding' && i === 0 ? new Int32Array(numel(s)) : randomInput(numel(s), 11 + i));
    const rank = target.outputShape.length;
    const C = rank ? target.outputShape[channelAxisFor(target.op.kind, rank)] : 1;
    const extras: Record<string, Float32Array> = {};
    for (const e of target.epilogue) {
        if (e.kind === 'bias') extras[e.tensor] = randomInput(C, 3);
        else if (e.kind === 'scale_shift') { extras[e.scale] = randomInput(C, 4); extras[e.shift] = randomInput(C, 5); }
        else if (e.kind === 'add' || e.kind === 'mul') extras[e.tensor] = randomInput(outN, 6);
    }
    return { inputs, extras, outputElements: outN, seed: 1 };
}

/** GPU-timestamp timing when the device has it, else CPU wall time per submit (median of reps). */
export function defaultMeasure(device: GPUDevice, pipelines: KernelPipelines): MeasureFn {
    return async (k, run, reps, label) => {
        if (device.features.has('timestamp-query')) return median(await timeOpKernels(device, pipelines, label, k, run, reps, 1));
        const bufs = createOpBuffers(device, label, k, run);
        const prepared = await prepareLaunches(device, pipelines, k, bufs);
        try {
            const samples: number[] = [];
            for (let r = 0; r < reps + 1; r++) {
                const t = performance.now();
                const enc = device.createCommandEncoder({ label });
                encodeSteps(enc, prepared.steps);
                device.queue.submit([enc.finish()]);
                await device.queue.onSubmittedWorkDone();
                if (r > 0) samples.push(performance.now() - t);
            }
            return median(samples);
        } finally {
            prepared.destroy();
            bufs.destroy();
        }
    };
}

function relErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
    let num = 0, den = 0;
    for (let i = 0; i < want.length; i++) { num += (got[i] - want[i]) ** 2; den += want[i] ** 2; }
    return Math.sqrt(num) / Math.max(Math.sqrt(den), 1e-30);
}

/** A candidate that loses by this factor on its first run is not repeated. */
const ABANDON_FACTOR = 3;

/**
 * Times the shortlist of one target and returns the entry to record, or undefined when fewer
 * than two candidates could run (nothing to choose). Never throws for a candidate's failure:
 * it is recorded with its error.
 */
export async function tuneTarget(target: TuneTarget, options: TuneOptions): Promise<TunedEntry | undefined> {
    const { device, caps } = options;
    const generators = options.kernels ?? { kernelsFor };
    const pipelines = new KernelPipelines(device);
    const measure = options.measure ?? defaultMeasure(device, pipelines);
    const reps = Math.max(1, options.reps ?? 3);
    const candidates = (options.candidates ?? shortlistFor)(target, caps);
    if (candidates.length < 2) return undefined;
    const run = tuneRunInput(target);
    const label = `tune/${target.op.path}`;
    let reference: Float32Array | undefined;
    if (options.verify ?? true) {
        // The default variant's output (and weights) is what every candidate must reproduce;
        // the default chosen without subgroups, so a subgroup layout the sg_* kernels do not
        // expect shows up as a wrong result instead of becoming the reference.
        const k = generators.kernelsFor({ ...target, variant: undefined, caps: { ...caps, subgroupSize: undefined } });
        const r = await runOpKernels(device, pipelines, `${label}[default]`, k, run);
        reference = r.output;
        run.weights = r.weights;
    }
    const results: TunedEntry['candidates'] = [];
    const failed = (variant: string, error: unknown) => {
        if (options.signal?.aborted) throw error;
        results.push({ variant, ms: null, error: (error instanceof Error ? error.message : String(error)).split('\n')[0] });
    };
    // First pass: build, check and time each candidate once.
    const alive: { variant: string; kernels: OpKernels; ms: number }[] = [];
    for (const variant of candidates) {
        options.signal?.throwIfAborted();
        try {
            const k = generators.kernelsFor({ ...target, variant, caps });
            if (reference) {
                const { output } = await runOpKernels(device, pipelines, `${label}[${variant}]`, k, run);
                const err = relErr(output, reference);
                if (!(err <= (options.tolerance ?? 1e-3))) throw new Error(`wrong result: relative error ${err.toExponential(2)} against the default variant`);
            }
            alive.push({ variant, kernels: k, ms: await measure(k, run, 1, `${label}[${variant}]`) });
        } catch (error) {
            failed(variant, error);
        }
    }
    // Then rounds over the contenders, keeping each one's fastest sample: other processes only
    // ever slow a sample down, so the minimum over interleaved rounds is the least load-biased.
    const best = Math.min(...alive.map(a => a.ms));
    const contenders = alive.filter(a => a.ms <= ABANDON_FACTOR * best);
    for (let round = 0; round < reps && contenders.length > 1; round++) {
        for (const c of contenders) {
            options.signal?.throwIfAborted();
            try {
                c.ms = Math.min(c.ms, await measure(c.kernels, run, 1, `${label}[${c.variant}]`));
            } catch (error) {
                failed(c.variant, error);
                c.ms = NaN;
            }
        }
    }
    for (const a of alive) if (!Number.isNaN(a.ms)) results.push({ variant: a.variant, ms: a.ms });
    const ok = results.filter((r): r is { variant: string; ms: number } => r.ms !== null).sort((a, b) => a.ms - b.ms);
    if (ok.length === 0) return undefined;
    const bad = results.filter(r => r.ms === null);
    const load = options.loadAverage?.();
    return {
        variant: ok[0].variant, ms: ok[0].ms, candidates: [...ok, ...bad], tunedAt: new Date().toISOString(),
        ...(load !== undefined && Number.isFinite(load) ? { loadAverage: load } : {}),
    };
}

/** A tuning cache the tuner can fill. */
export interface RecordingTuningCache {
    has(signature: string): boolean;
    record(signature: string, entry: TunedEntry): void;
}

/** Progress of {@link tuneTargets}: targets done of total, and the op being tuned. */
export type TuneProgress = (done: number, total: number, target: TuneTarget) => void;

/**
 * Tunes every target whose signature the cache lacks (each distinct signature once) and
 * records the choices; returns how many were tuned and which had nothing to choose from.
 * Calibration can call this with the ops of its workloads to fill the cache too.
 */
export async function tuneTargets(targets: readonly TuneTarget[], cache: RecordingTuningCache, options: TuneOptions & { onProgress?: TuneProgress }):
    Promise<{ tuned: string[]; untunable: string[] }> {
    const seen = new Set<string>();
    const todo = targets.filter(t => !cache.has(t.signature) && !seen.has(t.signature) && (seen.add(t.signature), true));
    const tuned: string[] = [], untunable: string[] = [];
    for (const [i, t] of todo.entries()) {
        options.onProgress?.(i, todo.length, t);
        const entry = await tuneTarget(t, options);
        if (entry) { cache.record(t.signature, entry); tuned.push(t.signature); } else untunable.push(t.signature);
    }
    if (todo.length > 0) options.onProgress?.(todo.length, todo.length, todo[todo.length - 1]);
    return { tuned, untunable };
}
