import { describe, expect, it } from 'vitest';
import { AUTO_FALLBACK_SIZE, budgetMs, chooseVersion, cutBlocks, DEFAULT_BUDGET_MS, layerBlockPolicy } from '../../../src/runtime/schedule/layer-block.js';
import { policyFor, type OpView, type SchedulePolicy, type TenantView } from '../../../src/runtime/schedule/policy.js';
import { opViews } from '../../../src/runtime/predict/op-views.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { planTenant } from '../../../src/runtime/plan/tenant-plan.js';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import type { IrPriority } from '../../../src/runtime/ir/types.js';
import { cnnTenant } from '../../fixtures/ir/builders.js';

const layer = (flops = 1, predictedMs?: number): OpView => ({ flops, launches: 1, ...(predictedMs !== undefined ? { predictedMs } : {}) });
const alias: OpView = { flops: 0, launches: 0 };

interface TenantSpec {
    index: number;
    sloMs?: number;
    priority?: IrPriority;
    /** Head request arrival and next op; further requests do not matter to a decision. */
    arrivalMs?: number;
    nextOp?: number;
    busy?: boolean;
    ops?: OpView[];
}

const tenant = (s: TenantSpec): TenantView => {
    const ops = s.ops ?? [layer(), layer(), layer(), layer()];
    return {
        index: s.index, name: `t${s.index}`, priority: s.priority ?? 'normal', opCount: ops.length, busy: s.busy ?? false,
        waiting: s.arrivalMs === undefined ? [] : [{ id: s.index, arrivalMs: s.arrivalMs, nextOp: s.nextOp ?? 0 }],
        ops, slos: s.sloMs === undefined ? [] : [{ percentile: 'p99', ms: s.sloMs }],
    };
};

describe('layer_block: cutting requests into blocks', () => {
    it('cuts `size` consecutive layers per block; the last block takes the rest', () => {
        const b = cutBlocks(10, undefined, { size: 4 });
        expect(b.starts).toEqual([0, 4, 8]);
        expect(b.ends).toEqual([4, 8, 10]);
        expect(b.budgetShare).toEqual([0.4, 0.8, 1]);
        expect(cutBlocks(3, undefined, { size: 8 }).ends).toEqual([3]);
    });

    it('counts only ops that launch kernels as layers; aliases ride with the layer before them', () => {
        const ops = [layer(), layer(), alias, layer(), layer(), alias, layer()];
        const b = cutBlocks(ops.length, ops, { size: 2 });
        expect(b.starts).toEqual([0, 3, 6]);
        expect(b.ends).toEqual([3, 6, 7]);
        // Leading aliases join the first block.
        expect(cutBlocks(4, [alias, layer(), layer(), layer()], { size: 2 }).ends).toEqual([3, 4]);
    });

    it('apportions the budget by FLOPs (MAC-proportional), by layer count when there are none', () => {
        const b = cutBlocks(4, [layer(100), layer(300), alias, layer(600)], { size: 1 });
        expect(b.ends).toEqual([1, 3, 4]);
        expect(b.budgetShare).toEqual([0.1, 0.4, 1]);
        expect(cutBlocks(3, [layer(0), alias, layer(0)], { size: 1 }).budgetShare).toEqual([0.5, 1]);
    });

    it('size auto: blocks of about the target predicted time, at least one layer each', () => {
        const ops = [0.5, 0.5, 0.5, 0.5, 3, 0.5, 0.5].map(ms => layer(1, ms));
        const b = cutBlocks(ops.length, ops, { size: 'auto', autoTargetMs: 2 });
        expect(b.starts).toEqual([0, 4, 5]);
        expect(b.ends).toEqual([4, 5, 7]);
        // An alias needs no prediction.
        expect(cutBlocks(3, [layer(1, 5), alias, layer(1, 5)], { size: 'auto', autoTargetMs: 2 }).ends).toEqual([2, 3]);
    });

    it(`size auto without predictions for every layer: ${AUTO_FALLBACK_SIZE} layers per block`, () => {
        expect(cutBlocks(45, undefined, { size: 'auto' }).starts).toEqual([0, 20, 40]);
        const partly = Array.from({ length: 45 }, (_, i) => layer(1, i === 3 ? undefined : 1));
        expect(cutBlocks(45, partly, { size: 'auto', autoTargetMs: 2 }).starts).toEqual([0, 20, 40]);
    });

    it('refuses a bad size or a view that does not match the plan, saying what it found', () => {
        expect(() => cutBlocks(4, undefined, { size: 0 })).toThrow('layer_block: size must be a positive integer or auto; found 0');
        expect(() => layerBlockPolicy({ size: 2.5 })).toThrow('found 2.5');
        expect(() => cutBlocks(4, [layer()], { size: 1 })).toThrow("the view describes 1 ops but the tenant's plan has 4");
    });

    it('budget: the tightest SLO whatever its percentile, else the default', () => {
        expect(budgetMs([{ percentile: 'p99', ms: 40 }, { percentile: 'mean', ms: 15 }])).toBe(15);
        expect(budgetMs([])).toBe(DEFAULT_BUDGET_MS);
        expect(budgetMs(undefined, 77)).toBe(77);
    });
});

describe('layer_block: decisions', () => {
    // A fresh policy per decision: nothing learnt from an earlier one (see the learning tests below).
    const policy = { decide: (view: Parameters<SchedulePolicy['decide']>[0]) => layerBlockPolicy({ size: 2 }).decide(view) };
    // Four equal layers per tenant, size 2: block 0's deadline is arrival + budget/2, block 1's arrival + budget.

    it('on schedule: every idle tenant submits its next block, earliest deadline first', () => {
        const decision = policy.decide({ nowMs: 1, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0 }), tenant({ index: 1, sloMs: 20, arrivalMs: 5 })] });
        // Deadlines: t0 0 + 50, t1 5 + 10.
        expect(decision).toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 2 }]);
    });

    it('a partly executed request continues with its next block and that block deadline', () => {
        // t0 at block 1: deadline 0 + 100 = 100; t1 block 0: 40 + 30 = 70.
        const decision = policy.decide({ nowMs: 45, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, nextOp: 2 }), tenant({ index: 1, sloMs: 60, arrivalMs: 40 })] });
        expect(decision).toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 4 }]);
    });

    // Four layers of `ms` predicted each: a block of two is predicted 2 × ms.
    const ops = (ms: number) => [layer(1, ms), layer(1, ms), layer(1, ms), layer(1, ms)];

    it('a block that misses its deadline co-running but fits alone runs alone: others wait, even while it is in flight', () => {
        // t1's block 0: deadline 0 + 20, predicted 10. Two tenants with work: co-running 1 + 2 × 10 > 20; alone 1 + 10 ≤ 20.
        const t0 = tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: ops(1) });
        expect(policy.decide({ nowMs: 1, tenants: [t0, tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(5) })] })).toEqual([{ tenant: 1, opEnd: 2 }]);
        expect(policy.decide({ nowMs: 1, tenants: [t0, tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(5), busy: true })] })).toEqual([]);
        // Predicted 8: 1 + 2 × 8 = 17 ≤ 20 fits co-running, so both co-run (EDF order).
        expect(policy.decide({ nowMs: 1, tenants: [t0, tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(4) })] })).toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 2 }]);
        // Its next block back on schedule (deadline 40, now 12: 12 + 2 × 10 ≤ 40): co-running resumes, t1 (40) before t0 (50).
        expect(policy.decide({ nowMs: 12, tenants: [t0, tenant({ index: 1, sloMs: 40, arrivalMs: 0, nextOp: 2, ops: ops(5) })] })).toEqual([{ tenant: 1, opEnd: 4 }, { tenant: 0, opEnd: 2 }]);
    });

    it('a block past saving (misses its deadline even alone) does not hold the others back', () => {
        // now 15: 15 + 10 > 20 — running alone cannot save it, so both co-run, the late block first.
        expect(policy.decide({ nowMs: 15, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: ops(1) }), tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(5) })] }))
            .toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 2 }]);
        // Without predictions nothing is judged rescuable: a late block co-runs too.
        expect(policy.decide({ nowMs: 30, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0 }), tenant({ index: 1, sloMs: 40, arrivalMs: 0 })] }))
            .toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 2 }]);
    });

    it('a late block of a tenant that outranks every other tenant with work still runs alone', () => {
        // As above (now 15: 15 + 10 > 20, past saving), but t1 is high priority and t0 low: the low one waits.
        const fresh = layerBlockPolicy({ size: 2 });
        expect(fresh.decide({ nowMs: 15, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: ops(1), priority: 'low' }), tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(5), priority: 'high' })] }))
            .toEqual([{ tenant: 1, opEnd: 2 }]);
        // Equal priorities: past saving, both co-run as before.
        expect(fresh.decide({ nowMs: 15, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: ops(1), priority: 'high' }), tenant({ index: 1, sloMs: 40, arrivalMs: 0, ops: ops(5), priority: 'high' })] }))
            .toEqual([{ tenant: 1, opEnd: 2 }, { tenant: 0, opEnd: 2 }]);
    });

    it('a late block of a tenant outranked by another with work does not stand in the way of that tenant\'s block that can still be saved', () => {
        // t0 best effort (default budget 500): its block 0 was due at 250, now 600 — past saving. t1 high, SLO 40, arrived
        // at 590: block 0 due 610, predicted 10: co-running 600 + 2 × 10 > 610, alone 610 fits. t1 alone, t0 waits.
        const p = layerBlockPolicy({ size: 2, defaultBudgetMs: 500 });
        const late = (priority: IrPriority) => tenant({ index: 0, arrivalMs: 0, ops: ops(1), priority });
        expect(p.decide({ nowMs: 600, tenants: [late('low'), tenant({ index: 1, sloMs: 40, arrivalMs: 590, ops: ops(5), priority: 'high' })] }))
            .toEqual([{ tenant: 1, opEnd: 2 }]);
        // Equal priorities: the late block is tested first, past saving, so both co-run (as before).
        expect(layerBlockPolicy({ size: 2, defaultBudgetMs: 500 }).decide({ nowMs: 600, tenants: [late('high'), tenant({ index: 1, sloMs: 40, arrivalMs: 590, ops: ops(5), priority: 'high' })] }))
            .toEqual([{ tenant: 0, opEnd: 2 }, { tenant: 1, opEnd: 2 }]);
    });

    it('equal deadlines: higher priority first, then earlier arrival', () => {
        const prio = (p: IrPriority[], ms = 0) => p.map((priority, index) => tenant({ index, sloMs: 40, arrivalMs: 0, priority, ops: ops(ms) }));
        expect(policy.decide({ nowMs: 1, tenants: prio(['low', 'high', 'normal']) }).map(s => s.tenant)).toEqual([1, 2, 0]);
        // Predicted 2 × 4 per block, three tenants with work: 1 + 3 × 8 > 20 ≥ 1 + 8, so only the high-priority one starts.
        expect(policy.decide({ nowMs: 1, tenants: prio(['low', 'high', 'normal'], 4) })).toEqual([{ tenant: 1, opEnd: 2 }]);
        // Same deadline (10 + 30 = 0 + 40) and priority: t1 arrived first.
        const arrival = [tenant({ index: 0, sloMs: 60, arrivalMs: 10, ops: ops(3) }), tenant({ index: 1, sloMs: 80, arrivalMs: 0, ops: ops(3) })];
        expect(policy.decide({ nowMs: 30, tenants: arrival })).toEqual([{ tenant: 1, opEnd: 2 }]);
    });

    it('a tenant without an SLO gets the default budget and yields to one with an SLO', () => {
        const p = layerBlockPolicy({ size: 4, defaultBudgetMs: 500 });
        const many = (ms: number) => Array.from({ length: 4 }, () => layer(1, ms));
        // t0 best effort (deadline 0 + 500); t1 SLO 50, arrived at 100: deadline 150, predicted 40: 2 × 40 misses, 40 fits.
        expect(p.decide({ nowMs: 101, tenants: [tenant({ index: 0, arrivalMs: 0, ops: many(1) }), tenant({ index: 1, sloMs: 50, arrivalMs: 100, ops: many(10) })] }))
            .toEqual([{ tenant: 1, opEnd: 4 }]);
        expect(p.decide({ nowMs: 101, tenants: [tenant({ index: 0, arrivalMs: 0, ops: many(1) }), tenant({ index: 1, sloMs: 50, arrivalMs: 100, ops: many(1) })] }).map(s => s.tenant))
            .toEqual([1, 0]);
    });

    it('never names a busy tenant or one without waiting requests', () => {
        expect(policy.decide({ nowMs: 0, tenants: [tenant({ index: 0, sloMs: 10, arrivalMs: 0, busy: true }), tenant({ index: 1, sloMs: 10 }), tenant({ index: 2, sloMs: 100, arrivalMs: 0 })] }))
            .toEqual([{ tenant: 2, opEnd: 2 }]);
    });
});

/**
 * A discrete-event simulation of the executor (phase.ts's contract: decide after every arrival
 * and completion; a tenant is busy while its submission runs), with the GPU shared like a
 * processor: n blocks in flight each progress at 1/n of the solo speed.
 */
function simulate(policy: SchedulePolicy, specs: { sloMs?: number; priority?: IrPriority; opMs: number[]; arrivals: number[] }[]) {
    const waiting = specs.map(() => [] as { id: number; arrivalMs: number; nextOp: number }[]);
    const future = specs.map(s => [...s.arrivals]);
    const running: ({ remainingMs: number; to: number } | undefined)[] = specs.map(() => undefined);
    const log: { tenant: number; from: number; to: number; startMs: number; othersInFlight: number }[] = [];
    const done: { tenant: number; latencyMs: number }[] = [];
    let now = 0, id = 0;
    for (let guard = 0; guard < 100_000; guard++) {
        specs.forEach((_, ti) => { while (future[ti].length && future[ti][0] <= now + 1e-9) waiting[ti].push({ id: id++, arrivalMs: future[ti].shift()!, nextOp: 0 }); });
        const view: TenantView[] = specs.map((s, index) => ({
            index, name: `t${index}`, priority: s.priority ?? 'normal', opCount: s.opMs.length, busy: !!running[index],
            waiting: waiting[index].map(r => ({ ...r })), ops: s.opMs.map(ms => layer(ms, ms)), slos: s.sloMs ? [{ percentile: 'p99', ms: s.sloMs }] : [],
        }));
        for (const sub of policy.decide({ nowMs: now, tenants: view })) {
            // The executor's own check (phase.ts start()): never two submissions of one tenant in flight.
            expect(running[sub.tenant], `tenant ${sub.tenant} submitted while busy`).toBeUndefined();
            const head = waiting[sub.tenant][0];
            expect(head).toBeDefined();
            expect(sub.opEnd).toBeGreaterThan(head.nextOp);
            log.push({ tenant: sub.tenant, from: head.nextOp, to: sub.opEnd, startMs: now, othersInFlight: running.filter(Boolean).length });
            running[sub.tenant] = { remainingMs: specs[sub.tenant].opMs.slice(head.nextOp, sub.opEnd).reduce((a, b) => a + b, 0), to: sub.opEnd };
        }
        const n = running.filter(Boolean).length;
        const nextEnd = now + n * Math.min(...running.map(r => r?.remainingMs ?? Infinity));
        const nextArrival = Math.min(...future.map(f => f[0] ?? Infinity));
        if (!Number.isFinite(nextEnd) && !Number.isFinite(nextArrival)) break;
        const next = Math.min(nextEnd, nextArrival);
        running.forEach(r => { if (r) r.remainingMs -= (next - now) / n; });
        now = next;
        running.forEach((r, ti) => {
            if (!r || r.remainingMs > 1e-9) return;
            running[ti] = undefined;
            const head = waiting[ti][0];
            head.nextOp = r.to;
            if (head.nextOp === specs[ti].opMs.length) { waiting[ti].shift(); done.push({ tenant: ti, latencyMs: now - head.arrivalMs }); }
        });
    }
    return { log, done, leftover: waiting.map(w => w.length) };
}

describe('layer_block: ops split within', () => {
    it('carries the splits it was resolved with (the executor and the simulation run those ops in chunks) and says so in its name', () => {
        const opSplits = { batch: { 'batch/bert/dense.0': { axis: 'channels' as const, chunks: 4 }, 'batch/bert/f': { axis: 'rows' as const, chunks: 1 } }, critical: {} };
        const p = policyFor({ policy: 'layer_block', size: 'auto' }, { layerBlock: { opSplits } });
        expect(p.name).toBe('layer_block(size: auto; 1 op split within)');
        expect(p.opSplits).toEqual(opSplits);
        const plain = policyFor({ policy: 'layer_block', size: 2 });
        expect(plain.name).toBe('layer_block(size: 2)');
        expect(plain.opSplits).toBeUndefined();
    });

    it('a chunk is a layer: a block boundary falls between the chunks of a long op', () => {
        // One 40 ms op in four 10 ms chunks (steps), then a 1 ms op: size auto (2 ms) cuts after every chunk.
        const steps = [layer(1, 10), layer(1, 10), layer(1, 10), layer(1, 10), layer(1, 1)];
        expect(cutBlocks(steps.length, steps, { size: 'auto' }).starts).toEqual([0, 1, 2, 3, 4]);
    });
});

describe('layer_block: a simulated phase', () => {
    it('interleaves blocks of different tenants, one block per tenant in flight, and finishes every request', () => {
        const policy = policyFor({ policy: 'layer_block', size: 2 });
        const { log, done, leftover } = simulate(policy, [
            { sloMs: 60, priority: 'high', opMs: [2, 2, 2, 2, 2, 2], arrivals: [0, 10, 20, 30, 40] },
            { opMs: [5, 5, 5, 5, 5, 5, 5, 5], arrivals: [0, 1] },
        ]);
        expect(leftover).toEqual([0, 0]);
        expect(done.filter(d => d.tenant === 0)).toHaveLength(5);
        expect(done.filter(d => d.tenant === 1)).toHaveLength(2);
        // Blocks of size 2 only, at block boundaries.
        for (const entry of log) {
            expect(entry.from % 2).toBe(0);
            expect(entry.to - entry.from).toBe(2);
        }
        // Interleaving: tenant 1's request 0 is split into blocks with tenant 0's blocks between them.
        const order = log.map(e => e.tenant);
        const firstT1 = order.indexOf(1), lastT1 = order.lastIndexOf(1);
        expect(order.slice(firstT1, lastT1).includes(0)).toBe(true);
        // Blocks of the two tenants co-run.
        expect(log.some(e => e.othersInFlight === 1)).toBe(true);
    });

    it('serves the tight-SLO tenant better than submitting whole requests concurrently', () => {
        const specs = [
            { sloMs: 12, opMs: [1, 1, 1, 1, 1, 1, 1, 1], arrivals: [0, 20, 40, 60, 80, 100] },
            { opMs: Array.from({ length: 40 }, () => 2), arrivals: [0] },
        ];
        const tight = (policy: SchedulePolicy) => Math.max(...simulate(policy, specs).done.filter(d => d.tenant === 0).map(d => d.latencyMs));
        const layerBlock = tight(policyFor({ policy: 'layer_block', size: 2 }));
        const concurrent = tight(policyFor({ policy: 'concurrent' }));
        expect(layerBlock).toBeLessThan(concurrent);
    });
});

describe('op views of a real plan (no GPU)', () => {
    it('carry FLOPs, launch counts (aliases 0) and a positive prediction per launching op', () => {
        const limits = { maxStorageBufferBindingSize: DEFAULT_CAPS.maxStorageBufferBindingSize, maxBufferSize: DEFAULT_CAPS.maxBufferSize };
        const t = cnnTenant('v');
        const plan = planTenant(t, { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits });
        const views = opViews(plan.ops, defaultProfile());
        expect(views).toHaveLength(plan.ops.length);
        expect(views.map(v => v.flops)).toEqual(plan.ops.map(p => p.flops));
        const flatten = plan.ops.findIndex(p => p.kind === 'flatten');
        expect(flatten).toBeGreaterThan(0);
        expect(views[flatten]).toEqual({ flops: plan.ops[flatten].flops, launches: 0 });
        for (const v of views.filter(v => v.launches > 0)) expect(v.predictedMs).toBeGreaterThan(0);
        // The convolutions dominate: the stem conv is predicted slower than the head dense.
        const conv = views[plan.ops.findIndex(p => p.kind === 'conv2d')], head = views[plan.ops.findIndex(p => p.kind === 'dense')];
        expect(conv.predictedMs!).toBeGreaterThan(head.predictedMs!);
        // auto cuts this plan without falling back to the fixed count.
        const blocks = cutBlocks(views.length, views, { size: 'auto', autoTargetMs: 0.000001 });
        expect(blocks.starts.length).toBe(views.filter(v => v.launches > 0).length);
    });
});

describe('layer_block: learning how far predictions are off', () => {
    it('scales predictions by measured / predicted block time, per block in flight, and acts on it', () => {
        const policy = layerBlockPolicy({ size: 2 });
        const fast = [layer(1, 1), layer(1, 1), layer(1, 1), layer(1, 1)];
        const slow = [layer(1, 2), layer(1, 2), layer(1, 2), layer(1, 2)];
        const view = (nowMs: number, busy: boolean, nextOp = 0) => ({
            nowMs, tenants: [
                tenant({ index: 0, sloMs: 1000, arrivalMs: 0, ops: fast }),
                tenant({ index: 1, sloMs: 40, arrivalMs: 0, nextOp, busy, ops: slow }),
            ],
        });
        // Predicted 4 ms for t1's block: 0 + 2 × 4 ≤ 20, both co-run.
        expect(policy.decide(view(0, false)).map(s => s.tenant)).toEqual([1, 0]);
        expect(policy.timeFactor).toBe(1);
        // t1's block (predicted 4, two blocks in flight) took 24 ms: factor 24 / (4 × 2) = 3. t0's block is still in flight.
        const next = { nowMs: 24, tenants: [{ ...tenant({ index: 0, sloMs: 1000, arrivalMs: 0, ops: fast }), busy: true }, tenant({ index: 1, sloMs: 40, arrivalMs: 0, nextOp: 2, ops: slow })] };
        // t1's block 1: deadline 40, corrected prediction 12: 24 + 2 × 12 > 40 ≥ 24 + 12, so it runs alone (t0 is in flight anyway).
        expect(policy.decide(next)).toEqual([{ tenant: 1, opEnd: 4 }]);
        expect(policy.timeFactor).toBeCloseTo(3);
    });

    it('a tenant whose co-run blocks ran far slower than an even share runs its next block alone', () => {
        const policy = layerBlockPolicy({ size: 2 });
        const ops = [layer(1, 1), layer(1, 1), layer(1, 1), layer(1, 1)];
        const view = (nowMs: number, nextOp: number) => ({
            nowMs, tenants: [tenant({ index: 0, sloMs: 1000, arrivalMs: 0, nextOp, ops }), tenant({ index: 1, sloMs: 40, arrivalMs: 0, nextOp, ops })],
        });
        // Block 0 of each, predicted 2 ms; t1's deadline 20: 0 + 2 × 2 ≤ 20, both co-run.
        expect(policy.decide(view(0, 0)).map(s => s.tenant)).toEqual([1, 0]);
        // Both took 20 ms co-running: factor 20 / (2 × 2) = 5, and t1's blocks ran 10× slower than predicted alone.
        // t1's block 1: deadline 40, predicted 10. An even share would fit (20 + 2 × 10 = 40); its own slowdown
        // does not (20 + 10 × 10 > 40); alone it fits (30): it runs alone.
        expect(policy.decide(view(20, 2))).toEqual([{ tenant: 1, opEnd: 4 }]);
        expect(policy.timeFactor).toBeCloseTo(5);
    });

    it("judges a block in a tolerant version against that version's own predicted time, so a version slower alone does not read as interference", () => {
        const policy = layerBlockPolicy({ size: 2 });
        // Per layer: version 0 1 ms, version 1 2 ms, version 2 4 ms.
        const at = (ms: number) => [layer(1, ms), layer(1, ms), layer(1, ms), layer(1, ms)];
        const versionOps = [at(1), at(2), at(4)];
        const both = (): TenantView[] => [0, 1].map(index => ({ ...tenant({ index, sloMs: 1000, arrivalMs: 0, ops: versionOps[0] }), versions: 3, versionOps }));
        // No interference seen yet: version 0 (2 ms a block).
        expect(policy.decide({ nowMs: 0, tenants: both() }).map(s => s.version)).toEqual([0, 0]);
        // Both blocks took 4 ms, twice their time alone: level 2 calls for version 1, not run yet, so it is tried (4 ms a block).
        let submissions = policy.decide({ nowMs: 4, tenants: both() });
        expect(submissions.map(s => [s.version, s.level])).toEqual([[1, 2], [1, 2]]);
        // They took 8 ms: twice version 1's time alone, the same interference (against version 0's 2 ms it would read as 4).
        submissions = policy.decide({ nowMs: 12, tenants: both() });
        for (const s of submissions) expect(s.level).toBeCloseTo(2);
        // Under that interference version 1 is expected to take 2 × 4 ms against version 0's 2 × 2: back to version 0.
        expect(submissions.map(s => s.version)).toEqual([0, 0]);
    });

    it('runs the version a level calls for only while it is expected to run fastest under it: untried versions first, then the measured best', () => {
        const ms = [2, 2.4, 3];
        // Below the first switch point: version 0, whatever was measured.
        expect(chooseVersion(1.2, 3, v => ms[v], () => 1)).toBe(0);
        // Level 2 calls for version 1: tried first while it has not run co-running.
        expect(chooseVersion(2, 3, v => ms[v], v => (v === 0 ? 2 : undefined))).toBe(1);
        // It ran at level 1.1 there: 2.4 × 1.1 against 2 × 2, it stays.
        expect(chooseVersion(2, 3, v => ms[v], v => [2, 1.1][v])).toBe(1);
        // It ran at level 2 there, as version 0: 2.4 × 2 against 2 × 2, version 0.
        expect(chooseVersion(2, 3, v => ms[v], v => [2, 2][v])).toBe(0);
        // Version 0 never co-ran: the tenant's level stands for it.
        expect(chooseVersion(2, 3, v => ms[v], v => [undefined, 1.9][v])).toBe(0);
        // Level 3.5 calls for version 2: untried, it is tried; once measured, the best of the three runs.
        expect(chooseVersion(3.5, 3, v => ms[v], v => [3.5, 3][v])).toBe(2);
        expect(chooseVersion(3.5, 3, v => ms[v], v => [3.5, 2, 3][v])).toBe(1);
        expect(chooseVersion(3.5, 3, v => ms[v], v => [3.5, 3, 1.5][v])).toBe(2);
        // Never past the versions compiled.
        expect(chooseVersion(10, 2, v => ms[v], () => undefined)).toBe(1);
    });

    it('ignores blocks of an earlier phase (new op views) and blocks without predictions', () => {
        const policy = layerBlockPolicy({ size: 2 });
        const ops = [layer(1, 1), layer(1, 1)];
        policy.decide({ nowMs: 0, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops })] });
        // Same name, new op views (a new phase with a restarted clock).
        policy.decide({ nowMs: 500, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 400, ops: [layer(1, 1), layer(1, 1)] })] });
        expect(policy.timeFactor).toBe(1);
        const bare = [layer(), layer()];
        policy.decide({ nowMs: 0, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: bare })] });
        policy.decide({ nowMs: 50, tenants: [tenant({ index: 0, sloMs: 100, arrivalMs: 0, ops: bare })] });
        expect(policy.timeFactor).toBe(1);
    });
});
