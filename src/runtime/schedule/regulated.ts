/**
 * `schedule regulated(split: N | auto, sync: auto | none)` — GACER-style concurrency regulation
 * (docs/language.md#schedules), with the knobs WebGPU has:
 *
 * - Spatial: each tenant's request is cut into `split` chunks of about equal predicted GPU time,
 *   each a submission of its own. WebGPU cannot preempt a dispatch nor confine one to part of the
 *   device (CUDA's streams with SM masks and MPS have no WebGPU analogue); a submission boundary is
 *   the only point where another tenant's work can be placed, so chunks are where the device's
 *   time is divided. The finer a tenant's chunks, the sooner another tenant's urgent work starts.
 *   A cut may fall inside an op: an op predicted to take longer than a chunk is itself split
 *   into chunks of its grid along rows, output channels or batch (plan/split.ts, chosen by
 *   predict/op-views.ts chooseOpSplits; `opSplits` below), each its own dispatch — GACER's sliced
 *   kernels, with a queue submission boundary between slices where CUDA would interleave streams.
 *   The views the policy sees (TenantView.ops) are then per step: whole ops and chunks.
 * - Temporal (`sync: auto`): a chunk whose predicted time is at least `heavyMs` is exclusive — it
 *   starts only while no other tenant has an exclusive chunk in flight, so the big parts of
 *   different tenants never overlap (the sync points between their queues), and only while no
 *   tenant of higher priority has work waiting or in flight, so a latency-critical tenant never
 *   queues behind a batch tenant's big part it could have avoided. Light chunks co-run freely.
 *   `sync: none`: every chunk co-runs.
 * - Order: earliest deadline first, as layer_block (each chunk's share of the request's budget by
 *   its FLOPs), ties by priority then arrival.
 *
 * `split: auto` and `sync: auto` are resolved by the predictor's search (predict/schedules.ts
 * resolveSchedule): a split per tenant and the exclusive threshold that minimise the predicted
 * p99s against the SLOs on the device profile. The runtime runs what the search found. Pure.
 */
import type { IrPriority } from '../ir/types.js';
import { splitWithinCount, type OpSplit } from '../plan/split.js';
import { budgetMs, cutBlocks, DEFAULT_BUDGET_MS, type LayerBlocks } from './layer-block.js';
import type { OpView, SchedulePolicy, SchedulerView, Submission, TenantView } from './policy.js';

/** What a regulated schedule runs with, once its `auto` arguments are resolved. */
export interface RegulatedOptions {
    /** Chunks per request, by tenant name; tenants not named take `defaultSplit`. */
    splits: Readonly<Record<string, number>>;
    defaultSplit: number;
    /** Chunks predicted at or above this many ms are exclusive; Infinity: none is (sync: none). */
    heavyMs: number;
    /** Ops split into chunks of their own, by tenant name then op path (absent: requests are cut at op boundaries only). */
    opSplits?: Readonly<Record<string, Readonly<Record<string, OpSplit>>>>;
}

const priorityRank: Record<IrPriority, number> = { high: 0, normal: 1, low: 2 };

/** A tenant's plan cut into `split` chunks of about equal predicted time (op boundaries; at least one layer each). */
export function cutChunks(opCount: number, ops: readonly OpView[] | undefined, split: number): LayerBlocks {
    if (!ops || split <= 1) return cutBlocks(opCount, ops, { size: Math.max(1, opCount) });
    const total = ops.reduce((s, o) => s + (o.predictedMs ?? 0), 0);
    if (!(total > 0)) return cutBlocks(opCount, ops, { size: Math.max(1, Math.ceil(ops.filter(o => o.launches > 0).length / split)) });
    return cutBlocks(opCount, ops, { size: 'auto', autoTargetMs: total / split });
}

/** The regulated policy (see the module comment). */
export function regulatedPolicy(options: RegulatedOptions): SchedulePolicy {
    const chunks = new WeakMap<readonly OpView[], LayerBlocks>();
    const byCount = new Map<string, LayerBlocks>();
    const chunksOf = (t: TenantView): LayerBlocks => {
        const split = options.splits[t.name] ?? options.defaultSplit;
        if (t.ops) {
            let c = chunks.get(t.ops);
            if (!c) chunks.set(t.ops, c = cutChunks(t.opCount, t.ops, split));
            return c;
        }
        const key = `${t.opCount}/${split}`;
        let c = byCount.get(key);
        if (!c) byCount.set(key, c = cutChunks(t.opCount, undefined, split));
        return c;
    };
    /** Per tenant, whether the chunk it has in flight is exclusive. */
    const exclusiveInFlight = new Map<string, boolean>();
    const sync = Number.isFinite(options.heavyMs);
    const within = splitWithinCount(options.opSplits);
    return {
        name: `regulated(split: ${Object.keys(options.splits).length ? JSON.stringify(options.splits) : options.defaultSplit}, sync: ${sync ? `${options.heavyMs.toFixed(2)} ms` : 'none'}${within ? `; ${within} op${within === 1 ? '' : 's'} split within` : ''})`,
        opSplits: options.opSplits,
        // The simulation decides after every arrival and completion (hundreds of thousands of times per comparison of
        // schedules in the editor): one pass over the tenants, and nothing allocated when no tenant can start.
        decide(view: SchedulerView): Submission[] {
            let candidates: { tenant: TenantView; opEnd: number; deadlineMs: number; heavy: boolean }[] | undefined;
            // The most urgent priority with work: lower priorities' exclusive chunks wait for it.
            let urgent = 3;
            for (const t of view.tenants) {
                if (t.busy || t.waiting.length > 0) urgent = Math.min(urgent, priorityRank[t.priority]);
                if (!t.busy) exclusiveInFlight.delete(t.name);
                const head = t.waiting[0];
                if (!head || t.busy) continue;
                const c = chunksOf(t);
                let k = 0;
                while (k + 1 < c.starts.length && c.starts[k + 1] <= head.nextOp) k++;
                const budget = budgetMs(t.slos, DEFAULT_BUDGET_MS);
                (candidates ??= []).push({ tenant: t, opEnd: c.ends[k], deadlineMs: head.arrivalMs + budget * c.budgetShare[k], heavy: sync && c.predictedMs[k] >= options.heavyMs });
            }
            if (!candidates) return [];
            if (candidates.length > 1) {
                candidates.sort((a, b) => a.deadlineMs - b.deadlineMs
                    || priorityRank[a.tenant.priority] - priorityRank[b.tenant.priority]
                    || a.tenant.waiting[0].arrivalMs - b.tenant.waiting[0].arrivalMs
                    || a.tenant.index - b.tenant.index);
            }
            let heavyBusy = false;
            for (const exclusive of exclusiveInFlight.values()) if (exclusive) { heavyBusy = true; break; }
            const chosen: Submission[] = [];
            for (const c of candidates) {
                if (c.heavy && heavyBusy) continue; // a sync point: wait for the other tenant's big chunk
                if (c.heavy && priorityRank[c.tenant.priority] > urgent) continue; // a higher priority has work: no big chunk now
                if (c.heavy) heavyBusy = true;
                exclusiveInFlight.set(c.tenant.name, c.heavy);
                chosen.push({ tenant: c.tenant.index, opEnd: c.opEnd });
            }
            return chosen;
        },
    };
}
