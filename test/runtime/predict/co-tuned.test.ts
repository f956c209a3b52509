/** co_tuned(variants: N): shares, the share-aware contention, the annealing search and the policy it resolves to. Pure. */
import { describe, expect, it } from 'vitest';
import { coTunedScore, deviceParallelism, searchCoTuned, shareCoefficient, shareWorkgroups, simulateCoTuned } from '../../../src/runtime/predict/co-tuned.js';
import { interferenceCoefficient } from '../../../src/runtime/predict/contention.js';
import { familyProfile, fitWaves } from '../../../src/runtime/predict/latency.js';
import { CAPPED_INTERFERENCE_WORKGROUPS, defaultProfile, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { evaluateSchedule, resolveSchedule, simulationInput } from '../../../src/runtime/predict/schedules.js';
import { coTunedPolicy, coTunedVersionRule, versionShare } from '../../../src/runtime/schedule/co-tuned.js';
import { policyFor, RUNNABLE_SCHEDULES, type TenantView } from '../../../src/runtime/schedule/policy.js';
import { firstShareVersion, versionsOfHotOps, VERSIONS } from '../../../src/runtime/plan/versions.js';
import { planGraph, type PlannedOp } from '../../../src/runtime/plan/plan.js';
import { mlpTenant, workload } from './fixtures.js';

/** A latency-critical MLP beside a closed-loop batch MLP, the critical tenant's p95 target `ms`. */
const pair = (ms: number, variants = 4) => workload([
    { ...mlpTenant('critical', { kind: 'poisson', ratePerSecond: 40 }, [{ percentile: 'p95', ms }], { batch: 8, input: 256, hidden: 256, out: 64 }), priority: 'high' },
    { ...mlpTenant('batch', { kind: 'closed', clients: 1, thinkMs: 0 }, [], { batch: 256, input: 512, hidden: 1024, out: 256 }), priority: 'low' },
], { policy: 'co_tuned', variants });

/** A profile on which a capped kernel hardly slows its co-runners (the adapter a spatial share works on). */
function sparingProfile(): DeviceProfile {
    const p = defaultProfile();
    p.interference.pairs = p.interference.pairs.map(x => x.aggressor === 'capped' ? { ...x, slowdown: 1.02 } : x);
    return p;
}

describe('device shares', () => {
    it('P is the fitted concurrency of the profile\'s GEMM curve; versions cap at steps of P / N, equal caps merged', () => {
        const profile = defaultProfile();
        expect(deviceParallelism(profile)).toBe(fitWaves(familyProfile(profile, 'gemm.vec4')!, profile.kernelFloorMs)!.concurrency);
        expect(shareWorkgroups(4, 64)).toEqual([48, 32, 16]);
        expect(shareWorkgroups(3, 64)).toEqual([43, 21]);
        expect(shareWorkgroups(4, 3)).toEqual([2, 1]);
        expect(shareWorkgroups(8, 2)).toEqual([2, 1]);
        expect(shareWorkgroups(1, 64)).toEqual([]);
        const grid = { parallelism: 64, workgroups: [48, 32, 16] };
        expect([0, 1, 2, 3].map(v => versionShare(grid, v))).toEqual([1, 0.75, 0.5, 0.25]);
    });

    it('a software adapter offers shares of at least one workgroup per host core, where its GEMM curve fits one workgroup in flight', () => {
        // A GEMM curve whose time is its work whatever the workgroups: the waves model fits one in flight (as the calibrated lavapipe profile of the two-core host does).
        const serial = (adapter: DeviceProfile['adapter'], cores?: number): DeviceProfile => {
            const p = defaultProfile();
            p.uncalibrated = false;
            p.adapter = adapter;
            if (cores !== undefined) p.hostLoad = { before: 1, after: 1, cores };
            p.families['gemm.vec4'] = {
                basis: 'flops',
                points: [1, 4, 16, 64].map(w => ({ flops: w * 1e6, bytes: 1e5, workgroups: w, ms: w + p.kernelFloorMs, shape: `${w} workgroups` })),
            };
            return p;
        };
        const gpu = { vendor: 'acme', architecture: 'rdna', device: 'x', description: 'acme x' };
        const lavapipe = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'llvmpipe: Mesa' };
        expect(fitWaves(serial(gpu, 2).families['gemm.vec4'], 0.02)!.concurrency).toBe(1);
        expect(deviceParallelism(serial(gpu, 2))).toBe(1); // a GPU: its curve, whatever the host
        expect(deviceParallelism(serial(lavapipe))).toBe(1); // no core count recorded
        expect(deviceParallelism(serial(lavapipe, 2))).toBe(2);
        expect(deviceParallelism(serial({ ...lavapipe, architecture: '' }, 8))).toBe(8); // known by its description
        // co_tuned then compiles a real share (one workgroup of two: C 50 %) rather than caps that all mean 100 %.
        const resolved = resolveSchedule(pair(25, 3), serial(lavapipe, 2));
        expect(resolved.settings.coTuned).toMatchObject({ parallelism: 2, workgroups: [1] });
        expect(versionShare(resolved.settings.coTuned!, 1)).toBe(0.5);
        expect(resolveSchedule(pair(25, 3), serial(gpu, 2)).settings.coTuned).toMatchObject({ parallelism: 1, workgroups: [1] });
    });

    it('a capped kernel\'s interference follows its share: the measured capped pair at the calibrated share, the full-width pair at 100 %, linear between', () => {
        const p = defaultProfile();
        const P = 64, measured = CAPPED_INTERFERENCE_WORKGROUPS / P;
        const c = (v: 'compute' | 'capped', a: 'compute' | 'capped') => interferenceCoefficient(p, v, a);
        expect(shareCoefficient(p, 'compute', 'capped', 1, measured, P)).toBeCloseTo(c('compute', 'capped'), 12);
        expect(shareCoefficient(p, 'compute', 'capped', 1, 1, P)).toBeCloseTo(c('compute', 'compute'), 12);
        const mid = (measured + 1) / 2;
        expect(shareCoefficient(p, 'compute', 'capped', 1, mid, P)).toBeCloseTo((c('compute', 'capped') + c('compute', 'compute')) / 2, 12);
        // Below the calibrated share: the measured figure, no extrapolation; uncapped kinds ignore shares.
        expect(shareCoefficient(p, 'compute', 'capped', 1, measured / 2, P)).toBeCloseTo(c('compute', 'capped'), 12);
        expect(shareCoefficient(p, 'memory', 'compute', 0.3, 0.3, P)).toBe(interferenceCoefficient(p, 'memory', 'compute'));
        expect(shareCoefficient(p, 'capped', 'compute', 1, 1, P)).toBeCloseTo(c('compute', 'compute'), 12);
    });

    it('a session compiles layer_block\'s tolerant versions first and co_tuned\'s shares after them, one per share', () => {
        const ir = pair(25);
        const ops = planGraph(ir.tenants[1].graph);
        const time = (o: readonly PlannedOp[]) => o.map(op => op.flops);
        const both = versionsOfHotOps(time, { tolerant: true, shareWorkgroups: [8, 4] })(ops);
        const shares = versionsOfHotOps(time, { tolerant: false, shareWorkgroups: [8, 4] })(ops);
        const hot = both.flatMap((v, i) => v.length ? [i] : []);
        expect(hot.length).toBeGreaterThan(0);
        for (const i of hot) {
            expect(both[i].slice(VERSIONS - 1)).toEqual(['capped_8', 'capped_4']);
            expect(shares[i]).toEqual(['capped_8', 'capped_4']);
        }
        expect(firstShareVersion({ tolerant: true })).toBe(VERSIONS);
        expect(firstShareVersion({ tolerant: false })).toBe(1);
    });
});

describe('the annealing search', () => {
    it('is deterministic: the same configuration, scores and counts on every call', () => {
        const a = searchCoTuned(simulationInput(pair(4), defaultProfile()), 4);
        const b = searchCoTuned(simulationInput(pair(4), defaultProfile()), 4);
        expect(b.coTuned).toEqual(a.coTuned);
        expect(b.best).toEqual(a.best);
        expect([b.steps, b.simulations]).toEqual([a.steps, a.simulations]);
        expect(b.why).toBe(a.why);
    });

    it('improves or keeps the predicted objective, on profiles where capping helps and where it does not', () => {
        for (const profile of [defaultProfile(), sparingProfile()]) {
            for (const ms of [3, 4, 25]) {
                const s = searchCoTuned(simulationInput(pair(ms), profile), 4);
                expect(s.best.objective).toBeGreaterThanOrEqual(s.start.objective);
                expect(s.start).toEqual(coTunedScore(simulationInput(pair(ms), profile).tenants,
                    simulateCoTuned(simulationInput(pair(ms), profile), { ...s.coTuned, versions: { critical: 0, batch: 0 } }, 1, 0.5)));
            }
        }
    });

    it('where a capped kernel spares its co-runner, caps the batch tenant so the critical one meets its SLO', () => {
        const input = simulationInput(pair(3), sparingProfile());
        const s = searchCoTuned(input, 4);
        expect(s.start.missed).toBe(1); // every tenant in its own variant: the critical p95 misses 3 ms
        expect(s.best.missed).toBe(0);
        expect(s.coTuned.versions.batch).toBeGreaterThan(0);
        expect(s.why).toMatch(/^the annealing search \(\d+ steps, \d+ simulations, 3 versions per hot op on a device of 3 workgroups \(4 asked; equal caps merged\)\) chose critical version \d \(.*\), batch version [12] \(capped_[12], C \d+%, R \d+%\)/);
        // The chosen configuration scores what the search said when simulated again.
        expect(coTunedScore(input.tenants, simulateCoTuned(input, s.coTuned, 1, 0.5))).toEqual(s.best);
    });

    it('is bounded by its step and simulation counts', () => {
        const input = simulationInput(pair(4), defaultProfile());
        const few = searchCoTuned(input, 4, { steps: 5, simulations: 100 });
        expect(few.steps).toBe(5);
        const capped = searchCoTuned(input, 4, { steps: 1000, simulations: 3 });
        expect(capped.simulations).toBe(3);
        expect(capped.steps).toBeLessThan(1000);
        const full = searchCoTuned(input, 4);
        expect(full.steps).toBeLessThanOrEqual(120);
        expect(full.simulations).toBeLessThanOrEqual(32);
        // One version (variants: 1): nothing to search, every tenant in its own variant.
        const one = searchCoTuned(simulationInput(pair(4, 1), defaultProfile()), 1);
        expect([one.steps, one.simulations, one.coTuned.versions]).toEqual([0, 1, { critical: 0, batch: 0 }]);
    });
});

describe('co_tuned as a schedule', () => {
    it('runs (RUNNABLE_SCHEDULES), resolves to the versions the search chose, and the prediction simulates them', () => {
        expect(RUNNABLE_SCHEDULES).toContain('co_tuned');
        const ir = pair(3);
        const profile = sparingProfile();
        const resolved = resolveSchedule(ir, profile);
        const search = searchCoTuned(simulationInput(ir, profile), 4);
        expect(resolved.settings.coTuned).toEqual(search.coTuned);
        expect(resolved.why).toBe(search.why);
        expect(resolved.name).toMatch(/^co_tuned\(variants: 4; critical: C \d+%, batch: C \d+%\)$/);
        const evaluation = evaluateSchedule(ir, profile, ir.schedule, { capacity: false });
        expect(evaluation.resolved.name).toBe(resolved.name);
        expect(evaluation.sloMet).toBe(true);
        const concurrent = evaluateSchedule(ir, profile, { policy: 'concurrent' }, { capacity: false });
        expect(concurrent.sloMet).toBe(false);
    });

    it('the policy submits every idle tenant with work, whole requests, each in its chosen version (numbered after layer_block\'s when both are compiled)', () => {
        const options = { variants: 3, parallelism: 64, workgroups: [43, 21], versions: { a: 2, b: 0 } };
        const view = (index: number, name: string, busy = false, waiting = 1): TenantView =>
            ({ index, name, priority: 'normal', opCount: 5, busy, waiting: Array.from({ length: waiting }, (_, i) => ({ id: i, arrivalMs: 0, nextOp: 0 })) });
        const tenants = [view(0, 'a'), view(1, 'b'), view(2, 'c', true), view(3, 'd', false, 0)];
        expect(coTunedPolicy(options).decide({ nowMs: 0, tenants })).toEqual([{ tenant: 0, opEnd: 5, version: 2 }, { tenant: 1, opEnd: 5, version: 0 }]);
        expect(coTunedPolicy(options, 3).decide({ nowMs: 0, tenants })).toEqual([{ tenant: 0, opEnd: 5, version: 4 }, { tenant: 1, opEnd: 5, version: 0 }]);
        expect(policyFor({ policy: 'co_tuned', variants: 3 }, { coTuned: options }).name).toBe('co_tuned(variants: 3; a: C 33%, b: C 100%)');
        expect(coTunedVersionRule(options, 3)).toBe('co_tuned: every request of a tenant in the version the annealing search chose before the run: a version 4 (capped_21, C 33%), b version 0 (own variant, C 100%)');
    });
});
