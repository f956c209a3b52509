/**
 * `schedule co_tuned(variants: N)` — ConCo-style co-tuned kernels (docs/language.md#schedules),
 * with the knob WebGPU has. ConCo compiles each model for a share C of the GPU (CUDA MPS's
 * active-thread percentage, or an SM mask) and runs it at a share R set by its co-runners.
 * WebGPU can neither reserve part of the device nor cap a queue's share, so a share is built
 * into the kernel: an occupancy-capped persistent kernel (`capped_W`) dispatches W workgroups
 * that loop over all of the op's tiles, so it never occupies more than W of the P workgroups
 * the device runs at once — C = W / P. The hot ops of each tenant are compiled in N versions:
 * version 0 its own variant (the code tuned for a dedicated device, C = 100 %), versions 1 … N−1
 * capped at shares stepping down by P / N. The share it runs at follows from the co-runners in
 * flight, R = C / max(1, ΣC): shares summing past 100 % (over-provisioned) divide the device in
 * proportion. Which version each tenant runs in — the joint choice, C ≠ R allowed — is found
 * before the run by a simulated-annealing search over the predictor's simulation
 * (predict/co-tuned.ts); the runtime and the predictor then run this policy with that choice.
 *
 * The policy itself submits like `concurrent` (each tenant's next request as soon as its queue
 * is free), every request in its tenant's chosen version. Pure.
 */
import type { SchedulePolicy, Submission } from './policy.js';

/** What a co_tuned schedule runs with, once the search has chosen. */
export interface CoTunedOptions {
    /** Versions asked for (the schedule's `variants`). */
    variants: number;
    /** Workgroups the device runs at once, as the profile knows it (P). */
    parallelism: number;
    /** Workgroup cap of versions 1 … (version 0: the op's own variant); their shares are workgroups / parallelism. */
    workgroups: readonly number[];
    /** The version each tenant runs in, by tenant name (absent: 0). */
    versions: Readonly<Record<string, number>>;
}

/** The share of the device (0–1] a version occupies: 1 for version 0 (the op's own variant), W / P for a capped one. */
export function versionShare(options: Pick<CoTunedOptions, 'parallelism' | 'workgroups'>, version: number): number {
    return version <= 0 ? 1 : Math.min(1, options.workgroups[version - 1] / options.parallelism);
}

/** The variant family a version runs hot ops in, in words: "own variant" or "capped_8". */
export function versionLabel(options: Pick<CoTunedOptions, 'workgroups'>, version: number): string {
    return version <= 0 ? 'own variant' : `capped_${options.workgroups[version - 1]}`;
}

/** "co_tuned(variants: 3; a: C 50%, b: C 100%)": the schedule with each tenant's chosen share. */
function coTunedName(options: CoTunedOptions, tenants: readonly string[] = Object.keys(options.versions)): string {
    const shares = tenants.map(t => `${t}: C ${Math.round(100 * versionShare(options, options.versions[t] ?? 0))}%`);
    return `co_tuned(variants: ${options.variants}${shares.length ? `; ${shares.join(', ')}` : ''})`;
}

/**
 * The co_tuned policy (see the module comment). `firstShareVersion`: the compiled version that is
 * share version 1 (1, or after layer_block's tolerant versions when a session compiles both:
 * plan/versions.ts firstShareVersion); the predictor's versions are numbered from 1.
 */
export function coTunedPolicy(options: CoTunedOptions, firstShareVersion = 1): SchedulePolicy {
    const compiled = (v: number) => v <= 0 ? 0 : firstShareVersion + v - 1;
    return {
        name: coTunedName(options),
        decide(view): Submission[] {
            return view.tenants.filter(t => !t.busy && t.waiting.length > 0).map(t => ({ tenant: t.index, opEnd: t.opCount, version: compiled(options.versions[t.name] ?? 0) }));
        },
    };
}

/** The rule results record for the versions co_tuned ran (compiled version numbers: share version k is firstShareVersion + k − 1). */
export function coTunedVersionRule(options: CoTunedOptions, firstShareVersion = 1): string {
    const chosen = Object.entries(options.versions).map(([tenant, v]) =>
        `${tenant} version ${v <= 0 ? 0 : firstShareVersion + v - 1} (${versionLabel(options, v)}, C ${Math.round(100 * versionShare(options, v))}%)`);
    return `co_tuned: every request of a tenant in the version the annealing search chose before the run: ${chosen.join(', ')}`;
}
