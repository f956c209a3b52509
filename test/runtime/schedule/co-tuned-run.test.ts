/**
 * co_tuned end to end on the GPU: a latency-critical MLP beside a closed-loop batch MLP under
 * `co_tuned(variants: 2)`, resolved on a profile where a capped kernel spares its co-runner (so
 * the search caps the batch tenant), runs solo and co-run; the results say which versions were
 * compiled, that every co-run request ran in the version the search chose, and why. Fails under
 * CI without an adapter (gpu-helper).
 */
import { describe, expect, it } from 'vitest';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const gpu = await hasAdapter();

describe.skipIf(!gpu)('co_tuned on the software adapter', () => {
    it('runs each tenant in the version the search chose and records the versions, the rule and why', async () => {
        const profile = defaultProfile();
        profile.interference.pairs = profile.interference.pairs.map(x => x.aggressor === 'capped' ? { ...x, slowdown: 1.02 } : x);
        const ir = workloadOf('ct', [
            mlpTenant('critical', { batch: 8, inputs: 256, hidden: 256, outputs: 64, arrival: { kind: 'poisson', ratePerSecond: 40 }, slos: [{ percentile: 'p95', ms: 3 }], priority: 'high' }),
            mlpTenant('batch', { batch: 64, inputs: 256, hidden: 512, outputs: 128, priority: 'low' }),
        ], { schedule: { policy: 'co_tuned', variants: 2 } });
        const resolved = resolveSchedule(ir, profile);
        expect(resolved.settings.coTuned!.versions).toEqual({ critical: 0, batch: 1 });

        const results = parseResults(JSON.parse(JSON.stringify(await runWorkload({ ir, profile, durationMs: 500, warmupMs: 100, rounds: 1, budgetMs: 8_000 }))));
        expect(results.status).toBe('complete');
        expect(results.config.policy).toBe(resolved.name);
        expect(results.config.policy).toBe('co_tuned(variants: 2; critical: C 100%, batch: C 67%)');
        expect(results.config.scheduleWhy).toBe(resolved.why);
        expect(results.config.scheduleWhy).toMatch(/^the annealing search .* chose critical version 0 \(own variant, C 100%, R 60%\), batch version 1 \(capped_2, C 67%, R 40%\)/);
        const chosen: Record<string, number> = { critical: 0, batch: 1 };
        for (const t of results.tenants) {
            expect(t.corun!.requests, `${t.name} co-run requests`).toBeGreaterThan(2);
            const mv = t.multiVersion!;
            // The hot ops were compiled in their own variant and capped at 2 workgroups.
            expect(mv.ops.length, `${t.name} ops with versions`).toBeGreaterThan(0);
            for (const o of mv.ops) expect(o.variants[1]).toBe('capped_2');
            // Every co-run request ran in the chosen version, none in another.
            const total = mv.blocks.reduce((a, b) => a + b, 0);
            expect(total).toBeGreaterThan(0);
            expect(mv.blocks[chosen[t.name]]).toBe(total);
            expect(mv.decisions.every(d => d.version === chosen[t.name] && d.level === null)).toBe(true);
            expect(mv.rule).toBe('co_tuned: every request of a tenant in the version the annealing search chose before the run: critical version 0 (own variant, C 100%), batch version 1 (capped_2, C 67%)');
        }
    }, 300_000);
});
