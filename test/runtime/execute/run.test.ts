import { describe, expect, it } from 'vitest';
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
        for (const t of results.tenants) {
            expect(t.solo!.requests).toBeGreaterThan(5);
            expect(t.corun!.requests).toBeGreaterThan(5);
            expect(t.slowdown.mean).toBeGreaterThan(0);
            expect(t.ops.every(op => op.soloMs !== null && op.soloMs > 0)).toBe(true);
        }
        expect(results.timeline!.intervals.length).toBeGreaterThan(0);
        expect(events.map(e => e.type === 'phase' ? `${e.phase}${e.tenant ? ':' + e.tenant : ''}` : undefined).filter(Boolean))
            .toEqual(['compile', 'solo:a', 'solo:b', 'corun', 'report']);
    });
});
