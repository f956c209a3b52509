/** tenancy merge's document: comparisons per workload, device and load; repeats pooled; cells without figures named; the QoS-satisfied throughput; the same output twice. */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeCellState } from '../../../src/runtime/sweep/cells.js';
import { mergeSweep, mergeTable, sweepMergeSchema } from '../../../src/runtime/sweep/merge.js';
import { makeSweep, writeCell } from './fixture.js';

describe('mergeSweep', () => {
    it('pools repeats into one comparison per load, gains against the baseline, with the cells each pools', async () => {
        const sweep = await makeSweep({ loads: [1, 2], repeat: 2 });
        // sequential (schedule 1) halves the large tenant's co-run latency.
        for (const cell of sweep.manifest.cells) {
            await writeCell(sweep, cell.index, { perRound: 20, corunFactor: t => (t === 'large' && cell.scheduleIndex === 1 ? 1 : 2) });
        }
        const merged = sweepMergeSchema.parse(mergeSweep(sweep));
        expect(merged.cells).toEqual({ total: 8, merged: 8 });
        expect(merged.notMerged).toEqual([]);
        expect(merged.comparisons.map(c => [c.workload, c.device, c.load])).toEqual([['two_mlps', 'mesa llvmpipe', 1], ['two_mlps', 'mesa llvmpipe', 2]]);
        const at1 = merged.comparisons[0];
        expect(at1.schedules.map(s => [s.name, s.baseline, s.cells])).toEqual([['concurrent', true, [0, 4]], ['sequential', false, [1, 5]]]);
        // Two repeats of 4 rounds of 20 requests.
        expect(at1.schedules[0].tenants.map(t => t.requests)).toEqual([160, 160]);
        const large = at1.schedules[1].tenants.find(t => t.name === 'large')!;
        expect(large.gain?.estimate).toBeCloseTo(2, 5);
        expect(large.gain?.verdict).toBe('better');
        expect(at1.schedules[1].predicted.tenants.map(t => t.name)).toEqual(['small', 'large']);
        expect(at1.measurement.rounds).toBe(8);
    });

    it('names the cells it leaves out (never started, failed, invalid) and still merges the rest', async () => {
        const sweep = await makeSweep({ loads: [1] });
        await writeCell(sweep, 0);
        await writeCellState(sweep.paths, { cell: 1, status: 'failed', startedAt: '2026-12-01T00:00:00Z', finishedAt: '2026-12-01T00:01:00Z', host: 'node3', pid: 7, reason: 'device lost', exitCode: 2 });
        let merged = mergeSweep(sweep);
        expect(merged.cells).toEqual({ total: 2, merged: 1 });
        expect(merged.notMerged).toEqual([expect.objectContaining({ cell: 1, schedule: 'sequential', status: 'failed', reason: expect.stringContaining('device lost (exit 2)') })]);
        expect(merged.comparisons[0].schedules.map(s => s.name)).toEqual(['concurrent']);
        expect(mergeTable(merged)).toMatch(/cells: 1 of 2 merged\n {2}not merged: cell 1 \(two_mlps, sequential, 1× load, repeat 1\): failed — failed .*device lost/);
        writeFileSync(sweep.paths.results(1), 'not json');
        merged = mergeSweep(sweep);
        expect(merged.notMerged[0]).toMatchObject({ cell: 1, status: 'invalid', reason: expect.stringContaining('cell-0001.results.json') });
        await writeCell(sweep, 1, { seed: 7 });
        expect(mergeSweep(sweep).notMerged[0].reason).toContain("it ran seed 7, the cell's is 42");
    });

    it('keeps devices apart: one comparison per adapter the cells ran on', async () => {
        const sweep = await makeSweep({ loads: [1] });
        await writeCell(sweep, 0, { adapterDevice: 'A100' });
        await writeCell(sweep, 1, { adapterDevice: 'L4' });
        const merged = mergeSweep(sweep);
        expect(merged.comparisons.map(c => [c.device, c.schedules.map(s => s.name)])).toEqual([['mesa A100', ['concurrent']], ['mesa L4', ['sequential']]]);
    });

    it('finds the highest load at which every SLO held (QoS-satisfied throughput), per schedule', async () => {
        const sweep = await makeSweep({ loads: [1, 2] });
        // small's SLO is p99 ≤ 50 ms, large's p95 ≤ 100 ms: at 2× the concurrent baseline's large tenant misses it.
        for (const cell of sweep.manifest.cells) {
            await writeCell(sweep, cell.index, { perRound: 75, base: t => (t === 'large' && cell.load === 2 && cell.scheduleIndex === 0 ? 200 : 5) });
        }
        const merged = mergeSweep(sweep);
        const byName = Object.fromEntries(merged.qos.map(q => [q.schedule, q]));
        expect(byName.concurrent).toMatchObject({ load: 1, failedLoad: 2 });
        expect(byName.concurrent.probes.map(p => p.verdict)).toEqual(['met', 'violated']);
        expect(byName.concurrent.throughputPerSecond).toBeGreaterThan(0);
        expect(byName.sequential).toMatchObject({ load: 2, failedLoad: null });
        expect(mergeTable(merged)).toContain('QoS-satisfied throughput');
    });

    it('gives the same document for the same folder', async () => {
        const sweep = await makeSweep({ loads: [1], repeat: 2 });
        for (const cell of sweep.manifest.cells) await writeCell(sweep, cell.index, { perRound: 10 });
        expect(JSON.stringify(mergeSweep(sweep))).toBe(JSON.stringify(mergeSweep(sweep)));
    });
});
