/** The co_tuned cache: a searched configuration stored per adapter, found again for the same search, missed for another, unusable files ignored with a warning. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCoTunedCache } from '../../../src/runtime/tune/co-tuned-cache.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import type { CoTunedStore } from '../../../src/runtime/predict/co-tuned.js';
import { mlpTenant, workload } from '../predict/fixtures.js';

const ir = workload([
    { ...mlpTenant('critical', { kind: 'poisson', ratePerSecond: 40 }, [{ percentile: 'p95', ms: 4 }], { batch: 8, input: 256, hidden: 256, out: 64 }), priority: 'high' },
    { ...mlpTenant('batch', { kind: 'closed', clients: 1, thinkMs: 0 }, [], { batch: 64, input: 256, hidden: 512, out: 128 }), priority: 'low' },
], { policy: 'co_tuned', variants: 3 });
const adapter = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: 'test' };

describe('the co_tuned cache', () => {
    it('stores what the search found and returns it for the same search, saying so; another profile misses', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-co-tuned-'));
        const profile = defaultProfile();
        const cache = await loadCoTunedCache({ adapter, userDir: dir });
        expect(cache.size).toBe(0);
        const searched = resolveSchedule(ir, profile, { coTunedStore: cache });
        expect(cache.size).toBe(1);
        expect(await cache.save()).toBe(true);
        expect(await cache.save()).toBe(false); // nothing new

        const again = await loadCoTunedCache({ adapter, userDir: dir });
        let searches = 0;
        const counting: CoTunedStore = { lookup: k => again.lookup(k), record: (k, f) => { searches++; again.record(k, f); } };
        const cached = resolveSchedule(ir, profile, { coTunedStore: counting });
        expect(searches).toBe(0);
        expect(cached.settings).toEqual(searched.settings);
        expect(cached.name).toBe(searched.name);
        expect(cached.why).toBe(`${searched.why} (from the co_tuned cache)`);

        const recalibrated = { ...defaultProfile(), createdAt: '2026-12-02T00:00:00.000Z' };
        resolveSchedule(ir, recalibrated, { coTunedStore: counting });
        expect(searches).toBe(1);
        const file = JSON.parse(readFileSync(cache.path, 'utf8'));
        expect(file).toMatchObject({ coTunedCacheVersion: 1, adapterKey: 'mesa/software/llvmpipe/test' });
        expect(Object.values(file.entries)[0]).toMatchObject({ variants: 3, versions: searched.settings.coTuned!.versions });
    });

    it('ignores an unusable file with a warning naming it, and another adapter\'s', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-co-tuned-'));
        const first = await loadCoTunedCache({ adapter, userDir: dir });
        const warnings: string[] = [];
        writeFileSync(first.path, '{ not json');
        expect((await loadCoTunedCache({ adapter, userDir: dir, onWarning: w => warnings.push(w) })).size).toBe(0);
        writeFileSync(first.path, JSON.stringify({ coTunedCacheVersion: 9, adapterKey: 'x', entries: {} }));
        await loadCoTunedCache({ adapter, userDir: dir, onWarning: w => warnings.push(w) });
        writeFileSync(first.path, JSON.stringify({ coTunedCacheVersion: 1, adapterKey: 'other/adapter', entries: {} }));
        await loadCoTunedCache({ adapter, userDir: dir, onWarning: w => warnings.push(w) });
        expect(warnings).toHaveLength(3);
        expect(warnings[0]).toContain(`co_tuned cache ${first.path} ignored: it is not JSON`);
        expect(warnings[1]).toContain('it has version 9, this tenancy reads version 1');
        expect(warnings[2]).toContain("it was written for adapter 'other/adapter'");
    });
});
