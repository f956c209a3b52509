import { describe, expect, it } from 'vitest';
import { buildResults, type OpSummary, type RunData, type TenantPhaseData } from '../../../src/runtime/report/build.js';
import { parseResults, RESULTS_SCHEMA_VERSION } from '../../../src/runtime/report/schema.js';
import { createRandom } from '../../../src/runtime/plan/random.js';
import type { IrSlo } from '../../../src/runtime/ir/types.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';

const tenant = mlpTenant('a');
const ir = workloadOf('w', [tenant]);
const ops: OpSummary[] = tenant.graph.ops.slice(0, 2).map(op => ({ path: op.path, kind: op.kind, fused: [], kernels: [], flops: op.flops, bytes: op.bytes }));

function run(tenants: RunData['tenants'], rounds = tenants[0]?.solo.length ?? 0, minRequests = 0): RunData {
    return {
        ir, irHash: 'x', adapter: null, policy: 'concurrent', seed: 0,
        timing: 'gpu-timestamps', fusion: true, tenancyVersion: '0.0.0', startedAt: new Date(0), finishedAt: new Date(1000),
        status: 'complete', tenants, corunRuns: [], timeline: null, minRequests,
        measurement: { plannedRounds: rounds, rounds, roundMs: 100, warmupMs: 100, budgetMs: 30_000, budgetReached: false, extendedRounds: 0, elapsedMs: 1000 },
        host: { loadBefore: 0.5, loadAfter: 0.6, cores: 2, stealFraction: 0 },
    };
}

/** A round of `latencies` with no op times. */
const round = (latenciesMs: number[], opTimesMs: number[][] = [[], []]): TenantPhaseData =>
    ({ latenciesMs, windowMs: 100, unfinished: 0, opTimesMs, breakdown: latenciesMs.map(l => ({ queueingMs: l / 2, gpuMs: l / 4, hostMs: l / 4 })) });

/** `rounds` rounds of `n` exponential latencies with mean `meanMs`. */
function exponentialRounds(rounds: number, n: number, meanMs: number, seed: string): TenantPhaseData[] {
    const r = createRandom(3, seed);
    return Array.from({ length: rounds }, () => round(Array.from({ length: n }, () => r.exponential(meanMs))));
}

const withSlos = (slos: IrSlo[]) => ({ ...tenant, slos });

describe('op figures of a results document', () => {
    it('give each op the mean and the median of its per-request times over all rounds, and a median slowdown with its interval', () => {
        const results = buildResults(run([{
            tenant, ops, memoryBytes: 0,
            // One stalled pass (20 ms) moves the mean of the first op, not its median.
            solo: [round([5, 5, 5], [[1, 1, 1], [2, 3, 3]]), round([6, 6, 6], [[1, 1, 20], [4, 4, 5]])],
            corun: [round([8, 8, 8], [[2, 3, 3], []]), round([9, 9, 9], [[3, 3, 4], []])],
        }]));
        const [first, second] = results.tenants[0].ops;
        expect(first).toMatchObject({ soloMs: 25 / 6, soloP50Ms: 1, corunMs: 3, corunP50Ms: 3 });
        expect(first.slowdown?.estimate).toBeCloseTo(3 / 1);
        expect(second).toMatchObject({ soloMs: 3.5, soloP50Ms: 3.5, corunMs: null, corunP50Ms: null, slowdown: null });
        // Two rounds of three requests bound little: the interval is wide.
        expect(first.slowdown!.low!).toBeLessThan(1);
        // Eight rounds of ten: the same tripled median is called slower.
        const times = (base: number, k: number) => Array.from({ length: 10 }, (_, i) => base + 0.01 * ((i * 7 + k) % 10));
        const many = buildResults(run([{
            tenant, ops, memoryBytes: 0,
            solo: Array.from({ length: 8 }, (_, k) => round(Array(10).fill(5), [times(1, k), []])),
            corun: Array.from({ length: 8 }, (_, k) => round(Array(10).fill(9), [times(3, k), []])),
        }]));
        expect(many.tenants[0].ops[0].slowdown).toMatchObject({ verdict: 'slower', estimate: expect.closeTo(3, 0) });
        expect(() => parseResults(JSON.parse(JSON.stringify(results)))).not.toThrow();
        // The host's reference request (tenancy run times it): a time, so zero or less is a broken file, named by its field.
        const withReference = (ms: number) => JSON.parse(JSON.stringify({ ...results, host: { ...results.host, referenceRequestMs: ms } }));
        expect(parseResults(withReference(1.8)).host.referenceRequestMs).toBe(1.8);
        expect(() => parseResults(withReference(0))).toThrow(/host\.referenceRequestMs/);
    });

    it('have no op figures for a phase that did not run', () => {
        const results = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: [], corun: [] }], 0));
        expect(results.tenants[0].ops[0]).toMatchObject({ soloMs: null, soloP50Ms: null, corunMs: null, corunP50Ms: null, slowdown: null });
        expect(results.tenants[0].solo).toBeNull();
    });
});

describe('tenant figures over rounds', () => {
    it('pool the rounds: requests, windows and unfinished summed; where the time went averaged', () => {
        const results = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: [round([1, 2]), round([3, 4]), undefined], corun: [round([2, 4]), undefined, round([6])] }], 3));
        const t = results.tenants[0];
        expect(t.solo).toMatchObject({ requests: 4, rounds: 2, windowMs: 200, latencyMs: { mean: 2.5, min: 1, max: 4 } });
        expect(t.corun?.requests).toBe(3);
        expect(t.solo?.breakdown).toEqual({ queueingMs: 1.25, gpuMs: 0.625, hostMs: 0.625 });
    });

    it('say which percentiles the requests bound: p99 from 299 requests, p95 from 59', () => {
        const few = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(4, 30, 10, 's'), corun: exponentialRounds(4, 30, 10, 'c') }]));
        expect(few.tenants[0].solo?.boundedUpTo).toBe('p95');
        expect(few.tenants[0].solo?.boundsMs.p99?.high).toBeNull();
        expect(few.tenants[0].slowdown.p99).toBeNull();
        const many = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(4, 75, 10, 's'), corun: exponentialRounds(4, 75, 10, 'c') }]));
        expect(many.tenants[0].solo?.boundedUpTo).toBe('p99');
        expect(many.tenants[0].slowdown.p99).not.toBeNull();
    });

    it('call a doubled latency slower with an interval around 2, and the same distribution no significant change', () => {
        const slower = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(8, 60, 10, 's'), corun: exponentialRounds(8, 60, 20, 'c') }]));
        const mean = slower.tenants[0].slowdown.mean!;
        expect(mean.verdict).toBe('slower');
        expect(mean.low!).toBeLessThan(2);
        expect(mean.high!).toBeGreaterThan(2);
        const same = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(8, 60, 10, 's'), corun: exponentialRounds(8, 60, 10, 'c') }]));
        expect(same.tenants[0].slowdown.mean?.verdict).toBe('no-change');
        expect(same.tenants[0].slowdown.p50?.verdict).toBe('no-change');
    });

    it('judge SLOs by their bounds: met, violated, inconclusive, or invalid with the requests needed', () => {
        const solo = exponentialRounds(4, 100, 10, 's'), corun = exponentialRounds(4, 100, 10, 'c');
        const verdict = (slo: IrSlo) => buildResults(run([{ tenant: withSlos([slo]), ops, memoryBytes: 0, solo, corun }])).tenants[0];
        expect(verdict({ percentile: 'p50', ms: 1000 }).slos[0].verdict).toBe('met');
        expect(verdict({ percentile: 'p50', ms: 0.5 }).slos[0].verdict).toBe('violated');
        const p50 = verdict({ percentile: 'p50', ms: 1000 }).corun!.latencyMs.p50;
        expect(verdict({ percentile: 'p50', ms: p50 }).slos[0].verdict).toBe('inconclusive');
        const p999 = verdict({ percentile: 'p999', ms: 10_000 });
        expect(p999.slos[0]).toMatchObject({ verdict: 'invalid', requestsNeeded: 2995 });
        expect(p999.valid).toBe(false);
        expect(p999.invalidReasons[0]).toMatch(/its p999 SLO needs 2995 requests, it has 400 \(the highest percentile they bound is p99\)/);
    });

    it('judge a tenant starved in the co-run on the co-run (nothing completed: invalid), never on its solo figures', () => {
        const starved = buildResults(run([{ tenant: withSlos([{ percentile: 'p50', ms: 1000 }]), ops, memoryBytes: 0, solo: exponentialRounds(2, 100, 10, 's'), corun: [round([]), round([])] }], 2)).tenants[0];
        expect(starved.corun).toBeNull();
        expect(starved.slos[0]).toMatchObject({ verdict: 'invalid', measuredMs: null, requestsNeeded: 5 });
        expect(starved.invalidReasons[0]).toBe('a: its p50 SLO needs 5 requests, it has 0');
    });

    it('are invalid below min_requests, and the document says so', () => {
        const results = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(2, 10, 10, 's'), corun: exponentialRounds(2, 10, 10, 'c') }], 2, 50));
        expect(results.valid).toBe(false);
        expect(results.invalidReasons.some(r => /20 solo requests, fewer than min_requests 50/.test(r))).toBe(true);
        expect(results.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    });

    it('estimate the host noise from solo rounds against solo rounds (A/A)', () => {
        const results = buildResults(run([{ tenant, ops, memoryBytes: 0, solo: exponentialRounds(8, 40, 10, 's'), corun: exponentialRounds(8, 40, 10, 'c') }]));
        const noise = results.tenants[0].noise!;
        expect(noise.low!).toBeLessThan(1);
        expect(noise.high!).toBeGreaterThan(1);
        expect(results.host.busy).toBe(false);
    });

    it('refuses results of another schema version with what to do', () => {
        expect(() => parseResults({ schemaVersion: 1 })).toThrow(/older Tenancy.*run the workload again/);
        expect(() => parseResults({ schemaVersion: 99 })).toThrow(/newer Tenancy.*update Tenancy/);
    });
});
