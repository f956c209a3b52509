/**
 * How much co-running submissions slow each other (a linear contention model over the profile's
 * pairwise interference coefficients), for the schedule simulation (simulate.ts). Pure.
 *
 *   c(k, l)  = slowdown(victim kind k, aggressor kind l) − 1, measured by calibration with the
 *              aggressor continuously busy on a second device; k, l ∈ {compute, memory, capped}.
 *   f_i(k)   = share of tenant i's GPU time spent in launches of kind k.
 *   c_ij     = Σ_k Σ_l f_i(k) · f_j(l) · c(k, l): tenant i's slowdown − 1 while j has work in flight.
 *
 * Superposition is linear: two always-busy compute aggressors on a device that time-shares
 * evenly (c = 1) give s = 3, which is processor sharing's answer. The simulation applies c_ij
 * only to kernels running side by side (co_tuned's capped kernels, which leave room on the
 * device); full-width kernels take turns instead (simulate.ts).
 */
import type { DemandKind, DeviceProfile } from './profile.js';
import { demandKinds } from './profile.js';

/** Demand mix of a tenant: fraction of its GPU time per contention kind (sums to 1, or all 0). */
export type DemandMix = Record<DemandKind, number>;

/** Fallbacks for pairs a profile did not measure: the nearest measured kind. */
const NEAREST: Record<DemandKind, DemandKind[]> = {
    compute: ['compute', 'capped', 'memory'],
    memory: ['memory', 'compute', 'capped'],
    capped: ['capped', 'compute', 'memory'],
};

/** c(victim, aggressor) from the profile (slowdown − 1, never negative). */
export function interferenceCoefficient(profile: DeviceProfile, victim: DemandKind, aggressor: DemandKind): number {
    for (const v of NEAREST[victim]) {
        for (const a of NEAREST[aggressor]) {
            const pair = profile.interference.pairs.find(p => p.victim === v && p.aggressor === a);
            if (pair) return Math.max(0, pair.slowdown - 1);
        }
    }
    return 0;
}

/** kindCoefficients per profile object (a profile is read-only once loaded; every workload predicted on it shares them). */
const coefficientsByProfile = new WeakMap<DeviceProfile, Record<DemandKind, Record<DemandKind, number>>>();

/** c(k, l) for every pair of demand kinds (interferenceCoefficient), looked up once per profile. */
function kindCoefficients(profile: DeviceProfile): Record<DemandKind, Record<DemandKind, number>> {
    let kinds = coefficientsByProfile.get(profile);
    if (!kinds) {
        const row = (k: DemandKind) => ({ compute: interferenceCoefficient(profile, k, 'compute'), memory: interferenceCoefficient(profile, k, 'memory'), capped: interferenceCoefficient(profile, k, 'capped') });
        kinds = { compute: row('compute'), memory: row('memory'), capped: row('capped') };
        coefficientsByProfile.set(profile, kinds);
    }
    return kinds;
}

/** Σ_k Σ_l f_i(k) f_j(l) c(k, l): the slowdown one always-busy tenant j inflicts on tenant i, minus 1. */
export function pairCoefficient(profile: DeviceProfile, victim: DemandMix, aggressor: DemandMix, kinds = kindCoefficients(profile)): number {
    let c = 0;
    for (const k of demandKinds) {
        if (victim[k] === 0) continue;
        for (const l of demandKinds) {
            if (aggressor[l] === 0) continue;
            c += victim[k] * aggressor[l] * kinds[k][l];
        }
    }
    return c;
}

/** pairCoefficient(i, j) for every ordered pair of tenants (the simulation's c_ij): constant while the mixes are, so computed once per simulation input. */
export function pairCoefficients(profile: DeviceProfile, mixes: readonly DemandMix[]): number[][] {
    const kinds = kindCoefficients(profile);
    return mixes.map(mi => mixes.map(mj => pairCoefficient(profile, mi, mj, kinds)));
}

/** Demand mix from per-kind GPU time. */
export function demandMix(demandMs: Record<DemandKind, number>): DemandMix {
    const total = demandKinds.reduce((s, k) => s + demandMs[k], 0);
    const mix = { compute: 0, memory: 0, capped: 0 };
    if (total > 0) for (const k of demandKinds) mix[k] = demandMs[k] / total;
    return mix;
}
