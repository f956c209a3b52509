/**
 * Schedules measured against each other in one session, and capacity searches, on the software
 * adapter: the rounds interleave the schedules' co-runs (reversed on odd rounds), every schedule
 * gets figures beside the same solo phases, and a capacity brackets the loads its probes met.
 */
import { describe, expect, it } from 'vitest';
import type { IrSchedule } from '../../../src/runtime/ir/types.js';
import { capacityWorkload, compareWorkload, CapacityInputError, IncompatibleSchedulesError, ProbeCollection, searchCapacity, type MeasuredProbe } from '../../../src/runtime/execute/compare.js';
import { comparisonSchema, capacityReportSchema } from '../../../src/runtime/report/compare.js';
import { capacityTable, comparisonTable } from '../../../src/runtime/report/table.js';
import { ScheduleNotImplementedError } from '../../../src/runtime/schedule/policy.js';
import type { RunEvent } from '../../../src/runtime/execute/events.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from './gpu-helper.js';

const gpu = await hasAdapter();

const tenants = [
    mlpTenant('a', { batch: 8, inputs: 64, hidden: 128, arrival: { kind: 'poisson', ratePerSecond: 50 }, slos: [{ percentile: 'p50', ms: 2000 }], priority: 'high' }),
    mlpTenant('b', { batch: 8, inputs: 64, hidden: 128 }),
];

describe('compare and capacity refuse before measuring', () => {
    it('a schedule the runtime does not run', async () => {
        const ir = workloadOf('w', tenants);
        await expect(compareWorkload({ ir, schedules: [{ policy: 'future' } as unknown as IrSchedule] })).rejects.toThrow(ScheduleNotImplementedError);
    });

    it('two co_tuned schedules whose versions differ (one compiled set of versions per session)', async () => {
        const ir = workloadOf('w', tenants);
        // On the default profile (a device of 3 workgroups) 2 variants cap at 2 workgroups, 4 at 2 and 1.
        await expect(compareWorkload({ ir, schedules: [{ policy: 'co_tuned', variants: 2 }, { policy: 'co_tuned', variants: 4 }] }))
            .rejects.toThrow(IncompatibleSchedulesError);
    });

    it('a capacity without an SLO', async () => {
        const ir = workloadOf('w', [mlpTenant('a'), mlpTenant('b')]);
        await expect(capacityWorkload({ ir })).rejects.toThrow(CapacityInputError);
        await expect(capacityWorkload({ ir })).rejects.toThrow(/has no SLO: a capacity is the highest load at which every SLO holds/);
    });
});

describe('how long a capacity probe needs for its SLO requests', () => {
    // 40/s with a p95 SLO (59 requests) beside a closed loop with none.
    const critical = mlpTenant('critical', { arrival: { kind: 'poisson', ratePerSecond: 40 }, slos: [{ percentile: 'p95', ms: 25 }], priority: 'high' });
    const batch = mlpTenant('batch', { arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, priority: 'low' });

    it('before any probe: the open-loop SLO tenants\' requests at half their arrival rate, inversely to the load', () => {
        const c = new ProbeCollection([critical, batch]);
        expect(c.ms(1)).toBeCloseTo(59 / 0.04 / 0.5);
        expect(c.ms(0.25)).toBeCloseTo(4 * c.ms(1));
        // The lowest load whose probe fits 10 s: 2,950 ms at load 1.
        expect(c.lowestLoad(10_000)).toBeCloseTo(0.295);
        // No budget: no floor (the search starts at the predicted load).
        expect(c.lowestLoad(0)).toBe(0);
    });

    it('learns the share of a probe\'s time that brought requests; closed loops and tenants without an SLO never count', () => {
        const c = new ProbeCollection([critical, batch]);
        // 4 s at load 1 brought 120 of the 160 requests that arrive in 4 s: 3/4 of the time.
        c.learn(1, 4000, [120, 30]);
        expect(c.ms(1)).toBeCloseTo(59 / 0.04 / 0.75);
        expect(new ProbeCollection([batch, mlpTenant('open', { arrival: { kind: 'poisson', ratePerSecond: 40 } })]).ms(1)).toBe(0);
    });
});

describe('the capacity search over its probes', () => {
    const critical = mlpTenant('critical', { arrival: { kind: 'poisson', ratePerSecond: 40 }, slos: [{ percentile: 'p95', ms: 25 }], priority: 'high' });
    const batch = mlpTenant('batch', { arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, priority: 'low' });
    type Verdict = 'met' | 'violated' | 'straddles' | 'too few';
    /** A prober whose verdict at a load is `verdictAt(load, budgetMs, how many times this load was probed before)`; every call is recorded. */
    const prober = (verdictAt: (load: number, budgetMs: number, before: number) => Verdict) => {
        const calls: { load: number; budgetMs: number }[] = [];
        const measure = async (load: number, budgetMs: number): Promise<MeasuredProbe> => {
            const v = verdictAt(load, budgetMs, calls.filter(c => c.load === load).length);
            calls.push({ load, budgetMs });
            const verdict = v === 'met' ? 'met' : v === 'violated' ? 'violated' : 'inconclusive';
            const reason = v === 'too few' ? 'critical p95 is invalid' : v === 'straddles' ? 'critical p95 24.0 ms (21.0–27.5) straddles 25 ms' : v === 'violated' ? 'critical p95 30 ms > 25 ms' : undefined;
            return { probe: { load, verdict, ...(reason ? { reason } : {}), throughputPerSecond: 40 * load, requests: 200, elapsedMs: 1000 }, requests: [100, 100], tooFew: v === 'too few' };
        };
        return { calls, measure };
    };
    // The clock stands still: only the probe count ends a search.
    const still = () => 0;

    it('measures a probe whose bounds straddle a target once more at the same load, twice as long, and lets that one decide', async () => {
        // Met below 1.5×; at 1× the first probe straddles the target.
        const p = prober((load, _b, before) => load === 1 && before === 0 ? 'straddles' : load < 1.5 ? 'met' : 'violated');
        const cap = await searchCapacity(p.measure, new ProbeCollection([critical, batch]), 1, 60_000, still);
        expect(p.calls[1].load).toBe(1);
        expect(p.calls[1].budgetMs).toBeGreaterThanOrEqual(2 * p.calls[0].budgetMs);
        expect(cap.probes[0]).toMatchObject({ load: 1, verdict: 'inconclusive', remeasured: true });
        expect(cap.probes[1]).toMatchObject({ load: 1, verdict: 'met' });
        expect(cap.probes[1].remeasured).toBeUndefined();
        // 1× was met, so the search went up; the bracket holds the knee.
        expect(cap.load).toBeGreaterThanOrEqual(1);
        expect(cap.load).toBeLessThan(1.5);
        expect(cap.failedLoad).toBeGreaterThanOrEqual(1.5);
    });

    it('counts a load whose bounds straddle the target twice as not met', async () => {
        const p = prober(load => load === 1 ? 'straddles' : load < 1 ? 'met' : 'violated');
        const cap = await searchCapacity(p.measure, new ProbeCollection([critical, batch]), 1, 60_000, still);
        expect(p.calls.filter(c => c.load === 1)).toHaveLength(2);
        expect(cap.probes.slice(0, 2).map(x => x.remeasured)).toEqual([true, undefined]);
        expect(cap.failedLoad).toBe(1);
        expect(cap.load).toBeLessThan(1);
        expect(cap.load).toBeGreaterThan(0);
    });

    it('measures a probe with too few requests again, longer, as often as it takes (each marked)', async () => {
        const p = prober((load, _b, before) => before < 2 ? 'too few' : load <= 1 ? 'met' : 'violated');
        const cap = await searchCapacity(p.measure, new ProbeCollection([critical, batch]), 1, 60_000, still);
        expect(p.calls.slice(0, 3).map(c => c.load)).toEqual([1, 1, 1]);
        expect(p.calls[2].budgetMs).toBeGreaterThanOrEqual(4 * p.calls[0].budgetMs);
        expect(cap.probes.slice(0, 3).map(x => x.remeasured)).toEqual([true, true, undefined]);
        expect(cap.load).toBe(1);
    });

    it('ends when a probe fails (the session failed or was cancelled)', async () => {
        const cap = await searchCapacity(async () => undefined, new ProbeCollection([critical, batch]), 1, 60_000, still);
        expect(cap).toMatchObject({ load: 0, failedLoad: null, probes: [] });
    });
});

describe.skipIf(!gpu)('compare on the software adapter', () => {
    it('measures every schedule in each round, in turn, beside the same solo phases', async () => {
        const ir = workloadOf('cmp', tenants, { benchmark: { durationMs: 600, warmupMs: 100, rounds: 2 } });
        const events: RunEvent[] = [];
        const c = await compareWorkload({ ir, schedules: [{ policy: 'sequential' }, { policy: 'concurrent' }], onEvent: e => events.push(e), budgetMs: 60_000 });
        console.log(comparisonTable(c));
        expect(() => comparisonSchema.parse(JSON.parse(JSON.stringify(c)))).not.toThrow();
        // The workload's own schedule (concurrent) is the baseline and is measured once.
        expect(c.schedules.map(s => [s.name, s.baseline])).toEqual([['concurrent', true], ['sequential', false]]);
        const corun = events.flatMap(e => (e.type === 'phase' && e.phase === 'corun' && e.round! > 0 ? [`${e.round}:${e.schedule}`] : []));
        // Round 1 in order, round 2 reversed.
        expect(corun.slice(0, 4)).toEqual(['1:concurrent', '1:sequential', '2:sequential', '2:concurrent']);
        for (const s of c.schedules) {
            for (const t of s.tenants) expect(t.requests).toBeGreaterThan(0);
            expect(s.tenants[0].slowdown.p50).not.toBeNull();
        }
        expect(c.schedules[1].tenants[0].gain).not.toBeNull();
        expect(c.schedules[1].gain).toMatchObject({ metric: 'latency', tenant: 'a', statistic: 'p50' });
        const progress = events.filter(e => e.type === 'progress').map(e => (e as { fraction: number }).fraction);
        expect(progress.every((f, i) => i === 0 || f >= progress[i - 1])).toBe(true);
    });

    it('brackets a capacity by its probes: the highest load met below the lowest not met', async () => {
        // An SLO of 3 ms on the median at 50 requests/s: met at low loads, missed as the queue grows.
        const ir = workloadOf('cap', [{ ...tenants[0], slos: [{ percentile: 'p50', ms: 3 }] }, tenants[1]], { benchmark: { durationMs: 400, warmupMs: 100, rounds: 2 } });
        const report = await capacityWorkload({ ir, capacity: { budgetMs: 30_000 } });
        console.log(capacityTable(report));
        expect(() => capacityReportSchema.parse(JSON.parse(JSON.stringify(report)))).not.toThrow();
        const cap = report.schedules[0].capacity!;
        expect(cap.probes.length).toBeGreaterThan(0);
        expect(cap.probes.length).toBeLessThanOrEqual(7);
        const met = cap.probes.filter(p => p.verdict === 'met').map(p => p.load);
        // A probe measured again, longer (too few requests, or bounds straddling the target), is decided by the next.
        const notMet = cap.probes.filter(p => p.verdict !== 'met' && !p.remeasured).map(p => p.load);
        expect(cap.load).toBe(met.length ? Math.max(...met) : 0);
        expect(cap.failedLoad).toBe(notMet.length ? Math.min(...notMet) : null);
        // The first probe is the predicted capacity; every probe says why it was not met.
        expect(cap.probes[0].load).toBeCloseTo(Math.min(64, Math.max(1 / 64, cap.predictedLoad)));
        for (const p of cap.probes) if (p.verdict !== 'met') expect(p.reason).toBeTruthy();
    });

    it('starts where a probe can bring the requests its SLO percentile needs, instead of at a load no probe could decide', async () => {
        // A p99 needs 299 requests: at 50 requests/s (6 s of arrivals) a 1.5 s budget cannot judge the declared load.
        const ir = workloadOf('few', [{ ...tenants[0], slos: [{ percentile: 'p99', ms: 2000 }] }, tenants[1]], { benchmark: { durationMs: 400, warmupMs: 100, rounds: 2 } });
        const report = await capacityWorkload({ ir, capacity: { budgetMs: 1500 } });
        const cap = report.schedules[0].capacity!;
        // The first probe is at least the load whose 299 requests arrive in a third of the budget at half their rate.
        expect(cap.probes[0].load).toBeGreaterThanOrEqual(Math.min(64, 299 / (0.05 * 0.5 * 500)) - 1e-9);
        // Some probe decided: the capacity is bracketed on at least one side.
        expect(cap.load > 0 || cap.failedLoad !== null).toBe(true);
        expect(cap.probes.some(p => !/ is invalid/.test(p.reason ?? ''))).toBe(true);
    });
});
