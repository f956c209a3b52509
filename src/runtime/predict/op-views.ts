/**
 * The per-op view of a plan that schedules read (schedule/policy.ts OpView): FLOPs for
 * apportioning a request's budget, launch counts (aliases are not layers) and the predicted GPU
 * time per op that `layer_block(size: auto)` cuts by. The executor and the predictor build views
 * of the same plan on the same profile, so a schedule decides alike in both.
 *
 * Under a schedule that splits ops into chunks (`regulated`, `layer_block`: plan/split.ts), a
 * request is a list of steps — whole ops and chunks of split ops — and the views are per step: a
 * chunk's time is its own launches timed at the chunk's shape plus the dispatch each pays. Which
 * ops to split, along which axis and into how many chunks is chosen here (splitLongOps, one rule
 * for both schedules) on the predicted times, once, and both sides run the choice.
 *
 * Without a calibrated profile, predictions come from the uncalibrated default (figures of the
 * order of the reference software adapter: on a fast GPU they overestimate and `auto` picks
 * smaller blocks than a calibrated profile would). Pure.
 */
import type { IrPriority, IrSlo } from '../ir/types.js';
import { SPLIT_AXES } from '../kernels/kernel.js';
import type { PlannedOp } from '../plan/plan.js';
import { planSteps, splitLimits, splitOp, type OpChunks, type OpSplit, type PlanStep } from '../plan/split.js';
import type { OpView } from '../schedule/policy.js';
import { launchesServiceMs, opServiceMs, submissionMs } from './latency.js';
import type { DeviceProfile } from './profile.js';

/** One view per planned op; an op without launches has no predicted time, and a prediction that is not a finite time is left out. */
export function opViews(ops: readonly PlannedOp[], profile: DeviceProfile): OpView[] {
    return ops.map(op => {
        const view: OpView = { flops: op.flops, launches: op.launches.length };
        if (view.launches === 0) return view;
        const ms = opServiceMs(profile, op);
        if (ms !== undefined) Object.assign(view, { predictedMs: ms, leadMs: leadMs(profile, view.launches, ms) });
        return view;
    });
}

/**
 * Of the predicted time `ms` of `launches` launches, what holds none of the device: each launch's
 * start-up, the profile's kernel floor (an empty kernel's time) and dispatch overhead. On the
 * software adapter that is presumably the driver's queue thread setting the dispatch up and
 * waking the shared thread pool, in which another device's kernel can run (not measured apart;
 * the co-run scores in simulate.ts are the evidence).
 */
function leadMs(profile: DeviceProfile, launches: number, ms: number): number {
    return Math.min(launches * (profile.kernelFloorMs + profile.dispatchOverheadMs), ms);
}

/** A request as steps (whole ops and chunks of split ops) with a view per step. */
export interface StepViews {
    steps: PlanStep[];
    views: OpView[];
}

/** The steps of a plan whose op i runs as `chunksOf(i)` (undefined: whole), each with its view. */
export function stepViews(ops: readonly PlannedOp[], chunksOf: (op: number) => OpChunks | undefined, profile: DeviceProfile, whole: readonly OpView[] = opViews(ops, profile)): StepViews {
    const chunked = ops.map((_, i) => chunksOf(i));
    const steps = planSteps(ops.length, i => chunked[i]?.planned.length ?? 1);
    const views = steps.map(s => {
        const c = chunked[s.op];
        if (!c) return whole[s.op];
        const launches = c.planned[s.chunk];
        const view: OpView = { flops: launches.reduce((sum, l) => sum + l.flops, 0), launches: launches.length };
        const ms = launchesServiceMs(profile, launches);
        if (ms !== undefined) Object.assign(view, { predictedMs: ms, leadMs: leadMs(profile, view.launches, ms) });
        return view;
    });
    return { steps, views };
}

/**
 * Per version of a plan whose ops carry other versions (multi-version kernels: plan/versions.ts;
 * `versions[i]`: op i's versions 1, 2, …), the views as that version runs them — per step when
 * `steps` is given, else per op. Index 0 is version 0's views (`steps.views`, or `whole`). An op
 * with fewer versions runs its most tolerant one, as the runtime's TenantRunner does; chunks of
 * a split op run the op's own variant. Only version 0 when no op has another.
 */
export function versionViews(ops: readonly PlannedOp[], versions: readonly (readonly PlannedOp[] | undefined)[], profile: DeviceProfile, steps?: StepViews, whole: readonly OpView[] = opViews(ops, profile)): OpView[][] {
    const count = Math.max(1, ...versions.map(v => 1 + (v?.length ?? 0)));
    const first = steps?.views ?? whole.slice();
    if (count === 1) return [first];
    const byVersion: OpView[][] = [first];
    for (let version = 1; version < count; version++) {
        const viewsOf = ops.map((op, i) => {
            const alternatives = versions[i];
            if (!alternatives || alternatives.length === 0) return whole[i];
            const chosen = alternatives[Math.min(version, alternatives.length) - 1];
            return chosen === op ? whole[i] : opViews([chosen], profile)[0];
        });
        byVersion.push(steps ? steps.steps.map((s, k) => s.chunks > 1 ? steps.views[k] : viewsOf[s.op]) : viewsOf);
    }
    return byVersion;
}

/**
 * Which ops to split so that a request cut into `split` submissions of about equal predicted
 * time (schedule/regulated.ts cutChunks) can cut inside its long ops: every op predicted to take
 * longer than 1/split of the request (splitLongOps). By op path; empty for split 1.
 */
export function chooseOpSplits(ops: readonly PlannedOp[], profile: DeviceProfile, split: number, whole: readonly OpView[] = opViews(ops, profile)): Record<string, OpSplit> {
    if (split <= 1) return {};
    const total = whole.reduce((s, v) => s + (v.predictedMs ?? 0), 0);
    return splitLongOps(ops, profile, total / split, whole);
}

/**
 * The one rule for splitting ops within (regulated's and layer_block's): every op predicted to
 * take longer than `targetMs` is split into as many chunks as it takes to bring each to about
 * `targetMs` (at most what its grid allows), along the axis that comes nearest that count, of
 * those the one whose chunks are predicted to take least in all (ties: batch, rows, channels).
 * Fewer chunks always cost less in all, so least-in-all alone chose an axis of few tiles and left
 * a long chunk: bert's attention at batch 4 by its two row tiles left a chunk of 23 ms of the
 * request beside a critical tenant's 4 ms requests; by channels its chunks take 3.1 ms (its
 * output projection cut alike: plan/split.ts splitOp). By op path; empty when the target is not
 * a positive time.
 */
export function splitLongOps(ops: readonly PlannedOp[], profile: DeviceProfile, targetMs: number, whole: readonly OpView[] = opViews(ops, profile)): Record<string, OpSplit> {
    const chosen: Record<string, OpSplit> = {};
    if (!(targetMs > 0) || !Number.isFinite(targetMs)) return chosen;
    ops.forEach((op, i) => {
        const ms = whole[i].predictedMs ?? 0;
        if (!(ms > targetMs)) return;
        const limits = splitLimits(op);
        let best: { split: OpSplit; ms: number } | undefined;
        for (const axis of SPLIT_AXES) {
            const limit = limits[axis];
            if (!limit) continue;
            const chunks = Math.min(limit, Math.ceil(ms / targetMs));
            if (chunks < 2) continue;
            const c = splitOp(op, { axis, chunks });
            if (!c) continue;
            const sum = c.planned.reduce((s, launches) => s + (launchesServiceMs(profile, launches) ?? Infinity), 0);
            if (!best || c.split.chunks > best.split.chunks || (c.split.chunks === best.split.chunks && sum < best.ms)) best = { split: c.split, ms: sum };
        }
        if (best) chosen[op.path] = best.split;
    });
    return chosen;
}

/** A tenant as layerBlockOpSplits reads it. */
export interface BlockTenant {
    name: string;
    priority: IrPriority;
    slos: readonly IrSlo[];
    plan: readonly PlannedOp[];
    /** opViews of the plan on the profile. */
    views: readonly OpView[];
}

/** What layer_block splits within, per tenant, and for whom. */
export interface BlockSplits {
    /** Per tenant name, its ops split within by op path (empty: none). */
    opSplits: Record<string, Record<string, OpSplit>>;
    /** Per tenant whose ops are split: the chunk target (ms) and the tenant it protects. */
    reasons: Record<string, { targetMs: number; protects: string }>;
}

const rank: Record<IrPriority, number> = { high: 0, normal: 1, low: 2 };

/**
 * The ops `layer_block` splits within (schedule/layer-block.ts): a block boundary is the only
 * point where another tenant's block can be let in, and WebGPU cannot preempt a dispatch, so a
 * tenant with an SLO waits for whatever block of another tenant is in flight. For each tenant
 * outranked (lower priority) by a tenant with an SLO, the slack of the tightest such tenant —
 * its budget (tightest SLO) less its own request's predicted time — bounds how long a block of
 * the lower tenant may run: its ops longer than half that slack, over the layers a block holds
 * (`size`; 1 for auto, whose blocks of ≥ AUTO_TARGET_MS hold one long chunk each), are split
 * within (splitLongOps), so the higher tenant's arrival waits at most about half its slack
 * behind one block and keeps the other half for its own co-run slowdown. A request whose own time
 * leaves no slack is given a quarter of its budget instead (splitting then shortens the wait but
 * cannot make the SLO). Tenants nobody outranks with an SLO are not split: nothing waits on them
 * that priority says should not. Deterministic on the profile, so the predictor and the runtime
 * split alike. Pure.
 */
export function layerBlockOpSplits(tenants: readonly BlockTenant[], profile: DeviceProfile, size: number | 'auto'): BlockSplits {
    const opSplits: Record<string, Record<string, OpSplit>> = {};
    const reasons: Record<string, { targetMs: number; protects: string }> = {};
    const layers = size === 'auto' ? 1 : size;
    const slackOf = (t: BlockTenant) => {
        const budget = Math.min(...t.slos.map(s => s.ms));
        const requestMs = t.views.reduce((s, v) => s + (v.predictedMs ?? 0), submissionMs(profile));
        return Math.max(budget - requestMs, budget / 4);
    };
    for (const t of tenants) {
        opSplits[t.name] = {};
        let protects: BlockTenant | undefined, slack = Infinity;
        for (const h of tenants) {
            if (h === t || h.slos.length === 0 || rank[h.priority] >= rank[t.priority]) continue;
            const s = slackOf(h);
            if (s < slack) { slack = s; protects = h; }
        }
        if (!protects) continue;
        const targetMs = slack / 2 / layers;
        opSplits[t.name] = splitLongOps(t.plan, profile, targetMs, t.views);
        if (Object.keys(opSplits[t.name]).length > 0) reasons[t.name] = { targetMs, protects: protects.name };
    }
    return { opSplits, reasons };
}

/** stepViews of a plan split as `splits` (by op path) says; an op the split cannot be built for runs whole. */
export function splitStepViews(ops: readonly PlannedOp[], splits: Readonly<Record<string, OpSplit>> | undefined, profile: DeviceProfile, whole?: readonly OpView[]): StepViews {
    return stepViews(ops, i => {
        const s = splits?.[ops[i].path];
        return s && s.chunks > 1 ? splitOp(ops[i], s) : undefined;
    }, profile, whole);
}
