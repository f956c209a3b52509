/// <reference types="@webgpu/types" />
/**
 * A small GPU harness for kernel descriptions: pipelines (cached by cacheKey, labelled with
 * the kernel name, explicit layouts from the bindings), buffers, uniforms, one-shot runs with
 * readback and GPU-timed repetitions. Used by the kernel tests and the kernel benchmark; the
 * compiler may reuse `KernelPipelines`, `createUniformBuffer` and `initWeight`.
 */
import { numel } from '../ir/types.js';
import type { KernelDescription, LaunchBuffer, OpKernels } from '../kernels/kernel.js';
import { weightValues } from '../kernels/index.js';

/** Device limits the generators may use: everything the adapter offers of the ones that matter. */
export function kernelDeviceDescriptor(adapter: GPUAdapter, label = 'tenancy-kernels'): GPUDeviceDescriptor {
    const names = [
        'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX',
        'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeWorkgroupsPerDimension',
        'maxStorageBufferBindingSize', 'maxStorageBuffersPerShaderStage', 'maxBufferSize',
    ] as const;
    const requiredLimits: Record<string, number> = {};
    for (const n of names) requiredLimits[n] = adapter.limits[n];
    const requiredFeatures: GPUFeatureName[] = [];
    if (adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
    if (adapter.features.has('shader-f16')) requiredFeatures.push('shader-f16');
    // The sg_* GEMM variants broadcast loads across a subgroup.
    if (adapter.features.has('subgroups')) requiredFeatures.push('subgroups');
    return { label, requiredLimits, requiredFeatures };
}

/** Rounds a byte size up to 16 (vec4 bindings) and to at least 16. */
export function paddedSize(bytes: number): number {
    return Math.max(16, Math.ceil(bytes / 16) * 16);
}

/** Compiles kernel descriptions to pipelines once per cacheKey. */
export class KernelPipelines {
    private readonly cache = new Map<string, { pipeline: GPUComputePipeline; layout: GPUBindGroupLayout }>();

    constructor(private readonly device: GPUDevice) {}

    /** The pipeline and bind group layout of a kernel (compiled and checked on first use). */
    async get(k: KernelDescription): Promise<{ pipeline: GPUComputePipeline; layout: GPUBindGroupLayout }> {
        const hit = this.cache.get(k.cacheKey);
        if (hit) return hit;
        const code = k.wgsl();
        this.device.pushErrorScope('validation');
        const module = this.device.createShaderModule({ label: k.name, code });
        const info = await module.getCompilationInfo();
        const errors = info.messages.filter(m => m.type === 'error');
        if (errors.length > 0) {
            await this.device.popErrorScope();
            const lines = code.split('\n');
            const detail = errors.map(e => `  line ${e.lineNum}: ${e.message}\n    ${lines[e.lineNum - 1] ?? ''}`).join('\n');
            throw new Error(`WGSL of kernel ${k.name} does not compile:\n${detail}`);
        }
        const layout = this.device.createBindGroupLayout({
            label: k.name,
            entries: k.bindings.map((b, i) => ({
                binding: i,
                visibility: GPUShaderStage.COMPUTE,
                buffer: { type: b.access === 'uniform' ? 'uniform' : b.access === 'read' ? 'read-only-storage' : 'storage' },
            })),
        });
        const pipeline = await this.device.createComputePipelineAsync({
            label: k.name,
            layout: this.device.createPipelineLayout({ label: k.name, bindGroupLayouts: [layout] }),
            compute: { module, entryPoint: 'main' },
        });
        const err = await this.device.popErrorScope();
        if (err) throw new Error(`kernel ${k.name}: pipeline creation failed: ${err.message}`);
        const entry = { pipeline, layout };
        this.cache.set(k.cacheKey, entry);
        return entry;
    }

    get size(): number {
        return this.cache.size;
    }
}

/** A uniform buffer holding a launch's `uniforms` (undefined if it has none). */
export function createUniformBuffer(device: GPUDevice, k: KernelDescription): GPUBuffer | undefined {
    if (!k.uniforms) return undefined;
    const buf = device.createBuffer({ label: `${k.name}.uniforms`, size: paddedSize(k.uniforms.byteLength), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buf, 0, k.uniforms.buffer, k.uniforms.byteOffset, k.uniforms.byteLength);
    return buf;
}

/** Deterministic PRNG (mulberry32) — the same seed gives the same weights everywhere. */
export function seededRandom(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** Fills a weight per its init hint: normal N(0, 0.5²), uniform U(−1, 1), positive U(0.5, 1.5), ones, zeros. */
export function initWeight(b: LaunchBuffer, rand: () => number): Float32Array {
    const n = numel(b.shape);
    const a = new Float32Array(n);
    switch (b.init ?? 'normal') {
        case 'zeros': break;
        case 'ones': a.fill(1); break;
        case 'uniform': for (let i = 0; i < n; i++) a[i] = 2 * rand() - 1; break;
        case 'positive': for (let i = 0; i < n; i++) a[i] = 0.5 + rand(); break;
        case 'normal':
            for (let i = 0; i < n; i++) {
                const u1 = Math.max(rand(), 1e-12), u2 = rand();
                a[i] = 0.5 * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
            }
            break;
    }
    return a;
}

/** Host data for one op run. */
export interface OpRunInput {
    inputs: (Float32Array | Int32Array)[];
    /** Weights by role; missing ones are filled from `seed` per their init hint. */
    weights?: Record<string, Float32Array>;
    /** Extra epilogue tensors by role (residuals, folded batch_norm scale/shift). */
    extras?: Record<string, Float32Array>;
    outputElements: number;
    seed?: number;
}

/** A set of GPU buffers bound by role for an op's launches. */
export interface OpBuffers {
    byRole: Record<string, GPUBuffer>;
    weights: Record<string, Float32Array>;
    destroy(): void;
}

/** Creates and fills the buffers an op needs (inputs, weights, extras, scratch, out). */
export function createOpBuffers(device: GPUDevice, label: string, k: OpKernels, run: OpRunInput): OpBuffers {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const byRole: Record<string, GPUBuffer> = {};
    const made: GPUBuffer[] = [];
    const upload = (role: string, data: Float32Array | Int32Array) => {
        const buf = device.createBuffer({ label: `${label}/${role}`, size: paddedSize(data.byteLength), usage });
        device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength);
        byRole[role] = buf;
        made.push(buf);
    };
    run.inputs.forEach((d, i) => upload(`in${i}`, d));
    const rand = seededRandom(run.seed ?? 1);
    const weights: Record<string, Float32Array> = {};
    const known = new Map<string, Float32Array>(Object.entries(run.weights ?? {}));
    for (const b of k.buffers) {
        if (b.kind === 'weight') {
            const data = weightValues(b, k.buffers, w => initWeight(w, rand), known);
            if (data.length !== numel(b.shape)) throw new Error(`${label}: weight '${b.role}' needs ${numel(b.shape)} values, got ${data.length}`);
            weights[b.role] = data;
            upload(b.role, data);
        } else {
            const buf = device.createBuffer({ label: `${label}/${b.role}`, size: paddedSize(numel(b.shape) * 4), usage });
            byRole[b.role] = buf;
            made.push(buf);
        }
    }
    for (const [role, data] of Object.entries(run.extras ?? {})) upload(role, data);
    if (k.aliasesInput) {
        byRole.out = byRole.in0;
    } else {
        const out = device.createBuffer({ label: `${label}/out`, size: paddedSize(run.outputElements * 4), usage });
        byRole.out = out;
        made.push(out);
    }
    return { byRole, weights, destroy: () => { for (const b of made) b.destroy(); } };
}

/** Bind groups (and uniform buffers) for every launch of an op. */
export async function prepareLaunches(device: GPUDevice, pipelines: KernelPipelines, k: OpKernels, bufs: OpBuffers):
    Promise<{ steps: { pipeline: GPUComputePipeline; group: GPUBindGroup; dispatch: [number, number, number] }[]; destroy(): void }> {
    const uniforms: GPUBuffer[] = [];
    const steps = [];
    for (const l of k.launches) {
        const { pipeline, layout } = await pipelines.get(l);
        const ub = createUniformBuffer(device, l);
        if (ub) uniforms.push(ub);
        const entries = l.bindings.map((b, i) => {
            const buffer = b.access === 'uniform' ? ub : bufs.byRole[b.role];
            if (!buffer) throw new Error(`kernel ${l.name}: no buffer for binding role '${b.role}'`);
            return { binding: i, resource: { buffer } };
        });
        steps.push({ pipeline, group: device.createBindGroup({ label: l.name, layout, entries }), dispatch: l.dispatch });
    }
    return { steps, destroy: () => { for (const b of uniforms) b.destroy(); } };
}

/** Encodes all launches into one compute pass (optionally with timestamps around it). */
export function encodeSteps(encoder: GPUCommandEncoder, steps: { pipeline: GPUComputePipeline; group: GPUBindGroup; dispatch: [number, number, number] }[],
    timestampWrites?: GPUComputePassTimestampWrites): void {
    const pass = encoder.beginComputePass(timestampWrites ? { timestampWrites } : {});
    for (const s of steps) {
        pass.setPipeline(s.pipeline);
        pass.setBindGroup(0, s.group);
        pass.dispatchWorkgroups(...s.dispatch);
    }
    pass.end();
}

/** Reads a buffer back as Float32Array. */
export async function readBuffer(device: GPUDevice, src: GPUBuffer, elements: number): Promise<Float32Array> {
    const bytes = elements * 4;
    const staging = device.createBuffer({ label: `${src.label}.readback`, size: paddedSize(bytes), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    try {
        const enc = device.createCommandEncoder();
        enc.copyBufferToBuffer(src, 0, staging, 0, paddedSize(bytes));
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        return new Float32Array(staging.getMappedRange(0, paddedSize(bytes)).slice(0, bytes));
    } finally {
        staging.destroy();
    }
}

/** Runs an op once and returns its output and the weights used. */
export async function runOpKernels(device: GPUDevice, pipelines: KernelPipelines, label: string, k: OpKernels, run: OpRunInput):
    Promise<{ output: Float32Array; weights: Record<string, Float32Array> }> {
    const bufs = createOpBuffers(device, label, k, run);
    let prepared: Awaited<ReturnType<typeof prepareLaunches>> | undefined;
    try {
        prepared = await prepareLaunches(device, pipelines, k, bufs);
        device.pushErrorScope('validation');
        const enc = device.createCommandEncoder({ label });
        encodeSteps(enc, prepared.steps);
        device.queue.submit([enc.finish()]);
        const err = await device.popErrorScope();
        if (err) throw new Error(`${label}: ${err.message}`);
        const output = await readBuffer(device, bufs.byRole.out, run.outputElements);
        return { output, weights: bufs.weights };
    } finally {
        prepared?.destroy();
        bufs.destroy();
    }
}

/**
 * GPU time (ms) of `reps` repetitions of an op's launches, each in its own timestamped pass;
 * returns every sample (first `warmup` dropped). Needs the 'timestamp-query' feature.
 */
export async function timeOpKernels(device: GPUDevice, pipelines: KernelPipelines, label: string, k: OpKernels, run: OpRunInput,
    reps: number, warmup = 2): Promise<number[]> {
    if (!device.features.has('timestamp-query')) throw new Error('timing needs the timestamp-query feature; this device lacks it');
    const bufs = createOpBuffers(device, label, k, run);
    const n = reps + warmup;
    const qs = device.createQuerySet({ label: `${label}.timestamps`, type: 'timestamp', count: 2 * n });
    const resolve = device.createBuffer({ label: `${label}.resolve`, size: 16 * n, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const staging = device.createBuffer({ label: `${label}.ts`, size: 16 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    let prepared: Awaited<ReturnType<typeof prepareLaunches>> | undefined;
    try {
        prepared = await prepareLaunches(device, pipelines, k, bufs);
        for (let r = 0; r < n; r++) {
            const enc = device.createCommandEncoder({ label });
            encodeSteps(enc, prepared.steps, { querySet: qs, beginningOfPassWriteIndex: 2 * r, endOfPassWriteIndex: 2 * r + 1 });
            device.queue.submit([enc.finish()]);
            await device.queue.onSubmittedWorkDone();
        }
        const enc = device.createCommandEncoder();
        enc.resolveQuerySet(qs, 0, 2 * n, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, staging, 0, 16 * n);
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const t = new BigUint64Array(staging.getMappedRange().slice(0));
        const out: number[] = [];
        for (let r = warmup; r < n; r++) out.push(Number(t[2 * r + 1] - t[2 * r]) / 1e6);
        return out;
    } finally {
        prepared?.destroy();
        bufs.destroy();
        qs.destroy();
        resolve.destroy();
        staging.destroy();
    }
}

/** Median of samples. */
export function median(xs: readonly number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
