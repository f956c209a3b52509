/**
 * Multi-version kernels (VELTAIR): a hot op is compiled in several variants, ranked from fastest
 * alone to most tolerant of co-runners, and each block of a request runs in the version the
 * interference it sees calls for (schedule/layer-block.ts versionFor). The ranking is by what a
 * variant occupies of the device, the knob WebGPU has: the op's own (tuned or default) variant
 * first, then smaller register tiles (less register and cache pressure per workgroup), then
 * persistent kernels capped to fewer workgroups (capped_16, then capped_4: a smaller share of the
 * device). Whether a tolerant version helps is an empirical question per adapter; the results say
 * which version ran when, and the benchmark what it gained. Pure.
 */
import type { PlannedOp } from './plan.js';

/** Versions a hot op is compiled in, its own variant included. */
export const VERSIONS = 3;
/** Hot ops: the fewest, longest first, that make up this share of a request's predicted time … */
const HOT_SHARE = 0.8;
/** … and at most this many: every version is a pipeline to compile, which a software adapter's shader JIT takes seconds for. */
const MAX_HOT_OPS = 4;

/** The variants an op may take as more tolerant versions, least tolerant first (none for ops without such variants). */
export function tolerantVariants(op: Pick<PlannedOp, 'kind' | 'variant'>): string[] {
    switch (op.kind) {
        case 'dense': case 'matmul':
            return ['vec4_4x4', 'capped_16', 'capped_4'];
        case 'conv2d':
            return op.variant?.startsWith('pointwise_') ? ['pointwise_vec4_4x4', 'pointwise_capped_16', 'pointwise_capped_4'] : ['gemm_4x4', 'capped_16', 'capped_4'];
        default:
            return [];
    }
}

/** The indices of a plan's hot ops, by predicted time per op (ms). */
export function hotOps(predictedMs: readonly number[]): Set<number> {
    const total = predictedMs.reduce((s, x) => s + x, 0);
    const order = predictedMs.map((ms, i) => ({ ms, i })).sort((a, b) => b.ms - a.ms);
    const hot = new Set<number>();
    let covered = 0;
    for (const { ms, i } of order) {
        if (hot.size >= MAX_HOT_OPS || covered >= HOT_SHARE * total || ms <= 0) break;
        hot.add(i);
        covered += ms;
    }
    return hot;
}

/**
 * The variants of an op occupying a share of the device (co_tuned): per workgroup cap, the op's
 * GEMM tiles walked by a persistent loop of that many workgroups; none for ops without such variants.
 */
export function shareVariants(op: Pick<PlannedOp, 'kind' | 'variant'>, workgroups: readonly number[]): string[] {
    switch (op.kind) {
        case 'dense': case 'matmul':
            return workgroups.map(w => `capped_${w}`);
        case 'conv2d':
            return workgroups.map(w => op.variant?.startsWith('pointwise_') ? `pointwise_capped_${w}` : `capped_${w}`);
        default:
            return [];
    }
}

/** Which versions planTenant compiles for a session's schedules: layer_block's tolerant ones, co_tuned's shares, or both (tolerant first). */
export interface VersionSets {
    tolerant: boolean;
    /** co_tuned: the workgroup caps of its share versions. */
    shareWorkgroups?: readonly number[];
}

/**
 * For planTenant's `versions`: per hot op, its tolerant variants (exactly VERSIONS − 1 for an op
 * that has them) and then one variant per device share; nothing for other ops. An op has tolerant
 * variants exactly when it has share variants, so share k is version firstShareVersion(sets) + k − 1
 * of every op that has versions.
 */
export function versionsOfHotOps(predictedMs: (ops: readonly PlannedOp[]) => readonly number[], sets: VersionSets = { tolerant: true }): (ops: readonly PlannedOp[]) => readonly (readonly string[])[] {
    return ops => {
        const hot = hotOps(predictedMs(ops));
        return ops.map((op, i) => !hot.has(i) ? [] : [
            ...(sets.tolerant ? tolerantVariants(op).filter(v => v !== op.variant).slice(0, VERSIONS - 1) : []),
            ...shareVariants(op, sets.shareWorkgroups ?? []),
        ]);
    };
}

/** The version index of co_tuned's first share version under these version sets (version 0: the op itself). */
export function firstShareVersion(sets: VersionSets): number {
    return sets.tolerant ? VERSIONS : 1;
}
