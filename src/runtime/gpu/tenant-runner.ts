/**
 * Runs ranges of a compiled tenant's ops on its device and reports when they finished.
 * With the timestamp-query feature each op's compute pass is timestamped and the times are
 * read back off the critical path; without it each op is submitted and awaited on its own
 * and timed on the CPU (slower, and documented as such in the results' config.timing).
 */
import { encodeOp, type CompiledLaunch, type CompiledTenant } from './compile.js';
import { withTimeout } from './wait.js';

/** Start/end of each op of a step, ms, in the device's time base (GPU clock or performance.now). */
export interface OpIntervals {
    /** First op index of the step. */
    from: number;
    startMs: Float64Array;
    endMs: Float64Array;
}

export interface StepResult {
    /** performance.now() at submission and when the queue reported the work done. */
    submittedAt: number;
    doneAt: number;
    /** Op times, when they can be read (resolves after doneAt; undefined if unavailable). */
    intervals: Promise<OpIntervals | undefined>;
}

/** A GPU failure while running, naming the op (or op range) that was on the GPU. */
export class GpuRunError extends Error {
    constructor(message: string, readonly opPath?: string, readonly tenant?: string) {
        super(message);
        this.name = 'GpuRunError';
    }
}

/** WebGPU allows 4096 queries per set: ops past 2048 are not timed individually. */
const MAX_TIMED_OPS = 2048;

export class TenantRunner {
    private readonly querySet?: GPUQuerySet;
    private readonly resolveBuffer?: GPUBuffer;
    private readonly freeReadbacks: GPUBuffer[] = [];
    private readonly allReadbacks: GPUBuffer[] = [];
    readonly timedOps: number;

    constructor(readonly compiled: CompiledTenant, readonly timing: 'gpu-timestamps' | 'cpu-per-op', private readonly stepTimeoutMs: number) {
        const device = compiled.device;
        this.timedOps = Math.min(compiled.ops.length, MAX_TIMED_OPS);
        if (timing === 'gpu-timestamps') {
            this.querySet = device.createQuerySet({ label: `${compiled.name}/timestamps`, type: 'timestamp', count: 2 * this.timedOps });
            this.resolveBuffer = device.createBuffer({ label: `${compiled.name}/timestamps.resolve`, size: 16 * this.timedOps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
        }
    }

    get opCount(): number { return this.compiled.ops.length; }

    private rangeLabel(from: number, to: number): string {
        const ops = this.compiled.ops;
        return to - from === 1 ? ops[from].planned.path : `${ops[from].planned.path} … ${ops[to - 1].planned.path}`;
    }

    /** Versions its hot ops were compiled in (1 without multi-version kernels). */
    get versions(): number {
        return Math.max(1, ...this.compiled.ops.map(o => o.versions.length));
    }

    /** An op's launches in a version (its most tolerant one when it has fewer). */
    private launchesOf(i: number, version: number): readonly CompiledLaunch[] {
        const versions = this.compiled.ops[i].versions;
        return versions[Math.min(version, versions.length - 1)] ?? this.compiled.ops[i].launches;
    }

    /** Runs ops [from, to) in a version (0: each op's own variant) and waits (bounded) until the queue has finished them. */
    async run(from: number, to: number, signal?: AbortSignal, version = 0): Promise<StepResult> {
        return this.timing === 'gpu-timestamps' ? this.runTimestamped(from, to, version, signal) : this.runCpuTimed(from, to, version, signal);
    }

    private async submitChecked(encoder: GPUCommandEncoder, from: number, to: number): Promise<void> {
        const device = this.compiled.device;
        device.pushErrorScope('validation');
        device.queue.submit([encoder.finish()]);
        const error = await device.popErrorScope();
        if (error) throw new GpuRunError(`tenant ${this.compiled.name}, op ${this.rangeLabel(from, to)}: GPU validation error: ${error.message}`, this.compiled.ops[from].planned.path, this.compiled.name);
    }

    private async waitDone(from: number, to: number, signal?: AbortSignal): Promise<number> {
        try {
            await withTimeout(this.compiled.device.queue.onSubmittedWorkDone(), this.stepTimeoutMs,
                `GPU work of tenant ${this.compiled.name} (op ${this.rangeLabel(from, to)})`, signal);
        } catch (error) {
            if (signal?.aborted) throw error;
            throw new GpuRunError(error instanceof Error ? error.message : String(error), this.compiled.ops[from].planned.path, this.compiled.name);
        }
        return performance.now();
    }

    private async runTimestamped(from: number, to: number, version: number, signal?: AbortSignal): Promise<StepResult> {
        const device = this.compiled.device;
        const encoder = device.createCommandEncoder({ label: `${this.compiled.name}/step` });
        const timedTo = Math.min(to, this.timedOps);
        for (let i = from; i < to; i++) {
            const launches = this.launchesOf(i, version);
            if (launches.length === 0) continue;
            encodeOp(encoder, launches, i < this.timedOps ? { querySet: this.querySet!, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } : undefined);
        }
        let readback: GPUBuffer | undefined;
        const timedCount = timedTo - from;
        if (timedCount > 0) {
            readback = this.freeReadbacks.pop() ?? this.newReadback();
            encoder.resolveQuerySet(this.querySet!, 2 * from, 2 * timedCount, this.resolveBuffer!, 0);
            encoder.copyBufferToBuffer(this.resolveBuffer!, 0, readback, 0, 16 * timedCount);
        }
        const submittedAt = performance.now();
        await this.submitChecked(encoder, from, to);
        const doneAt = await this.waitDone(from, to, signal);
        const intervals = readback ? this.readIntervals(readback, from, timedCount) : Promise.resolve(undefined);
        return { submittedAt, doneAt, intervals };
    }

    private newReadback(): GPUBuffer {
        const b = this.compiled.device.createBuffer({ label: `${this.compiled.name}/timestamps.readback`, size: 16 * this.timedOps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        this.allReadbacks.push(b);
        return b;
    }

    private async readIntervals(readback: GPUBuffer, from: number, count: number): Promise<OpIntervals | undefined> {
        try {
            await withTimeout(readback.mapAsync(GPUMapMode.READ, 0, 16 * count), this.stepTimeoutMs, `reading timestamps of tenant ${this.compiled.name}`);
            const ticks = new BigUint64Array(readback.getMappedRange(0, 16 * count).slice(0));
            readback.unmap();
            this.freeReadbacks.push(readback);
            const startMs = new Float64Array(count), endMs = new Float64Array(count);
            for (let i = 0; i < count; i++) {
                const hasLaunches = this.compiled.ops[from + i].launches.length > 0;
                startMs[i] = hasLaunches ? Number(ticks[2 * i]) / 1e6 : NaN;
                endMs[i] = hasLaunches ? Number(ticks[2 * i + 1]) / 1e6 : NaN;
            }
            return { from, startMs, endMs };
        } catch {
            // A lost device or a destroyed buffer: times of this step are simply missing.
            return undefined;
        }
    }

    private async runCpuTimed(from: number, to: number, version: number, signal?: AbortSignal): Promise<StepResult> {
        const device = this.compiled.device;
        const startMs = new Float64Array(to - from).fill(NaN), endMs = new Float64Array(to - from).fill(NaN);
        const submittedAt = performance.now();
        let doneAt = submittedAt;
        for (let i = from; i < to; i++) {
            const op = this.compiled.ops[i];
            const launches = this.launchesOf(i, version);
            if (launches.length === 0) continue;
            const encoder = device.createCommandEncoder({ label: op.planned.path });
            encodeOp(encoder, launches);
            startMs[i - from] = performance.now();
            await this.submitChecked(encoder, i, i + 1);
            doneAt = await this.waitDone(i, i + 1, signal);
            endMs[i - from] = doneAt;
        }
        return { submittedAt, doneAt, intervals: Promise.resolve({ from, startMs, endMs }) };
    }

    /** Releases the timing objects (the compiled tenant is released by its owner). */
    destroy(): void {
        this.querySet?.destroy();
        this.resolveBuffer?.destroy();
        for (const b of this.allReadbacks) b.destroy();
    }
}
