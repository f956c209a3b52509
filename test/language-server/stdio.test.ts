import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverBuild } from '../../esbuild.mjs';
import { RequestCancelled, StdioClient } from '../fuzz/lsp-client.js';
import { isErrorAsResult } from '../fuzz/checks.js';

/**
 * The server over stdio, as any LSP client (Neovim, Helix, Emacs) starts it: `main.cjs --stdio`.
 * The server is bundled here with esbuild.mjs's options for it into a temporary folder, so the
 * test neither waits for nor races with other builds of out/.
 */
let dir: string;
let bundle: string;
let inputs: string[];

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-stdio-'));
    bundle = join(dir, 'main.cjs');
    const { entryPoints, outdir: _outdir, outExtension: _ext, ...options } = serverBuild;
    const result = await esbuild.build({ ...options, entryPoints: [entryPoints['language-server/main']], outfile: bundle, sourcemap: false, logLevel: 'silent', metafile: true });
    inputs = Object.keys(result.metafile?.inputs ?? {});
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('language server over stdio', () => {
    test('initialize, diagnostics with stable codes, hover; nothing but LSP frames on stdout', async () => {
        const client = StdioClient.start(bundle);
        try {
            const init = await client.request('initialize', { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
            expect(init.error).toBeUndefined();
            const caps = init.result.capabilities;
            expect(caps.hoverProvider).toBeTruthy();
            expect(caps.completionProvider).toBeTruthy();
            expect(caps.documentFormattingProvider).toBeTruthy();
            expect(caps.renameProvider).toBeTruthy();
            expect(caps.semanticTokensProvider).toBeTruthy();
            expect(caps.signatureHelpProvider).toBeTruthy();
            client.notify('initialized', {});

            const uri = `file://${dir}/bad.tenancy`;
            const text = 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output rleu(x)\n}\n';
            client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'tenancy', version: 1, text } });
            const published = await client.waitFor(m => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri && m.params.diagnostics.length > 0, 'diagnostics');
            const codes = published.params.diagnostics.map((d: { code: string }) => d.code);
            expect(codes).toContain('unknown-op');
            const unknown = published.params.diagnostics.find((d: { code: string }) => d.code === 'unknown-op');
            expect(unknown.range.start).toEqual({ line: 2, character: 9 });

            const hover = await client.request('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 9 } });
            expect(hover.result.contents.value).toContain('input x: f32[batch, 4]');

            const shutdown = await client.request('shutdown', null);
            expect(shutdown.error).toBeUndefined();
            client.notify('exit', null);
            await new Promise(resolve => client.child.once('exit', resolve));
            expect(client.exit).toBe('code 0');
            expect(client.stray).toEqual([]);
            expect(client.leftover).toBe('');
        } finally {
            if (client.exit === undefined) client.child.kill();
        }
        expect(client.stderr).not.toMatch(/Error|TypeError/);
    });

    test('one copy of the LSP protocol packages in the bundle', () => {
        for (const name of ['vscode-jsonrpc', 'vscode-languageserver-protocol', 'vscode-languageserver-types']) {
            const copies = new Set(inputs.map(i => new RegExp(`^(.*node_modules/${name})/`).exec(i)?.[1]).filter(Boolean));
            expect([...copies], name).toHaveLength(1);
        }
    });

    test('a cancelled request is answered with the error RequestCancelled, not with a result', async () => {
        const client = StdioClient.start(bundle);
        try {
            await client.initialize(null);
            const uri = `file://${dir}/cancel.tenancy`;
            // A document large enough that its build is still running when the requests arrive.
            const text = Array.from({ length: 300 }, (_, i) => `model m${i}(batch = 1) {\n  input x: f32[batch, 64]\n  output relu(dense(x, 64))\n}\n`).join('');
            client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'tenancy', version: 1, text } });
            const answers = await Promise.all(Array.from({ length: 5 }, () => {
                const { id, response } = client.requestWithId('textDocument/codeAction', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] } });
                client.cancel(id);
                return response;
            }));
            for (const answer of answers) {
                expect(isErrorAsResult(answer.result), JSON.stringify(answer)).toBe(false);
                if (answer.error) expect(answer.error.code).toBe(RequestCancelled);
            }
            expect(answers.some(a => a.error?.code === RequestCancelled)).toBe(true);
        } finally {
            await client.shutdown();
        }
    });

    test('formatting a long file yields: a cancellation sent while it runs ends it with RequestCancelled, and other requests are answered meanwhile', async () => {
        const client = StdioClient.start(bundle);
        try {
            await client.initialize(null);
            const uri = `file://${dir}/format.tenancy`;
            const text = Array.from({ length: 1500 }, (_, i) => `model m${i}(batch=1){ input x: f32[batch,64]\n h=relu(dense(x,64))\n output y=dense(h,10)}\n`).join('');
            const published = client.waitFor(m => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri, 'diagnostics', 60_000);
            client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'tenancy', version: 1, text } });
            await published;
            const params = { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } };
            // Uncancelled, for its time; a hover sent just after it is answered before it ends.
            const started = performance.now();
            const whole = client.request('textDocument/formatting', params, 60_000).then(m => ({ m, at: performance.now() }));
            const hover = client.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 7 } }, 60_000).then(m => ({ m, at: performance.now() }));
            const [formatted, hovered] = await Promise.all([whole, hover]);
            expect(formatted.m.result.length).toBeGreaterThan(1500 * 6);
            expect(hovered.m.result).toBeTruthy();
            expect(hovered.at).toBeLessThan(formatted.at);
            const formatMs = formatted.at - started;
            // Cancelled a little after it starts: an error, and no later than the uncancelled one took.
            const { id, response } = client.requestWithId('textDocument/formatting', params, 60_000);
            const sent = performance.now();
            await new Promise(resolve => setTimeout(resolve, Math.min(50, formatMs / 4)));
            client.cancel(id);
            const answer = await response;
            expect(answer.error?.code, JSON.stringify(answer).slice(0, 200)).toBe(RequestCancelled);
            expect(answer.result).toBeUndefined();
            expect(performance.now() - sent).toBeLessThan(formatMs);
        } finally {
            await client.shutdown();
        }
    });
});
