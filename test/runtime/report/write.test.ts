import { mkdtempSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resultsPathsFor, userCacheFolder, workspaceFolderOf, writeFileAtomic, writeResultsFiles } from '../../../src/runtime/report/write.js';

describe('results paths', () => {
    it('put results under <workspace>/.tenancy/results with a history folder', () => {
        const ws = mkdtempSync(join(tmpdir(), 'tenancy-ws-'));
        writeFileSync(join(ws, 'package.json'), '{}');
        const file = join(ws, 'models', 'demo.tenancy');
        expect(workspaceFolderOf(file)).toBe(ws);
        const p = resultsPathsFor(file, 'mix');
        expect(p.latest).toBe(join(ws, '.tenancy', 'results', 'demo.mix.json'));
        expect(p.historyFile(new Date('2026-01-02T03:04:05.678Z'))).toBe(join(ws, '.tenancy', 'results', 'history', 'demo.mix.2026-01-02T03-04-05.678Z.json'));
        expect(resultsPathsFor(file, 'mix', join(ws, 'out')).latest).toBe(join(ws, 'out', 'demo.mix.json'));
        // A run of some tenants keeps its own files.
        expect(resultsPathsFor(file, 'mix', join(ws, 'out'), ['a']).latest).toBe(join(ws, 'out', 'demo.mix.solo-a.json'));
        expect(resultsPathsFor(file, 'mix', join(ws, 'out'), ['a', 'b']).historyFile(new Date(0))).toBe(join(ws, 'out', 'history', 'demo.mix.tenants-a+b.1970-01-01T00-00-00.000Z.json'));
    });
});

describe('atomic writes', () => {
    it('never expose a partial file to a concurrent reader', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-atomic-'));
        const file = join(dir, 'r.json');
        const big = JSON.stringify({ values: Array.from({ length: 200_000 }, (_, i) => i) });
        await writeFileAtomic(file, big);
        let reads = 0, stop = false;
        const reader = (async () => {
            while (!stop) {
                const text = readFileSync(file, 'utf8');
                expect(() => JSON.parse(text)).not.toThrow();
                reads++;
                await new Promise(r => setImmediate(r));
            }
        })();
        for (let i = 0; i < 10; i++) await writeFileAtomic(file, big.replace('"values"', `"values${i}"`));
        stop = true;
        await reader;
        expect(reads).toBeGreaterThan(0);
        expect(readdirSync(dir)).toEqual(['r.json']); // no temp files left
    });

    it('keeps history copies and leaves files untouched when serialisation fails', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-hist-'));
        const paths = resultsPathsFor(join(dir, 'a.tenancy'), 'w', join(dir, 'results'));
        const t = new Date('2026-01-01T00:00:00.000Z');
        const first = await writeResultsFiles(paths, { n: 1 }, t);
        const second = await writeResultsFiles(paths, { n: 2 }, t); // same timestamp: a numbered copy
        expect(first.history).not.toBe(second.history);
        expect(readdirSync(paths.historyDir).sort()).toHaveLength(2);
        expect(JSON.parse(readFileSync(paths.latest, 'utf8'))).toEqual({ n: 2 });
        await expect(writeResultsFiles(paths, { n: 3n }, new Date())).rejects.toThrow(/BigInt/);
        expect(JSON.parse(readFileSync(paths.latest, 'utf8'))).toEqual({ n: 2 });
        expect(readdirSync(paths.historyDir)).toHaveLength(2);
        expect(existsSync(join(dir, 'results'))).toBe(true);
        expect(readdirSync(join(dir, 'results')).filter(f => f.endsWith('.tmp'))).toEqual([]);
    });
});

describe('the user cache folder', () => {
    it('is $XDG_CACHE_HOME/tenancy where set, else the platform\'s cache folder', () => {
        expect(userCacheFolder('tuning', { XDG_CACHE_HOME: '/c' })).toBe(join('/c', 'tenancy', 'tuning'));
        const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
        vi.stubEnv('XDG_CACHE_HOME', '');
        vi.stubEnv('LOCALAPPDATA', '/local');
        try {
            const expected: [NodeJS.Platform, string][] = [
                ['linux', join(homedir(), '.cache', 'tenancy', 'x')],
                ['darwin', join(homedir(), 'Library', 'Caches', 'tenancy', 'x')],
                ['win32', join('/local', 'tenancy', 'Cache', 'x')],
            ];
            for (const [name, folder] of expected) {
                Object.defineProperty(process, 'platform', { value: name });
                expect(userCacheFolder('x', {})).toBe(folder);
            }
        } finally {
            Object.defineProperty(process, 'platform', platform);
            vi.unstubAllEnvs();
        }
    });
});
