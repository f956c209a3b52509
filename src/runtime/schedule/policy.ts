/**
 * The schedule seam: a policy sees the tenants' queues (arrived, unfinished requests in FIFO
 * order, and whether each tenant has GPU work in flight) and decides what to submit now. A
 * submission runs the head request of a tenant from its next op up to `opEnd` (the whole rest,
 * or a block of layers — so layer_block / regulated policies fit without touching execute).
 * The executor calls `decide` after every arrival and every completion. Pure.
 */
import type { IrPriority, IrSchedule, IrSlo } from '../ir/types.js';
import type { OpSplit } from '../plan/split.js';
import { cutBlocks, layerBlockPolicy } from './layer-block.js';
import { cutChunks, regulatedPolicy, type RegulatedOptions } from './regulated.js';
import { coTunedPolicy, type CoTunedOptions } from './co-tuned.js';

/** A request waiting or partly executed. */
export interface RequestView {
    id: number;
    /** Arrival time, ms since the phase started. */
    arrivalMs: number;
    /** Index of the next op to run (0 = not started). While the tenant is busy: the first op of the submission in flight. */
    nextOp: number;
}

/** One op of a tenant's plan (after fusion), as policies that cut requests into blocks see it. */
export interface OpView {
    /** FLOPs of the op and everything fused into it (IR figures). */
    flops: number;
    /** Kernel launches (0 for an aliasing op such as reshape). */
    launches: number;
    /** Predicted GPU time, ms, when the executor has a prediction. */
    predictedMs?: number;
    /**
     * Of predictedMs, the time its launches hold none of the device (ms): each launch's start-up
     * (the profile's kernel floor and dispatch overhead), in which another tenant's kernel can run.
     */
    leadMs?: number;
}

/** One tenant as a policy sees it. */
export interface TenantView {
    /** Index in the phase's tenant list (used in submissions). */
    index: number;
    name: string;
    priority: IrPriority;
    /** Number of ops in the tenant's plan. */
    opCount: number;
    /** True while a submission of this tenant is on the GPU. */
    busy: boolean;
    /** Arrived, unfinished requests, oldest first; only the head may be submitted. */
    waiting: readonly RequestView[];
    /** Per op of the plan (length opCount), built once per phase; absent in views that lack a plan. */
    ops?: readonly OpView[];
    /** The tenant's latency SLOs (empty or absent: none). */
    slos?: readonly IrSlo[];
    /** Versions its hot ops were compiled in (multi-version kernels; absent or 1: one). */
    versions?: number;
    /**
     * Per version (index 0: `ops` itself), the views as that version runs them, of the same length
     * as `ops`: a tolerant version's predicted times are its own, so interference is measured
     * against what the version that ran should take. Absent: every version as `ops`.
     */
    versionOps?: readonly (readonly OpView[])[];
}

export interface SchedulerView {
    nowMs: number;
    tenants: readonly TenantView[];
}

/** Run ops [head.nextOp, opEnd) of tenant `tenant`'s head request. */
export interface Submission {
    tenant: number;
    opEnd: number;
    /** The version its ops run in (multi-version kernels; 0 or absent: each op's own variant), and the interference level that chose it. */
    version?: number;
    level?: number;
}

/** A scheduling policy. */
export interface SchedulePolicy {
    readonly name: string;
    /**
     * Ops it runs in chunks, by tenant name then op path (regulated, layer_block: plan/split.ts). For such a
     * tenant the executor and the simulation give the policy one view per step — whole ops and
     * chunks — and `opCount`, `nextOp` and `opEnd` count steps.
     */
    readonly opSplits?: Readonly<Record<string, Readonly<Record<string, OpSplit>>>>;
    /** What to submit now (may be empty). Only tenants that are not busy and have waiting requests may be named. */
    decide(view: SchedulerView): Submission[];
}

/** The schedules the runtime runs (the language server says so of the others: one list, here). */
export const RUNNABLE_SCHEDULES: readonly IrSchedule['policy'][] = ['sequential', 'concurrent', 'layer_block', 'regulated', 'co_tuned', 'auto'];

/** Raised for a schedule the runtime does not implement yet (never silently replaced). */
export class ScheduleNotImplementedError extends Error {
    constructor(readonly policy: string) {
        super(`schedule ${policy} is not implemented yet; use ${RUNNABLE_SCHEDULES.join(', ')}`);
        this.name = 'ScheduleNotImplementedError';
    }
}

const priorityRank: Record<IrPriority, number> = { high: 0, normal: 1, low: 2 };

/** One request on the GPU at a time across all tenants: highest priority first, then earliest arrival. */
export const sequentialPolicy: SchedulePolicy = {
    name: 'sequential',
    decide(view) {
        if (view.tenants.some(t => t.busy)) return [];
        let best: TenantView | undefined;
        for (const t of view.tenants) {
            if (t.waiting.length === 0) continue;
            if (!best) { best = t; continue; }
            const a = priorityRank[t.priority] - priorityRank[best.priority];
            if (a < 0 || (a === 0 && t.waiting[0].arrivalMs < best.waiting[0].arrivalMs)) best = t;
        }
        return best ? [{ tenant: best.index, opEnd: best.opCount }] : [];
    },
};

/** Every tenant submits its next request as soon as its own queue is free (the driver interleaves). */
export const concurrentPolicy: SchedulePolicy = {
    name: 'concurrent',
    decide(view) {
        return view.tenants.filter(t => !t.busy && t.waiting.length > 0).map(t => ({ tenant: t.index, opEnd: t.opCount }));
    },
};

/** What a schedule's `auto` arguments were resolved to (predict/schedules.ts resolveSchedule): the runtime and the predictor run the same. */
export interface ScheduleSettings {
    regulated?: RegulatedOptions;
    /** layer_block: the ops it splits within, by tenant name then op path (predict/op-views.ts layerBlockOpSplits). */
    layerBlock?: { opSplits: Readonly<Record<string, Readonly<Record<string, OpSplit>>>> };
    /** co_tuned: the versions the search chose (co_tuned has no unresolved form). */
    coTuned?: CoTunedOptions;
}

/** Where a session's compiled versions put co_tuned's share versions (plan/versions.ts firstShareVersion; default 1). */
export interface VersionLayout {
    firstShareVersion?: number;
}

/**
 * The policy for a workload's schedule (a fresh object: policies may learn as they run), or
 * ScheduleNotImplementedError. `auto`, a regulated schedule's `auto` arguments and co_tuned's
 * versions must be resolved first (predict/schedules.ts resolveSchedule), so that the editor and the runtime run
 * the same thing.
 */
export function policyFor(schedule: IrSchedule, settings: ScheduleSettings = {}, layout: VersionLayout = {}): SchedulePolicy {
    switch (schedule.policy) {
        case 'sequential': return sequentialPolicy;
        case 'concurrent': return concurrentPolicy;
        case 'layer_block': return layerBlockPolicy({ size: schedule.size, ...(settings.layerBlock ? { opSplits: settings.layerBlock.opSplits } : {}) });
        case 'regulated': {
            if (settings.regulated) return regulatedPolicy(settings.regulated);
            if (schedule.split === 'auto' || schedule.sync === 'auto') throw new Error(`internal: ${scheduleName(schedule)} must be resolved (predict/schedules.ts resolveSchedule) before it runs`);
            return regulatedPolicy({ splits: {}, defaultSplit: schedule.split, heavyMs: Infinity });
        }
        case 'co_tuned': {
            if (!settings.coTuned) throw new Error(`internal: ${scheduleName(schedule)} must be resolved (predict/schedules.ts resolveSchedule) before it runs`);
            return coTunedPolicy(settings.coTuned, layout.firstShareVersion);
        }
        case 'auto': throw new Error('internal: schedule auto must be resolved (predict/schedules.ts resolveSchedule) before it runs');
        default: throw new ScheduleNotImplementedError((schedule as IrSchedule).policy);
    }
}

/**
 * Submissions a request makes under a schedule (each pays the submit overhead): one per block
 * under block schedules, cut by the rule the runtime's policy cuts by; one otherwise. `ops`: the
 * views the policy cuts (per step where it splits ops within).
 */
export function submissionsPerRequest(schedule: IrSchedule, ops: readonly OpView[], settings: ScheduleSettings = {}, tenant = ''): number {
    if (schedule.policy === 'regulated') {
        const split = settings.regulated ? settings.regulated.splits[tenant] ?? settings.regulated.defaultSplit : schedule.split === 'auto' ? 1 : schedule.split;
        return cutChunks(ops.length, ops, split).starts.length;
    }
    if (schedule.policy === 'layer_block') return cutBlocks(ops.length, ops, { size: schedule.size }).starts.length;
    return 1;
}

/** A readable name of a schedule with its arguments, e.g. "layer_block(size: 4)". */
export function scheduleName(schedule: IrSchedule): string {
    const args = Object.entries(schedule).filter(([k]) => k !== 'policy').map(([k, v]) => `${k}: ${v}`);
    return args.length ? `${schedule.policy}(${args.join(', ')})` : schedule.policy;
}
