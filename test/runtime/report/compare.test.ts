/**
 * The comparison document (report/compare.ts) from synthetic rounds: gains against the baseline
 * with their intervals, the headline tenant, the measured best, capacities, statuses.
 */
import { describe, expect, it } from 'vitest';
import { buildResults, type RunData, type TenantPhaseData } from '../../../src/runtime/report/build.js';
import { buildComparison, CAPACITY_SCHEMA_VERSION, comparisonSchema, probeOf, type Capacity, type CapacityReport, type ScheduleRunData } from '../../../src/runtime/report/compare.js';
import { capacityTable, comparisonTable } from '../../../src/runtime/report/table.js';
import { createRandom } from '../../../src/runtime/plan/random.js';
import type { IrTenant } from '../../../src/runtime/ir/types.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';

const critical = mlpTenant('critical', { priority: 'high', slos: [{ percentile: 'p95', ms: 25 }] });
const batch = mlpTenant('batch', { priority: 'low' });
const tenants = [critical, batch];
const ir = workloadOf('mix', tenants);

/** `rounds` rounds of `n` exponential latencies with mean `meanMs`. */
function rounds(count: number, n: number, meanMs: number, seed: string): TenantPhaseData[] {
    const r = createRandom(5, seed);
    return Array.from({ length: count }, () => {
        const latenciesMs = Array.from({ length: n }, () => r.exponential(meanMs));
        return { latenciesMs, windowMs: 1000, unfinished: 0, opTimesMs: [], breakdown: [] };
    });
}

/** One schedule's data: its co-run rounds (critical, batch) beside the shared solo rounds. */
function schedule(name: string, corun: TenantPhaseData[][], options: { baseline?: boolean; predictedMs?: number; capacity?: Capacity | null; status?: RunData['status'] } = {}): ScheduleRunData {
    const solo = [rounds(8, 80, 5, 'solo/critical'), rounds(8, 80, 20, 'solo/batch')];
    const run: RunData = {
        ir, irHash: 'x', adapter: null, policy: name, seed: 0, timing: 'gpu-timestamps', fusion: true, tenancyVersion: '0.0.0',
        startedAt: new Date(0), finishedAt: new Date(1000), status: options.status ?? 'complete', ...(options.status === 'partial' ? { reason: `co-run phase under ${name} overloaded` } : {}),
        tenants: tenants.map((tenant: IrTenant, i) => ({ tenant, ops: [], memoryBytes: 0, solo: solo[i], corun: corun[i] })),
        corunRuns: [], timeline: null, minRequests: 0,
        measurement: { plannedRounds: 8, rounds: 8, roundMs: 100, warmupMs: 100, budgetMs: 30_000, budgetReached: false, extendedRounds: 0, elapsedMs: 1000 },
        host: { loadBefore: 0.5, loadAfter: 0.6, cores: 2, stealFraction: 0 },
    };
    return {
        name, asked: name, baseline: options.baseline ?? false,
        predicted: { sloMet: false, qosThroughput: 10, capacityLoad: 1, tenants: [{ name: 'critical', p50Ms: 1, p99Ms: 1, statisticMs: options.predictedMs ?? 60 }, { name: 'batch', p50Ms: 1, p99Ms: 1, statisticMs: 40 }] },
        results: buildResults(run), corun, capacity: options.capacity ?? null,
    };
}

const concurrent = schedule('concurrent', [rounds(8, 80, 40, 'c/critical'), rounds(8, 80, 25, 'c/batch')], { baseline: true, predictedMs: 60 });
const blocks = schedule('layer_block(size: 4)', [rounds(8, 80, 8, 'l/critical'), rounds(8, 80, 27, 'l/batch')], { predictedMs: 15 });
const same = schedule('sequential', [rounds(8, 80, 40, 's/critical'), rounds(8, 80, 25, 's/batch')], { predictedMs: 50 });

describe('a comparison of schedules', () => {
    it('gives each tenant its gain over the baseline on its SLO statistic, with an interval, and the headline beside the prediction', () => {
        const c = buildComparison({ tenants, seed: 0, schedules: [concurrent, blocks, same], startedAt: new Date(0), finishedAt: new Date(1) });
        expect(() => comparisonSchema.parse(JSON.parse(JSON.stringify(c)))).not.toThrow();
        expect(c.baseline).toBe('concurrent');
        const lb = c.schedules[1];
        const crit = lb.tenants[0];
        // 40 ms against 8 ms mean exponential latencies: a p95 about 5× lower.
        expect(crit.gainStatistic).toBe('p95');
        expect(crit.gain).toMatchObject({ verdict: 'better' });
        expect(crit.gain!.estimate).toBeGreaterThan(3);
        expect(crit.gain!.low!).toBeGreaterThan(1);
        // The batch tenant has no SLO: compared on p99, which 640 requests bound; nearly the same.
        expect(lb.tenants[1].gainStatistic).toBe('p99');
        expect(lb.tenants[1].gain!.low!).toBeLessThan(1.2);
        // The headline is about the tenant whose SLO the baseline missed by most; predicted 60 / 15.
        expect(lb.gain).toMatchObject({ metric: 'latency', tenant: 'critical', statistic: 'p95', predicted: 4 });
        expect(c.schedules[0].gain).toBeNull();
        expect(c.schedules[2].tenants[0].gain!.verdict).toBe('no-change');
        expect(c.best).toBe('layer_block(size: 4)');
        expect(c.bestWhy).toMatch(/^layer_block\(size: 4\): critical's p95 \d\.\d\d× better \(\d\.\d\d–\d+\.\d\d\) than under concurrent$/);
        const table = comparisonTable(c);
        expect(table).toContain('concurrent (baseline)');
        expect(table).toMatch(/layer_block\(size: 4\): critical's p95 predicted 4\.00×, measured \d\.\d\d× \(\d\.\d\d–\d+\.\d\d\)/);
    });

    it('gives each tenant alone (the shared solo rounds) and the floor: solo / the baseline\'s co-run, with its interval', () => {
        const solo = [rounds(8, 80, 5, 'solo/critical'), rounds(8, 80, 20, 'solo/batch')];
        const c = buildComparison({ tenants, seed: 0, schedules: [concurrent, blocks], solo, startedAt: new Date(0), finishedAt: new Date(1) });
        expect(() => comparisonSchema.parse(JSON.parse(JSON.stringify(c)))).not.toThrow();
        const alone = c.schedules[0].tenants[0].solo!;
        // Exponential latencies of mean 5 ms alone against 40 ms under concurrent: a p95 about 8× lower.
        expect(alone.latencyMs.p95).toBeCloseTo(concurrent.results.tenants[0].solo!.latencyMs.p95);
        expect(alone.floor!.estimate).toBeGreaterThan(0.08);
        expect(alone.floor!.estimate).toBeLessThan(0.2);
        expect(alone.floor!.low!).toBeLessThan(alone.floor!.estimate);
        expect(alone.floor!.high!).toBeGreaterThan(alone.floor!.estimate);
        // The same solo rounds and baseline for every schedule: the same floor.
        expect(c.schedules[1].tenants[0].solo).toEqual(alone);
        // Without solo rounds (a merged sweep), no solo figures.
        expect(buildComparison({ tenants, seed: 0, schedules: [concurrent, blocks], startedAt: new Date(0), finishedAt: new Date(1) }).schedules[0].tenants[0].solo).toBeUndefined();
    });

    it('names no best when nothing beats the baseline beyond its interval', () => {
        const c = buildComparison({ tenants, seed: 0, schedules: [concurrent, same], startedAt: new Date(0), finishedAt: new Date(1) });
        expect(c.best).toBeNull();
        expect(c.bestWhy).toBe('no schedule did better than concurrent beyond its interval');
    });

    it('with capacities, the headline is the capacity ratio bracketed by both searches', () => {
        const cap = (load: number, failedLoad: number | null): Capacity => ({ load, failedLoad, throughputPerSecond: 10 * load, predictedLoad: 1, probes: [], budgetReached: false });
        const base = { ...concurrent, capacity: cap(1, 1.1) };
        const better = { ...blocks, capacity: cap(2, 2.2), predicted: { ...blocks.predicted, qosThroughput: 25 } };
        const c = buildComparison({ tenants, seed: 0, schedules: [base, better], startedAt: new Date(0), finishedAt: new Date(1) });
        expect(c.schedules[1].gain).toEqual({ metric: 'capacity', measured: { estimate: 2, low: 2 / 1.1, high: 2.2, verdict: 'better' }, predicted: 2.5 });
        expect(comparisonTable(c)).toMatch(/layer_block\(size: 4\)\s+2\.00× \(fails at 2\.20×\)\s+20\.0\/s/);
    });

    it('takes the worst status of its schedules and says an overload once, under the schedule it hit', () => {
        const overloaded = schedule('sequential', [rounds(8, 80, 40, 's/critical'), rounds(8, 80, 25, 's/batch')], { status: 'partial' });
        const c = buildComparison({ tenants, seed: 0, schedules: [concurrent, overloaded], startedAt: new Date(0), finishedAt: new Date(1) });
        expect(c.status).toBe('partial');
        expect(c.valid).toBe(false);
        expect(c.invalidReasons.filter(r => r.includes('overloaded'))).toEqual(['sequential: the run is partial: co-run phase under sequential overloaded']);
    });
});

describe('a capacity probe\'s verdict', () => {
    /** `count` rounds of 80 latencies spread evenly over 0–maxMs (deterministic quantiles). */
    const even = (count: number, maxMs: number): TenantPhaseData[] => Array.from({ length: count }, () => ({
        latenciesMs: Array.from({ length: 80 }, (_, i) => (i + 0.5) / 80 * maxMs), windowMs: 1000, unfinished: 0, opTimesMs: [], breakdown: [],
    }));

    it('met, violated, or inconclusive with the value and bounds that straddle the target', () => {
        const at = (maxMs: number) => schedule('concurrent', [even(8, maxMs), even(8, 40)]).results;
        // p95 of 0–20 ms is about 19 ms: every bound within 25 ms; of 0–40 ms about 38.
        expect(probeOf(at(20), 1, 1000)).toMatchObject({ load: 1, verdict: 'met', requests: 1280, elapsedMs: 1000 });
        expect(probeOf(at(40), 2, 1000)).toMatchObject({ verdict: 'violated', reason: 'critical p95 37.8 ms > 25 ms' });
        // p95 of 0–26.3 ms is about 25 ms: its bounds straddle the target, and the reason gives them.
        const straddling = probeOf(at(26.3), 1.5, 1000);
        expect(straddling.verdict).toBe('inconclusive');
        expect(straddling.reason).toBe('critical p95 24.8 ms (24.5–25.5) straddles 25 ms');
        expect(straddling.straddles).toEqual({ tenant: 'critical', percentile: 'p95', targetMs: 25 });
    });

    it('too few requests to bound the percentile: says how many it needs', () => {
        const few = (count: number): TenantPhaseData[] => Array.from({ length: count }, () => ({ latenciesMs: [1, 2, 3], windowMs: 1000, unfinished: 0, opTimesMs: [], breakdown: [] }));
        const probe = probeOf(schedule('concurrent', [few(2), even(8, 40)]).results, 1, 1000);
        expect(probe.verdict).toBe('inconclusive');
        expect(probe.reason).toMatch(/^critical p95 is invalid \(needs \d+ requests\)$/);
        expect(probe.straddles).toBeUndefined();
    });
});

describe('the capacity table', () => {
    type Probe = Capacity['probes'][number];
    const probe = (load: number, verdict: Probe['verdict'], extra: Partial<Probe> = {}): Probe => ({ load, verdict, throughputPerSecond: 40 * load, requests: 100, elapsedMs: 1000, ...extra });
    const straddle = (load: number, remeasured?: boolean): Probe => probe(load, 'inconclusive', {
        reason: 'critical p95 24.0 ms (20.0–30.0) straddles 25 ms', straddles: { tenant: 'critical', percentile: 'p95', targetMs: 25 }, ...(remeasured ? { remeasured } : {}),
    });
    const report = (probes: Probe[], load = 0): CapacityReport => ({
        schemaVersion: CAPACITY_SCHEMA_VERSION, kind: 'capacity', status: 'complete', workload: 'mix', sourceUri: 'file:///mix.tenancy', startedAt: '', finishedAt: '',
        adapter: null, irHash: 'x', tenancyVersion: '0.0.0', cores: 2, budgetMs: 60_000,
        schedules: [{ name: 'concurrent', asked: 'concurrent', predicted: { qosThroughput: 100, capacityLoad: 3.2 }, capacity: { load, failedLoad: 1.6, throughputPerSecond: 40 * load, predictedLoad: 3.2, probes, budgetReached: false } }],
    });

    it('lists each probe, marks one measured again, and says when an SLO straddled its target at loads twice apart or more', () => {
        const flat = capacityTable(report([probe(3.2, 'violated', { reason: 'critical p95 40.0 ms > 25 ms' }), probe(1.6, 'violated', { reason: 'critical p95 27.0 ms > 25 ms' }),
            straddle(0.8, true), straddle(0.8), straddle(0.4, true), straddle(0.4), straddle(0.2)]));
        expect(flat).toContain('0.80× ~ (critical p95 24.0 ms (20.0–30.0) straddles 25 ms; measured again, longer), 0.80× ~ (critical p95 24.0 ms (20.0–30.0) straddles 25 ms)');
        expect(flat).toContain('concurrent: critical p95 straddled its 25 ms target at 3 loads from 0.20× to 0.80×: there it barely follows the load');
        // At the knee, two neighbouring loads straddling (1.83× and 2.00×): a narrow bracket, not a flat percentile.
        const knee = capacityTable(report([probe(2.83, 'violated', { reason: 'x' }), probe(1.41, 'met'), straddle(2, true), straddle(2), probe(1.68, 'met'), straddle(1.83, true), straddle(1.83)], 1.68));
        expect(knee).not.toContain('barely follows');
        // Once, after being measured again and decided: nothing to say.
        const decided = capacityTable(report([probe(3.2, 'violated', { reason: 'x' }), straddle(1.6, true), probe(1.6, 'violated', { reason: 'y' }), probe(0.8, 'met')], 0.8));
        expect(decided).not.toContain('barely follows');
        expect(decided).toContain('1.60× ~ (critical p95 24.0 ms (20.0–30.0) straddles 25 ms; measured again, longer), 1.60× ✗ (y)');
    });
});
