/** Ops split within under regulated (predict/op-views.ts, plan/split.ts): which ops, the chunks' times, and the one simulation running them. Pure. */
import { describe, expect, it } from 'vitest';
import { chooseOpSplits, opViews, splitStepViews } from '../../../src/runtime/predict/op-views.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { capsForProfile } from '../../../src/runtime/predict/profile.js';
import { evaluateSchedule, resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { simulate, type SimulatedTenant } from '../../../src/runtime/predict/simulate.js';
import { planGraph } from '../../../src/runtime/plan/plan.js';
import { regulatedPolicy } from '../../../src/runtime/schedule/regulated.js';
import { mlpTenant, workload } from './fixtures.js';

const profile = defaultProfile();
/** A tenant whose first dense dominates its request: batch 256, 512 → 1024, then 1024 → 8. */
const big = () => mlpTenant('batch', { kind: 'closed', clients: 1, thinkMs: 0 }, [], { batch: 256, input: 512, hidden: 1024, out: 8 });
const small = () => mlpTenant('critical', { kind: 'poisson', ratePerSecond: 20 }, [{ percentile: 'p95', ms: 30 }], { batch: 1, input: 32, hidden: 32, out: 8 });

describe('ops split within a request', () => {
    const plan = planGraph(big().graph, { caps: capsForProfile(profile) });
    const whole = opViews(plan, profile);

    it('splits the ops longer than a 1/split share of the request, each into chunks near that share', () => {
        expect(chooseOpSplits(plan, profile, 1)).toEqual({});
        const splits = chooseOpSplits(plan, profile, 4);
        expect(Object.keys(splits)).toEqual(['batch/mlp/fc1']);
        const total = whole.reduce((s, v) => s + (v.predictedMs ?? 0), 0);
        const fc1 = whole[0].predictedMs!;
        expect(splits['batch/mlp/fc1'].chunks).toBe(Math.ceil(fc1 / (total / 4)));
        expect(['batch', 'rows', 'channels']).toContain(splits['batch/mlp/fc1'].axis);
    });

    it('times each chunk at its own shape with its own dispatch: the chunks together cost at least the op, each less', () => {
        const splits = chooseOpSplits(plan, profile, 8);
        const { steps, views } = splitStepViews(plan, splits, profile, whole);
        const n = splits['batch/mlp/fc1'].chunks;
        expect(n).toBeGreaterThanOrEqual(2);
        expect(steps).toHaveLength(plan.length + n - 1);
        expect(steps.slice(0, n).map(s => [s.op, s.chunk, s.chunks])).toEqual(Array.from({ length: n }, (_, k) => [0, k, n]));
        const chunkMs = views.slice(0, n).map(v => v.predictedMs!);
        const sum = chunkMs.reduce((a, b) => a + b, 0);
        expect(sum).toBeGreaterThanOrEqual(whole[0].predictedMs! * 0.999);
        // Each chunk pays its dispatch and the weights it reads again, no more than twice its share of the op.
        for (const ms of chunkMs) expect(ms).toBeLessThan(2 * whole[0].predictedMs! / n + profile.dispatchOverheadMs);
        expect(views.slice(0, n).reduce((s, v) => s + v.flops, 0)).toBeCloseTo(plan[0].launches.reduce((s, l) => s + l.flops, 0), 0);
        // The other ops are the same views as unsplit.
        expect(views.slice(n)).toEqual(whole.slice(1));
    });

    it('resolves regulated with the ops it splits within, and the simulation runs them as steps', () => {
        const ir = workload([small(), big()], { policy: 'regulated', split: 4, sync: 'none' });
        const resolved = resolveSchedule(ir, profile);
        expect(resolved.settings.regulated?.opSplits?.batch).toEqual(chooseOpSplits(plan, profile, 4));
        expect(resolved.name).toMatch(/; 1 op split within\)$/);
        expect(resolved.why).toMatch(/ops split within: batch batch\/mlp\/fc1 (batch|rows|channels) × \d+/);
        const evaluation = evaluateSchedule(ir, profile, ir.schedule, { capacity: false });
        expect(evaluation.tenants.every(t => Number.isFinite(t.p50Ms))).toBe(true);
        // split 1: nothing is split, and the name says nothing of it.
        const one = resolveSchedule({ ...ir, schedule: { policy: 'regulated', split: 1, sync: 'none' } }, profile);
        expect(one.settings.regulated?.opSplits).toEqual({ critical: {}, batch: {} });
        expect(one.name).toBe('regulated(split: {"critical":1,"batch":1}, sync: none)');
    });

    it('lets a high-priority request start between the chunks of a long op (sync points at chunk boundaries)', () => {
        // One 100 ms op, split or not, beside a 2 ms high-priority tenant that it slows 21× while they overlap (the software
        // adapter's head-of-line blocking); exclusive chunks wait for the high-priority tenant.
        const critical: SimulatedTenant = { name: 'critical', priority: 'high', arrival: { kind: 'poisson', ratePerSecond: 20 }, slos: [{ percentile: 'p95', ms: 20 }], submitMs: 0, ops: [{ flops: 1, launches: 1, predictedMs: 2 }] };
        const batch = (chunks: number): SimulatedTenant => ({
            name: 'batch', priority: 'low', arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], submitMs: 0,
            ops: Array.from({ length: chunks }, () => ({ flops: 1, launches: 1, predictedMs: 100 / chunks })),
        });
        const p95 = (chunks: number) => {
            const policy = regulatedPolicy({ splits: { critical: 1, batch: chunks }, defaultSplit: 1, heavyMs: 5 });
            const [f] = simulate([critical, batch(chunks)], { policy, contention: [[0, 20], [0.05, 0]], serviceCv: 0, seed: 2, warmupMs: 1000, durationMs: 30_000 });
            return f.latenciesMs[Math.floor(0.95 * f.latenciesMs.length)];
        };
        expect(p95(10)).toBeLessThan(p95(1) / 2);
    });
});
