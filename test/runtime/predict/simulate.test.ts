/** Schedules evaluated by simulation with the runtime's own policies (predict/simulate.ts, schedules.ts). Pure. */
import { describe, expect, it } from 'vitest';
import { boundedStatistic, simulate, simulatedStatistic, type SimulatedFigures, type SimulatedTenant } from '../../../src/runtime/predict/simulate.js';
import { autoCandidates, bestSchedule, CANDIDATE_SCHEDULES, compareSchedules, evaluateSchedule, MAX_SIMULATED_REQUESTS, regulatedScore, resolveSchedule, simulateSchedule, simulationInput } from '../../../src/runtime/predict/schedules.js';
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

    it('alternates co-running tenants kernel by kernel: two closed loops of one 10 ms kernel each take 20 ms a request', () => {
        // Each kernel waits for the other tenant's, whatever the contention coefficients (they apply only to kernels side by side).
        const figures = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [10])], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000,
        });
        for (const f of figures) expect(f.latenciesMs[Math.floor(f.latenciesMs.length / 2)]).toBeCloseTo(20, 6);
        for (const f of figures) expect(f.slowdown).toBeCloseTo(2, 1);
        // Sequential: one at a time, each waits for the other's request: 20 ms too, at full speed.
        const seq = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [10])], {
            policy: policyFor({ policy: 'sequential' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000,
        });
        expect(seq[0].latenciesMs[Math.floor(seq[0].latenciesMs.length / 2)]).toBeCloseTo(20, 6);
    });

    it("makes a kernel wait for the residual of the co-runner's kernel in service, not preempt it", () => {
        // a: one 10 ms kernel, back to back. b: one 1 ms kernel, 4 ms after its last. From t = 11, b arrives 4 ms into a's
        // kernel (a restarted when b's kernel ended), waits its residual 6 ms and runs 1: 7 ms; a waits for b's 1 ms: 11 ms.
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 0], [0, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000 };
        const [a, b] = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 4 }, [1])], options);
        expect(b.latenciesMs[0]).toBeCloseTo(7, 9);
        expect(b.latenciesMs.at(-1)).toBeCloseTo(7, 9);
        expect(a.latenciesMs[0]).toBeCloseTo(11, 9);
        expect(a.latenciesMs.at(-1)).toBeCloseTo(11, 9);
        // Poisson arrivals see the 20 ms kernel in service at a uniform point: the wait is its residual, uniform on [0, 20] ms
        // (median 10), except for the few that arrive while the tenant's previous request waits (1/s: about 1 %).
        const poisson = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [20]), tenant('b', { kind: 'poisson', ratePerSecond: 1 }, [0.5])], { ...options, seed: 7, durationMs: 2_000_000 })[1];
        const n = poisson.latenciesMs.length;
        expect(poisson.latenciesMs[Math.floor(n / 2)]).toBeGreaterThan(0.5 + 9.5);
        expect(poisson.latenciesMs[Math.floor(n / 2)]).toBeLessThan(0.5 + 10.5);
        expect(poisson.latenciesMs.filter(ms => ms <= 20.5 + 1e-9).length / n).toBeGreaterThan(0.97);
    });

    it("queues a tenant's small kernels one by one behind another's big ones: n small kernels wait for n big ones", () => {
        // b: 5 kernels of 1 ms; a: always busy with 10 ms kernels. Each of b's kernels waits for one of a's: 5 × 11 = 55 ms
        // (processor sharing stretched b's 5 ms by at most 1 + c = 2: 10 ms).
        const [a, b] = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [1, 1, 1, 1, 1])], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 5000,
        });
        expect(b.latenciesMs[Math.floor(b.latenciesMs.length / 2)]).toBeCloseTo(55, 6);
        expect(b.slowdown).toBeCloseTo(11, 1);
        expect(a.latenciesMs[Math.floor(a.latenciesMs.length / 2)]).toBeCloseTo(11, 6);
        // An op of several launches runs as that many kernels: one op of 5 launches (5 ms) queues like 5 ops of 1 ms.
        const launches = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), { ...tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, []), ops: [{ flops: 5, launches: 5, predictedMs: 5 }] }], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 5000,
        })[1];
        expect(launches.latenciesMs[Math.floor(launches.latenciesMs.length / 2)]).toBeCloseTo(55, 6);
    });

    it("overlaps a kernel's start-up with the co-runner's kernel: ten 1 ms kernels with 0.2 ms start-ups take 16 ms a request beside another such tenant, not 20", () => {
        const withLeads = (name: string): SimulatedTenant => ({ ...tenant(name, { kind: 'closed', clients: 1, thinkMs: 0 }, []), ops: [{ flops: 10, launches: 10, predictedMs: 10, leadMs: 2 }] });
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000 };
        // Alone, start-ups and kernels run back to back: 10 ms.
        const [alone] = simulate([withLeads('a')], { ...options, contention: [[0]] });
        expect(alone.latenciesMs[Math.floor(alone.latenciesMs.length / 2)]).toBeCloseTo(10, 9);
        // Together, each kernel's 0.8 ms on the device alternates with the other's, its start-up hidden behind the other's kernel.
        for (const f of simulate([withLeads('a'), withLeads('b')], options)) {
            expect(f.latenciesMs[Math.floor(f.latenciesMs.length / 2)]).toBeCloseTo(16, 6);
            expect(f.slowdown).toBeCloseTo(1.6, 1);
        }
    });

    it('steps tenants taking turns as the general step does: the same figures with its shortcut and without', () => {
        // Whole-device shares on a version take the general step for every event (the shortcut is for plans without shares).
        const mixed = (name: string, arrival: IrArrival, ops: { ms: number; launches: number; leadMs: number }[]): [SimulatedTenant, SimulatedTenant] => {
            const views = ops.map(o => ({ flops: o.ms, launches: o.launches, predictedMs: o.ms, leadMs: o.leadMs }));
            const t: SimulatedTenant = { ...tenant(name, arrival, []), ops: views, submitMs: 0.3 };
            return [t, { ...t, versions: [views], shares: [views.map(() => 1)] }];
        };
        const a = mixed('a', { kind: 'poisson', ratePerSecond: 60 }, [{ ms: 2, launches: 3, leadMs: 0.4 }, { ms: 0.5, launches: 1, leadMs: 0.1 }]);
        const b = mixed('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [{ ms: 6, launches: 2, leadMs: 0.3 }, { ms: 1, launches: 4, leadMs: 0.5 }]);
        const c = mixed('c', { kind: 'poisson', ratePerSecond: 30 }, [{ ms: 1, launches: 2, leadMs: 0 }]);
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1, 1], [1, 0, 1], [1, 1, 0]], serviceCv: 0.1, seed: 3, warmupMs: 100, durationMs: 3000 };
        // Whole kernels, and turns of 0.7 ms (b's 3 ms kernels are cut short, a's 0.67 ms ones are not).
        for (const quantumMs of [undefined, 0.7]) {
            const shortcut = simulate([a[0], b[0], c[0]], { ...options, quantumMs });
            const general = simulate([a[1], b[1], c[1]], { ...options, quantumMs });
            for (let i = 0; i < 3; i++) {
                expect(shortcut[i].latenciesMs.length).toBe(general[i].latenciesMs.length);
                expect(shortcut[i].latenciesMs.length).toBeGreaterThan(50);
                shortcut[i].latenciesMs.forEach((ms, k) => expect(ms).toBeCloseTo(general[i].latenciesMs[k], 6));
            }
        }
    });

    it('with a turn (quantumMs), a kernel holds the device at most that long while another waits: small kernels behind big ones wait a turn, not a kernel', () => {
        // b: 5 kernels of 1 ms; a: always busy with 10 ms kernels. Turns of 2 ms: each of b's kernels waits at most one
        // 2 ms turn of a's kernel, then runs whole (1 ms < 2): 5 × (2 + 1) = 15 ms once a is mid-kernel (55 ms with whole kernels).
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 5000 };
        const tenants = [tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [1, 1, 1, 1, 1])];
        const [a, b] = simulate(tenants, { ...options, quantumMs: 2 });
        expect(b.latenciesMs[Math.floor(b.latenciesMs.length / 2)]).toBeCloseTo(15, 6);
        expect(b.latenciesMs.at(-1)).toBeLessThanOrEqual(15 + 1e-6);
        // a's 10 ms kernel gives way five times for 1 ms each: 15 ms a request.
        expect(a.latenciesMs[Math.floor(a.latenciesMs.length / 2)]).toBeCloseTo(15, 6);
        // Alone, a turn changes nothing: nobody waits.
        const [alone] = simulate([tenants[0]], { ...options, contention: [[0]], quantumMs: 2 });
        expect(alone.latenciesMs[Math.floor(alone.latenciesMs.length / 2)]).toBeCloseTo(10, 9);
        // Turns longer than every kernel are whole kernels.
        const long = simulate(tenants, { ...options, quantumMs: 50 });
        expect(long[1].latenciesMs[Math.floor(long[1].latenciesMs.length / 2)]).toBeCloseTo(55, 6);
    });

    it('with a turn, a kernel that started alone still runs to its end: only kernels that queued behind another take turns', () => {
        // a: 10 ms kernels back to back, alone until b arrives (Poisson, 1/s) with 5 kernels of 0.5 ms. b's first kernel waits
        // the residual of a's kernel in service, uniform on [0, 10] ms; from then on a's kernels queue behind b's and take turns
        // of 2 ms: b's four others wait a turn each. b: residual + 0.5 + 4 × (2 + 0.5), median 5 + 10.5 = 15.5 ms. (Turns for
        // every kernel, as before: 2 + 0.5 + 4 × 2.5 = 12.5 ms for nearly all.)
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0, 0], [0, 0]], serviceCv: 0, seed: 5, warmupMs: 100, durationMs: 1_000_000, quantumMs: 2 };
        const b = simulate([tenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), tenant('b', { kind: 'poisson', ratePerSecond: 1 }, [0.5, 0.5, 0.5, 0.5, 0.5])], options)[1];
        const n = b.latenciesMs.length;
        expect(n).toBeGreaterThan(800);
        expect(b.latenciesMs[Math.floor(n / 2)]).toBeGreaterThan(14.5);
        expect(b.latenciesMs[Math.floor(n / 2)]).toBeLessThan(16.5);
        expect(b.latenciesMs[0]).toBeGreaterThanOrEqual(10.5 - 1e-9);
        expect(b.latenciesMs[Math.floor(0.98 * n)]).toBeLessThanOrEqual(20.5 + 1e-9);
    });

    it('lets kernels that occupy a share of the device run side by side, slowed by the contention coefficients', () => {
        // Half-device kernels of 10 ms each, slowing each other 1.5× while both run: 15 ms, and nobody waits.
        const half = (name: string): SimulatedTenant => ({ ...tenant(name, { kind: 'closed', clients: 1, thinkMs: 0 }, [10]), versions: [[{ flops: 10, launches: 1, predictedMs: 10 }]], shares: [[0.5]] });
        const figures = simulate([half('a'), half('b')], {
            policy: policyFor({ policy: 'concurrent' }), contention: [[0, 0.5], [0.5, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000,
        });
        for (const f of figures) expect(f.latenciesMs[Math.floor(f.latenciesMs.length / 2)]).toBeCloseTo(15, 6);
    });

    it('ends an overloaded open-loop stream at its backlog bound (figures ∞), never a closed loop however many its clients', () => {
        const options = { policy: policyFor({ policy: 'concurrent' }), contention: [[0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 100_000 };
        // ρ = 2: the queue grows by 100 requests a second and passes 2,000 long before the window ends.
        const [over] = simulate([tenant('a', { kind: 'poisson', ratePerSecond: 200 }, [10])], options);
        expect(over.unfinished).toBeGreaterThan(over.latenciesMs.length * 0.01);
        expect(simulatedStatistic(over, 'p99', 0.99)).toBe(Infinity);
        // 3,000 clients queue 3,000 requests at once: a closed loop's queue is bounded by its clients, not an overload.
        const [many] = simulate([tenant('a', { kind: 'closed', clients: 3000, thinkMs: 0 }, [0.1])], { ...options, durationMs: 1000 });
        expect(many.unfinished).toBe(0);
        expect(simulatedStatistic(many, 'mean', undefined)).toBeCloseTo(300, -1);
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

    it("gives layer_block each version's own times: a tolerant version that runs slower under the same interference is tried, then left", () => {
        // Half-device kernels slowing each other 2× (level 2: version 1 of 3 is called for). Version 1 takes 2× version 0's
        // time alone, version 2 4×, and the same interference slows them alike: version 1 is expected to take twice version 0's.
        const versioned = (name: string): SimulatedTenant => {
            const at = (ms: number) => [1, 1, 1, 1].map(() => ({ flops: 1, launches: 1, predictedMs: ms }));
            const versions = [at(1), at(2), at(4)];
            return { ...tenant(name, { kind: 'closed', clients: 1, thinkMs: 0 }, [1, 1, 1, 1]), ops: versions[0], versions, shares: versions.map(v => v.map(() => 0.5)) };
        };
        const layerBlock = policyFor({ policy: 'layer_block', size: 2 });
        const chosen: number[] = [];
        const policy = { ...layerBlock, decide: (view: Parameters<typeof layerBlock.decide>[0]) => {
            for (const t of view.tenants) expect(t.versionOps?.length).toBe(3);
            const submissions = layerBlock.decide(view);
            for (const s of submissions) chosen.push(s.version ?? 0);
            return submissions;
        } };
        simulate([versioned('a'), versioned('b')], { policy, contention: [[0, 1], [1, 0]], serviceCv: 0, seed: 1, warmupMs: 100, durationMs: 2000 });
        expect(chosen.length).toBeGreaterThan(100);
        // Each tenant tries version 1 once the level calls for it; judged at its own times the level stays 2, so version 2
        // is never called for, and version 0 runs from then on.
        expect(chosen.filter(v => v === 1).length).toBeGreaterThanOrEqual(2);
        expect(chosen).not.toContain(2);
        expect(chosen.slice(10).every(v => v === 0)).toBe(true);
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
        // The bound leaves room for fast real streams: 30,000 requests/s simulate (at 16× the load too: under 2,000,000 in 2.2 s)
        // — here an overload (the mlp takes longer than 33 µs), found as one: its queue passes the simulation's backlog bound.
        const fast = workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 30_000 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        expect(evaluateSchedule(fast, defaultProfile(), { policy: 'concurrent' }, { capacity: false }).tenants[0].p99Ms).toBe(Infinity);
        const modest = workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 30 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        expect(evaluateSchedule(modest, defaultProfile(), { policy: 'concurrent' }, { capacity: false }).tenants[0].throughputPerSecond).toBeGreaterThan(0);
        expect(MAX_SIMULATED_REQUESTS).toBe(2_000_000);
    });

    it("reports a schedule's figures over a window that holds a sparse stream's requests, beside a fast closed loop whose searches' window does not", () => {
        const { ir, input, resolved } = sparseBesideLoop(5, { kind: 'closed', clients: 1, thinkMs: 0 });
        // The searches' window holds 3,000 of the loop's requests (1.5 s here: a handful of the stream's); the figures'
        // window up to 60,000 of its kernels (two a request), ten times as long.
        const [searched] = simulateSchedule(input, resolved);
        const [reported, loop] = simulateSchedule(input, resolved, 1, 'figures');
        expect(searched.latenciesMs.length).toBeLessThan(20);
        expect(reported.latenciesMs.length).toBeGreaterThan(60);
        expect(loop.latenciesMs.length).toBeGreaterThan(20_000);
        expect(loop.latenciesMs.length).toBeLessThanOrEqual(30_000);
        // What a schedule is reported with (hover, predict, the comparison's rows) rests on that window.
        const evaluation = evaluateSchedule(ir, defaultProfile(), { policy: 'concurrent' }, { capacity: false, seed: 3 });
        expect(evaluation.tenants[0].sampledRequests).toBe(reported.latenciesMs.length);
    });

    it("sizes the window by what a closed loop completes, think time and clients counted: a sparse open stream beside a thinking loop gets its requests, a capacity probe no more of the loop's", () => {
        // Two clients thinking 20 ms around a sub-millisecond request complete about 100 requests a second: the window's bound of
        // 3,000 of them is some 30 s, where a bound by the request time alone gave 2–3 s (a few of the 3/s stream's requests).
        const { input, resolved } = sparseBesideLoop(3, { kind: 'closed', clients: 2, thinkMs: 20 });
        const [sparse, loop] = simulateSchedule(input, resolved);
        expect(sparse.latenciesMs.length).toBeGreaterThan(60);
        expect(loop.latenciesMs.length).toBeGreaterThan(2000);
        expect(loop.latenciesMs.length).toBeLessThanOrEqual(3000);
        // At 16× the load (32 clients) the window shrinks so the loop completes no more than at the declared load, and the
        // stream, 16× as fast, brings as many requests as there.
        const [sparse16, loop16] = simulateSchedule(input, resolved, 16);
        expect(loop16.latenciesMs.length).toBeLessThanOrEqual(3000);
        expect(sparse16.latenciesMs.length).toBeGreaterThan(60);
    });
});

/** A Poisson stream at `ratePerSecond` beside a closed loop of sub-millisecond requests, under concurrent: its IR, simulation input (seed 3) and resolved schedule. */
function sparseBesideLoop(ratePerSecond: number, loop: Extract<IrArrival, { kind: 'closed' }>) {
    const ir = workload([
        mlpTenant('sparse', { kind: 'poisson', ratePerSecond }),
        mlpTenant('loop', loop, [], { batch: 1, input: 64, hidden: 64, out: 8 }),
    ]);
    return { ir, input: simulationInput(ir, defaultProfile(), { seed: 3 }), resolved: resolveSchedule(ir, defaultProfile()) };
}

/** Figures of a tenant: completed latencies, and the waits of requests still queued when the simulation stopped. */
const figures = (latencies: number[], waits: number[] = [], throughputPerSecond = 10): SimulatedFigures => ({
    latenciesMs: Float64Array.from(latencies).sort(), unfinished: waits.length, unfinishedWaitsMs: Float64Array.from(waits).sort(),
    throughputPerSecond, serviceMs: 1, slowdown: 1,
});
const ramp = (n: number, step = 1) => Array.from({ length: n }, (_, i) => (i + 1) * step);

describe('ranking candidates that all miss an SLO (regulated split: auto)', () => {
    it('boundedStatistic counts requests still queued at their wait so far: finite where simulatedStatistic says overloaded', () => {
        const drained = figures(ramp(100));
        expect(boundedStatistic(drained, 'p95', 0.95)).toBe(simulatedStatistic(drained, 'p95', 0.95));
        expect(boundedStatistic(drained, 'mean', undefined)).toBe(simulatedStatistic(drained, 'mean', undefined));
        const worse = figures(ramp(100), ramp(20, 100)), better = figures(ramp(100), ramp(20, 50));
        expect(simulatedStatistic(worse, 'p95', 0.95)).toBe(Infinity);
        expect(simulatedStatistic(better, 'p95', 0.95)).toBe(Infinity);
        expect(boundedStatistic(better, 'p95', 0.95)).toBeLessThan(boundedStatistic(worse, 'p95', 0.95));
        expect(Number.isFinite(boundedStatistic(worse, 'p95', 0.95))).toBe(true);
        expect(boundedStatistic(figures([]), 'p95', 0.95)).toBe(Infinity);
    });

    it('regulatedScore: meeting every SLO first; then the worst predicted / target ratio, whatever the count of SLOs missed; then throughput', () => {
        const two = [{ slos: [{ percentile: 'p95' as const, ms: 10 }] }, { slos: [{ percentile: 'p95' as const, ms: 10 }] }];
        // Element by element, the first that differs decides (the search's comparison, without its tolerance).
        const better = (a: number[], b: number[]) => { const k = a.findIndex((x, i) => x !== b[i]); return k >= 0 && a[k] < b[k]; };
        const met = regulatedScore(two, [figures(ramp(100, 0.05)), figures(ramp(100, 0.05))]);
        expect(met.missed).toBe(0);
        // Both SLOs missed a little (1.2×) vs one missed far (overloaded, its queue still growing): the first is better.
        const near = regulatedScore(two, [figures(ramp(100, 0.12)), figures(ramp(100, 0.12))]);
        const far = regulatedScore(two, [figures(ramp(100, 0.05)), figures(ramp(100), ramp(20, 100))]);
        expect([near.missed, far.missed]).toEqual([2, 1]);
        expect(Number.isFinite(far.rank[1])).toBe(true);
        expect(better(near.rank, far.rank)).toBe(true);
        expect(better(met.rank, near.rank)).toBe(true);
        // Same ratios: the higher throughput wins.
        const faster = regulatedScore(two, [figures(ramp(100, 0.12), [], 20), figures(ramp(100, 0.12))]);
        expect(better(faster.rank, near.rank)).toBe(true);
    });

    it('split: auto says when every split misses an SLO and how it ranked them', () => {
        const ir = workload([
            { ...mlpTenant('critical', { kind: 'poisson', ratePerSecond: 20 }, [{ percentile: 'p95', ms: 0.001 }]), priority: 'high' },
            { ...mlpTenant('batch', { kind: 'closed', clients: 1, thinkMs: 0 }, [], { batch: 256, input: 512, hidden: 1024, out: 8 }), priority: 'low' },
        ], { policy: 'regulated', split: 'auto', sync: 'auto' });
        const resolved = resolveSchedule(ir, defaultProfile());
        expect(resolved.why).toMatch(/^the search \(\d+ simulations\) found 1 SLO missed, the worst at [\d.]+× its target: every split it tried misses an SLO, so it ranked them by the worst predicted \/ target ratio \(requests still queued when a simulation stopped counted at their wait so far\), then by throughput/);
        const easy = resolveSchedule({ ...ir, tenants: [{ ...ir.tenants[0], slos: [{ percentile: 'p95', ms: 10_000 }] }, ir.tenants[1]] }, defaultProfile());
        expect(easy.why).toMatch(/^the search \(\d+ simulations\) found 0 SLOs missed, the worst at [\d.]+× its target(; ops split within: .*)?$/);
    });
});
