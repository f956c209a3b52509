/**
 * Tenant plan → GPU objects on the tenant's device: weights filled deterministically from the
 * seed (He-scaled normals so activations stay finite), graph inputs, activation buffers from
 * the memory plan, pipelines cached by cacheKey (one cache per device), bind groups per launch.
 * Every op's objects are created and then run once under error scopes, so a GPU validation
 * error names the op path. Release with `destroy()`.
 */
import { numel } from '../ir/types.js';
import type { KernelDescription, LaunchBuffer } from '../kernels/kernel.js';
import { createRandom } from '../plan/random.js';
import { alignBufferSize } from '../plan/memory.js';
import { CompileError, type RunnableOp, type TenantPlan } from '../plan/tenant-plan.js';
import { foldedNormValues, graphInputValues, initWeightValues } from '../plan/weights.js';
import { KernelPipelines, createUniformBuffer } from './harness.js';
import { weightValues } from '../kernels/index.js';
import { withTimeout } from './wait.js';

/** One launch ready to encode. */
export interface CompiledLaunch {
    name: string;
    pipeline: GPUComputePipeline;
    group: GPUBindGroup;
    dispatch: [number, number, number];
}

export interface CompiledOp {
    planned: RunnableOp;
    /** Launches in order (empty for an aliasing op such as reshape). */
    launches: CompiledLaunch[];
    /** The launches of each version (multi-version kernels): index 0 is `launches`, then the plan's versions in order. */
    versions: CompiledLaunch[][];
    /** Per way the plan splits the op (TenantPlan.chunked, same order), per chunk its launches. */
    chunked: CompiledLaunch[][][];
}

export interface CompiledTenant {
    name: string;
    plan: TenantPlan;
    device: GPUDevice;
    ops: CompiledOp[];
    /** Number of distinct pipelines on this device. */
    pipelineCount: number;
    /** Activation buffers by memory-plan slot. */
    slotBuffers: GPUBuffer[];
    /** Destroys every buffer this tenant created (the device is the caller's). */
    destroy(): void;
}

async function popScopes(device: GPUDevice): Promise<GPUError | null> {
    const oom = await device.popErrorScope();
    const validation = await device.popErrorScope();
    return validation ?? oom;
}

function pushScopes(device: GPUDevice): void {
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
}

/** Creates a tenant's GPU objects from its plan and runs each op once under error scopes. */
export async function compileTenant(
    device: GPUDevice, plan: TenantPlan, seed: number,
    options: { timeoutMs?: number; signal?: AbortSignal; onOp?: (done: number, total: number) => void } = {},
): Promise<CompiledTenant> {
    const tenant = plan.tenant;
    const created: GPUBuffer[] = [];
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const make = (label: string, bytes: number) => {
        const b = device.createBuffer({ label, size: alignBufferSize(bytes), usage });
        created.push(b);
        return b;
    };
    const upload = (label: string, data: Float32Array | Int32Array) => {
        const b = make(label, data.byteLength);
        device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
        return b;
    };
    const destroy = () => { for (const b of created) b.destroy(); created.length = 0; };
    const random = createRandom(seed, `tenant/${tenant.name}`);
    const pipelines = new KernelPipelines(device);
    try {
        // Activation slots (shared by liveness) and graph inputs (seeded, never overwritten).
        pushScopes(device);
        const slots = plan.memory.slots.map((bytes, i) => make(`${tenant.name}/slot${i}`, bytes));
        for (const id of tenant.graph.inputs) {
            const data = graphInputValues(tenant.graph, id, random.fork(`input/${id}`));
            device.queue.writeBuffer(slots[plan.memory.tensorSlot.get(id)!], 0, data.buffer, data.byteOffset, data.byteLength);
        }
        const allocError = await popScopes(device);
        if (allocError) throw new CompileError(`tenant ${tenant.name}: allocating ${plan.memory.slots.length} activation buffers failed: ${allocError.message}`, undefined, tenant.name);

        const ops: CompiledOp[] = [];
        for (let stepIndex = 0; stepIndex < plan.ops.length; stepIndex++) {
            options.signal?.throwIfAborted();
            const planned = plan.ops[stepIndex];
            const { fused, kernels } = planned;
            const where = `tenant ${tenant.name}, op ${planned.path}`;
            pushScopes(device);
            const byRole = new Map<string, GPUBuffer>();
            fused.inputs.forEach((id, i) => byRole.set(`in${i}`, slots[plan.memory.tensorSlot.get(id)!]));
            byRole.set('out', slots[plan.memory.tensorSlot.get(fused.output)!]);
            for (const e of fused.epilogueInputs) byRole.set(e.role, slots[plan.memory.tensorSlot.get(e.tensor)!]);
            // Versions of an op share its weights: the same role holds the same seeded values (a derived weight, the same transform of them).
            const values = new Map<string, Float32Array>();
            const seeded = (b: LaunchBuffer) => initWeightValues(fused.op, b, random.fork(`weight/${planned.path}/${b.role}`));
            const weightOf = (b: LaunchBuffer, buffers: readonly LaunchBuffer[]) => {
                if (!byRole.has(b.role)) byRole.set(b.role, upload(`${planned.path}/${b.role}`, weightValues(b, buffers, seeded, values)));
            };
            for (const b of kernels.buffers) {
                if (b.kind === 'weight') weightOf(b, kernels.buffers);
                else byRole.set(b.role, slots[plan.memory.scratchSlot.get(`${stepIndex}:${b.role}`)!]);
            }
            for (const n of fused.foldedNorms) {
                const { scale, shift } = foldedNormValues(n.norm, tenant.graph.tensors[n.norm.output].shape[1], random);
                byRole.set(n.scaleRole, upload(`${n.norm.path}/scale`, scale));
                byRole.set(n.shiftRole, upload(`${n.norm.path}/shift`, shift));
            }
            const bindBuffers = (version: RunnableOp) => {
                for (const b of version.kernels.buffers) {
                    if (b.kind === 'weight') weightOf(b, version.kernels.buffers);
                    else byRole.set(b.role, slots[plan.memory.scratchSlot.get(`${stepIndex}:${b.role}`)!]);
                }
            };
            const compileLaunches = async (kernels: readonly KernelDescription[]): Promise<CompiledLaunch[]> => {
                const launches: CompiledLaunch[] = [];
                for (const k of kernels) {
                    let entry: Awaited<ReturnType<KernelPipelines['get']>>;
                    try {
                        entry = await pipelines.get(k);
                    } catch (error) {
                        await popScopes(device);
                        throw new CompileError(`${where}: ${error instanceof Error ? error.message : String(error)}`, planned.path, tenant.name);
                    }
                    const ub = createUniformBuffer(device, k);
                    if (ub) created.push(ub);
                    const entries = k.bindings.map((b, i) => ({ binding: i, resource: { buffer: b.access === 'uniform' ? ub! : byRole.get(b.role)! } }));
                    launches.push({ name: k.name, pipeline: entry.pipeline, group: device.createBindGroup({ label: `${planned.path}:${k.name}`, layout: entry.layout, entries }), dispatch: k.dispatch });
                }
                // Run the launches once on their own so a dispatch error names this op.
                if (launches.length > 0) {
                    const encoder = device.createCommandEncoder({ label: planned.path });
                    encodeOp(encoder, launches);
                    device.queue.submit([encoder.finish()]);
                }
                return launches;
            };
            const versions: CompiledLaunch[][] = [];
            for (const version of [planned, ...(plan.versions[stepIndex] ?? [])]) {
                bindBuffers(version);
                versions.push(await compileLaunches(version.kernels.launches));
            }
            // Chunks of the op's own variant: its buffers again (scratch roles are the op's), each chunk its grid origin.
            bindBuffers(planned);
            const chunked: CompiledLaunch[][][] = [];
            for (const c of plan.chunked[stepIndex] ?? []) {
                const chunks: CompiledLaunch[][] = [];
                for (const launches of c.launches) chunks.push(await compileLaunches(launches));
                chunked.push(chunks);
            }
            const error = await popScopes(device);
            if (error) throw new CompileError(`${where}: GPU ${error.constructor.name === 'GPUOutOfMemoryError' ? 'out of memory' : 'validation error'}: ${error.message}`, planned.path, tenant.name);
            ops.push({ planned, launches: versions[0], versions, chunked });
            options.onOp?.(ops.length, plan.ops.length);
        }
        await withTimeout(device.queue.onSubmittedWorkDone(), options.timeoutMs ?? 120_000, `the first run of tenant ${tenant.name}`, options.signal);
        return { name: tenant.name, plan, device, ops, pipelineCount: pipelines.size, slotBuffers: slots, destroy };
    } catch (error) {
        destroy();
        throw error;
    }
}

/** Encodes one op's launches in one compute pass (optionally timestamped). */
export function encodeOp(encoder: GPUCommandEncoder, launches: readonly CompiledLaunch[], timestampWrites?: GPUComputePassTimestampWrites): void {
    const pass = encoder.beginComputePass(timestampWrites ? { timestampWrites } : {});
    for (const l of launches) {
        pass.setPipeline(l.pipeline);
        pass.setBindGroup(0, l.group);
        pass.dispatchWorkgroups(l.dispatch[0], l.dispatch[1], l.dispatch[2]);
    }
    pass.end();
}

/** Reads a graph output of a compiled tenant back (after a run), for checks and tests. */
export async function readGraphOutput(compiled: CompiledTenant, index = 0, timeoutMs = 30_000): Promise<Float32Array> {
    const { plan, device } = compiled;
    const id = plan.tenant.graph.outputs[index];
    const tensor = plan.tenant.graph.tensors[id];
    const bytes = numel(tensor.shape) * 4;
    const slot = plan.memory.tensorSlot.get(id);
    const source = slot === undefined ? undefined : compiled.slotBuffers[slot];
    if (!source) throw new Error(`tenant ${compiled.name}: output ${id} has no buffer`);
    const staging = device.createBuffer({ label: `${compiled.name}/readback`, size: alignBufferSize(bytes), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    try {
        const encoder = device.createCommandEncoder();
        encoder.copyBufferToBuffer(source, 0, staging, 0, alignBufferSize(bytes));
        device.queue.submit([encoder.finish()]);
        await withTimeout(staging.mapAsync(GPUMapMode.READ), timeoutMs, `reading output ${id} of tenant ${compiled.name}`);
        return new Float32Array(staging.getMappedRange(0, alignBufferSize(bytes)).slice(0, bytes));
    } finally {
        staging.destroy();
    }
}
