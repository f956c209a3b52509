/**
 * An LSP client over a child process's stdio, as Neovim, Helix or Emacs start the server
 * (`main.cjs --stdio`): frames messages, answers the server's own requests, records every byte
 * of stdout (anything that is not a well-formed frame is kept in `stray`), the server's log
 * messages, its stderr and how it exited. Used by the stdio test and the fuzzer.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface Message { jsonrpc?: string; id?: number | string; method?: string; params?: any; result?: any; error?: { code: number; message: string; data?: unknown } }

/** LSP error code of a request the client cancelled. */
export const RequestCancelled = -32800;

/** A request that got no response in time. */
export class RequestTimeout extends Error {
    constructor(readonly method: string, readonly ms: number) {
        super(`no response to ${method} within ${ms} ms`);
    }
}

/** The server process ended while a request was waiting. */
export class ServerExited extends Error {
    constructor(readonly method: string, readonly exit: string) {
        super(`the server exited (${exit}) while ${method} was waiting`);
    }
}

export class StdioClient {
    readonly messages: Message[] = [];
    /** Bytes on stdout that were not part of a well-formed `Content-Length` frame. */
    readonly stray: string[] = [];
    /** `window/logMessage` and `window/showMessage` notifications, in order. */
    readonly logs: { type: number; message: string }[] = [];
    stderr = '';
    /** How the process ended (`code 0`, `signal SIGKILL`), once it has. */
    exit: string | undefined;
    /** Whether to keep every message in `messages` (tests read them; the fuzzer does not, to bound memory). */
    keepMessages = true;
    private buffer: Buffer = Buffer.alloc(0);
    private readonly waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void; reject: (e: Error) => void; what: string }> = [];
    private readonly listeners: Array<(m: Message) => void> = [];
    private nextId = 1;

    constructor(readonly child: ChildProcessWithoutNullStreams) {
        child.stdout.on('data', (chunk: Buffer) => {
            this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
            this.drain();
        });
        child.stderr.on('data', (d: Buffer) => { if (this.stderr.length < 1_000_000) this.stderr += d.toString(); });
        child.stdin.on('error', () => { /* the exit handler reports a dead server */ });
        child.on('exit', (code, signal) => {
            this.exit = signal ? `signal ${signal}` : `code ${code}`;
            for (const w of this.waiters.splice(0)) w.reject(new ServerExited(w.what, this.exit));
        });
    }

    /** Starts `node <bundle> --stdio` and wraps it. */
    static start(bundle: string, options: { cwd?: string; execArgv?: string[] } = {}): StdioClient {
        const child = spawn(process.execPath, [...(options.execArgv ?? []), bundle, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
        return new StdioClient(child);
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
            let message: Message;
            try {
                message = JSON.parse(body) as Message;
            } catch {
                this.stray.push(body.slice(0, 200));
                continue;
            }
            this.receive(message);
        }
    }

    private receive(message: Message): void {
        if (this.keepMessages) this.messages.push(message);
        if (message.method === 'window/logMessage' || message.method === 'window/showMessage') this.logs.push({ type: message.params?.type, message: String(message.params?.message) });
        // Answer the server's own requests (configuration, registration, refresh) so it never waits.
        if (message.id !== undefined && message.method) {
            this.send({ id: message.id, result: message.method === 'workspace/configuration' ? (message.params?.items ?? []).map(() => null) : null });
        }
        for (const listener of this.listeners) listener(message);
        for (const w of [...this.waiters]) {
            if (w.test(message)) {
                this.waiters.splice(this.waiters.indexOf(w), 1);
                w.resolve(message);
            }
        }
    }

    /** Bytes received after the last complete frame. */
    get leftover(): string {
        return this.buffer.toString('utf8');
    }

    /** Calls `listener` with every message from now on. */
    onMessage(listener: (m: Message) => void): void {
        this.listeners.push(listener);
    }

    send(message: Message): void {
        if (this.exit !== undefined) return;
        const body = JSON.stringify({ jsonrpc: '2.0', ...message });
        this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`);
    }

    /** Sends a request; `id` lets the caller cancel it with `cancel(id)`. */
    requestWithId(method: string, params: unknown, timeoutMs = 30_000): { id: number; response: Promise<Message> } {
        const id = this.nextId++;
        const response = this.waitFor(m => m.id === id && !m.method, method, timeoutMs);
        this.send({ id, method, params });
        return { id, response };
    }

    request(method: string, params: unknown, timeoutMs = 30_000): Promise<Message> {
        return this.requestWithId(method, params, timeoutMs).response;
    }

    cancel(id: number): void {
        this.notify('$/cancelRequest', { id });
    }

    notify(method: string, params: unknown): void {
        this.send({ method, params });
    }

    /** The first message (already received or later) that passes `test`. */
    waitFor(test: (m: Message) => boolean, what: string, timeoutMs = 30_000): Promise<Message> {
        const seen = this.messages.find(test);
        if (seen) return Promise.resolve(seen);
        if (this.exit !== undefined) return Promise.reject(new ServerExited(what, this.exit));
        return new Promise((resolve, reject) => {
            const waiter = {
                test, what,
                resolve: (m: Message) => { clearTimeout(timer); resolve(m); },
                reject: (e: Error) => { clearTimeout(timer); reject(e); },
            };
            const timer = setTimeout(() => {
                this.waiters.splice(this.waiters.indexOf(waiter), 1);
                reject(new RequestTimeout(what, timeoutMs));
            }, timeoutMs);
            this.waiters.push(waiter);
        });
    }

    /** `initialize` + `initialized` with the capabilities VS Code announces that matter here. */
    async initialize(rootUri: string | null): Promise<Message> {
        const init = await this.request('initialize', {
            processId: process.pid, rootUri,
            workspaceFolders: rootUri ? [{ uri: rootUri, name: 'fuzz' }] : null,
            capabilities: {
                workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true }, codeLens: { refreshSupport: true }, inlayHint: { refreshSupport: true }, semanticTokens: { refreshSupport: true } },
                textDocument: {
                    completion: { completionItem: { snippetSupport: true, insertReplaceSupport: true } },
                    hover: { contentFormat: ['markdown', 'plaintext'] },
                    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
                    semanticTokens: { requests: { full: { delta: true }, range: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'], multilineTokenSupport: false, overlappingTokenSupport: false },
                    foldingRange: { lineFoldingOnly: true },
                    publishDiagnostics: { relatedInformation: true },
                },
            },
        });
        this.notify('initialized', {});
        return init;
    }

    /** `shutdown` + `exit`; resolves with how the process ended. */
    async shutdown(timeoutMs = 10_000): Promise<string> {
        if (this.exit === undefined) {
            const exited = new Promise<void>(resolve => this.child.once('exit', () => resolve()));
            try {
                await this.request('shutdown', null, timeoutMs);
                this.notify('exit', null);
                await Promise.race([exited, new Promise(resolve => setTimeout(resolve, timeoutMs))]);
            } catch {
                // a dead or hung server: killed below
            }
            if (this.exit === undefined) {
                this.child.kill('SIGKILL');
                await exited;
                return `killed (${this.exit})`;
            }
        }
        return this.exit!;
    }
}
