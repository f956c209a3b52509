/** Ops split within under regulated (predict/op-views.ts, plan/split.ts): which ops, the chunks' times, and the one simulation running them. Pure. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/cli/load-workspace.js';
import { splitLimits } from '../../../src/runtime/plan/split.js';
import { chooseOpSplits, layerBlockOpSplits, opViews, splitLongOps, splitStepViews, versionViews } from '../../../src/runtime/predict/op-views.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { capsForProfile } from '../../../src/runtime/predict/profile.js';
import { evaluateSchedule, resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { simulate, type SimulatedTenant } from '../../../src/runtime/predict/simulate.js';
import { planGraph, planVariant } from '../../../src/runtime/plan/plan.js';
import { regulatedPolicy } from '../../../src/runtime/schedule/regulated.js';
import { layerBlockPolicy } from '../../../src/runtime/schedule/layer-block.js';
import { policyFor, submissionsPerRequest } from '../../../src/runtime/schedule/policy.js';
import { predictWorkload } from '../../../src/runtime/predict/workload.js';
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

describe('the views of each version of a multi-version plan', () => {
    const plan = planGraph(big().graph, { caps: capsForProfile(profile) });
    const whole = opViews(plan, profile);
    const graph = big().graph;
    // fc1 in two tolerant versions, fc2 in one: version 2 of fc2 is its most tolerant, version 1 (as the runtime runs it).
    const [fc1, fc2] = [0, plan.findIndex((op, i) => i > 0 && op.kind === 'dense')];
    const variant = (i: number, v: string) => planVariant(plan[i], graph, v, { caps: capsForProfile(profile) })!;
    const versions = plan.map((_, i) => i === fc1 ? [variant(i, 'capped_16'), variant(i, 'capped_4')] : i === fc2 ? [variant(i, 'capped_4')] : undefined);

    it('per op: version 0 is the plan, and an op takes its own version or, with fewer, its most tolerant one', () => {
        expect(fc2).toBeGreaterThan(0);
        const byVersion = versionViews(plan, versions, profile, undefined, whole);
        expect(byVersion).toHaveLength(3);
        expect(byVersion[0]).toEqual(whole);
        expect(byVersion[1][fc1]).toEqual(opViews([versions[fc1]![0]], profile)[0]);
        expect(byVersion[2][fc1]).toEqual(opViews([versions[fc1]![1]], profile)[0]);
        expect(byVersion[2][fc2]).toEqual(opViews([versions[fc2]![0]], profile)[0]);
        expect(byVersion[2][fc1].predictedMs).not.toBeCloseTo(whole[fc1].predictedMs!, 6);
        for (const v of byVersion) v.forEach((view, i) => { if (i !== fc1 && i !== fc2) expect(view).toBe(whole[i]); });
        expect(versionViews(plan, plan.map(() => undefined), profile, undefined, whole)).toEqual([whole]);
    });

    it('per step: chunks of a split op run its own variant in every version; whole ops their version', () => {
        const steps = splitStepViews(plan, { [plan[fc1].path]: { axis: 'rows', chunks: 2 } }, profile, whole);
        const byVersion = versionViews(plan, versions, profile, steps, whole);
        expect(byVersion[0]).toBe(steps.views);
        for (const v of byVersion) {
            expect(v).toHaveLength(steps.views.length);
            steps.steps.forEach((s, k) => { if (s.op === fc1) expect(v[k]).toBe(steps.views[k]); });
        }
        const k2 = steps.steps.findIndex(s => s.op === fc2);
        expect(byVersion[1][k2]).toEqual(opViews([versions[fc2]![0]], profile)[0]);
    });
});

describe('layer_block splits ops within (the same planner and step model as regulated)', () => {
    const caps = capsForProfile(profile);
    const blockTenant = (t: ReturnType<typeof big>) => {
        const plan = planGraph(t.graph, { caps });
        return { name: t.name, priority: t.priority, slos: t.slos, plan, views: opViews(plan, profile) };
    };
    const critical = () => ({ ...small(), priority: 'high' as const });
    const batch = () => ({ ...big(), priority: 'low' as const });

    it('splits the long ops of a tenant outranked by one with an SLO into chunks of half that tenant\'s slack, and no one else\'s', () => {
        const c = blockTenant(critical()), b = blockTenant(batch());
        const requestMs = c.views.reduce((s, v) => s + (v.predictedMs ?? 0), profile.submitOverheadMs);
        const slack = Math.max(30 - requestMs, 30 / 4);
        const { opSplits, reasons } = layerBlockOpSplits([c, b], profile, 'auto');
        expect(opSplits.critical).toEqual({});
        expect(opSplits.batch).toEqual(splitLongOps(b.plan, profile, slack / 2, b.views));
        expect(Object.keys(opSplits.batch)).toContain('batch/mlp/fc1');
        expect(reasons).toEqual({ batch: { targetMs: slack / 2, protects: 'critical' } });
        // A fixed block size holds that many layers: each chunk is cut to its share of the wait.
        expect(layerBlockOpSplits([c, b], profile, 4).reasons.batch.targetMs).toBeCloseTo(slack / 8, 12);
        // Nobody outranks the batch tenant with an SLO (equal priorities, or no SLO above it): nothing is split.
        expect(layerBlockOpSplits([{ ...c, priority: 'low' }, b], profile, 'auto').opSplits).toEqual({ critical: {}, batch: {} });
        expect(layerBlockOpSplits([{ ...c, slos: [] }, b], profile, 'auto').opSplits).toEqual({ critical: {}, batch: {} });
    });

    it('splits along the axis that comes nearest the chunks wanted, not the one whose fewer chunks cost least', async () => {
        // bert's attention at batch 4, seq 16: two tiles of rows, dozens of channels. Two chunks by rows cost least in
        // all, and leave a chunk of most of the op: another tenant would wait for it.
        const file = join(mkdtempSync(join(tmpdir(), 'tenancy-split-')), 'bert.tenancy');
        writeFileSync(file, 'workload w { tenant t { model bert_base(batch: 4, seq: 16, layers: 1) } }\n');
        const ir = (await loadWorkspace([file], { predictions: false })).lower('w', file);
        const bert = planGraph(ir.tenants[0].graph, { caps: capsForProfile(profile) });
        const views = opViews(bert, profile);
        const at = bert.findIndex(op => op.kind === 'attention');
        expect(splitLimits(bert[at]).rows).toBe(2);
        expect(splitLimits(bert[at]).channels).toBeGreaterThanOrEqual(8);
        expect(splitLongOps(bert, profile, views[at].predictedMs! / 7.5, views)[bert[at].path]).toEqual({ axis: 'channels', chunks: 8 });
    });

    it('splitLongOps is chooseOpSplits\' rule: split N is a target of 1/N of the request', () => {
        const plan = planGraph(big().graph, { caps });
        const whole = opViews(plan, profile);
        const total = whole.reduce((s, v) => s + (v.predictedMs ?? 0), 0);
        expect(chooseOpSplits(plan, profile, 4)).toEqual(splitLongOps(plan, profile, total / 4));
        expect(splitLongOps(plan, profile, 0)).toEqual({});
        expect(splitLongOps(plan, profile, Infinity)).toEqual({});
    });

    it('resolves layer_block with those splits, runs them in the policy and the simulation, and predicts each block a submission', () => {
        const ir = workload([critical(), batch()], { policy: 'layer_block', size: 'auto' });
        const resolved = resolveSchedule(ir, profile);
        const expected = layerBlockOpSplits([blockTenant(critical()), blockTenant(batch())], profile, 'auto');
        expect(resolved.settings.layerBlock?.opSplits).toEqual(expected.opSplits);
        expect(resolved.name).toMatch(/^layer_block\(size: auto; \d+ ops? split within\)$/);
        expect(resolved.why).toMatch(/^batch's long ops in chunks of ≤ [\d.]+ ms, so that critical waits for at most about half its slack; ops split within: batch batch\/mlp\/fc1 (batch|rows|channels) × \d+/);
        expect(policyFor(resolved.schedule, resolved.settings).opSplits).toEqual(expected.opSplits);
        const evaluation = evaluateSchedule(ir, profile, ir.schedule, { capacity: false });
        expect(evaluation.resolved.name).toBe(resolved.name);
        expect(evaluation.tenants.every(t => Number.isFinite(t.p95Ms))).toBe(true);
        // Without a tenant to protect, layer_block resolves as written.
        const alone = resolveSchedule(workload([{ ...critical(), priority: 'low' }, batch()], { policy: 'layer_block', size: 'auto' }), profile);
        expect([alone.name, alone.settings, alone.why]).toEqual(['layer_block(size: auto)', {}, undefined]);
        // The solo prediction counts the blocks the chunks make (one submission each): more than without splitting.
        const split = predictWorkload(ir, profile).tenants.find(t => t.name === 'batch')!;
        const whole = predictWorkload({ ...ir, tenants: [{ ...critical(), slos: [] }, batch()] }, profile).tenants.find(t => t.name === 'batch')!;
        expect(whole.submits).toBe(submissionsPerRequest(ir.schedule, opViews(planGraph(batch().graph, { caps }), profile)));
        expect(split.submits).toBeGreaterThan(whole.submits);
    });

    it('lets a high-priority request in between the chunks of a long op: its block runs alone once the chunk in flight ends', () => {
        // One 100 ms op, split or not, beside a 2 ms high-priority tenant that it slows 21× while they overlap (the software
        // adapter's head-of-line blocking); layer_block holds the batch tenant back while the critical block would miss co-running.
        const critical: SimulatedTenant = { name: 'critical', priority: 'high', arrival: { kind: 'poisson', ratePerSecond: 20 }, slos: [{ percentile: 'p95', ms: 20 }], submitMs: 0, ops: [{ flops: 1, launches: 1, predictedMs: 2 }] };
        const batch = (chunks: number): SimulatedTenant => ({
            name: 'batch', priority: 'low', arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], submitMs: 0,
            ops: Array.from({ length: chunks }, () => ({ flops: 1, launches: 1, predictedMs: 100 / chunks })),
        });
        const run = (chunks: number) => simulate([critical, batch(chunks)], { policy: layerBlockPolicy({ size: 'auto' }), contention: [[0, 20], [0.05, 0]], serviceCv: 0, seed: 2, warmupMs: 1000, durationMs: 30_000 });
        const p95 = (f: ReturnType<typeof run>[number]) => f.latenciesMs[Math.floor(0.95 * f.latenciesMs.length)];
        const [whole, wholeBatch] = run(1), [split, splitBatch] = run(10);
        expect(p95(split)).toBeLessThan(p95(whole) / 2);
        expect(p95(split)).toBeLessThanOrEqual(20);
        expect(splitBatch.throughputPerSecond).toBeGreaterThan(0.8 * wholeBatch.throughputPerSecond);
    });
});
