/**
 * Runs ranges of a compiled tenant's ops on its device and reports when they finished.
 * With the timestamp-query feature each op's compute pass is timestamped and the times are
 * read back off the critical path; without it each op is submitted and awaited on its own
 * and timed on the CPU (slower, and documented as such in the results' config.timing).
 */
import { encodeOp, type CompiledLaunch, type CompiledTenant } from './compile.js';
import { withTimeout } from './wait.js';
import { submitChecked, type Submitted } from './submit.js';
import { planSteps, type OpSplit, type PlanStep } from '../plan/split.js';

/** Start/end of each op of a step, ms, in the device's time base (GPU clock or performance.now). */
export interface OpIntervals {
    /** First op index of the step. */
    from: number;
    startMs: Float64Array;
    endMs: Float64Array;
    /** The op each entry timed, when the step ran under a step layout (chunks of one op are entries of their own); absent: entry k is op from + k. */
    ops?: Int32Array;
}

/**
 * A request as a schedule that splits ops submits it (plan/split.ts): its steps, whole ops and
 * chunks of split ops, and per op which of its compiled chunkings the chunks are (-1: whole).
 */
export interface StepLayout {
    steps: readonly PlanStep[];
    chunking: readonly number[];
    /** The split each op runs in, by op path (only the ops that run in chunks). */
    splits: Readonly<Record<string, OpSplit>>;
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
        // A step layout has a step per chunk: room for the finest one compiled.
        const steps = compiled.ops.reduce((n, op) => n + Math.max(1, ...op.chunked.map(c => c.length)), 0);
        this.timedOps = Math.min(steps, MAX_TIMED_OPS);
        if (timing === 'gpu-timestamps') {
            this.querySet = device.createQuerySet({ label: `${compiled.name}/timestamps`, type: 'timestamp', count: 2 * this.timedOps });
            this.resolveBuffer = device.createBuffer({ label: `${compiled.name}/timestamps.resolve`, size: 16 * this.timedOps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
        }
    }

    get opCount(): number { return this.compiled.ops.length; }

    private rangeLabel(from: number, to: number, layout?: StepLayout): string {
        const ops = this.compiled.ops;
        const first = this.opOfStep(from, layout), last = this.opOfStep(to - 1, layout);
        return first === last ? ops[first].planned.path : `${ops[first].planned.path} … ${ops[last].planned.path}`;
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

    /**
     * The step layout of a split (op path → split; absent or empty: every op whole, undefined
     * returned): each op runs in the chunking compiled for its split, or whole when none was.
     */
    layoutFor(splits: Readonly<Record<string, OpSplit>> | undefined): StepLayout | undefined {
        if (!splits || Object.keys(splits).length === 0) return undefined;
        const ran: Record<string, OpSplit> = {};
        const chunking = this.compiled.ops.map((op, i) => {
            const s = splits[op.planned.path];
            const k = s ? (this.compiled.plan.chunked[i] ?? []).findIndex(c => c.split.axis === s.axis && c.split.chunks === s.chunks) : -1;
            if (k >= 0) ran[op.planned.path] = s!;
            return k;
        });
        const steps = planSteps(this.compiled.ops.length, i => chunking[i] >= 0 ? this.compiled.ops[i].chunked[chunking[i]].length : 1);
        return { steps, chunking, splits: ran };
    }

    /** Steps of a request: under a layout its steps, else its ops. */
    stepCount(layout?: StepLayout): number {
        return layout ? layout.steps.length : this.compiled.ops.length;
    }

    /** The op a step runs (its index in the plan). */
    opOfStep(step: number, layout?: StepLayout): number {
        return layout ? layout.steps[step].op : step;
    }

    /** The launches of step i: an op in a version, or one chunk of a split op (chunks run the op's own variant). */
    private stepLaunches(i: number, version: number, layout: StepLayout | undefined): readonly CompiledLaunch[] {
        if (!layout) return this.launchesOf(i, version);
        const step = layout.steps[i];
        const k = layout.chunking[step.op];
        return k >= 0 ? this.compiled.ops[step.op].chunked[k][step.chunk] : this.launchesOf(step.op, version);
    }

    /**
     * Runs steps [from, to) — ops, or under a layout whole ops and chunks — in a version (0: each
     * op's own variant) and waits (bounded) until the queue has finished them.
     */
    async run(from: number, to: number, signal?: AbortSignal, version = 0, layout?: StepLayout): Promise<StepResult> {
        return this.timing === 'gpu-timestamps' ? this.runTimestamped(from, to, version, signal, layout) : this.runCpuTimed(from, to, version, signal, layout);
    }

    /** Submits an encoded step and waits (bounded) until the queue has done it; when it had (performance.now()). */
    private async submitAndWait(encoder: GPUCommandEncoder, from: number, to: number, signal?: AbortSignal, layout?: StepLayout): Promise<number> {
        const opPath = this.compiled.ops[this.opOfStep(from, layout)].planned.path;
        const label = this.rangeLabel(from, to, layout);
        let submitted: Submitted;
        try {
            submitted = await submitChecked(this.compiled.device, encoder, this.stepTimeoutMs, `GPU work of tenant ${this.compiled.name} (op ${label})`, signal);
        } catch (error) {
            if (signal?.aborted) throw error;
            throw new GpuRunError(error instanceof Error ? error.message : String(error), opPath, this.compiled.name);
        }
        if (submitted.error) throw new GpuRunError(`tenant ${this.compiled.name}, op ${label}: GPU validation error: ${submitted.error.message}`, opPath, this.compiled.name);
        return submitted.doneAt;
    }

    private async runTimestamped(from: number, to: number, version: number, signal?: AbortSignal, layout?: StepLayout): Promise<StepResult> {
        const device = this.compiled.device;
        const encoder = device.createCommandEncoder({ label: `${this.compiled.name}/step` });
        const timedTo = Math.min(to, this.timedOps);
        for (let i = from; i < to; i++) {
            const launches = this.stepLaunches(i, version, layout);
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
        const doneAt = await this.submitAndWait(encoder, from, to, signal, layout);
        const intervals = readback ? this.readIntervals(readback, from, timedCount, layout) : Promise.resolve(undefined);
        return { submittedAt, doneAt, intervals };
    }

    /** Which op each of `count` steps from `from` ran, under a layout (absent without one: step k is op from + k). */
    private stepOps(from: number, count: number, layout: StepLayout | undefined): Int32Array | undefined {
        return layout ? Int32Array.from({ length: count }, (_, k) => layout.steps[from + k].op) : undefined;
    }

    private newReadback(): GPUBuffer {
        const b = this.compiled.device.createBuffer({ label: `${this.compiled.name}/timestamps.readback`, size: 16 * this.timedOps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        this.allReadbacks.push(b);
        return b;
    }

    private async readIntervals(readback: GPUBuffer, from: number, count: number, layout: StepLayout | undefined): Promise<OpIntervals | undefined> {
        try {
            await withTimeout(readback.mapAsync(GPUMapMode.READ, 0, 16 * count), this.stepTimeoutMs, `reading timestamps of tenant ${this.compiled.name}`);
            const ticks = new BigUint64Array(readback.getMappedRange(0, 16 * count).slice(0));
            readback.unmap();
            this.freeReadbacks.push(readback);
            const startMs = new Float64Array(count), endMs = new Float64Array(count);
            const ops = this.stepOps(from, count, layout);
            for (let i = 0; i < count; i++) {
                const hasLaunches = this.compiled.ops[ops ? ops[i] : from + i].launches.length > 0;
                startMs[i] = hasLaunches ? Number(ticks[2 * i]) / 1e6 : NaN;
                endMs[i] = hasLaunches ? Number(ticks[2 * i + 1]) / 1e6 : NaN;
            }
            return { from, startMs, endMs, ...(ops ? { ops } : {}) };
        } catch {
            // A lost device or a destroyed buffer: times of this step are simply missing.
            return undefined;
        }
    }

    private async runCpuTimed(from: number, to: number, version: number, signal?: AbortSignal, layout?: StepLayout): Promise<StepResult> {
        const device = this.compiled.device;
        const startMs = new Float64Array(to - from).fill(NaN), endMs = new Float64Array(to - from).fill(NaN);
        const submittedAt = performance.now();
        let doneAt = submittedAt;
        for (let i = from; i < to; i++) {
            const op = this.compiled.ops[this.opOfStep(i, layout)];
            const launches = this.stepLaunches(i, version, layout);
            if (launches.length === 0) continue;
            const encoder = device.createCommandEncoder({ label: op.planned.path });
            encodeOp(encoder, launches);
            startMs[i - from] = performance.now();
            doneAt = await this.submitAndWait(encoder, i, i + 1, signal, layout);
            endMs[i - from] = doneAt;
        }
        const ops = this.stepOps(from, to - from, layout);
        return { submittedAt, doneAt, intervals: Promise.resolve({ from, startMs, endMs, ...(ops ? { ops } : {}) }) };
    }

    /** Releases the timing objects (the compiled tenant is released by its owner). */
    destroy(): void {
        this.querySet?.destroy();
        this.resolveBuffer?.destroy();
        for (const b of this.allReadbacks) b.destroy();
    }
}
