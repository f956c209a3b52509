/**
 * One language server under fuzzing: the real bundle started over stdio in a scratch workspace,
 * fed documents one after another (each opened or changed in place, as an editor does), and
 * asked every request kind it announces about each, concurrently (as VS Code asks on open), one
 * of them cancelled at random. Every answer is checked (./checks.ts); a crash, a request with no
 * answer in time, an error answer, an error in the server's log or a malformed answer is a
 * finding, kept with the document's text so it can become a unit test.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Random } from '../../src/runtime/plan/random.js';
import {
    allRangeProblems, badWordProblems, completionProblems, foldingProblems, isErrorAsResult, lineLengths, semanticTokenProblems, symbolProblems,
} from './checks.js';
import { RequestCancelled, RequestTimeout, ServerExited, StdioClient, type Message } from './lsp-client.js';

export type FindingKind = 'crash' | 'hang' | 'error-response' | 'internal-error' | 'malformed';

export interface Finding {
    kind: FindingKind;
    /** Where the document came from (seed and mutations, or the pathological class). */
    origin: string;
    /** The request (or `diagnostics`, `process`). */
    request: string;
    detail: string;
    /** The document's text, to reproduce. */
    text: string;
}

export interface DocumentOutcome {
    findings: Finding[];
    /** Milliseconds per answered request, by method. */
    latencies: { method: string; ms: number }[];
    /** Milliseconds from the change to its diagnostics; undefined when none came. */
    diagnosticsMs: number | undefined;
    /** CPU milliseconds the server used from the change to its diagnostics (10 ms steps; Linux), a figure a busy host distorts less than wall time. */
    diagnosticsCpuMs: number | undefined;
}

/** Files the scratch workspace holds, for imports to find (and not find). */
export function prepareWorkspace(dir: string): void {
    mkdirSync(join(dir, 'folder.tenancy'), { recursive: true });
    writeFileSync(join(dir, 'lib.tenancy'), 'model lib_block(c) {\n  input x: f32[n, c]\n  output relu(dense(x, c))\n}\n');
    writeFileSync(join(dir, 'notes.txt'), 'not a tenancy file\n');
}

/** A rename the server declines with a reason the editor shows (LSP RequestFailed), e.g. of a built-in operator. */
function isRefusal(method: string, error: { code: number; message: string }): boolean {
    return (method === 'textDocument/rename' || method === 'textDocument/prepareRename') && error.code === -32803 && !/Cannot read|is not|undefined|failed with message/.test(error.message);
}

/** The lines of a server's stderr that name an error, for a finding's one-line summary. */
function errorLines(stderr: string): string {
    const lines = stderr.split('\n').filter(l => /Error|error|at /.test(l)).slice(0, 8);
    return lines.join(' | ').slice(0, 1500);
}

const positionAt = (text: string, offset: number) => {
    const before = text.slice(0, offset);
    const lines = before.split(/\r\n|\r|\n/);
    return { line: lines.length - 1, character: lines[lines.length - 1]!.length };
};

export class FuzzServer {
    private client!: StdioClient;
    private capabilities: Record<string, any> = {};
    private readonly versions = new Map<string, number>();
    private readonly publishWaiters = new Map<string, (m: Message) => void>();
    private readonly latestDiagnostics = new Map<string, unknown[]>();
    private slot = 0;
    /** Server processes started (1 + restarts after a crash or hang). */
    starts = 0;

    constructor(readonly bundle: string, readonly workspace: string, readonly options: { requestTimeoutMs: number; slots?: number }) {}

    get pid(): number | undefined {
        return this.client?.child.pid;
    }

    async start(): Promise<void> {
        this.client = StdioClient.start(this.bundle, { cwd: this.workspace });
        this.client.keepMessages = false;
        this.starts++;
        this.versions.clear();
        this.client.onMessage(m => {
            if (m.method !== 'textDocument/publishDiagnostics') return;
            this.latestDiagnostics.set(m.params.uri, m.params.diagnostics);
            const waiter = this.publishWaiters.get(m.params.uri);
            if (waiter) { this.publishWaiters.delete(m.params.uri); waiter(m); }
        });
        const init = await this.client.initialize(pathToFileURL(this.workspace).href);
        this.capabilities = init.result?.capabilities ?? {};
    }

    /** CPU time the server process has used (user + system), in ms; undefined off Linux. */
    cpuMs(): number | undefined {
        try {
            // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th, in clock ticks (100 per second).
            const fields = readFileSync(`/proc/${this.pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
            return (Number(fields[11]) + Number(fields[12])) * 10;
        } catch {
            return undefined;
        }
    }

    /** Peak resident memory of the current server process (VmHWM), in bytes; undefined off Linux. */
    peakMemoryBytes(): number | undefined {
        try {
            const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
            const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
            return kb ? Number(kb) * 1024 : undefined;
        } catch {
            return undefined;
        }
    }

    async stop(): Promise<string> {
        return this.client.shutdown();
    }

    /** The next diagnostics published for a document (or undefined after the timeout). */
    private nextPublish(uri: string, timeoutMs: number): Promise<Message | undefined> {
        return new Promise(resolve => {
            const timer = setTimeout(() => { this.publishWaiters.delete(uri); resolve(undefined); }, timeoutMs);
            this.publishWaiters.set(uri, m => { clearTimeout(timer); resolve(m); });
        });
    }

    /** Sends a file change notification (the server re-reads the file from disk). */
    fileChanged(path: string, type: 1 | 2 | 3): void {
        this.client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(path).href, type }] });
    }

    /** Opens or changes a document with `text`, waits for its diagnostics, asks every request, checks the answers. */
    async exercise(text: string, origin: string, random: Random, options: { uri?: string; diagnosticsTimeoutMs?: number } = {}): Promise<DocumentOutcome> {
        const findings: Finding[] = [];
        const latencies: { method: string; ms: number }[] = [];
        const finding = (kind: FindingKind, request: string, detail: string) => findings.push({ kind, origin, request, detail, text });
        const uri = options.uri ?? pathToFileURL(join(this.workspace, `fuzz${this.slot++ % (this.options.slots ?? 4)}.tenancy`)).href;
        const lines = lineLengths(text);
        const logsBefore = this.client.logs.length;
        const stderrBefore = this.client.stderr.length;

        // Open or change in place, then wait for this version's diagnostics.
        const version = (this.versions.get(uri) ?? 0) + 1;
        const published = this.nextPublish(uri, options.diagnosticsTimeoutMs ?? this.options.requestTimeoutMs);
        const cpuBefore = this.cpuMs();
        const changedAt = performance.now();
        if (version === 1) this.client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'tenancy', version, text } });
        else this.client.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
        this.versions.set(uri, version);
        const diagnostics = await published;
        const diagnosticsMs = diagnostics ? performance.now() - changedAt : undefined;
        const cpuAfter = this.cpuMs();
        const diagnosticsCpuMs = diagnostics && cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
        if (this.client.exit !== undefined) {
            finding('crash', 'diagnostics', `the server exited (${this.client.exit}) after the change: ${errorLines(this.client.stderr.slice(stderrBefore))}`);
            await this.restart();
            return { findings, latencies, diagnosticsMs, diagnosticsCpuMs };
        }
        if (!diagnostics) {
            finding('hang', 'diagnostics', `no diagnostics within ${options.diagnosticsTimeoutMs ?? this.options.requestTimeoutMs} ms of the change`);
        } else {
            const list: unknown[] = diagnostics.params.diagnostics;
            const problems = allRangeProblems(list, uri, lines, 'diagnostic');
            problems.push(...badWordProblems(list, text, 'diagnostic'));
            for (const d of list as Array<{ code?: unknown; message: string }>) {
                if (typeof d.code !== 'string') problems.push(`diagnostic without a code: ${d.message}`);
                if (/error occurred|An error|Cannot read|is not a function|Maximum call stack/i.test(d.message)) problems.push(`diagnostic reports an internal error: ${d.message}`);
            }
            for (const p of problems.slice(0, 5)) finding('malformed', 'diagnostics', p);
        }

        // Every request kind the server announces, at random positions, all at once.
        const doc = { uri };
        const at = () => positionAt(text, random.int(text.length + 1));
        const whole = { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines[lines.length - 1]! } };
        const caps = this.capabilities;
        const requests: Array<{ method: string; params: any; check?: (result: any) => string[] }> = [];
        const add = (enabled: unknown, method: string, params: any, check?: (result: any) => string[]) => { if (enabled) requests.push({ method, params, check }); };
        add(caps.documentSymbolProvider, 'textDocument/documentSymbol', { textDocument: doc }, r => symbolProblems(r, lines, 'documentSymbol'));
        add(caps.foldingRangeProvider, 'textDocument/foldingRange', { textDocument: doc }, r => foldingProblems(r, lines, 'foldingRange'));
        add(caps.semanticTokensProvider?.full, 'textDocument/semanticTokens/full', { textDocument: doc }, r => semanticTokenProblems(r?.data, lines, 'semanticTokens/full'));
        const rangeStart = at(), rangeEnd = at();
        const tokenRange = rangeStart.line <= rangeEnd.line ? { start: rangeStart, end: rangeEnd } : { start: rangeEnd, end: rangeStart };
        add(caps.semanticTokensProvider?.range, 'textDocument/semanticTokens/range', { textDocument: doc, range: whole }, r => semanticTokenProblems(r?.data, lines, 'semanticTokens/range (whole)'));
        add(caps.semanticTokensProvider?.range, 'textDocument/semanticTokens/range', { textDocument: doc, range: tokenRange }, r => semanticTokenProblems(r?.data, lines, 'semanticTokens/range'));
        add(caps.codeLensProvider, 'textDocument/codeLens', { textDocument: doc });
        add(caps.inlayHintProvider, 'textDocument/inlayHint', { textDocument: doc, range: whole });
        add(caps.documentFormattingProvider, 'textDocument/formatting', { textDocument: doc, options: { tabSize: 2, insertSpaces: true } });
        add(caps.codeActionProvider, 'textDocument/codeAction', { textDocument: doc, range: tokenRange, context: { diagnostics: (diagnostics?.params.diagnostics ?? []).slice(0, 5) } });
        for (let i = 0; i < 3; i++) add(caps.hoverProvider, 'textDocument/hover', { textDocument: doc, position: at() });
        for (const position of [at(), at(), positionAt(text, text.length)]) {
            add(caps.completionProvider, 'textDocument/completion', { textDocument: doc, position }, r => completionProblems(r, position, lines, 'completion'));
        }
        add(caps.signatureHelpProvider, 'textDocument/signatureHelp', { textDocument: doc, position: at() });
        add(caps.definitionProvider, 'textDocument/definition', { textDocument: doc, position: at() });
        add(caps.referencesProvider, 'textDocument/references', { textDocument: doc, position: at(), context: { includeDeclaration: true } });
        add(caps.documentHighlightProvider, 'textDocument/documentHighlight', { textDocument: doc, position: at() });
        const renameAt = at();
        add(caps.renameProvider?.prepareProvider, 'textDocument/prepareRename', { textDocument: doc, position: renameAt });
        add(caps.renameProvider, 'textDocument/rename', { textDocument: doc, position: renameAt, newName: 'renamed_x' });
        add(true, 'tenancy/workspaceStatus', { uri });

        const cancelled = random.int(requests.length + 1); // one request (or none) is cancelled right after it is sent
        const sent = requests.map((r, i) => {
            const started = performance.now();
            const { id, response } = this.client.requestWithId(r.method, r.params, this.options.requestTimeoutMs);
            if (i === cancelled) this.client.cancel(id);
            return response.then(m => ({ m, ms: performance.now() - started }));
        });
        const answers = await Promise.allSettled(sent);
        let restart = false;
        answers.forEach((a, i) => {
            const r = requests[i]!;
            if (a.status === 'rejected') {
                if (a.reason instanceof ServerExited) { if (!restart) finding('crash', r.method, `${a.reason.message}: ${errorLines(this.client.stderr.slice(stderrBefore))}`); restart = true; }
                else if (a.reason instanceof RequestTimeout) { finding('hang', r.method, a.reason.message); restart = true; }
                else finding('malformed', r.method, String(a.reason));
                return;
            }
            const { m, ms } = a.value;
            latencies.push({ method: r.method, ms });
            if (m.error) {
                if (!(i === cancelled && m.error.code === RequestCancelled) && !isRefusal(r.method, m.error)) finding('error-response', r.method, `error ${m.error.code}: ${m.error.message}`);
                return;
            }
            const result = m.result;
            if (isErrorAsResult(result)) {
                finding('malformed', r.method, `an error sent as a result: ${JSON.stringify(result)}`);
                return;
            }
            const problems = [...(r.check?.(result) ?? []), ...allRangeProblems(result, uri, lines, r.method)];
            if (r.method !== 'textDocument/formatting' && r.method !== 'textDocument/rename') problems.push(...badWordProblems(result, text, r.method));
            for (const p of [...new Set(problems)].slice(0, 5)) finding('malformed', r.method, p);
        });

        for (const log of this.client.logs.slice(logsBefore)) {
            if (log.type === 1) finding('internal-error', 'log', log.message.slice(0, 2000));
        }
        const stderr = this.client.stderr.slice(stderrBefore);
        if (/Error|error/.test(stderr)) finding('internal-error', 'stderr', errorLines(stderr));
        if (restart || this.client.exit !== undefined) await this.restart();
        return { findings, latencies, diagnosticsMs, diagnosticsCpuMs };
    }

    /** Closes a document (the editor closed its tab). */
    close(uri: string): void {
        this.client.notify('textDocument/didClose', { textDocument: { uri } });
        this.versions.delete(uri);
    }

    /** The diagnostics last published for a document. */
    diagnosticsOf(uri: string): unknown[] | undefined {
        return this.latestDiagnostics.get(uri);
    }

    private async restart(): Promise<void> {
        if (this.client.exit === undefined) this.client.child.kill('SIGKILL');
        await new Promise(resolve => setTimeout(resolve, 50));
        await this.start();
    }
}

