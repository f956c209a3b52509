import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { HISTORY_KEEP, historyFiles, resultsPathsFor, ResultsWriteError, userCacheFolder, workspaceFolderOf, writeFileAtomic, writeResultsFiles } from '../../../src/runtime/report/write.js';

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

describe('results files under faults', () => {
    it('two runs racing on one results file: each keeps a history copy of its own, the latest is one of them, whole', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-race-'));
        const paths = resultsPathsFor(join(dir, 'a.tenancy'), 'w', join(dir, 'results'));
        const t = new Date('2026-01-01T00:00:00.000Z');
        const docs = Array.from({ length: 6 }, (_, i) => ({ run: i, values: Array.from({ length: 20_000 }, (_, j) => i * j) }));
        const written = await Promise.all(docs.map(d => writeResultsFiles(paths, d, t)));
        expect(new Set(written.map(w => w.history)).size).toBe(docs.length);
        expect(historyFiles(paths).map(f => JSON.parse(readFileSync(f, 'utf8')).run).sort()).toEqual([0, 1, 2, 3, 4, 5]);
        expect(docs.map(d => d.run)).toContain(JSON.parse(readFileSync(paths.latest, 'utf8')).run);
        expect(readdirSync(join(dir, 'results')).filter(f => f !== 'history' && !f.endsWith('.json'))).toEqual([]); // no temp files left
    });

    it(`prune the history to the newest ${HISTORY_KEEP} copies of each results file, leaving other files' copies`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-prune-'));
        const paths = resultsPathsFor(join(dir, 'a.tenancy'), 'w', join(dir, 'results'));
        const solo = resultsPathsFor(join(dir, 'a.tenancy'), 'w', join(dir, 'results'), ['t']);
        await writeResultsFiles(solo, { solo: true }, new Date('2025-01-01T00:00:00.000Z'));
        const start = Date.parse('2026-01-01T00:00:00.000Z');
        for (let i = 0; i < HISTORY_KEEP + 5; i++) await writeResultsFiles(paths, { i }, new Date(start + i * 1000));
        const kept = historyFiles(paths);
        expect(kept).toHaveLength(HISTORY_KEEP);
        expect(JSON.parse(readFileSync(kept[0]!, 'utf8'))).toEqual({ i: HISTORY_KEEP + 4 }); // newest first
        expect(JSON.parse(readFileSync(kept.at(-1)!, 'utf8'))).toEqual({ i: 5 });
        expect(historyFiles(solo)).toHaveLength(1);
    });

    it('a folder that cannot take the file: ResultsWriteError naming the path and why, the previous files intact', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tenancy-nowrite-'));
        const paths = resultsPathsFor(join(dir, 'a.tenancy'), 'w', join(dir, 'results'));
        await writeResultsFiles(paths, { n: 1 }, new Date('2026-01-01T00:00:00.000Z'));
        // The history folder replaced by a file: every write into it fails (ENOTDIR).
        const before = readFileSync(paths.latest, 'utf8');
        rmSync(paths.historyDir, { recursive: true });
        writeFileSync(paths.historyDir, 'not a folder');
        const error = await writeResultsFiles(paths, { n: 2 }, new Date()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResultsWriteError);
        expect((error as Error).message).toMatch(/^could not write .*history: .*EEXIST/);
        expect(readFileSync(paths.latest, 'utf8')).toBe(before);
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
