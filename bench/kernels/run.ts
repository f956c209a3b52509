/// <reference types="@webgpu/types" />
/**
 * Kernel benchmark: GFLOP/s of our kernel variants (GPU time from timestamp queries, median
 * of repetitions) side by side with TF.js's WebGPU backend on the same adapter in the same run
 * (its own timestamp-query kernel time), and numpy/OpenBLAS float32 GEMM on the same cores.
 * Our variants are measured in interleaved rounds (median of all samples per variant).
 * Also the per-dispatch overhead of our launch path vs a bare Dawn dispatch loop.
 * Run: node bench/bundle-and-run.mjs bench/kernels/run.ts [--quick] [--only matmul,conv,deep,depthwise,bert,head,overhead]
 * Writes bench/.work/kernels.json and prints a markdown table.
 */
import { create, globals } from 'webgpu';
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { kernelsFor } from '../../src/runtime/kernels/index.js';
import { capsFromDevice } from '../../src/runtime/gpu/adapter.js';
import { needsSubgroups } from '../../src/runtime/kernels/matmul.js';
import {
    KernelPipelines, createOpBuffers, encodeSteps, kernelDeviceDescriptor, median, prepareLaunches, timeOpKernels,
} from '../../src/runtime/gpu/harness.js';
import type { IrAttrs, IrOp, IrOpKind } from '../../src/runtime/ir/types.js';
import type { DeviceCaps, OpKernels } from '../../src/runtime/kernels/kernel.js';
import { numel } from '../../src/runtime/ir/types.js';

const FLAGS = ['disable-dawn-features=timestamp_quantization', 'enable-dawn-features=allow_unsafe_apis,disable_robustness'];
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? new Set(args[onlyIdx + 1].split(',')) : undefined;
const TARGET_S = quick ? 0.6 : 2.0; // measured GPU seconds per (case, variant)

type Cls = 'matmul' | 'conv' | 'deep' | 'depthwise' | 'bert' | 'head';
interface Case {
    cls: Cls;
    name: string;
    kind: IrOpKind;
    attrs: IrAttrs;
    inputShapes: number[][];
    outputShape: number[];
    flops: number;
    variants: string[];
    /** The same work as one GEMM [m, n, k] for the BLAS column (none for a depthwise convolution). */
    gemm?: [number, number, number];
    tf: { kind: 'matmul'; m: number; n: number; k: number } | { kind: 'conv' | 'depthwise'; h: number; w: number; c: number; f: number; k: number; stride: number; pad: 'same' | 'valid' };
}

function op(kind: IrOpKind, attrs: IrAttrs, n: number): IrOp {
    return { path: `bench/${kind}`, kind, inputs: Array.from({ length: n }, (_, i) => `t${i}`), output: 'y', attrs, weights: [], flops: 0, bytes: 0 };
}

function cases(): Case[] {
    const out: Case[] = [];
    const mm = (cls: Cls, name: string, m: number, n: number, k: number, variants: string[]): Case => ({
        cls, name, kind: 'matmul', attrs: {}, inputShapes: [[m, k], [k, n]], outputShape: [m, n], flops: 2 * m * n * k, variants,
        gemm: [m, n, k], tf: { kind: 'matmul', m, n, k },
    });
    for (const n of quick ? [256, 1024] : [256, 512, 1024, 2048]) {
        const v = ['sgrow_8x4', 'sg_8x4', 'vec4_4x8', 'vec4_4x4'];
        if (n <= 512) v.push('wgmem_16x16', 'splitk_4');
        if (n <= 1024) v.push('capped_4');
        out.push(mm('matmul', `matmul ${n}³`, n, n, n, v));
    }
    const conv = (name: string, c: number, f: number, hw: number, k: number, variants: string[], stride = 1, cls: Cls = 'conv'): Case => {
        const pad = (k - 1) / 2, ho = Math.floor((hw + 2 * pad - k) / stride) + 1;
        return {
            cls, name, kind: 'conv2d',
            attrs: { filters: f, kernel: [k, k], stride: [stride, stride], padding: [pad, pad, pad, pad], dilation: [1, 1], groups: 1, bias: false },
            inputShapes: [[1, c, hw, hw]], outputShape: [1, f, ho, ho], flops: 2 * f * c * k * k * ho * ho, variants,
            gemm: [f, ho * ho, c * k * k], tf: { kind: 'conv', h: hw, w: hw, c, f, k, stride, pad: k === 1 ? 'valid' : 'same' },
        };
    };
    out.push(conv('resnet50 1×1 256→64 @56²', 256, 64, 56, 1, ['pointwise_sgrow_8x4', 'pointwise_sg_8x4', 'pointwise_vec4_4x8', 'pointwise_vec4_4x4', 'gemm_4x4']));
    out.push(conv('resnet50 3×3 64→64 @56²', 64, 64, 56, 3, ['winograd_sgrow_8x4', 'winograd_sg_8x4', 'im2col_sgrow_8x4', 'im2col_sg_8x4', 'im2col_vec4_4x8', 'im2col_vec4_4x4', 'gemm_4x4', 'gemm_4x8', ...(quick ? [] : ['direct'])]));
    out.push(conv('resnet50 3×3 512→512 @7²', 512, 512, 7, 3, ['winograd_sgrow_8x4', 'im2col_sgrow_8x4', 'im2col_sg_8x4', 'im2col_sgsplitk_4', 'im2col_vec4_4x8', 'im2col_vec4_4x4', 'im2col_splitk_4', 'gemm_4x8']));
    // Deep layers on maps of 4 and 9 pixels (resnet18 at 64² input, mobilenet_v2 at 96²): few GEMM columns, a long K.
    const deep = ['im2col_kdot_8', 'im2col_kdot_4', 'im2col_sgsplitk_4', 'im2col_sgrow_8x4'];
    out.push(conv('resnet18 3×3 512→512 @2²', 512, 512, 2, 3, deep, 1, 'deep'));
    if (!quick) {
        out.push(conv('resnet18 3×3/2 256→512 @4²→2²', 256, 512, 4, 3, deep, 2, 'deep'));
        out.push(conv('mobilenet_v2 1×1 320→1280 @3²', 320, 1280, 3, 1, ['pointwise_kdot_8', 'pointwise_kdot_4', 'pointwise_sgrow_8x4', 'pointwise_vec4_4x8'], 1, 'deep'));
    }
    // mobilenet_v2's depthwise 3×3 convolutions at 96² input: from maps that fill pix4's 256-pixel workgroups to maps of 9 pixels.
    const depthwise = (c: number, hw: number): Case => ({
        cls: 'depthwise', name: `mobilenet_v2 depthwise 3×3 ${c} @${hw}²`, kind: 'depthwise_conv2d',
        attrs: { kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], multiplier: 1 },
        inputShapes: [[1, c, hw, hw]], outputShape: [1, c, hw, hw], flops: 2 * 9 * c * hw * hw, variants: ['pix4', 'direct'],
        tf: { kind: 'depthwise', h: hw, w: hw, c, f: c, k: 3, stride: 1, pad: 'same' },
    });
    for (const [c, hw] of quick ? [[96, 48], [960, 3]] : [[96, 48], [144, 24], [192, 12], [576, 6], [960, 3]]) out.push(depthwise(c, hw));
    out.push(mm('bert', 'bert 128×768×768', 128, 768, 768, ['sgrow_8x4', 'sg_8x4', 'vec4_4x8', 'vec4_4x4', 'splitk_4']));
    if (!quick) {
        out.push(mm('bert', 'bert 128×768×3072 (ffn up)', 128, 3072, 768, ['sgrow_8x4', 'sg_8x4', 'vec4_4x8', 'vec4_4x4']));
        out.push(mm('bert', 'bert 128×3072×768 (ffn down)', 128, 768, 3072, ['sgrow_8x4', 'sg_8x4', 'sgsplitk_4', 'vec4_4x8', 'vec4_4x4', 'splitk_4']));
    }
    // Batch-1 classifier heads: a GEMV streaming the weights once, on tiles of one row (the default for one row).
    out.push(mm('head', 'mobilenet_v2 head 1×1280→1000', 1, 1000, 1280, ['vec4_1x8', 'vec4_2x8', 'vec4_4x8', 'sgrow_8x4', 'splitk_4']));
    if (!quick) out.push(mm('head', 'resnet18 head 1×512→1000', 1, 1000, 512, ['vec4_1x8', 'vec4_4x8', 'sgrow_8x4', 'splitk_4']));
    return out.filter(c => !only || only.has(c.cls));
}

function randomData(n: number): Float32Array {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.random() - 0.5;
    return a;
}

async function openDevice(gpu: GPU): Promise<GPUDevice> {
    const adapter = await gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter: install a Vulkan driver (README.md, "GPU adapter setup": scripts/setup-system.sh --gpu-only)');
    return adapter.requestDevice(kernelDeviceDescriptor(adapter, 'kernel-bench'));
}

interface VariantResult { variant: string; ms?: number; gflops?: number; reps?: number; error?: string }

async function measureOurs(device: GPUDevice, caps: DeviceCaps, pipes: KernelPipelines, c: Case): Promise<VariantResult[]> {
    const res: VariantResult[] = [];
    const inputs = c.inputShapes.map(s => randomData(numel(s)));
    // Compile and time each variant once, then ROUNDS interleaved rounds (so a load spike on the
    // shared cores hits every variant alike); a variant's figure is the median of all its samples.
    const ROUNDS = 3;
    const live: { variant: string; k: OpKernels; reps: number; samples: number[] }[] = [];
    const run = { inputs, outputElements: numel(c.outputShape), seed: 1 };
    for (const variant of c.variants) {
        try {
            const k = kernelsFor({ op: op(c.kind, c.attrs, c.inputShapes.length), inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant, caps });
            const first = median(await timeOpKernels(device, pipes, `bench/${variant}`, k, run, 1, 1));
            const reps = Math.max(ROUNDS, Math.min(15, Math.floor(TARGET_S / Math.max(first / 1000, 1e-4))));
            live.push({ variant, k, reps, samples: [] });
        } catch (e) {
            res.push({ variant, error: (e as Error).message.split('\n')[0] });
        }
    }
    for (let round = 0; round < ROUNDS; round++) {
        for (const l of live) l.samples.push(...await timeOpKernels(device, pipes, `bench/${l.variant}`, l.k, run, Math.ceil(l.reps / ROUNDS), 0));
    }
    for (const l of live) {
        const ms = median(l.samples);
        res.push({ variant: l.variant, ms, gflops: c.flops / ms / 1e6, reps: l.samples.length });
    }
    return res;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
async function setupTf(gpu: GPU): Promise<any> {
    Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
    const tf: any = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-webgpu');
    const ok = await tf.setBackend('webgpu');
    if (!ok) throw new Error('tf.setBackend("webgpu") failed');
    await tf.ready();
    return tf;
}

async function measureTf(tf: any, c: Case): Promise<{ ms?: number; gflops?: number; timing: string; reps?: number; error?: string }> {
    try {
        let a: any, b: any, fn: () => any;
        if (c.tf.kind === 'matmul') {
            a = tf.randomUniform([c.tf.m, c.tf.k]);
            b = tf.randomUniform([c.tf.k, c.tf.n]);
            fn = () => tf.matMul(a, b);
        } else if (c.tf.kind === 'depthwise') {
            const t = c.tf;
            a = tf.randomUniform([1, t.h, t.w, t.c]);
            b = tf.randomUniform([t.k, t.k, t.c, 1]);
            fn = () => tf.depthwiseConv2d(a, b, t.stride, t.pad);
        } else {
            const t = c.tf;
            a = tf.randomUniform([1, t.h, t.w, t.c]);
            b = tf.randomUniform([t.k, t.k, t.c, t.f]);
            fn = () => tf.conv2d(a, b, t.stride, t.pad);
        }
        const once = async () => {
            const info = await tf.time(async () => { const y = fn(); await y.data(); y.dispose(); });
            return { kernel: typeof info.kernelMs === 'number' ? info.kernelMs : undefined, wall: info.wallMs as number };
        };
        await once(); // compile
        const first = await once();
        const est = (first.kernel ?? first.wall) / 1000;
        const reps = Math.max(3, Math.min(15, Math.floor(TARGET_S / Math.max(est, 1e-4))));
        const ks: number[] = [], ws: number[] = [];
        for (let r = 0; r < reps; r++) { const s = await once(); if (s.kernel !== undefined) ks.push(s.kernel); ws.push(s.wall); }
        a.dispose(); b.dispose();
        const ms = ks.length === reps ? median(ks) : median(ws);
        return { ms, gflops: c.flops / ms / 1e6, timing: ks.length === reps ? 'gpu (timestamp-query)' : 'wall (with readback)', reps };
    } catch (e) {
        return { timing: 'failed', error: (e as Error).message.split('\n')[0] };
    }
}

function measureBlas(cs: Case[]): { info: string; seconds: Record<string, number> } | { error: string } {
    const payload: Record<string, [number, number, number]> = {};
    for (const c of cs) if (c.gemm) payload[c.name] = c.gemm;
    const r = spawnSync('python3', [path.join('bench/kernels/blas.py')], { input: JSON.stringify(payload), encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) return { error: `python3/numpy not usable: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` };
    const j = JSON.parse(r.stdout);
    return { info: j.numpy, seconds: j.seconds };
}

/** Per-dispatch overhead: our description → harness launch path vs a hand-written bare Dawn loop. */
async function measureOverhead(device: GPUDevice, caps: DeviceCaps, pipes: KernelPipelines) {
    const N = 64;
    const k: OpKernels = kernelsFor({ op: op('relu', {}, 1), inputShapes: [[N]], outputShape: [N], epilogue: [], caps });
    const bufs = createOpBuffers(device, 'overhead', k, { inputs: [randomData(N)], outputElements: N });
    const prepared = await prepareLaunches(device, pipes, k, bufs);
    const bareModule = device.createShaderModule({
        label: 'bare.relu',
        code: `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < ${N}u) { y[g.x] = max(x[g.x], 0.0); } }`,
    });
    const bare = device.createComputePipeline({ label: 'bare.relu', layout: 'auto', compute: { module: bareModule, entryPoint: 'main' } });
    const bareGroup = device.createBindGroup({ layout: bare.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: bufs.byRole.in0 } }, { binding: 1, resource: { buffer: bufs.byRole.out } }] });
    const oursBatch = async (n: number) => {
        const enc = device.createCommandEncoder();
        encodeSteps(enc, Array.from({ length: n }, () => prepared.steps[0]));
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
    };
    const bareBatch = async (n: number) => {
        const enc = device.createCommandEncoder();
        const pass = enc.beginComputePass();
        for (let i = 0; i < n; i++) { pass.setPipeline(bare); pass.setBindGroup(0, bareGroup); pass.dispatchWorkgroups(1); }
        pass.end();
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
    };
    const oursSubmit = async () => {
        const enc = device.createCommandEncoder();
        encodeSteps(enc, prepared.steps);
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
    };
    const bareSubmit = () => bareBatch(1);
    const time = async (f: () => Promise<void>, reps: number) => {
        const samples: number[] = [];
        for (let r = 0; r < reps; r++) { const t = performance.now(); await f(); samples.push(performance.now() - t); }
        return median(samples);
    };
    const BATCH = 2000;
    await oursBatch(BATCH); await bareBatch(BATCH);
    const oursB = [], bareB = [], oursS = [], bareS = [];
    for (let round = 0; round < 3; round++) { // interleave to share drift
        oursB.push(await time(() => oursBatch(BATCH), 5) / BATCH * 1000);
        bareB.push(await time(() => bareBatch(BATCH), 5) / BATCH * 1000);
        oursS.push(await time(oursSubmit, 100) * 1000);
        bareS.push(await time(bareSubmit, 100) * 1000);
    }
    let t = performance.now();
    for (let i = 0; i < 200; i++) kernelsFor({ op: op('relu', {}, 1), inputShapes: [[N]], outputShape: [N], epilogue: [], caps });
    const genUs = (performance.now() - t) / 200 * 1000;
    t = performance.now();
    for (let i = 0; i < 50; i++) kernelsFor({ op: op('conv2d', { filters: 64, kernel: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true }, 1), inputShapes: [[1, 64, 56, 56]], outputShape: [1, 64, 56, 56], epilogue: [{ kind: 'activation', fn: 'relu' }], caps }).launches.forEach(l => l.wgsl());
    const genConvUs = (performance.now() - t) / 50 * 1000;
    prepared.destroy();
    bufs.destroy();
    return {
        batchedUsPerDispatch: { ours: median(oursB), bare: median(bareB), ratio: median(oursB) / median(bareB), dispatches: BATCH },
        submitPerDispatchUs: { ours: median(oursS), bare: median(bareS), ratio: median(oursS) / median(bareS) },
        kernelsForUs: { relu: genUs, conv3x3WithWgsl: genConvUs },
    };
}

function readLoad(): number {
    try { return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]); } catch { return NaN; }
}

function fmt(x: number | undefined, d = 2): string {
    return x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d);
}

async function main(): Promise<void> {
    Object.assign(globalThis, globals);
    let gpu: GPU | undefined = create(FLAGS);
    const device = await openDevice(gpu);
    const caps = capsFromDevice(device);
    const pipes = new KernelPipelines(device);
    const adapterInfo = (device as any).adapterInfo ?? {};
    const started = performance.now();
    const cs = cases();
    const loadBefore = readLoad();
    // TF.js gets its own device from the same GPU instance; each case is measured for ours and
    // then TF.js back to back, so both see the same machine load (2 shared cores).
    let tf: any;
    let tfError: string | undefined;
    let tfVersion = '';
    try {
        tf = await setupTf(gpu);
        tfVersion = tf.version_core;
    } catch (e) {
        tfError = (e as Error).message;
        console.error(`TF.js WebGPU could not run: ${tfError}`);
    }
    const ours: Record<string, VariantResult[]> = {};
    const tfRes: Record<string, Awaited<ReturnType<typeof measureTf>>> = {};
    for (const c of cs) {
        ours[c.name] = await measureOurs(device, caps, pipes, c);
        const best = ours[c.name].filter(r => r.gflops).sort((a, b) => b.gflops! - a.gflops!)[0];
        console.error(`ours  ${c.name}: ${ours[c.name].map(r => `${r.variant} ${r.error ? 'ERR ' + r.error : fmt(r.gflops)}`).join(' | ')}  best ${best?.variant}`);
        if (tf) {
            tfRes[c.name] = await measureTf(tf, c);
            console.error(`tfjs  ${c.name}: ${tfRes[c.name].error ?? fmt(tfRes[c.name].gflops)} (${tfRes[c.name].timing})`);
        }
    }
    let overhead: Awaited<ReturnType<typeof measureOverhead>> | undefined;
    if (!only || only.has('overhead')) overhead = await measureOverhead(device, caps, pipes);
    device.destroy();
    const loadAfter = readLoad();
    const blas = measureBlas(cs);
    const rows = cs.map(c => {
        const best = ours[c.name].filter(r => r.gflops).sort((a, b) => b.gflops! - a.gflops!)[0];
        // "Pre-subgroup": the best variant that is neither a subgroup nor a Winograd one (same run, same load).
        const bestOld = ours[c.name].filter(r => r.gflops && !needsSubgroups(r.variant) && !r.variant.startsWith('winograd')).sort((a, b) => b.gflops! - a.gflops!)[0];
        const t = tfRes[c.name];
        const blasS = 'seconds' in blas ? blas.seconds[c.name] : undefined;
        const blasG = blasS ? c.flops / blasS / 1e9 : undefined;
        return {
            class: c.cls, case: c.name, flops: c.flops, best: best?.variant, oursGflops: best?.gflops, bestOld: bestOld?.variant, oursOldGflops: bestOld?.gflops,
            variants: ours[c.name], tfjsGflops: t?.gflops, tfjsTiming: t?.timing, tfjsError: t?.error ?? tfError, blasGflops: blasG,
            ratioTfjs: best?.gflops && t?.gflops ? best.gflops / t.gflops : undefined,
            ratioBlas: best?.gflops && blasG ? best.gflops / blasG : undefined,
        };
    });
    const perClass = (['matmul', 'conv', 'deep', 'depthwise', 'bert', 'head'] as Cls[]).map(cls => {
        const rs = rows.filter(r => r.class === cls && r.ratioTfjs);
        const geo = (xs: number[]) => xs.length ? Math.exp(xs.reduce((a, b) => a + Math.log(b), 0) / xs.length) : undefined;
        return { class: cls, geomeanRatioTfjs: geo(rs.map(r => r.ratioTfjs!)), geomeanRatioBlas: geo(rows.filter(r => r.class === cls && r.ratioBlas).map(r => r.ratioBlas!)) };
    });
    let commit = '';
    try { commit = readFileSync('.git/HEAD', 'utf8').trim(); if (commit.startsWith('ref:')) commit = readFileSync(path.join('.git', commit.slice(5)), 'utf8').trim(); } catch { /* not a checkout */ }
    const result = {
        date: new Date().toISOString(), commit, adapter: { vendor: adapterInfo.vendor, architecture: adapterInfo.architecture, device: adapterInfo.device, description: adapterInfo.description },
        dawnFlags: FLAGS, quick, cores: (await import('node:os')).availableParallelism(), tfjs: tfVersion, blas: 'info' in blas ? blas.info : blas.error, rows, perClass, overhead,
        loadAverage: { before: loadBefore, after: loadAfter },
        seconds: (performance.now() - started) / 1000,
    };
    mkdirSync('bench/.work', { recursive: true });
    writeFileSync('bench/.work/kernels.json', JSON.stringify(result, null, 2));

    const lines: string[] = [];
    lines.push(`Adapter: ${[adapterInfo.vendor, adapterInfo.architecture, adapterInfo.device, adapterInfo.description].filter(Boolean).join(' / ')}; TF.js ${tfVersion || 'n/a'}; BLAS: ${result.blas}`);
    lines.push('');
    lines.push('| class | case | ours best variant | ours GFLOP/s | best pre-subgroup variant (GFLOP/s) | TF.js GFLOP/s | BLAS GFLOP/s | ours/TF.js | ours/BLAS | all variants (GFLOP/s) |');
    lines.push('|---|---|---|---:|---|---:|---:|---:|---:|---|');
    for (const r of rows) {
        lines.push(`| ${r.class} | ${r.case} | ${r.best ?? '—'} | ${fmt(r.oursGflops)} | ${r.bestOld ?? '—'} ${fmt(r.oursOldGflops)} | ${fmt(r.tfjsGflops)} | ${fmt(r.blasGflops, 1)} | ${fmt(r.ratioTfjs)}× | ${r.ratioBlas === undefined ? '—' : (100 * r.ratioBlas).toFixed(1) + '%'} | ${r.variants.map(v => `${v.variant} ${v.error ? 'error' : fmt(v.gflops)}`).join(', ')} |`);
    }
    lines.push('');
    lines.push('| class | geomean ours/TF.js | geomean ours/BLAS |');
    lines.push('|---|---:|---:|');
    for (const p of perClass) lines.push(`| ${p.class} | ${fmt(p.geomeanRatioTfjs)}× | ${p.geomeanRatioBlas === undefined ? '—' : (100 * p.geomeanRatioBlas).toFixed(1) + '%'} |`);
    if (overhead) {
        lines.push('');
        lines.push('| dispatch overhead (trivial 64-element relu) | ours | bare Dawn | ratio |');
        lines.push('|---|---:|---:|---:|');
        lines.push(`| µs per dispatch, ${overhead.batchedUsPerDispatch.dispatches} in one pass | ${fmt(overhead.batchedUsPerDispatch.ours)} | ${fmt(overhead.batchedUsPerDispatch.bare)} | ${fmt(overhead.batchedUsPerDispatch.ratio)} |`);
        lines.push(`| µs per dispatch, one submit + onSubmittedWorkDone each | ${fmt(overhead.submitPerDispatchUs.ours, 1)} | ${fmt(overhead.submitPerDispatchUs.bare, 1)} | ${fmt(overhead.submitPerDispatchUs.ratio)} |`);
        lines.push(`| kernelsFor() CPU µs per call (compile time): relu / 3×3 conv incl. every launch's WGSL text | ${fmt(overhead.kernelsForUs.relu, 1)} / ${fmt(overhead.kernelsForUs.conv3x3WithWgsl, 1)} | — | — |`);
    }
    lines.push('');
    lines.push(`Load average (1 min) before/after: ${loadBefore} / ${loadAfter} on ${result.cores} cores — other processes share them.`);
    lines.push(`Ours: GPU time (timestamp queries around the launches), median of repetitions. TF.js: ${Object.values(tfRes)[0]?.timing ?? 'n/a'}. BLAS: numpy float32 matmul of the equivalent GEMM (conv as im2col GEMM, im2col not counted), median wall time. Total ${result.seconds.toFixed(0)} s.`);
    console.log(lines.join('\n'));
    gpu = undefined;
    void gpu;
}

await main();
