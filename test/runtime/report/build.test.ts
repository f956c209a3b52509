import { describe, expect, it } from 'vitest';
import { buildResults, type OpSummary, type RunData } from '../../../src/runtime/report/build.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';

const tenant = mlpTenant('a');
const ir = workloadOf('w', [tenant]);
const ops: OpSummary[] = tenant.graph.ops.slice(0, 2).map(op => ({ path: op.path, kind: op.kind, fused: [], kernels: [], flops: op.flops, bytes: op.bytes }));

function run(tenants: RunData['tenants']): RunData {
    return {
        ir, irHash: 'x', adapter: null, policy: 'concurrent', durationMs: 1000, warmupMs: 100, repetitions: 1, seed: 0,
        timing: 'gpu-timestamps', fusion: true, tenancyVersion: '0.0.0', startedAt: new Date(0), finishedAt: new Date(1000),
        status: 'complete', tenants, timeline: null,
    };
}

describe('op figures of a results document', () => {
    it('give each op the mean and the median of its per-request times, solo and co-run', () => {
        const results = buildResults(run([{
            tenant, ops, memoryBytes: 0,
            // One stalled pass (20 ms) moves the mean of the first op, not its median.
            solo: { latenciesMs: [5, 5, 6, 6], windowMs: 100, unfinished: 0, opTimesMs: [[1, 1, 1, 20], [2, 3, 4, 5]] },
            corun: { latenciesMs: [8, 9], windowMs: 100, unfinished: 0, opTimesMs: [[2, 4], []] },
        }]));
        const [first, second] = results.tenants[0].ops;
        expect(first).toMatchObject({ soloMs: 5.75, soloP50Ms: 1, corunMs: 3, corunP50Ms: 3 });
        expect(first.slowdown).toBeCloseTo(3 / 5.75);
        expect(second).toMatchObject({ soloMs: 3.5, soloP50Ms: 3.5, corunMs: null, corunP50Ms: null, slowdown: null });
        // The document passes its own schema, and one without the median fields (older files) still reads.
        expect(() => parseResults(JSON.parse(JSON.stringify(results)))).not.toThrow();
        const older = JSON.parse(JSON.stringify(results));
        for (const op of older.tenants[0].ops) { delete op.soloP50Ms; delete op.corunP50Ms; }
        expect(parseResults(older).tenants[0].ops[0].soloP50Ms).toBeUndefined();
    });

    it('have no op figures for a phase that did not run', () => {
        const results = buildResults(run([{ tenant, ops, memoryBytes: 0 }]));
        expect(results.tenants[0].ops[0]).toMatchObject({ soloMs: null, soloP50Ms: null, corunMs: null, corunP50Ms: null, slowdown: null });
    });
});
