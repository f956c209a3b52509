/**
 * The sweep report the server builds from `tenancy merge`'s file (tenancy/sweepReport): the load
 * axis per workload and device read off the merged comparisons, the QoS table, each load's
 * comparison with its axes, the repeats, the cells left out; and what it says for a folder that
 * is not merged, not a sweep, or a file of another kind.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepReportFor } from '../../../src/language-server/lsp/sweep-report-model.js';
import { isSweepReportResult } from '../../../src/protocol/sweep-report.js';
import { fixtureSweep } from '../../e2e/fixtures/sweep-model.js';
import { makeSweep } from '../../runtime/sweep/fixture.js';

describe('the sweep report', () => {
    it('draws each tenant against the load from the merged comparisons, with the QoS table, the comparisons, the repeats and the cells left out', async () => {
        const { folder, model } = await fixtureSweep();
        expect(isSweepReportResult({ sweep: model })).toBe(true);
        expect(model).toMatchObject({ sweep: 'sweep-a', file: 'two-mlps.json', cells: { total: 8, merged: 7 }, resultsPath: join(folder, 'merged.json') });
        expect(model.notMerged).toEqual(['cell 7 (two_mlps, sequential, 2× load, repeat 2): missing — never started']);
        expect(model.axes).toHaveLength(1);
        const axis = model.axes[0]!;
        expect([axis.workload, axis.device, axis.loads]).toEqual(['two_mlps', 'mesa llvmpipe', [1, 2]]);
        expect(axis.tenants.map(t => [t.name, t.series.map(s => [s.schedule, s.baseline])])).toEqual([
            ['small', [['concurrent', true], ['sequential', false]]], ['large', [['concurrent', true], ['sequential', false]]],
        ]);
        // Every point is its load's comparison's figure.
        model.comparisons.forEach((c, l) => {
            expect([c.load, c.device]).toEqual([axis.loads[l], 'mesa llvmpipe']);
            for (const tenant of axis.tenants) {
                for (const series of tenant.series) {
                    const figure = c.schedules.find(s => s.name === series.schedule)!.tenants.find(t => t.name === tenant.name)!;
                    expect(series.points[l]!.p99).toEqual(figure.p99);
                    expect(series.points[l]!.predictedP99Ms).toBe(figure.predictedP99Ms);
                }
            }
        });
        const large = axis.tenants[1]!.series[0]!.points;
        expect(large[1]!.p99!.ms).toBeGreaterThan(large[0]!.p99!.ms);
        expect(axis.tenants[0]!.slos).toEqual([{ percentile: 'p99', targetMs: 50 }]);
        expect(axis.qos.map(q => q.schedule)).toEqual(['concurrent', 'sequential']);
        expect(axis.qos[0]!.probes.map(p => p.load)).toEqual([1, 2]);
        // Repeats: the second ran 1.2× slower.
        const spread = model.repeats.find(r => r.schedule === 'concurrent' && r.tenant === 'small' && r.load === 1)!;
        expect(spread.p99Spread).toBeCloseTo(1.2, 6);
        expect(model.repeats.find(r => r.schedule === 'sequential' && r.load === 2)!.p99Ms[1]).toBeNull();
    });

    it('says what to do when the folder is not merged, not a sweep, or the file is not a merged sweep', async () => {
        const sweep = await makeSweep();
        expect(sweepReportFor({ path: sweep.paths.folder })).toEqual({ error: `The sweep ${sweep.paths.folder} is not merged yet: run tenancy merge ${sweep.paths.folder}, then open it again.` });
        const empty = mkdtempSync(join(tmpdir(), 'tenancy-not-a-sweep-'));
        expect(sweepReportFor({ path: empty })).toEqual({ error: `${empty} is not a sweep folder: it has no sweep.json (make one with tenancy sweep <file>)` });
        const other = join(empty, 'results.json');
        writeFileSync(other, JSON.stringify({ kind: 'results' }));
        expect(sweepReportFor({ path: other })).toEqual({ error: `${other} is not a merged sweep (its kind is "results"; tenancy merge writes kind "sweep-merge")` });
        const broken = join(empty, 'merged.json');
        writeFileSync(broken, JSON.stringify({ kind: 'sweep-merge', schemaVersion: 1 }));
        expect((sweepReportFor({ path: broken }) as { error: string }).error).toMatch(/is not a merged sweep this Tenancy reads \(.*\); merge the sweep again with this version's tenancy merge$/);
        expect(sweepReportFor({ path: join(empty, 'nothing-here') })).toEqual({ error: `${join(empty, 'nothing-here')} does not exist; choose a sweep folder (tenancy sweep) or the file tenancy merge wrote` });
        expect(sweepReportFor({})).toEqual({ error: 'tenancy/sweepReport expected { path }, found {}' });
    });
});
