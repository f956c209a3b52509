/** The one planner (src/runtime/plan/plan.ts): what the predictor times, the tuner measures and the GPU compiler builds. Pure. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import { PlanCache, planGraph } from '../../../src/runtime/plan/plan.js';
import { planTenant, CompileError } from '../../../src/runtime/plan/tenant-plan.js';
import { MemoryTuningCache } from '../../../src/runtime/plan/tuning.js';
import type { IrTenant } from '../../../src/runtime/ir/types.js';
import { mlpGraph } from '../predict/fixtures.js';

const limits = { maxStorageBufferBindingSize: DEFAULT_CAPS.maxStorageBufferBindingSize, maxBufferSize: DEFAULT_CAPS.maxBufferSize };
const tenantOf = (name: string, graph = mlpGraph(name, 32, 256, 256, 64)): IrTenant =>
    ({ name, graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' });

describe('the plan of launches', () => {
    it('fuses the activation into the first dense and yields the generator launches', () => {
        const plan = planGraph(mlpGraph('t', 32, 256, 256, 64));
        expect(plan.map(p => p.path)).toEqual(['t/mlp/fc1', 't/mlp/fc2']);
        expect(plan[0].fused.fused.map(o => o.path)).toEqual(['t/mlp/relu']);
        expect(plan[0].unsupported).toBeUndefined();
        expect(plan[0].kernels?.launches.length).toBe(plan[0].launches.length);
        expect(plan[0].launches.length).toBeGreaterThan(0);
        expect(plan[0].launches[0].family).toMatch(/^gemm\./);
        expect(plan[0].flops).toBe(2 * 32 * 256 * 256 + 32 * 256);
        expect(plan[0].variantSource).toBe('default');
        expect(plan[0].variant).toBe(plan[0].kernels?.launches[0].variant.variant);
    });

    it('plans the same with a cache, and reuses kernels across graphs of the same shapes', () => {
        const fresh = planGraph(mlpGraph('a', 32, 256, 256, 64));
        const cache = new PlanCache();
        expect(JSON.stringify(planGraph(mlpGraph('a', 32, 256, 256, 64), { cache }))).toBe(JSON.stringify(fresh));
        const entries = cache.size;
        expect(entries).toBe(2);
        // Another tenant's graph of the same shapes: other paths, the same kernels, no new entries.
        const first = planGraph(mlpGraph('a', 32, 256, 256, 64), { cache });
        const other = planGraph(mlpGraph('b', 32, 256, 256, 64), { cache });
        expect(other.map(p => p.path)).toEqual(['b/mlp/fc1', 'b/mlp/fc2']);
        expect(other.map(p => p.kernels)).toEqual(first.map(p => p.kernels));
        expect(other[0].launches).toBe(first[0].launches);
        expect(cache.size).toBe(entries);
        // Other shapes: new entries, other launches.
        const wider = planGraph(mlpGraph('c', 32, 256, 512, 64), { cache });
        expect(cache.size).toBe(entries + 2);
        expect(wider[0].launches[0].flops).toBeGreaterThan(fresh[0].launches[0].flops);
    });

    it('keeps a cache bounded, dropping the least recently used entry first', () => {
        const cache = new PlanCache(2);
        const entry = (unsupported?: string) => ({ kernels: undefined, launches: [], variant: undefined, unsupported });
        cache.set('a', entry());
        cache.set('b', entry());
        expect(cache.get('a')).toBeDefined();
        cache.set('c', entry('no kernel'));
        expect(cache.size).toBe(2);
        expect(cache.get('b')).toBeUndefined();
        expect(cache.get('a')).toBeDefined();
        expect(cache.get('c')?.unsupported).toBe('no kernel');
    });

    it('returns the plan of a graph planned before with default variants, read-only and shared', () => {
        const cache = new PlanCache();
        const graph = mlpGraph('t', 8, 64, 64, 10);
        expect(planGraph(graph, { cache })).toBe(planGraph(graph, { cache }));
        expect(Object.isFrozen(planGraph(graph, { cache }))).toBe(true);
    });

    it('is the plan the GPU compiler builds: the tenant plan has the same ops, kernels and launches', () => {
        const cache = new PlanCache();
        const tenant = tenantOf('t');
        const predicted = planGraph(tenant.graph, { cache });
        const compiled = planTenant(tenant, { caps: DEFAULT_CAPS, limits, cache });
        expect(compiled.ops.map(o => o.path)).toEqual(predicted.map(o => o.path));
        compiled.ops.forEach((op, i) => {
            expect(op.kernels).toBe(predicted[i].kernels);
            expect(op.launches).toBe(predicted[i].launches);
            expect(op.signature).toBe(predicted[i].signature);
        });
    });

    it('applies tuned variants by signature, and falls back to the default (said) when one cannot be built', () => {
        const tenant = tenantOf('t');
        const base = planGraph(tenant.graph);
        const cache = new MemoryTuningCache();
        cache.set('lavapipe', base[0].signature, 'vec4_4x4');
        cache.set('lavapipe', base[1].signature, 'no_such_variant');
        const warnings: string[] = [];
        const plan = planTenant(tenant, { caps: DEFAULT_CAPS, limits, tuning: cache, adapterKey: 'lavapipe', onTuningWarning: w => warnings.push(w) });
        expect(plan.ops[0].variant).toBe('vec4_4x4');
        expect(plan.ops[0].variantSource).toBe('tuned');
        expect(plan.ops[0].kernels.launches[0].name).toContain('vec4_4x4');
        expect(plan.ops[1].variantSource).toBe('default');
        expect(plan.ops[1].variant).toBe(base[1].variant);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/^tenant t, op t\/mlp\/fc2: tuned variant 'no_such_variant' unusable \(.+\); using the default$/);
    });

    it('times an op no generator serves from its IR figures, and the compiler refuses it with the generator\'s reason', () => {
        const graph = mlpGraph('h', 4, 16, 16, 8);
        for (const op of graph.ops) for (const w of op.weights) w.dtype = 'f16';
        const plan = planGraph(graph);
        expect(plan[0].unsupported).toMatch(/f16/);
        expect(plan[0].kernels).toBeUndefined();
        expect(plan[0].launches).toHaveLength(1);
        expect(plan[0].launches[0].name).toBe('dense.estimate');
        expect(() => planTenant(tenantOf('h', graph), { caps: DEFAULT_CAPS, limits })).toThrow(CompileError);
        expect(() => planTenant(tenantOf('h', graph), { caps: DEFAULT_CAPS, limits })).toThrow(/^tenant h(,|:) .*f16/);
    });

    it('uses an injected kernel provider with a cache of its own', () => {
        let calls = 0;
        const kernels = { kernelsFor: (r: Parameters<typeof kernelsFor>[0]) => { calls++; return kernelsFor(r); } };
        planGraph(mlpGraph('a', 8, 16, 16, 8), { kernels });
        expect(calls).toBe(2);
    });
});
