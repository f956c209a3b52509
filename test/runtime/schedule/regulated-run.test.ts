/**
 * regulated end to end on the GPU with ops split within: a latency-critical MLP beside a batch
 * MLP whose first dense dominates its request, under `regulated(split: 4, sync: auto)` on the
 * default profile. The schedule resolved in the editor's terms splits that dense into chunks;
 * the run compiles them, runs each chunk as a step of its own, and the results record the split
 * of each op and time the split op as a whole; `layer_block(size: auto)` splits the same op,
 * the batch tenant being outranked by one with an SLO. Fails under CI without an adapter (gpu-helper).
 */
import { describe, expect, it } from 'vitest';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const gpu = await hasAdapter();

describe.skipIf(!gpu)('ops split within (regulated, layer_block), on the software adapter', () => {
    it('runs the chunks the schedule chose and records each op\'s split', async () => {
        const profile = defaultProfile();
        const ir = workloadOf('reg', [
            mlpTenant('critical', { batch: 1, inputs: 32, hidden: 32, outputs: 8, arrival: { kind: 'poisson', ratePerSecond: 40 }, slos: [{ percentile: 'p95', ms: 50 }], priority: 'high' }),
            mlpTenant('batch', { batch: 256, inputs: 256, hidden: 512, outputs: 8, priority: 'low' }),
        ], { schedule: { policy: 'regulated', split: 4, sync: 'auto' } });
        const resolved = resolveSchedule(ir, profile);
        const asked = resolved.settings.regulated!.opSplits!.batch;
        expect(Object.keys(asked)).toEqual(['batch/mlp/fc1']);

        const results = parseResults(JSON.parse(JSON.stringify(await runWorkload({ ir, profile, durationMs: 600, warmupMs: 100, rounds: 1, budgetMs: 10_000 }))));
        expect(results.status).toBe('complete');
        expect(results.config.policy).toBe(resolved.name);
        expect(results.config.policy).toMatch(/; 1 op split within\)$/);
        const batch = results.tenants.find(t => t.name === 'batch')!;
        const fc1 = batch.ops.find(o => o.path === 'batch/mlp/fc1')!;
        expect(fc1.split).toEqual(asked['batch/mlp/fc1']);
        expect(batch.ops.filter(o => o.split)).toHaveLength(1);
        expect(results.tenants.find(t => t.name === 'critical')!.ops.some(o => o.split)).toBe(false);
        // The split op is timed whole: the sum of its chunks, once per request.
        expect(fc1.corunMs).toBeGreaterThan(0);
        expect(batch.corun!.requests).toBeGreaterThan(2);
        expect(results.tenants.find(t => t.name === 'critical')!.corun!.requests).toBeGreaterThan(2);
    }, 300_000);

    it('layer_block splits the batch tenant\'s long op within too: the same chunks, run as blocks, recorded alike', async () => {
        const profile = defaultProfile();
        const ir = workloadOf('blocks', [
            mlpTenant('critical', { batch: 1, inputs: 32, hidden: 32, outputs: 8, arrival: { kind: 'poisson', ratePerSecond: 40 }, slos: [{ percentile: 'p95', ms: 10 }], priority: 'high' }),
            mlpTenant('batch', { batch: 256, inputs: 256, hidden: 512, outputs: 8, priority: 'low' }),
        ], { schedule: { policy: 'layer_block', size: 'auto' } });
        const resolved = resolveSchedule(ir, profile);
        const asked = resolved.settings.layerBlock!.opSplits.batch;
        expect(Object.keys(asked)).toEqual(['batch/mlp/fc1']);

        const results = parseResults(JSON.parse(JSON.stringify(await runWorkload({ ir, profile, durationMs: 600, warmupMs: 100, rounds: 1, budgetMs: 10_000 }))));
        expect(results.status).toBe('complete');
        expect(results.config.policy).toBe('layer_block(size: auto; 1 op split within)');
        const batch = results.tenants.find(t => t.name === 'batch')!;
        expect(batch.ops.find(o => o.path === 'batch/mlp/fc1')!.split).toEqual(asked['batch/mlp/fc1']);
        expect(batch.ops.filter(o => o.split)).toHaveLength(1);
        expect(batch.corun!.requests).toBeGreaterThan(2);
        expect(results.tenants.find(t => t.name === 'critical')!.corun!.requests).toBeGreaterThan(2);
    }, 300_000);
});
