/**
 * Schedule hints through the real server over stdio (bundled as esbuild.mjs bundles it): the hint
 * is pushed with textDocument/publishDiagnostics after the document opens, again for the edited
 * version after a didChange, beside the validator's own diagnostics; its quick fix comes back from
 * textDocument/codeAction and the hover on `schedule` has the table.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverBuild } from '../../../esbuild.mjs';
import { StdioClient, type Message } from '../../fuzz/lsp-client.js';
import { rescueWorkload } from '../../fixtures/rescue-workload.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-hints-stdio-'));
    bundle = join(dir, 'main.cjs');
    const { entryPoints, outdir: _outdir, outExtension: _ext, ...options } = serverBuild;
    await esbuild.build({ ...options, entryPoints: [entryPoints['language-server/main']], outfile: bundle, sourcemap: false, logLevel: 'silent' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (rate: string) => rescueWorkload({ rate });

interface Published { uri: string; version?: number; diagnostics: { code: string; message: string; range: { start: { line: number } } }[] }

describe('schedule hints over stdio', () => {
    test('pushed after open and after an edit, with the other diagnostics; quick fix and hover', async () => {
        const workspace = join(dir, 'ws');
        mkdirSync(join(workspace, '.git'), { recursive: true });
        // A user cache of its own (the child inherits the environment): the default profile, whatever this machine has calibrated.
        const savedCache = process.env.XDG_CACHE_HOME;
        process.env.XDG_CACHE_HOME = join(dir, 'cache');
        const client = StdioClient.start(bundle, { cwd: workspace });
        if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
        try {
            await client.initialize(`file://${workspace}`);
            const uri = `file://${workspace}/rescue.tenancy`;
            const hintIn = (m: Message, version: number) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri && m.params.version === version
                && (m.params as Published).diagnostics.some(d => d.code === 'schedule-hint');
            client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'tenancy', version: 1, text: text('40/s') } });
            const first = (await client.waitFor(m => hintIn(m, 1), 'the hint of version 1')).params as Published;
            const hint = first.diagnostics.find(d => d.code === 'schedule-hint')!;
            expect(hint.range.start.line).toBe(12);
            expect(hint.message).toMatch(/^regulated\(split: auto, sync: auto\) is predicted to meet small's p95/);
            // The validator's own diagnostics are kept beside it.
            expect(first.diagnostics.map(d => d.code)).toContain('slo-at-risk');

            client.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: text('38/s') }] });
            const second = (await client.waitFor(m => hintIn(m, 2) && (m.params as Published).diagnostics.find(d => d.code === 'schedule-hint')!.message !== hint.message, 'the recomputed hint of version 2')).params as Published;
            const again = second.diagnostics.find(d => d.code === 'schedule-hint')!;

            const actions = await client.request('textDocument/codeAction', { textDocument: { uri }, range: again.range, context: { diagnostics: [again] } });
            expect(actions.result.map((a: { title: string }) => a.title)).toEqual(["Change to 'schedule regulated(split: auto, sync: auto)'"]);
            expect(actions.result[0].edit.changes[uri]).toEqual([{ range: { start: { line: 12, character: 2 }, end: { line: 12, character: 21 } }, newText: 'schedule regulated(split: auto, sync: auto)' }]);

            const hover = await client.request('textDocument/hover', { textDocument: { uri }, position: { line: 12, character: 4 } });
            expect(hover.result.contents.value).toContain('**Schedules compared**');
            expect(hover.result.contents.value).toMatch(/\| sequential \|.*\| current \|/);
            expect(await client.shutdown()).toBe('code 0');
        } finally {
            if (client.exit === undefined) client.child.kill();
        }
        expect(client.stderr).not.toMatch(/Error|TypeError/);
    }, 120_000);
});
