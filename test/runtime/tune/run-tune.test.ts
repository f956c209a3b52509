import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkload } from '../../../src/runtime/execute/run.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { isProgressEvent, type ProgressEvent } from '../../../src/protocol/progress.js';
import { loadTuningCache } from '../../../src/runtime/tune/cache.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from '../execute/gpu-helper.js';

it('the progress guard accepts the tune phase', () => {
    expect(isProgressEvent({ type: 'phase', phase: 'tune' })).toBe(true);
    expect(isProgressEvent({ type: 'progress', fraction: 0.02, phase: 'tune' })).toBe(true);
    expect(isProgressEvent({ type: 'phase', phase: 'tuning' })).toBe(false);
});

const gpu = await hasAdapter();

describe.skipIf(!gpu)('runWorkload with measured tuning', () => {
    let dir: string;
    beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'tenancy-run-tune-')); });
    afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

    it('tunes missing signatures before compiling, reports tuned vs default, and reuses the cache', async () => {
        const ir = workloadOf('tuned', [mlpTenant('a', { batch: 8, inputs: 64, hidden: 96, outputs: 10 })], { benchmark: { durationMs: 300, warmupMs: 50 } });
        const warnings: string[] = [];
        const tune = (measure: boolean) => ({
            measure, onWarning: (m: string) => warnings.push(m),
            load: (adapter: Parameters<typeof loadTuningCache>[0]['adapter']) => loadTuningCache({ adapter, userDir: dir, onWarning: (m: string) => warnings.push(m) }),
            // Two quick-to-compile candidates keep the test short; the choice logic is the same.
            candidates: () => ['vec4_4x8', 'vec4_4x4'],
        });
        const events: ProgressEvent[] = [];
        const results = await runWorkload({ ir, onEvent: e => events.push(e), tune: tune(true) });
        expect(results.status).toBe('complete');
        const phases = events.filter(e => e.type === 'phase').map(e => (e as { phase: string }).phase);
        expect(phases.slice(0, 3)).toEqual(['compile', 'tune', 'compile']);
        const tuneProgress = events.filter(e => e.type === 'progress' && e.phase === 'tune').map(e => (e as { fraction: number }).fraction);
        expect(tuneProgress.length).toBeGreaterThanOrEqual(2);
        expect(tuneProgress.every((f, i) => i === 0 || f >= tuneProgress[i - 1])).toBe(true);
        const ops = parseResults(JSON.parse(JSON.stringify(results))).tenants[0].ops;
        const dense = ops.filter(o => o.kind === 'dense');
        expect(dense.length).toBeGreaterThan(0);
        for (const o of dense) {
            expect(o.variantSource).toBe('tuned');
            expect(['vec4_4x8', 'vec4_4x4']).toContain(o.variant);
            expect(o.kernels[0].name).toBe(`dense.${o.variant}`);
        }
        // Ops with a single variant are never tuned.
        expect(ops.filter(o => o.kind !== 'dense').every(o => o.variantSource === 'default')).toBe(true);
        expect((await readdir(dir)).filter(f => f.endsWith('.json'))).toHaveLength(1);

        // Second run: the cache answers, nothing is measured.
        const events2: ProgressEvent[] = [];
        const again = await runWorkload({ ir, onEvent: e => events2.push(e), tune: tune(true) });
        expect(events2.some(e => e.type === 'phase' && e.phase === 'tune')).toBe(false);
        expect(again.tenants[0].ops.filter(o => o.kind === 'dense').map(o => o.variant)).toEqual(dense.map(o => o.variant));
        // Without the cache every op is a default.
        const plain = await runWorkload({ ir });
        expect(plain.tenants[0].ops.every(o => o.variantSource === 'default')).toBe(true);
        expect(warnings).toEqual([]);
    });
});
