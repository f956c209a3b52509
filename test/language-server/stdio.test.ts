import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * The server over stdio, as any LSP client (Neovim, Helix, Emacs) starts it: `main.cjs --stdio`.
 * The server is bundled here with esbuild.mjs's options for it (CommonJS, Node platform) into a
 * temporary folder, so the test neither waits for nor races with other builds of out/.
 */
let dir: string;
let bundle: string;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-stdio-'));
    bundle = join(dir, 'main.cjs');
    await esbuild.build({
        entryPoints: ['src/language-server/main.ts'], outfile: bundle,
        bundle: true, platform: 'node', target: 'node22', format: 'cjs', logLevel: 'silent',
    });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Message { id?: number; method?: string; params?: any; result?: any; error?: any }

/** An LSP client over a child's stdio that records every byte of stdout and checks its framing. */
class StdioClient {
    readonly messages: Message[] = [];
    /** Bytes on stdout that were not part of a well-formed `Content-Length` frame. */
    readonly stray: string[] = [];
    private buffer = Buffer.alloc(0);
    private waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
    private nextId = 1;

    constructor(readonly child: ChildProcessWithoutNullStreams) {
        child.stdout.on('data', (chunk: Buffer) => {
            this.buffer = Buffer.concat([this.buffer, chunk]);
            this.drain();
        });
    }

    private drain(): void {
        for (;;) {
            const headerEnd = this.buffer.indexOf('\r\n\r\n');
            if (headerEnd < 0) return;
            const header = this.buffer.subarray(0, headerEnd).toString('ascii');
            const m = /^Content-Length: (\d+)(\r\nContent-Type: [^\r\n]+)?$/.exec(header);
            if (!m) {
                this.stray.push(header);
                this.buffer = this.buffer.subarray(headerEnd + 4);
                continue;
            }
            const length = Number(m[1]);
            if (this.buffer.length < headerEnd + 4 + length) return;
            const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
            this.buffer = this.buffer.subarray(headerEnd + 4 + length);
            const message = JSON.parse(body) as Message;
            this.messages.push(message);
            // Answer the server's own requests (configuration, registration) so it never waits.
            if (message.id !== undefined && message.method) this.send({ id: message.id, result: message.method === 'workspace/configuration' ? (message.params?.items ?? []).map(() => null) : null });
            for (const w of [...this.waiters]) {
                if (w.test(message)) {
                    this.waiters.splice(this.waiters.indexOf(w), 1);
                    w.resolve(message);
                }
            }
        }
    }

    /** Bytes received after the last complete frame. */
    get leftover(): string {
        return this.buffer.toString('utf8');
    }

    send(message: Message): void {
        const body = JSON.stringify({ jsonrpc: '2.0', ...message });
        this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`);
    }

    request(method: string, params: unknown): Promise<Message> {
        const id = this.nextId++;
        this.send({ id, method, params });
        return this.waitFor(m => m.id === id && !m.method, `response to ${method}`);
    }

    notify(method: string, params: unknown): void {
        this.send({ method, params });
    }

    waitFor(test: (m: Message) => boolean, what: string, timeoutMs = 30_000): Promise<Message> {
        const seen = this.messages.find(test);
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.messages.map(m => m.method ?? m.id))}`)), timeoutMs);
            this.waiters.push({ test, resolve: m => { clearTimeout(timer); resolve(m); } });
        });
    }
}

describe('language server over stdio', () => {
    test('initialize, diagnostics with stable codes, hover; nothing but LSP frames on stdout', async () => {
        const child = spawn(process.execPath, [bundle, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
        const client = new StdioClient(child);
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
            const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
            expect(code).toBe(0);
            expect(client.stray).toEqual([]);
            expect(client.leftover).toBe('');
        } finally {
            if (child.exitCode === null) child.kill();
        }
        expect(stderr).not.toMatch(/Error|TypeError/);
    });
});
