/**
 * Which ops of different tenants collide: the pairs of ops whose overlap costs the most on the
 * device the schedule simulation runs (simulate.ts), read off the same simulation input (the
 * tenants' ops, their predicted times and kernels). There a kernel holds the whole device and
 * is not preempted, so while two tenants are both busy they alternate kernel by kernel: each
 * kernel of tenant i waits for one kernel of tenant j, less its own start-up, which runs beside
 * j's kernel (simulate.ts). Over a request of i, op a's n_a kernels each wait for a kernel of j,
 * which is op b's with chance n_b / N_j (alternation goes by kernels) and then holds the device
 * for d_b = (t_b − ℓ_b) / n_b while a's kernel starts up for ℓ_a / n_a; so the time i waits
 * behind j splits into one term per pair of ops, n_a · (n_b / N_j) · max(0, d_b − ℓ_a / n_a),
 * and relative to i's own work T_i:
 *
 *     s_i − 1 = Σ_a∈i Σ_b∈j n_a · (n_b / N_j) · max(0, d_b − ℓ_a / n_a) / T_i
 *
 * (t: an op's time in the simulation, ℓ: its start-ups' part of it, n: its kernels, N and T: the
 * tenant's totals). The
 * pair's term of (s_i − 1) + (s_j − 1) is what ops a and b add to the two tenants' slowdown while
 * both are busy: a tenant of many small kernels beside one of few long ones is what it names, the
 * head-of-line blocking the simulation shows. The largest terms name the ops to keep apart. Pure.
 */
import type { SimulationInput } from './schedules.js';

/** Two ops of different tenants and what their overlap costs. */
export interface OpCollision {
    /** Op paths (`tenant/model/…`), the first of the tenant listed first in the workload. */
    ops: [string, string];
    tenants: [string, string];
    /** The pair's term of (s_i − 1) + (s_j − 1): the slowdown it adds to the two tenants together while both are busy. */
    cost: number;
    /** The term's share of its tenant pair's (s_i − 1) + (s_j − 1) (0–1). */
    share: number;
}

interface KernelOp {
    path: string;
    /** Time per request, ms (its predicted time × the tenant's host factors, as the simulation runs it). */
    ms: number;
    /** Of ms, its kernels' start-ups (holding none of the device). */
    leadMs: number;
    kernels: number;
}

/** How long op a's kernels wait, per request, behind op b's of a co-runner of `kernels` kernels: each waits for b's device part with chance b.kernels / kernels, less its own start-up. */
function waits(a: KernelOp, b: KernelOp, kernels: number): number {
    return a.kernels * (b.kernels / kernels) * Math.max(0, (b.ms - b.leadMs) / b.kernels - a.leadMs / a.kernels);
}

/** The `top` costliest op pairs of different tenants, costliest first (none for a single tenant). */
export function opCollisions(input: SimulationInput, options: { top?: number } = {}): OpCollision[] {
    const tenants = input.tenants.map((t, i) => {
        const ops: KernelOp[] = [];
        t.ops.forEach((view, k) => {
            const scale = t.workScale ?? 1;
            const ms = (view.predictedMs ?? 0) * scale;
            // As the simulation's kernel list: an op with a time runs as its launches (at least one).
            if (Number.isFinite(ms) && ms > 0) ops.push({ path: input.plans[i][k].path, ms, leadMs: (view.leadMs ?? 0) * scale, kernels: Math.max(1, view.launches) });
        });
        return { name: t.name, ops, ms: ops.reduce((s, o) => s + o.ms, 0), kernels: ops.reduce((s, o) => s + o.kernels, 0) };
    });
    const all: OpCollision[] = [];
    for (let i = 0; i < tenants.length; i++) {
        for (let j = i + 1; j < tenants.length; j++) {
            const [ti, tj] = [tenants[i], tenants[j]];
            if (ti.ops.length === 0 || tj.ops.length === 0) continue;
            const pairs: OpCollision[] = [];
            let sum = 0;
            for (const a of ti.ops) {
                for (const b of tj.ops) {
                    const cost = waits(a, b, tj.kernels) / ti.ms + waits(b, a, ti.kernels) / tj.ms;
                    sum += cost;
                    pairs.push({ ops: [a.path, b.path], tenants: [ti.name, tj.name], cost, share: 0 });
                }
            }
            for (const p of pairs) p.share = sum > 0 ? p.cost / sum : 0;
            all.push(...pairs);
        }
    }
    return all.sort((a, b) => b.cost - a.cost).slice(0, options.top ?? 3);
}
