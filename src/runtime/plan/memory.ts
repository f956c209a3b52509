/**
 * Memory planning on shapes, before anything is allocated: activations share buffers by
 * liveness (greedy best-fit over the op order), and every buffer is checked against the
 * device's binding and buffer limits and the workload's memory budget. Pure.
 */
import { formatBytes } from '../../protocol/units.js';

/** One step of a plan for memory purposes: a (fused) op. */
export interface MemoryStep {
    /** Op path, for error messages. */
    path: string;
    reads: string[];
    /** The tensor written. */
    writes: string;
    /** The output aliases reads[0] (reshape/flatten): no new buffer. */
    aliasesInput?: boolean;
    /** Scratch buffers live only during this step. */
    scratch?: { role: string; bytes: number }[];
}

export interface MemoryPlanInput {
    /** Bytes of every activation tensor that is read or written. */
    tensorBytes: ReadonlyMap<string, number>;
    steps: MemoryStep[];
    /** Graph inputs: filled once with seeded data and reused by every request, so never freed. */
    inputs: string[];
    /** Graph outputs: live to the end. */
    outputs: string[];
}

export interface MemoryPlan {
    /** Slot sizes in bytes (each becomes one GPUBuffer). */
    slots: number[];
    /** Tensor id → slot index (aliases share their root's slot). */
    tensorSlot: Map<string, number>;
    /** `${stepIndex}:${role}` → slot index. */
    scratchSlot: Map<string, number>;
    /** Sum of slot sizes: the activation memory actually allocated. */
    totalBytes: number;
    /** What allocating every tensor and scratch separately would take (for reports). */
    unplannedBytes: number;
}

/** Storage buffers are bound whole; sizes are rounded up to 16 bytes (vec4 access). */
export function alignBufferSize(bytes: number): number {
    return Math.max(16, Math.ceil(bytes / 16) * 16);
}

/** Plans activation buffers with liveness-based reuse (greedy best-fit, growing a free slot if none fits). */
export function planMemory(input: MemoryPlanInput): MemoryPlan {
    const root = new Map<string, string>();
    const rootOf = (id: string): string => root.get(id) ?? id;
    for (const step of input.steps) if (step.aliasesInput) root.set(step.writes, rootOf(step.reads[0]));

    // Last step index at which each root buffer is needed.
    const lastUse = new Map<string, number>();
    input.steps.forEach((step, i) => {
        for (const id of [...step.reads, step.writes]) lastUse.set(rootOf(id), i);
    });
    const pinned = new Set<string>([...input.inputs, ...input.outputs].map(rootOf));

    const slots: number[] = [];
    const free = new Set<number>();
    const tensorSlot = new Map<string, number>();
    const scratchSlot = new Map<string, number>();
    let unplannedBytes = 0;
    const bytesOf = (id: string): number => {
        const b = input.tensorBytes.get(id);
        if (b === undefined) throw new Error(`memory plan: no size for tensor "${id}"`);
        return alignBufferSize(b);
    };
    const take = (bytes: number): number => {
        let best = -1;
        for (const s of free) if (slots[s] >= bytes && (best < 0 || slots[s] < slots[best])) best = s;
        if (best < 0) {
            for (const s of free) if (best < 0 || slots[s] > slots[best]) best = s;
            if (best >= 0) slots[best] = bytes;
        }
        if (best < 0) { slots.push(bytes); return slots.length - 1; }
        free.delete(best);
        return best;
    };
    for (const id of input.inputs) {
        const bytes = bytesOf(id);
        unplannedBytes += bytes;
        tensorSlot.set(id, take(bytes));
    }
    input.steps.forEach((step, i) => {
        if (step.aliasesInput) {
            tensorSlot.set(step.writes, tensorSlot.get(rootOf(step.reads[0]))!);
        } else {
            const bytes = bytesOf(step.writes);
            unplannedBytes += bytes;
            tensorSlot.set(step.writes, take(bytes));
        }
        const scratchTaken: number[] = [];
        for (const s of step.scratch ?? []) {
            const bytes = alignBufferSize(s.bytes);
            unplannedBytes += bytes;
            const slot = take(bytes);
            scratchSlot.set(`${i}:${s.role}`, slot);
            scratchTaken.push(slot);
        }
        // Free after the step so an op never writes a buffer it reads.
        for (const slot of scratchTaken) free.add(slot);
        for (const id of new Set([...step.reads, step.writes].map(rootOf))) {
            if (lastUse.get(id) === i && !pinned.has(id)) free.add(tensorSlot.get(id)!);
        }
    });
    return { slots, tensorSlot, scratchSlot, totalBytes: slots.reduce((a, b) => a + b, 0), unplannedBytes };
}

/** The limits a plan must fit, all in bytes. */
export interface MemoryLimits {
    maxStorageBufferBindingSize: number;
    maxBufferSize: number;
    /** From `device(memory: …)`, shared by all tenants; undefined = no explicit budget. */
    budgetBytes?: number;
}

/** Thrown when a tensor or a plan cannot fit the device; raised before any allocation. */
export class MemoryLimitError extends Error {
    constructor(message: string, readonly opPath?: string, readonly tenant?: string) {
        super(message);
        this.name = 'MemoryLimitError';
    }
}

/** Checks one buffer against the binding/buffer limits; throws MemoryLimitError naming the op and sizes. */
export function checkBufferFits(what: string, bytes: number, limits: MemoryLimits, tenant: string, opPath?: string): void {
    const where = opPath ? `tenant ${tenant}, op ${opPath}` : `tenant ${tenant}`;
    const limit = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
    if (bytes > limit) {
        const which = limits.maxStorageBufferBindingSize <= limits.maxBufferSize ? 'maxStorageBufferBindingSize' : 'maxBufferSize';
        throw new MemoryLimitError(
            `${where}: ${what} needs ${formatBytes(bytes)} (${bytes} bytes), more than the device's ${which} of ${formatBytes(limit)} (${limit} bytes); ` +
            'reduce the batch or sequence size, or split the tensor', opPath, tenant);
    }
}
