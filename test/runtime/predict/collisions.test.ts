/** The ops that collide most, read off the schedule simulation's input (predict/collisions.ts). Pure. */
import { describe, expect, it } from 'vitest';
import { opCollisions } from '../../../src/runtime/predict/collisions.js';
import { simulate, type SimulatedTenant } from '../../../src/runtime/predict/simulate.js';
import { simulationInput, type SimulationInput } from '../../../src/runtime/predict/schedules.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { policyFor } from '../../../src/runtime/schedule/policy.js';
import { mlpTenant, workload } from './fixtures.js';

/** A simulation input of closed-loop tenants (always busy) whose ops are one kernel each of the given times (and start-ups). */
function input(tenants: Record<string, number[]>, leadMs: Record<string, number[]> = {}): SimulationInput {
    const simulated: SimulatedTenant[] = Object.entries(tenants).map(([name, opMs]) => ({
        name, priority: 'normal', arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], submitMs: 0,
        ops: opMs.map((ms, k) => ({ flops: ms, launches: 1, predictedMs: ms, leadMs: leadMs[name]?.[k] ?? 0 })),
    }));
    const plans = Object.entries(tenants).map(([name, opMs]) => opMs.map((_, k) => ({ path: `${name}/op.${k}` }))) as unknown as SimulationInput['plans'];
    return { tenants: simulated, plans } as SimulationInput;
}

describe('op collisions', () => {
    it("splits the slowdown the simulation gives two busy tenants into one term per pair of ops: many small kernels beside a few long ones", () => {
        // small: ten 0.1 ms kernels; big: 5 ms and 1 ms. Alternating kernel by kernel, each of small's kernels waits for one of
        // big's: small's slowdown − 1 = 10 · (6 / 2) / 1 = 30; big's = 2 · (1 / 10) / 6 = 1/30.
        const given = input({ small: Array(10).fill(0.1), big: [5, 1] });
        const simulated = simulate(given.tenants, { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 0], [0, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 20_000 });
        const all = opCollisions(given, { top: 100 });
        expect(all).toHaveLength(20);
        const total = all.reduce((s, c) => s + c.cost, 0);
        expect(total).toBeCloseTo(30 + 1 / 30, 9);
        expect(simulated[0].slowdown - 1 + simulated[1].slowdown - 1).toBeCloseTo(total, 0);
        expect(all.reduce((s, c) => s + c.share, 0)).toBeCloseTo(1, 9);
        // The long kernel is what small's kernels wait for most: every top pair is (small's op, big/op.0), each the same.
        const top = opCollisions(given);
        expect(top).toHaveLength(3);
        for (const c of top) {
            expect(c.ops[1]).toBe('big/op.0');
            expect(c.tenants).toEqual(['small', 'big']);
            expect(c.cost).toBeCloseTo(top[0].cost, 12);
        }
        expect(top[0].cost).toBeGreaterThan(all.find(c => c.ops[1] === 'big/op.1')!.cost * 4);
    });

    it("leaves out of each wait the kernel's own start-up, which runs beside the co-runner's kernel", () => {
        // a: four 1 ms kernels, 0.2 ms of each a start-up; b: one 3 ms kernel, 0.5 ms start-up. a's kernel waits 2.5 − 0.2 = 2.3 ms
        // behind b's: s_a − 1 = 4 · 2.3 / 4 = 2.3; b's waits 0.8 − 0.5 = 0.3 ms behind one of a's: s_b − 1 = 0.3 / 3 = 0.1.
        const given = input({ a: [1, 1, 1, 1], b: [3] }, { a: [0.2, 0.2, 0.2, 0.2], b: [0.5] });
        const simulated = simulate(given.tenants, { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 0], [0, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 20_000 });
        const total = opCollisions(given, { top: 100 }).reduce((s, c) => s + c.cost, 0);
        expect(total).toBeCloseTo(2.3 + 0.1, 9);
        expect(simulated[0].slowdown - 1 + simulated[1].slowdown - 1).toBeCloseTo(total, 1);
    });

    it('names ops by their plan paths on a real workload; none for one tenant', () => {
        const ir = workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        const collisions = opCollisions(simulationInput(ir, defaultProfile()));
        expect(collisions.length).toBeGreaterThan(0);
        for (const c of collisions) {
            expect(c.ops[0].startsWith('a/')).toBe(true);
            expect(c.ops[1].startsWith('b/')).toBe(true);
            expect(c.cost).toBeGreaterThan(0);
        }
        expect(opCollisions(simulationInput(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]), defaultProfile()))).toEqual([]);
    });
});
