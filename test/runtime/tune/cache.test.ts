import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
    AdapterTuningCache, TUNING_CACHE_VERSION, adapterFileName, loadTuningCache, userTuningDir, userTuningPath, workspaceTuningPath,
    type TunedEntry,
} from '../../../src/runtime/tune/cache.js';
import { adapterKey, type AdapterIdentity } from '../../../src/runtime/plan/tuning.js';

const lavapipe: AdapterIdentity = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 19.1.7, 256 bits)', description: 'Vulkan: llvmpipe 25.0.7' };
const other: AdapterIdentity = { vendor: 'nvidia', architecture: 'ampere', device: 'RTX 3090', description: 'Vulkan: 550.1' };

const entry = (variant: string, ms = 1.5): TunedEntry => ({
    variant, ms, candidates: [{ variant, ms }, { variant: 'vec4_4x8', ms: ms * 3 }], tunedAt: '2026-11-29T00:00:00.000Z', loadAverage: 2.5,
});

describe('tuning cache files', () => {
    let dir: string;
    const warnings: string[] = [];
    const onWarning = (m: string) => { warnings.push(m); };
    beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'tenancy-tune-')); warnings.length = 0; });
    afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

    it('lives under $XDG_CACHE_HOME/tenancy/tuning (else ~/.cache), one file per adapter', () => {
        expect(userTuningDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/tenancy/tuning');
        const a = adapterFileName(adapterKey(lavapipe)), b = adapterFileName(adapterKey(other));
        expect(a).not.toBe(b);
        expect(a).toMatch(/^mesa-software-llvmpipe-[a-z0-9-]+-[0-9a-f]{12}\.json$/);
        // Same readable slug, different driver: still different files.
        expect(adapterFileName(adapterKey({ ...lavapipe, description: 'Vulkan: llvmpipe 25.0.8' }))).not.toBe(a);
    });

    it('round-trips measured entries through an atomic write (no temp files left)', async () => {
        const cache = await loadTuningCache({ adapter: lavapipe, userDir: dir, onWarning });
        expect(cache.size).toBe(0);
        expect(await cache.save()).toBe(false); // nothing recorded: nothing written
        cache.record('matmul()[64x64;64x64]->[64x64]+', entry('sg_8x4'));
        cache.record('conv2d(k=3)[1x8x8x8]->[1x8x8x8]+relu', entry('im2col_sg_8x4', 0.25));
        expect(await cache.save()).toBe(true);
        expect((await readdir(dir)).filter(f => f.endsWith('.tmp'))).toEqual([]);
        const again = await loadTuningCache({ adapter: lavapipe, userDir: dir, onWarning });
        expect(again.size).toBe(2);
        expect(again.variantFor(adapterKey(lavapipe), 'matmul()[64x64;64x64]->[64x64]+')).toBe('sg_8x4');
        expect(again.entry('conv2d(k=3)[1x8x8x8]->[1x8x8x8]+relu')).toEqual(entry('im2col_sg_8x4', 0.25));
        const file = JSON.parse(await readFile(userTuningPath(adapterKey(lavapipe), dir), 'utf8'));
        expect(file.tuningCacheVersion).toBe(TUNING_CACHE_VERSION);
        expect(file.adapter).toEqual(lavapipe);
        expect(warnings).toEqual([]);
    });

    it('keys choices by adapter: another adapter sees none of them', async () => {
        const cache = await loadTuningCache({ adapter: lavapipe, userDir: dir, onWarning });
        cache.record('sig', entry('sg_8x4'));
        await cache.save();
        const theirs = await loadTuningCache({ adapter: other, userDir: dir, onWarning });
        expect(theirs.size).toBe(0);
        expect(theirs.variantFor(adapterKey(other), 'sig')).toBeUndefined();
        // A lookup under a different adapter key never answers, even on the cache that has the entry.
        expect(cache.variantFor(adapterKey(other), 'sig')).toBeUndefined();
        expect(cache.variantFor(adapterKey(lavapipe), 'sig')).toBe('sg_8x4');
    });

    it('ignores a corrupt, outdated or misplaced file with a clear warning, never throwing', async () => {
        const path = userTuningPath(adapterKey(lavapipe), dir);
        await mkdir(dir, { recursive: true });
        const cases: [string, RegExp][] = [
            ['{ not json', /tuning cache .* ignored: it is not JSON/],
            [JSON.stringify({ tuningCacheVersion: 99, adapterKey: adapterKey(lavapipe), adapter: lavapipe, entries: {} }), /has version 99, this tenancy reads version 1/],
            [JSON.stringify({ tuningCacheVersion: 1, adapterKey: adapterKey(lavapipe), adapter: lavapipe, entries: { s: { variant: 3 } } }), /does not match the schema \(entries\.s\.variant/],
            [JSON.stringify({ tuningCacheVersion: 1, adapterKey: adapterKey(other), adapter: other, entries: { s: entry('x') } }), /written for adapter 'nvidia\/ampere/],
        ];
        for (const [text, message] of cases) {
            warnings.length = 0;
            await writeFile(path, text);
            const cache = await loadTuningCache({ adapter: lavapipe, userDir: dir, onWarning });
            expect(cache.size).toBe(0);
            expect(warnings).toHaveLength(1);
            expect(warnings[0]).toMatch(message);
            expect(warnings[0]).toContain(path);
            // Recording and saving replaces the bad file with a valid one.
            cache.record('s', entry('sg_4x4'));
            await cache.save();
            expect((await loadTuningCache({ adapter: lavapipe, userDir: dir })).variantFor(adapterKey(lavapipe), 's')).toBe('sg_4x4');
        }
    });

    it('a workspace .tenancy/tuning.json pins choices for its adapter over the measured ones', async () => {
        const ws = join(dir, 'ws');
        await mkdir(join(ws, '.tenancy'), { recursive: true });
        await writeFile(workspaceTuningPath(ws), JSON.stringify({ tuningVersion: 1, adapters: { [adapterKey(lavapipe)]: { sig: 'vec4_4x4' }, [adapterKey(other)]: { sig2: 'wgmem_16x16' } } }));
        const user = new AdapterTuningCache(lavapipe, userTuningPath(adapterKey(lavapipe), dir));
        user.record('sig', entry('sg_8x4'));
        user.record('sig3', entry('sg_4x4'));
        await user.save();
        const cache = await loadTuningCache({ adapter: lavapipe, userDir: dir, workspaceFolder: ws, onWarning });
        expect(cache.variantFor(adapterKey(lavapipe), 'sig')).toBe('vec4_4x4');
        expect(cache.variantFor(adapterKey(lavapipe), 'sig3')).toBe('sg_4x4');
        expect(cache.variantFor(adapterKey(lavapipe), 'sig2')).toBeUndefined();
        expect(cache.has('sig')).toBe(true);
        await writeFile(workspaceTuningPath(ws), '[]');
        await loadTuningCache({ adapter: lavapipe, userDir: dir, workspaceFolder: ws, onWarning });
        expect(warnings.some(w => /workspace tuning file .* ignored: it does not match the schema/.test(w))).toBe(true);
    });

    it('rejects recording an invalid entry', () => {
        const cache = new AdapterTuningCache(lavapipe, join(dir, 'x.json'));
        expect(() => cache.record('s', { ...entry('v'), ms: -1 })).toThrow();
    });
});
