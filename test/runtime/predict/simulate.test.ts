/** Schedules evaluated by simulation with the runtime's own policies (predict/simulate.ts, schedules.ts). Pure. */
import { describe, expect, it } from 'vitest';
import { simulate, type SimulatedTenant } from '../../../src/runtime/predict/simulate.js';
import { autoCandidates, bestSchedule, CANDIDATE_SCHEDULES, compareSchedules, evaluateSchedule, MAX_SIMULATED_REQUESTS, resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { policyFor } from '../../../src/runtime/schedule/policy.js';
import type { IrArrival } from '../../../src/runtime/ir/types.js';
import { mlpTenant, workload } from './fixtures.js';

const tenant = (name: string, arrival: IrArrival, opMs: number[], priority: 'high' | 'normal' | 'low' = 'normal'): SimulatedTenant =>
    ({ name, priority, arrival, slos: [], submitMs: 0, ops: opMs.map(ms => ({ flops: ms, launches: 1, predictedMs: ms })) });

describe('the simulation', () => {
    it('gives an M/D/1 queue its known mean wait: ρ/(2μ(1−ρ))', () => {
        // Service 10 ms, 50 requests/s: ρ = 0.5, mean wait 5 ms, mean latency 15 ms.
        const [f] = simulate([tenant('a', { kind: 'poisson', ratePerSecond: 50 }, [10])], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0]], serviceCv: 0, seed: 1, warmupMs: 2000, durationMs: 200_000,
        });
        const mean = f.latenciesMs.reduce((s, x) => s + x, 0) / f.latenciesMs.length;
        expect(mean).toBeGreaterThan(14);
        expect(mean).toBeLessThan(16);
        expect(f.unfinished).toBe(0);
    });

    it('shares the device between co-running submissions by the contention coefficients', () => {
        // Two closed loops of 10 ms requests, each slowing the other 2× while both run: 20 ms each.
        const figures = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [10])], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000,
        });
        for (const f of figures) expect(f.latenciesMs[Math.floor(f.latenciesMs.length / 2)]).toBeCloseTo(20, 6);
        // Sequential: one at a time, each waits for the other's request: 20 ms too, at full speed.
        const seq = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [10])], {
            policy: policyFor({ policy: 'sequential' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000,
        });
        expect(seq[0].latenciesMs[Math.floor(seq[0].latenciesMs.length / 2)]).toBeCloseTo(20, 6);
    });

    it("runs the runtime's layer_block policy: a short high-priority request waits for one block of a long one, not all of it", () => {
        const critical = tenant('critical', { kind: 'poisson', ratePerSecond: 20 }, [2], 'high');
        const batch = tenant('batch', { kind: 'closed', clients: 1, thinkMs: 0 }, Array.from({ length: 20 }, () => 5), 'low');
        const options = { contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 3, warmupMs: 500, durationMs: 20_000 };
        const p95 = (policy: Parameters<typeof policyFor>[0]) => {
            const f = simulate([{ ...critical, slos: [{ percentile: 'p95', ms: 20 }] }, batch], { ...options, policy: policyFor(policy) })[0];
            return f.latenciesMs[Math.floor(f.latenciesMs.length * 0.95)];
        };
        expect(p95({ policy: 'layer_block', size: 1 })).toBeLessThan(p95({ policy: 'sequential' }) / 3);
    });
});

describe('the best of schedules compared', () => {
    const evaluation = (name: string, p99Ms: number) => ({ name, qosThroughput: 0, sloMet: false, tenants: [{ p99Ms }] }) as unknown as Parameters<typeof bestSchedule>[0][number];

    it('says so when every schedule is overloaded, with no Infinity in the words (found by the fuzzer)', () => {
        const { best, why } = bestSchedule([evaluation('concurrent', Infinity), evaluation('sequential', Infinity)]);
        expect(best.name).toBe('concurrent');
        expect(why).toBe("no schedule compared keeps up with the declared load (each leaves a tenant's queue growing, so none has a p99); concurrent is the first compared");
        expect(bestSchedule([evaluation('sequential', Infinity), evaluation('concurrent', 40)]).why).toBe('the lowest worst p99 (40.0 ms against none: overloaded under sequential)');
    });
});

describe('schedules compared', () => {
    it('evaluates each candidate with the same arrivals, finds the QoS-satisfied throughput, and picks the best with a reason', () => {
        const ir = workload([
            mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 }, [{ percentile: 'p99', ms: 50 }]),
            mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }),
        ]);
        const started = performance.now();
        const evaluations = compareSchedules(ir, defaultProfile());
        const took = performance.now() - started;
        expect(evaluations.map(e => e.name)).toEqual(['concurrent', 'sequential', 'layer_block(size: auto)', 'regulated(split: auto, sync: auto)']);
        // The regulated candidate runs with what its search found.
        expect(evaluations[3].resolved.name).toMatch(/^regulated\(split: \{"a":\d+,"b":\d+\}, sync: /);
        expect(evaluations[3].resolved.why).toMatch(/^the search \(\d+ simulations\) found/);
        for (const e of evaluations) {
            expect(e.tenants.map(t => t.name)).toEqual(['a', 'b']);
            if (e.sloMet) expect(e.capacityLoad).toBeGreaterThanOrEqual(1);
            expect(e.qosThroughput).toBeGreaterThanOrEqual(0);
        }
        const { best, why } = bestSchedule(evaluations);
        expect(evaluations).toContain(best);
        expect(why.length).toBeGreaterThan(10);
        // Deterministic: the same seed gives the same figures.
        expect(evaluateSchedule(ir, defaultProfile(), evaluations[0].schedule).tenants).toEqual(evaluations[0].tenants);
        // auto resolves to the best of its candidates and says why: compare's on the default profile,
        // and co_tuned besides on a calibrated one (the default's capped interference is assumed, not measured).
        expect(autoCandidates(defaultProfile())).toEqual(CANDIDATE_SCHEDULES);
        const calibrated = { ...defaultProfile(), uncalibrated: false };
        const candidates = compareSchedules(ir, calibrated, autoCandidates(calibrated));
        expect(candidates.slice(0, evaluations.length).map(e => e.tenants)).toEqual(evaluations.map(e => e.tenants));
        expect(candidates.at(-1)!.resolved.name).toMatch(/^co_tuned\(variants: 3; a: C \d+%, b: C \d+%\)$/);
        const autoBest = bestSchedule(candidates).best;
        const auto = resolveSchedule({ ...ir, schedule: { policy: 'auto' } }, calibrated);
        expect(auto.name).toBe(autoBest.resolved.name);
        expect(auto.why).toMatch(new RegExp(`^auto chose ${autoBest.resolved.name.replace(/[()[\]{}.*+?^$|\\]/g, '\\$&')}: `));
        console.log(`compareSchedules: ${took.toFixed(0)} ms`, evaluations.map(e => `${e.name}: qos ${e.qosThroughput.toFixed(1)}/s load ${e.capacityLoad.toFixed(2)} p99 ${e.tenants.map(t => t.p99Ms.toFixed(1)).join('/')}`), why);
    });

    it('refuses open-loop arrivals too many to simulate, with a clear error, instead of exhausting memory', () => {
        const absurd = workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }), mlpTenant('b', { kind: 'poisson', ratePerSecond: 99_999_999_999 })], { policy: 'auto' });
        expect(() => resolveSchedule(absurd, defaultProfile())).toThrow(
            /^the open-loop arrivals \(1\.00e\+11 requests\/s at 1× the load; tenant b the fastest\) are too many to simulate: over 2,000,000 requests in [\d.]+ s; lower the rates$/);
        // A schedule that needs no simulation to resolve still resolves.
        expect(resolveSchedule({ ...absurd, schedule: { policy: 'concurrent' } }, defaultProfile()).name).toBe('concurrent');
        // The bound leaves room for fast real streams: 30,000 requests/s simulate (at 16× the load too: under 2,000,000 in 2.2 s).
        const fast = workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 30_000 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        expect(evaluateSchedule(fast, defaultProfile(), { policy: 'concurrent' }, { capacity: false }).tenants[0].throughputPerSecond).toBeGreaterThan(0);
        expect(MAX_SIMULATED_REQUESTS).toBe(2_000_000);
    });
});
