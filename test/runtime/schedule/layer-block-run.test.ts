/**
 * layer_block end to end on the GPU: a two-tenant IR fixture (test/fixtures/ir/layer-blocks.json:
 * a small CNN and a transformer block, `layer_block(size: 2)`) runs solo and co-run, the results
 * are written and read back through the schema, and the co-run timeline shows the tenants'
 * blocks interleaving. Fails under CI without an adapter (gpu-helper).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { parseWorkloadIr } from '../../../src/runtime/ir/validate.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { interferenceTable } from '../../../src/runtime/report/table.js';
import { resultsPathsFor, writeResultsFiles } from '../../../src/runtime/report/write.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const root = join(import.meta.dirname, '../../..');
const gpu = await hasAdapter();

describe.skipIf(!gpu)('layer_block on the software adapter', () => {
    it('runs two tenants block by block, writes valid results, and the timeline interleaves their blocks', async () => {
        const ir = parseWorkloadIr(JSON.parse(readFileSync(join(root, 'test/fixtures/ir/layer-blocks.json'), 'utf8')));
        expect(ir.schedule).toEqual({ policy: 'layer_block', size: 2 });
        const results = await runWorkload({ ir, durationMs: 800, warmupMs: 150 });
        console.log(interferenceTable(results));

        const dir = mkdtempSync(join(tmpdir(), 'tenancy-layer-block-'));
        const written = await writeResultsFiles(resultsPathsFor(join(dir, 'layer-blocks.tenancy'), ir.workload, join(dir, 'results')), results, new Date(results.finishedAt));
        const read = parseResults(JSON.parse(readFileSync(written.latest, 'utf8')));
        expect(read.status).toBe('complete');
        expect(read.config.policy).toBe('layer_block(size: 2)');
        for (const t of read.tenants) {
            expect(t.solo!.requests, `${t.name} solo requests`).toBeGreaterThan(2);
            expect(t.corun!.requests, `${t.name} co-run requests`).toBeGreaterThan(2);
        }

        // Interleaving: some request of one tenant has a kernel of the other tenant starting
        // between two of its own kernels (its blocks did not run back to back).
        const iv = read.timeline!.intervals;
        expect(new Set(iv.map(i => i.tenant))).toEqual(new Set(['vision', 'nlp']));
        let interleaved = 0;
        for (const tenant of ['vision', 'nlp']) {
            const own = iv.filter(i => i.tenant === tenant);
            const byRequest = new Map<number, typeof own>();
            for (const i of own) byRequest.set(i.request, [...byRequest.get(i.request) ?? [], i]);
            for (const ops of byRequest.values()) {
                const first = Math.min(...ops.map(o => o.startMs)), last = Math.max(...ops.map(o => o.startMs));
                if (iv.some(o => o.tenant !== tenant && o.startMs > first && o.startMs < last)) interleaved++;
            }
        }
        expect(interleaved).toBeGreaterThan(0);

        // Multi-version kernels: the hot ops were compiled in several versions, every co-run block
        // ran in one of them, and the results say which and by what rule.
        for (const t of read.tenants) {
            const mv = t.multiVersion!;
            expect(mv.ops.length, `${t.name} ops with versions`).toBeGreaterThan(0);
            expect(mv.ops.every(o => o.variants.length >= 2 && new Set(o.variants).size === o.variants.length)).toBe(true);
            expect(mv.blocks.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
            expect(mv.rule).toMatch(/interference level/);
            expect(mv.decisions.every(d => d.version < mv.blocks.length)).toBe(true);
        }
    }, 300_000);
});
