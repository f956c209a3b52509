import { describe, expect, it } from 'vitest';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { mergePhaseData } from '../../../src/runtime/execute/summarize.js';
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
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBeGreaterThan(5);
            expect(t.corun!.requests).toBeGreaterThan(5);
            expect(t.slowdown.mean).toBeGreaterThan(0);
            expect(t.ops.every(op => op.soloMs !== null && op.soloMs > 0)).toBe(true);
            expect(t.ops.every(op => op.soloP50Ms != null && op.soloP50Ms > 0 && op.corunP50Ms != null && op.corunP50Ms > 0)).toBe(true);
        }
        expect(results.timeline!.intervals.length).toBeGreaterThan(0);
        expect(events.map(e => e.type === 'phase' ? `${e.phase}${e.tenant ? ':' + e.tenant : ''}` : undefined).filter(Boolean))
            .toEqual(['compile', 'solo:a', 'solo:b', 'corun', 'report']);
    });
});

describe('repetitions', () => {
    it('merges phase data: samples and op times concatenated, windows summed', () => {
        const a = { latenciesMs: [1, 2], windowMs: 10, unfinished: 1, opTimesMs: [[1, 1], [], [3, 3]] };
        const b = { latenciesMs: [4, 5, 6, 7], windowMs: 20, unfinished: 0, opTimesMs: [[4, 4, 4, 4], [2, 2, 2, 2], []] };
        expect(mergePhaseData(a, b)).toEqual({ latenciesMs: [1, 2, 4, 5, 6, 7], windowMs: 30, unfinished: 1, opTimesMs: [[1, 1, 4, 4, 4, 4], [2, 2, 2, 2], [3, 3]] });
        expect(mergePhaseData(undefined, b)).toBe(b);
        expect(mergePhaseData(a, undefined)).toBe(a);
    });
});

describe.skipIf(!gpu)('benchmark repetitions on the software adapter', () => {
    it('runs solo and co-run phases in turn per repetition and merges their requests', async () => {
        const ir = workloadOf('reps', [mlpTenant('a'), mlpTenant('b')], { benchmark: { durationMs: 5_000, warmupMs: 0, requests: 6, repetitions: 2 } });
        const events: ProgressEvent[] = [];
        const results = await runWorkload({ ir, onEvent: e => events.push(e) });
        expect(results.status).toBe('complete');
        expect(results.config.repetitions).toBe(2);
        expect(events.map(e => e.type === 'phase' ? `${e.phase}${e.tenant ? ':' + e.tenant : ''}` : undefined).filter(Boolean))
            .toEqual(['compile', 'solo:a', 'solo:b', 'corun', 'solo:a', 'solo:b', 'corun', 'report']);
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBe(12);
            expect(t.corun!.requests).toBe(12);
        }
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
        const ir = workloadOf('rg', [mlpTenant('a')], { schedule: { policy: 'regulated', split: 2, sync: 'auto' } });
        await expect(runWorkload({ ir })).rejects.toThrow('schedule regulated is not implemented yet; use sequential, concurrent or layer_block');
    });

    it('times ops on the CPU when asked, sequential schedule, request-count mode', async () => {
        const ir = workloadOf('cpu', [mlpTenant('a', { priority: 'high' }), mlpTenant('b')], { schedule: { policy: 'sequential' } });
        const results = await runWorkload({ ir, timing: 'cpu', requests: 20, warmupMs: 50 });
        expect(results.config.timing).toBe('cpu-per-op');
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
