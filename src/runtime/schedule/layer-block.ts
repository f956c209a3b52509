/**
 * `schedule layer_block(size: N | auto)` — VELTAIR-style layer-block scheduling (docs/language.md#schedules).
 *
 * What a "layer" is: one op of the tenant's plan as the executor runs it — after fusion, so a
 * convolution with its folded batch norm and fused activation/residual is one layer — that
 * launches at least one kernel. Ops that launch nothing (reshape/flatten aliases) are not
 * layers; they ride in the block of the layer before them (or the first block).
 *
 * Ops split within: one op can be far longer than a higher-priority tenant's whole budget (a
 * transformer's dense op of hundreds of ms on the software adapter beside a 25 ms SLO), and a
 * block boundary is the only point where another tenant's block can be let in (WebGPU cannot
 * preempt a dispatch). So the long ops of a tenant that a tenant with an SLO outranks are split
 * into chunks of their workgroup grid (plan/split.ts, chosen by predict/op-views.ts
 * layerBlockOpSplits: the same planner and step model as `regulated`), each chunk a step and a
 * layer of its own, so a block boundary can fall inside the op. The views the policy then sees
 * (TenantView.ops) are per step; `opSplits` tells the executor and the simulation which.
 *
 * Blocks: each request's op list is cut into blocks of `size` consecutive layers. `size: auto`
 * cuts blocks of about AUTO_TARGET_MS of predicted GPU work (at least one layer each) when the
 * executor supplies per-op predictions (TenantView.ops[].predictedMs), else AUTO_FALLBACK_SIZE
 * layers (the VELTAIR artifact's block size).
 *
 * Deadlines: a request's budget is its tenant's tightest latency SLO (the smallest `ms` of its
 * `slo` lines, whatever the percentile), or DEFAULT_BUDGET_MS for a tenant without one (best
 * effort: tenants with SLOs usually go first, yet deadlines are absolute so it is never
 * starved). As in VELTAIR, the budget is apportioned to blocks by their FLOPs (MACs × 2: the
 * same proportion); block k's deadline is arrival + budget × (FLOPs of blocks 0..k) / total.
 * A plan without FLOPs apportions by layer count.
 *
 * Predicted block times are the ops' predictions (OpView.predictedMs) times a factor learnt
 * online from the blocks' measured times (TimeCorrection below), so a loaded host, an
 * uncalibrated profile or a faster adapter does not mislead the decisions for long.
 *
 * Multi-version kernels (VELTAIR): where a tenant's hot ops were compiled in several versions
 * (TenantView.versions), each block runs in a version its tenant's interference level calls for
 * (the level: its recent co-run blocks' measured time over their predicted time alone) and that
 * ran fastest under it so far (chooseVersion), and both the decision and the level use the chosen
 * version's own predicted times (TenantView.versionOps). Judged against version 0's times, a
 * tolerant version — slower alone by design — reads as interference and calls for a still more
 * tolerant one: on the heavy mix that loop sent a tenant's p95 from 22 to 1,425 ms
 * (BENCHMARKS.md, "Why layer_block collapses on the heavy mix").
 *
 * Decisions, at every arrival and block completion: the tenants' next blocks (and the blocks in
 * flight) are ordered earliest deadline first, ties by priority (high > normal > low), then
 * arrival, then tenant order. A tenant never has two blocks in flight (it is `busy` until its
 * block completes, and only then is its next block decided). How many blocks run at once:
 * - while the earliest-deadline block fits its budget co-running, each idle tenant's next block
 *   is submitted — blocks of different tenants co-run on their own queues, as a GPU co-runs
 *   them (up to one block per tenant in flight);
 * - when it would miss its deadline co-running (now + n × its predicted time > deadline, n
 *   being the number of tenants with work: the GPU shared evenly) but would make it alone
 *   (now + predicted time ≤ deadline), only that block may start: other tenants' next blocks
 *   wait until it fits co-running again or its request is done. Blocks already in flight are
 *   not preempted. This is VELTAIR's "smallest share whose profiled time fits the budget" with
 *   the only shares WebGPU offers: the device co-run with the others, or the device to itself.
 * - "would miss co-running" uses the larger of n and the slowdown the tenant's own recent
 *   co-run blocks showed (TimeCorrection.interferenceLevel): on a GPU without preemption a
 *   small tenant's kernels queue behind a big tenant's, far beyond an even share;
 * - a block that misses its deadline even alone is past saving: holding the others back would
 *   only spread the damage (under overload, EDF would starve the tenant whose requests arrived
 *   last), so everyone co-runs again — unless its tenant outranks every other tenant with work
 *   (priority high over normal over low), whose work may then wait: a latency-critical tenant
 *   beside a batch tenant stays protected after one late request. Without predictions (a view
 *   without OpView.predictedMs) no block is ever judged rescuable and every block co-runs,
 *   still ordered by EDF.
 * Only one block is tested: the earliest-deadline one — or, when that one is past saving, the
 * earliest block of a tenant that outranks it and can still be saved alone (a best-effort
 * tenant's requests are late against the default budget most of the time; its late block must
 * not decide for a latency-critical block that would make its deadline; a higher-priority
 * tenant that is late itself does not displace it, or an overloaded one would starve the
 * others). A later block with a tight fit waits its turn.
 */
import type { IrPriority, IrSlo } from '../ir/types.js';
import { splitWithinCount, type OpSplit } from '../plan/split.js';
import type { OpView, SchedulePolicy, SchedulerView, Submission, TenantView } from './policy.js';

/** Budget of a request whose tenant has no latency SLO, ms. */
export const DEFAULT_BUDGET_MS = 1000;
/** `size: auto`: predicted GPU work per block, ms. Large against the ~0.1–0.3 ms host round trip a block boundary costs. */
export const AUTO_TARGET_MS = 2;
/** `size: auto` without per-op predictions: layers per block (VELTAIR's artifact). */
export const AUTO_FALLBACK_SIZE = 20;

/** Blocks of one tenant's plan. */
export interface LayerBlocks {
    /** Block k runs ops [starts[k], ends[k]); ends[last] = the plan's op count. */
    starts: number[];
    ends: number[];
    /** Cumulative share of the request's budget at the end of block k (last = 1). */
    budgetShare: number[];
    /** Predicted GPU time of block k, ms (0 without predictions). */
    predictedMs: number[];
}

/** Options of layerBlockPolicy (the defaults above; tests override them). */
export interface LayerBlockOptions {
    size: number | 'auto';
    /** Ops split within, by tenant name then op path (predict/op-views.ts layerBlockOpSplits); the views are then per step. */
    opSplits?: Readonly<Record<string, Readonly<Record<string, OpSplit>>>>;
    defaultBudgetMs?: number;
    autoTargetMs?: number;
    autoFallbackSize?: number;
}

const priorityRank: Record<IrPriority, number> = { high: 0, normal: 1, low: 2 };

/** A request's latency budget: the tenant's tightest SLO in ms, or `fallbackMs` when it has none. */
export function budgetMs(slos: readonly IrSlo[] | undefined, fallbackMs = DEFAULT_BUDGET_MS): number {
    if (!slos || slos.length === 0) return fallbackMs;
    let tightest = tightestSlo.get(slos);
    if (tightest === undefined) tightestSlo.set(slos, tightest = Math.min(...slos.map(s => s.ms)));
    return tightest;
}

/** The tightest target per SLO list (a policy asks on every decision; a tenant's list is the same object all along). */
const tightestSlo = new WeakMap<readonly IrSlo[], number>();

/**
 * Cuts a plan into layer blocks. `ops` describes each planned op; without it every one of
 * `opCount` ops is a layer of equal FLOPs. `size: 'auto'` uses predictedMs when every layer has one.
 */
export function cutBlocks(opCount: number, ops: readonly OpView[] | undefined, options: LayerBlockOptions): LayerBlocks {
    if (ops && ops.length !== opCount) {
        throw new Error(`layer_block: the view describes ${ops.length} ops but the tenant's plan has ${opCount}`);
    }
    const size = options.size;
    if (size !== 'auto' && !(Number.isInteger(size) && size >= 1)) {
        throw new Error(`layer_block: size must be a positive integer or auto; found ${String(size)}`);
    }
    const isLayer = (i: number) => !ops || ops[i].launches > 0;
    const target = options.autoTargetMs ?? AUTO_TARGET_MS;
    const byTime = size === 'auto' && !!ops && ops.every(o => o.launches === 0 || (typeof o.predictedMs === 'number' && Number.isFinite(o.predictedMs)));
    const perBlock = size === 'auto' ? (options.autoFallbackSize ?? AUTO_FALLBACK_SIZE) : size;

    const starts: number[] = [0];
    let layers = 0, workMs = 0;
    for (let i = 0; i < opCount; i++) {
        if (!isLayer(i)) continue;
        // Cut before this layer when the current block is full; aliases before it stay in the block.
        const full = byTime ? layers > 0 && workMs >= target : layers >= perBlock;
        if (full) {
            starts.push(i);
            layers = 0;
            workMs = 0;
        }
        layers++;
        workMs += ops?.[i].predictedMs ?? 0;
    }
    const ends = [...starts.slice(1), opCount];

    // Budget shares by FLOPs (VELTAIR: by MACs); by layer count when the plan has no FLOPs.
    const weightOf = (i: number) => ops ? Math.max(0, ops[i].flops) : 1;
    let total = 0;
    for (let i = 0; i < opCount; i++) total += weightOf(i);
    const useFlops = total > 0;
    if (!useFlops) for (let i = 0; i < opCount; i++) total += isLayer(i) ? 1 : 0;
    let cumulative = 0;
    const budgetShare = ends.map((end, k) => {
        for (let i = starts[k]; i < end; i++) cumulative += useFlops ? weightOf(i) : isLayer(i) ? 1 : 0;
        return k === ends.length - 1 || total === 0 ? 1 : cumulative / total;
    });
    return { starts, ends, budgetShare, predictedMs: blockTimes({ starts, ends }, ops) };
}

/** Predicted GPU time of each block when its steps run as `ops` says (0 without predictions). */
export function blockTimes(blocks: Pick<LayerBlocks, 'starts' | 'ends'>, ops: readonly OpView[] | undefined): number[] {
    return blocks.ends.map((end, k) => {
        let ms = 0;
        for (let i = blocks.starts[k]; i < end; i++) ms += ops?.[i].predictedMs ?? 0;
        return ms;
    });
}

/** Index of the block that starts at `op` (a request only ever stops at block boundaries). */
function blockAt(blocks: LayerBlocks, op: number): number {
    let lo = 0, hi = blocks.starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (blocks.starts[mid] <= op) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/** A tenant's next (or in-flight) block with its deadline, the version it would run in and its corrected predicted time in that version. */
interface Candidate {
    tenant: TenantView;
    opEnd: number;
    deadlineMs: number;
    predictedMs: number;
    /** Multi-version kernels: the version its tenant's interference level calls for, and that level. */
    version?: { index: number; level: number };
}

/** The layer_block policy, with the correction it has learnt (for tests and diagnostics). */
export interface LayerBlockPolicy extends SchedulePolicy {
    /** Measured / predicted block time (TimeCorrection.factor). */
    readonly timeFactor: number;
}

/** The layer_block policy (see the module comment). */
export function layerBlockPolicy(options: LayerBlockOptions): LayerBlockPolicy {
    // Validate the size now, so a bad schedule is refused before anything runs.
    cutBlocks(1, undefined, options);
    // Blocks per plan: the view's ops array is built once per phase, so it keys the cache.
    const cache = new WeakMap<readonly OpView[], LayerBlocks>();
    const byCount = new Map<number, LayerBlocks>();
    const blocksOf = (t: TenantView): LayerBlocks => {
        if (t.ops) {
            let b = cache.get(t.ops);
            if (!b) cache.set(t.ops, b = cutBlocks(t.opCount, t.ops, options));
            return b;
        }
        let b = byCount.get(t.opCount);
        if (!b) byCount.set(t.opCount, b = cutBlocks(t.opCount, undefined, options));
        return b;
    };
    // Per version, each block's predicted time as that version runs it (cut once, on version 0's views).
    const versionCache = new WeakMap<readonly OpView[], number[][]>();
    const versionTimesOf = (t: TenantView, blocks: LayerBlocks, version: number): number[] => {
        if (!t.ops || !t.versionOps) return blocks.predictedMs;
        let times = versionCache.get(t.ops);
        if (!times) versionCache.set(t.ops, times = t.versionOps.map(views => views === t.ops ? blocks.predictedMs : blockTimes(blocks, views)));
        return times[Math.min(version, times.length - 1)] ?? blocks.predictedMs;
    };
    const within = splitWithinCount(options.opSplits);
    const name = `layer_block(size: ${options.size}${within ? `; ${within} op${within === 1 ? '' : 's'} split within` : ''})`;
    // Online correction of the predictions: measured block time / (predicted × tenants co-running).
    const learning = new TimeCorrection();

    return {
        name,
        ...(within ? { opSplits: options.opSplits } : {}),
        decide(view: SchedulerView): Submission[] {
            learning.observe(view);
            const factor = learning.factor;
            const candidates: Candidate[] = [];
            let busy = 0;
            for (const t of view.tenants) {
                if (t.busy) busy++;
                const head = t.waiting[0];
                if (!head) continue;
                const blocks = blocksOf(t);
                // For a busy tenant the head's nextOp is still the first op of its in-flight block.
                const k = blockAt(blocks, head.nextOp);
                const budget = budgetMs(t.slos, options.defaultBudgetMs ?? DEFAULT_BUDGET_MS);
                // Multi-version kernels: the block runs in a version its tenant's interference level calls for, and is
                // predicted at that version's own times (a tolerant version is slower alone; measured against version 0's
                // times it would read as more interference and call for a still more tolerant version).
                const versions = t.versions ?? 1;
                const level = learning.interferenceLevel(t.name);
                const version = versions > 1
                    ? { index: chooseVersion(level, versions, v => versionTimesOf(t, blocks, v)[k], v => learning.versionLevel(t.name, v)), level }
                    : undefined;
                const ms = versionTimesOf(t, blocks, version?.index ?? 0)[k];
                candidates.push({ tenant: t, opEnd: blocks.ends[k], deadlineMs: head.arrivalMs + budget * blocks.budgetShare[k], predictedMs: factor * ms, ...(version ? { version } : {}) });
            }
            const earliest = candidates.length > 1 ? candidates.sort((a, b) => a.deadlineMs - b.deadlineMs
                || priorityRank[a.tenant.priority] - priorityRank[b.tenant.priority]
                || a.tenant.waiting[0].arrivalMs - b.tenant.waiting[0].arrivalMs
                || a.tenant.index - b.tenant.index)[0] : candidates[0];
            const fits = (c: Candidate) => view.nowMs + c.predictedMs <= c.deadlineMs;
            // The block tested: the earliest deadline — or, when that one is past saving (late even
            // alone), the earliest block of a tenant that outranks it and can still be saved: a late
            // best-effort block must not stand in the way of a latency-critical block that would
            // make its deadline. (Only a block that can be saved: a higher-priority tenant that is
            // late itself, overloaded, would otherwise starve the lower one.)
            let first = earliest;
            if (!first) return [];
            if (first.predictedMs > 0 && !fits(first)) {
                const late = first;
                first = candidates.find(c => c.predictedMs > 0 && priorityRank[c.tenant.priority] < priorityRank[late.tenant.priority] && fits(c)) ?? late;
            }
            // Co-running, a block takes the longer of an even share of the GPU and the slowdown its
            // tenant's recent co-run blocks showed: behind another tenant's big kernels (no
            // preemption) a small block waits far longer than an even share says.
            const coRunSlowdown = Math.max(candidates.length, learning.interferenceLevel(first.tenant.name));
            const missesCoRunning = view.nowMs + coRunSlowdown * first.predictedMs > first.deadlineMs;
            const fitsAlone = fits(first);
            // A late block of a tenant that outranks every other tenant with work still runs alone:
            // its priority says the others' work may wait, and co-running would make it later still.
            const outranks = first.predictedMs > 0 && candidates.every(c => c === first || priorityRank[first.tenant.priority] < priorityRank[c.tenant.priority]);
            let chosen: Candidate[];
            if (missesCoRunning && (fitsAlone || outranks)) {
                // The most urgent block can be saved only by running alone: it alone may start (in flight: everyone else waits).
                chosen = first.tenant.busy ? [] : [first];
            } else {
                chosen = candidates.filter(c => !c.tenant.busy);
            }
            const inFlight = busy + chosen.length;
            for (const c of chosen) learning.submitted(c.tenant, view.nowMs, c.predictedMs / factor, inFlight, c.version?.index);
            return chosen.map(c => c.version
                ? { tenant: c.tenant.index, opEnd: c.opEnd, version: c.version.index, level: c.version.level }
                : { tenant: c.tenant.index, opEnd: c.opEnd });
        },
        get timeFactor() { return learning.factor; },
    };
}

/**
 * How far the predictions are off on this host, learnt from the blocks themselves: when a
 * tenant that had a block in flight is seen idle again (the executor decides right after each
 * completion), measured ÷ (predicted × blocks in flight when it started — the GPU shared
 * evenly) is folded into a moving average. Predictions come from a profile that may be the
 * uncalibrated default, and a loaded host or a different adapter is slower or faster than any
 * profile: the solo phases (one tenant) teach the policy the plain speed factor before the
 * co-run phase (the same policy object serves a whole run) — VELTAIR's profiled layer times,
 * measured in place. Blocks without a prediction, and blocks of an earlier phase, teach nothing.
 */
export class TimeCorrection {
    /** Measured / predicted time of a block running alone (1 until a block has been measured). */
    factor = 1;
    private measured = 0;
    /** Measured / predicted of blocks that ran with no other block in flight: the host's own speed, without interference. */
    private alone = 1;
    private aloneMeasured = 0;
    /** Per tenant, measured / (predicted × alone) of its recent blocks that co-ran: the interference it sees now. */
    private readonly levels = new Map<string, number>();
    /** The same per tenant and version (multi-version kernels), of the blocks that ran in it (undefined: none yet). */
    private readonly versionLevels = new Map<string, (number | undefined)[]>();
    private readonly pending = new Map<string, { ops: readonly OpView[] | undefined; atMs: number; predictedMs: number; inFlight: number; version: number }>();

    constructor(private readonly weight = 0.2, private readonly bounds: [number, number] = [0.01, 1000]) {}

    /** Records a block submitted at `atMs` in `version` with its uncorrected prediction (that version's) and the blocks in flight with it. */
    submitted(tenant: TenantView, atMs: number, predictedMs: number, inFlight: number, version = 0): void {
        this.pending.set(tenant.name, { ops: tenant.ops, atMs, predictedMs, inFlight: Math.max(1, inFlight), version });
    }

    /** Folds in every pending block whose tenant is idle again in this view. */
    observe(view: SchedulerView): void {
        for (const t of view.tenants) {
            const p = this.pending.get(t.name);
            if (!p || t.busy) continue;
            this.pending.delete(t.name);
            // A new phase builds new op views (and restarts its clock): that block's time is unknown.
            if (p.ops !== t.ops || p.predictedMs <= 0 || view.nowMs < p.atMs) continue;
            const measuredMs = view.nowMs - p.atMs;
            const ratio = measuredMs / (p.predictedMs * p.inFlight);
            const clamped = Math.min(this.bounds[1], Math.max(this.bounds[0], ratio));
            // The first measurement replaces the neutral 1; later ones are averaged in.
            this.factor = this.measured++ === 0 ? clamped : this.factor * (1 - this.weight) + clamped * this.weight;
            const plain = Math.min(this.bounds[1], Math.max(this.bounds[0], measuredMs / p.predictedMs));
            if (p.inFlight === 1) {
                this.alone = this.aloneMeasured++ === 0 ? plain : this.alone * (1 - this.weight) + plain * this.weight;
            } else {
                const level = plain / this.alone;
                const fold = (previous: number | undefined) => previous === undefined ? level : previous * (1 - this.weight) + level * this.weight;
                this.levels.set(t.name, fold(this.levels.get(t.name)));
                let byVersion = this.versionLevels.get(t.name);
                if (!byVersion) this.versionLevels.set(t.name, byVersion = []);
                byVersion[p.version] = fold(byVersion[p.version]);
            }
        }
    }

    /** How much slower than alone a tenant's recent co-running blocks ran (1: no interference seen yet). */
    interferenceLevel(tenant: string): number {
        return this.levels.get(tenant) ?? 1;
    }

    /** The same of its blocks that ran in `version` (undefined: none has co-run in it yet). */
    versionLevel(tenant: string, version: number): number | undefined {
        return this.versionLevels.get(tenant)?.[version];
    }
}

/**
 * The version a block runs in (multi-version kernels). VELTAIR's switch points (versionFor)
 * propose how tolerant a version the tenant's interference level calls for; of version 0 up to
 * that one, the block takes the one expected to run fastest co-running — its predicted time
 * (`blockMs(v)`, the version's own) times the level the tenant's blocks showed in it
 * (`levelIn(v)`; version 0 unmeasured: the tenant's level) — and a version up to the proposed one
 * that has not run co-running yet is tried first. Whether a tolerant version pays is the
 * adapter's to say: on the software adapter they ran slower under the very interference that
 * called for them (BENCHMARKS.md, "Why layer_block collapses on the heavy mix"), and a version
 * measured to lose is left for the version that wins.
 */
export function chooseVersion(level: number, versions: number, blockMs: (version: number) => number, levelIn: (version: number) => number | undefined): number {
    const proposed = versionFor(level, versions);
    let best = 0, bestMs = blockMs(0) * (levelIn(0) ?? level);
    for (let v = 1; v <= proposed; v++) {
        const measured = levelIn(v);
        if (measured === undefined) return v;
        const expected = blockMs(v) * measured;
        if (expected < bestMs) { best = v; bestMs = expected; }
    }
    return best;
}

/** Interference levels at which a block moves to the next, more tolerant version: VELTAIR's switch points. */
export const VERSION_LEVELS: readonly number[] = [1.5, 3];

/** The version a block runs in at an interference level, of `versions` available (0: fastest alone). */
export function versionFor(level: number, versions: number): number {
    let v = 0;
    while (v < VERSION_LEVELS.length && level >= VERSION_LEVELS[v]) v++;
    return Math.min(v, Math.max(0, versions - 1));
}
