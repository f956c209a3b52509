/**
 * Which ops of different tenants collide: the pairs of ops whose overlap costs the most under the
 * contention model (contention.ts). One rule, the contention model's own: a tenant pair's
 * coefficient c_ij = Σ_k Σ_l f_i(k) · f_j(l) · c(k, l) is bilinear in the two demand mixes, and a
 * tenant's mix is its ops' mixes weighted by their share of its GPU time (f_i = Σ_a (t_a / T_i) · f_a),
 * so the pair's mutual slowdown splits exactly into one term per pair of ops:
 *
 *     c_ij + c_ji = Σ_a∈i Σ_b∈j (t_a / T_i) · (t_b / T_j) · (c(a ← b) + c(b ← a))
 *
 * (t: an op's predicted GPU time, T: the tenant's per request, c(a ← b): pairCoefficient of the
 * two ops' demand mixes). A term is what ops a and b add to the two tenants' slowdown while both
 * tenants are busy, the condition calibration measured c under; the largest terms name the ops to
 * keep apart. Pure.
 */
import type { WorkloadIR } from '../ir/types.js';
import { PlanCache, planGraph } from '../plan/plan.js';
import { demandMix, pairCoefficient, type DemandMix } from './contention.js';
import { opTiming } from './latency.js';
import { capsForProfile, type DeviceProfile } from './profile.js';

/** Two ops of different tenants and what their overlap costs. */
export interface OpCollision {
    /** Op paths (`tenant/model/…`), the first of the tenant listed first in the workload. */
    ops: [string, string];
    tenants: [string, string];
    /** The pair's term of c_ij + c_ji: the slowdown (− 1) it adds to the two tenants together while both are busy. */
    cost: number;
    /** The term's share of its tenant pair's c_ij + c_ji (0–1). */
    share: number;
}

interface TimedOp {
    path: string;
    /** t_a / T_i. */
    weight: number;
    mix: DemandMix;
}

/** The `top` costliest op pairs of different tenants, costliest first (none for a single tenant). */
export function opCollisions(ir: WorkloadIR, profile: DeviceProfile, options: { cache?: PlanCache; top?: number } = {}): OpCollision[] {
    const cache = options.cache ?? new PlanCache();
    const caps = capsForProfile(profile);
    const tenants = ir.tenants.map(t => {
        const timed = planGraph(t.graph, { caps, cache }).filter(op => op.launches.length > 0).map(op => {
            const timing = cache.perProfile(op.launches, profile, () => opTiming(profile, op));
            return { path: op.path, ms: timing.ms, mix: demandMix(timing.demandMs) };
        }).filter(o => Number.isFinite(o.ms) && o.ms > 0);
        const total = timed.reduce((s, o) => s + o.ms, 0);
        return { name: t.name, ops: timed.map((o): TimedOp => ({ path: o.path, weight: o.ms / total, mix: o.mix })) };
    });
    const all: OpCollision[] = [];
    for (let i = 0; i < tenants.length; i++) {
        for (let j = i + 1; j < tenants.length; j++) {
            const pairs: OpCollision[] = [];
            let sum = 0;
            for (const a of tenants[i].ops) {
                for (const b of tenants[j].ops) {
                    const cost = a.weight * b.weight * (pairCoefficient(profile, a.mix, b.mix) + pairCoefficient(profile, b.mix, a.mix));
                    sum += cost;
                    pairs.push({ ops: [a.path, b.path], tenants: [tenants[i].name, tenants[j].name], cost, share: 0 });
                }
            }
            for (const p of pairs) p.share = sum > 0 ? p.cost / sum : 0;
            all.push(...pairs.filter(p => p.cost > 0));
        }
    }
    return all.sort((a, b) => b.cost - a.cost).slice(0, options.top ?? 3);
}
