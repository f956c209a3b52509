import { describe, expect, it } from 'vitest';
import type { IrSchedule } from '../../../src/runtime/ir/types.js';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { interferenceTable } from '../../../src/runtime/report/table.js';
import type { ProgressEvent } from '../../../src/protocol/progress.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from './gpu-helper.js';

const gpu = await hasAdapter();

describe.skipIf(!gpu)('runWorkload on the software adapter', () => {
    it('runs two small MLPs solo and co-run and reports slowdowns', async () => {
        const ir = workloadOf('two_mlps', [
            mlpTenant('a', { batch: 16, inputs: 128, hidden: 256, slos: [{ percentile: 'p99', ms: 1000 }] }),
            mlpTenant('b', { batch: 16, inputs: 128, hidden: 256, arrival: { kind: 'poisson', ratePerSecond: 100 } }),
        ], { benchmark: { durationMs: 600, warmupMs: 100 } });
        const events: ProgressEvent[] = [];
        const results = await runWorkload({ ir, onEvent: e => events.push(e) });
        console.log(interferenceTable(results));
        expect(parseResults(JSON.parse(JSON.stringify(results)))).toBeTruthy();
        expect(results.status).toBe('complete');
        expect(results.host.referenceRequestMs).toBeUndefined(); // not asked to time the host's speed
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBeGreaterThan(5);
            expect(t.corun!.requests).toBeGreaterThan(5);
            expect(t.slowdown.mean!.estimate).toBeGreaterThan(0);
            expect(t.ops.every(op => op.soloMs !== null && op.soloMs > 0)).toBe(true);
            expect(t.ops.every(op => op.soloP50Ms != null && op.soloP50Ms > 0 && op.corunP50Ms != null && op.corunP50Ms > 0)).toBe(true);
        }
        expect(results.timeline!.intervals.length).toBeGreaterThan(0);
        const names = phases(events);
        expect(names.slice(0, 4)).toEqual(['compile', 'solo:a@0', 'solo:b@0', 'corun@0']);
        expect(names.at(-1)).toBe('report');
        // Compiling says how far it is, op by op over both tenants, up to its 5 %.
        const compiling = events.flatMap(e => e.type === 'progress' && e.phase === 'compile' ? [e.fraction ?? NaN] : []);
        expect(compiling.length).toBeGreaterThanOrEqual(results.tenants.reduce((s, t) => s + t.ops.length, 0));
        expect(compiling.every((f, i) => f > 0 && (i === 0 || f >= compiling[i - 1]))).toBe(true);
        expect(compiling.at(-1)).toBe(0.05);
        expect(results.measurement.rounds).toBeGreaterThanOrEqual(2);
    });
});

/** Phase events as `phase[:tenant]@round`. */
const phases = (events: ProgressEvent[]) => events.flatMap(e => e.type === 'phase' ? [`${e.phase}${e.tenant ? ':' + e.tenant : ''}${e.round !== undefined ? '@' + e.round : ''}`] : []);

describe.skipIf(!gpu)('rounds on the software adapter', () => {
    it('discard a warm-up round, alternate the order of solo and co-run, and pool the measured rounds', async () => {
        const ir = workloadOf('reps', [mlpTenant('a'), mlpTenant('b')], { benchmark: { durationMs: 5_000, warmupMs: 100, requests: 6, rounds: 2 } });
        const events: ProgressEvent[] = [];
        // Timing the host's speed first (tenancy run does with a calibrated profile) adds no phase.
        const results = await runWorkload({ ir, onEvent: e => events.push(e), timeHostSpeed: true });
        expect(results.status).toBe('complete');
        expect(results.host.referenceRequestMs).toBeGreaterThan(0);
        expect(parseResults(JSON.parse(JSON.stringify(results))).host.referenceRequestMs).toBe(results.host.referenceRequestMs);
        expect(results.config.rounds).toBe(2);
        expect(results.measurement).toMatchObject({ plannedRounds: 2, rounds: 2, extendedRounds: 0, budgetReached: false });
        expect(phases(events)).toEqual(['compile', 'solo:a@0', 'solo:b@0', 'corun@0', 'solo:a@1', 'solo:b@1', 'corun@1', 'corun@2', 'solo:b@2', 'solo:a@2', 'report']);
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBe(6);
            expect(t.corun!.requests).toBe(6);
            expect(t.solo!.rounds).toBe(2);
        }
        expect(events.filter(e => e.type === 'progress' && e.phase === 'corun').every(e => e.type === 'progress' && e.rounds === 2)).toBe(true);
    });

    it('add rounds until a tenant has the requests its SLO percentile needs, and say so', async () => {
        const ir = workloadOf('extend', [
            mlpTenant('a', { arrival: { kind: 'poisson', ratePerSecond: 60 }, slos: [{ percentile: 'p90', ms: 10_000 }] }),
            mlpTenant('b'),
        ], { benchmark: { durationMs: 200, warmupMs: 50, rounds: 2 } });
        const results = await runWorkload({ ir });
        expect(results.measurement.extendedRounds).toBeGreaterThan(0);
        expect(results.measurement.note).toMatch(/^extended by \d+ rounds? \(a had \d+ of the 29 requests it needs\)/);
        expect(results.tenants[0].corun!.requests).toBeGreaterThanOrEqual(29);
        expect(results.tenants[0].slos[0].verdict).toBe('met');
    });

    it('stop at the budget, say so, and mark an SLO it could not bound invalid', async () => {
        const ir = workloadOf('budget', [
            mlpTenant('a', { arrival: { kind: 'poisson', ratePerSecond: 20 }, slos: [{ percentile: 'p99', ms: 10_000 }] }),
            mlpTenant('b'),
        ], { benchmark: { durationMs: 200, warmupMs: 50, rounds: 2, budgetMs: 1500 } });
        const results = await runWorkload({ ir });
        expect(results.measurement.budgetReached).toBe(true);
        expect(results.measurement.note).toMatch(/the budget of 1\.5 s stopped it with a at \d+ of 299/);
        expect(results.tenants[0].slos[0]).toMatchObject({ verdict: 'invalid', requestsNeeded: 299 });
        expect(results.valid).toBe(false);
        expect(results.invalidReasons.join(' ')).toMatch(/a: its p99 SLO needs 299 requests/);
    });
});

describe.skipIf(!gpu)('run control', () => {
    it('stops promptly on abort and reports status cancelled', async () => {
        const ir = workloadOf('long', [mlpTenant('a'), mlpTenant('b')], { benchmark: { durationMs: 30_000, warmupMs: 0 } });
        const controller = new AbortController();
        let abortedAt = 0;
        const results = await runWorkload({
            ir, signal: controller.signal,
            onEvent: e => { if (e.type === 'phase' && e.phase === 'solo' && !abortedAt) setTimeout(() => { abortedAt = performance.now(); controller.abort(); }, 300); },
        });
        const stopMs = performance.now() - abortedAt;
        expect(results.status).toBe('cancelled');
        expect(stopMs).toBeLessThan(1000);
        expect(results.tenants[0].solo!.requests).toBeGreaterThan(0); // partial data kept
        expect(results.tenants[1].solo).toBeNull();
        expect(parseResults(JSON.parse(JSON.stringify(results))).status).toBe('cancelled');
    });

    it('refuses an unimplemented schedule before touching the GPU', async () => {
        // Every schedule of the language runs; an IR from elsewhere may name one this runtime does not.
        const ir = workloadOf('ct', [mlpTenant('a')], { schedule: { policy: 'future' } as unknown as IrSchedule });
        await expect(runWorkload({ ir })).rejects.toThrow('schedule future is not implemented yet; use sequential, concurrent, layer_block, regulated, co_tuned, auto');
    });

    it('times ops on the CPU when asked, sequential schedule, request-count mode', async () => {
        const ir = workloadOf('cpu', [mlpTenant('a', { priority: 'high' }), mlpTenant('b')], { schedule: { policy: 'sequential' } });
        const events: ProgressEvent[] = [];
        const results = await runWorkload({ ir, timing: 'cpu', requests: 20, warmupMs: 50, onEvent: e => events.push(e) });
        expect(results.config.timing).toBe('cpu-per-op');
        // The warm-up round measures no request: its progress goes by time, and every fraction is a number.
        const fractions = events.flatMap(e => e.type === 'progress' ? [e.fraction] : []);
        expect(fractions.length).toBeGreaterThan(0);
        expect(fractions.every((f, i) => Number.isFinite(f) && f >= 0 && f <= 1 && (i === 0 || f >= fractions[i - 1])), JSON.stringify(fractions)).toBe(true);
        expect(fractions.at(-1)).toBeGreaterThan(0.9);
        expect(results.config.requests).toBe(20);
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBe(20);
            expect(t.corun!.requests).toBe(20);
            expect(t.ops.filter(o => o.kind === 'dense').every(o => o.corunMs! > 0 && o.soloMs! > 0)).toBe(true);
        }
        // Sequential: kernel intervals of the two tenants never overlap in the timeline.
        const iv = results.timeline!.intervals;
        for (let i = 1; i < iv.length; i++) if (iv[i].tenant !== iv[i - 1].tenant) expect(iv[i].startMs).toBeGreaterThanOrEqual(iv[i - 1].endMs - 0.5);
    });
});
