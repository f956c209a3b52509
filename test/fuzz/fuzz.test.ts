/**
 * The fuzzer at a small count, in every test run: seeded mutations of the examples, the zoo and
 * the tests' documents, then the pathological documents (shrunk),
 * through the server bundled as esbuild.mjs bundles it, over stdio. Nothing may crash, hang,
 * answer with an error, log an internal error or give a malformed answer. `npm run fuzz` runs
 * the same campaign at full size (README: "Limits and failure behaviour").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverBuild } from '../../esbuild.mjs';
import { runCampaign } from './fuzz.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-fuzz-test-'));
    bundle = join(dir, 'main.cjs');
    const { entryPoints, outdir: _outdir, outExtension: _ext, ...options } = serverBuild;
    await esbuild.build({ ...options, entryPoints: [entryPoints['language-server/main']], outfile: bundle, sourcemap: false, logLevel: 'silent' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fuzzing the language server (small count)', () => {
    test('40 mutated documents and the pathological classes: no crash, hang, error answer, internal error or malformed answer', async () => {
        const result = await runCampaign({
            bundle, root: process.cwd(), seed: 17, count: 40, timeLimitS: 120, pathologicalScale: 0.02, requestTimeoutMs: 20_000,
            // Deep nesting, huge counts and long chains test the bounds on work (bounded-work.test.ts, bench/pathological).
            pathological: doc => !doc.bounded,
        });
        expect(result.documents).toBe(40);
        expect(result.requests).toBeGreaterThan(40 * 15);
        expect(result.classes.length).toBeGreaterThan(5);
        const findings = [...result.findings, ...result.classes.flatMap(c => c.findings)];
        expect(findings.map(f => `${f.kind} in ${f.request}: ${f.detail.slice(0, 300)} (${f.origin.slice(0, 200)})`)).toEqual([]);
    }, 300_000);
});
