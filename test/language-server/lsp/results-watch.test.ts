import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { URI, type LangiumDocument } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InlayHint } from 'vscode-languageserver';
import { CommandIds } from '../../../src/protocol/commands.js';
import { MeasuredChangedNotification, ResultsChangedNotification } from '../../../src/protocol/messages.js';
import { isReportModel } from '../../../src/protocol/report.js';
import { tenantSummary } from '../../../src/language-server/lsp/code-lens.js';
import { registerResultsHandlers, reportFor, workspaceStatus } from '../../../src/language-server/lsp/results-watch.js';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { makeResults, tenantResult } from '../../fixtures/results/make-results.js';

const source = `model m(batch = 1) {
  input x: f32[batch, 16]
  h = relu(dense(x, 32))
  output dense(h, 4)
}

workload w {
  tenant a {
    model m(batch: 1)
    slo p99 <= 25ms
  }
  tenant b {
    model m(batch: 2)
  }
}
`;

let dir: string;
let uri: string;
let services: ReturnType<typeof createTenancyServices>['Tenancy'];

beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenancy-results-'));
    mkdirSync(path.join(dir, '.tenancy', 'results', 'history'), { recursive: true });
    uri = pathToFileURL(path.join(dir, 'demo.tenancy')).toString();
    writeFileSync(path.join(dir, 'demo.tenancy'), source);
    // Node file system: rebuilding a document after a results change reloads it like the server does.
    services = createTenancyServices(NodeFileSystem).Tenancy;
    // The validation check is registered with the handlers; a stub connection takes the rest.
    const stub = { onNotification: () => undefined, onRequest: () => undefined } as never;
    registerResultsHandlers(stub, services);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function open(): Promise<LangiumDocument> {
    const document = services.shared.workspace.LangiumDocumentFactory.fromString(source, URI.parse(uri));
    services.shared.workspace.LangiumDocuments.addDocument(document);
    await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
    return document;
}

function writeResults(name: string, results: unknown): string {
    const file = path.join(dir, '.tenancy', 'results', name);
    writeFileSync(file, JSON.stringify(results));
    return file;
}

const twoTenants = (u: string, corunA = 30) => [
    tenantResult('a', { uri: u, requests: 400, soloBase: 15, corunBase: corunA, slo: { percentile: 'p99', targetMs: 25 }, ops: [{ path: 'a/m/dense', line: 2, soloMs: 1, corunMs: 1.8 }] }),
    tenantResult('b', { uri: u, requests: 50, soloBase: 10, corunBase: 11, ops: [{ path: 'b/m/dense', line: 2, soloMs: 2, corunMs: 2.2 }, { path: 'b/m/dense_1', line: 3, soloMs: 0.5, corunMs: 0.6 }] }),
];

async function lensTitles(document: LangiumDocument): Promise<string[]> {
    const lenses = await services.lsp.CodeLensProvider!.provideCodeLens(document, { textDocument: { uri } });
    return (lenses ?? []).map(l => l.command!.title);
}

describe('code lenses', () => {
    it('offer run, calibrate and solo runs before any results', async () => {
        const document = await open();
        const lenses = (await services.lsp.CodeLensProvider!.provideCodeLens(document, { textDocument: { uri } }))!;
        expect(lenses.map(l => l.command!.title)).toEqual(['▶ Run benchmark', '⟳ Calibrate device', '▶ Run solo', '▶ Run solo']);
        expect(lenses[0]!.command).toMatchObject({ command: CommandIds.runWorkload, arguments: [{ uri, workload: 'w' }] });
        expect(lenses[0]!.range.start.line).toBe(6);
        expect(lenses[2]!.command).toMatchObject({ command: CommandIds.runTenantSolo, arguments: [{ uri, workload: 'w', tenant: 'a' }] });
        expect(lenses[2]!.range.start.line).toBe(7);
    });

    it('show the measured summary per tenant and the report after a run; calibrate disappears with a profile', async () => {
        const document = await open();
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri)));
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ adapter: { vendor: 'mesa', device: 'llvmpipe' } }));
        const titles = await lensTitles(document);
        expect(titles[0]).toBe('▶ Run benchmark');
        expect(titles).not.toContain('⟳ Calibrate device');
        expect(titles[1]).toMatch(/^\$\(graph\) Report \(run at .*, complete\)$/);
        // Every figure with its 95 % bounds or interval: a's p99 (400 requests bound it) and its SLO verdict, b's median (50 do not bound a p99).
        expect(titles.some(t => /^p99 34 ms \(33\.9\d*–34\) ✗ SLO 25 ms · 1\.79× slower \([\d.]+–[\d.]+\) vs solo · 400 req$/.test(t)), titles.join('\n')).toBe(true);
        expect(titles.some(t => /^p50 11\.2 ms \([\d.]+–[\d.]+\) · 1\.\d\d× slower \([\d.]+–[\d.]+\) vs solo · 50 req$/.test(t)), titles.join('\n')).toBe(true);
    });

    it('read a results path that runs through a file as no results, not an error', async () => {
        const document = await open();
        rmSync(path.join(dir, '.tenancy', 'results'), { recursive: true });
        writeFileSync(path.join(dir, '.tenancy', 'results'), 'not a folder');
        expect(services.results.ResultsWatch.latest(uri, 'w')).toEqual({ kind: 'missing', path: path.join(dir, '.tenancy', 'results', 'demo.w.json') });
        expect(await lensTitles(document)).toEqual(['▶ Run benchmark', '⟳ Calibrate device', '▶ Run solo', '▶ Run solo']);
    });

    it('say when the results file is unreadable', async () => {
        const document = await open();
        writeResults('demo.w.json', { schemaVersion: 99 });
        expect(await lensTitles(document)).toContain('⚠ Results unreadable — show report for details');
        expect(reportFor(services.results.ResultsWatch, { uri, workload: 'w' })).toEqual({ error: expect.stringContaining('results schema 99') });
    });

    it('pick up a changed results file after invalidation', async () => {
        const document = await open();
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri)));
        expect((await lensTitles(document)).some(t => t.includes('✗'))).toBe(true);
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri, 12)));
        services.results.ResultsWatch.invalidate([pathToFileURL(path.join(dir, '.tenancy', 'results', 'demo.w.json')).toString()]);
        expect((await lensTitles(document)).some(t => /^p99 16 ms \([\d.]+–[\d.]+\) ✓ SLO 25 ms/.test(t))).toBe(true);
    });
});

describe('tenantSummary', () => {
    it('marks partial runs and solo-only tenants', () => {
        const t = tenantResult('a', { uri: 'u', requests: 10, soloBase: 5, corunBase: 5 });
        // Ten requests bound no p99: the summary shows the median with its bounds instead.
        expect(tenantSummary({ ...t, corun: null }, 'cancelled')).toMatch(/^\(cancelled\) p50 5\.0\d ms \([\d.]+–[\d.]+\) · solo · 10 req$/);
    });
});

describe('slo-violated', () => {
    it('is a warning on the slo line when the latest run missed it, and goes away when it is met', async () => {
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri)));
        let document = await open();
        const violated = (document.diagnostics ?? []).filter(d => d.code === 'slo-violated');
        expect(violated).toHaveLength(1);
        expect(violated[0]!.range.start.line).toBe(9);
        expect(violated[0]!.message).toMatch(/^Measured p99 34 ms \([\d.]+–[\d.]+\) exceeds the SLO of 25 ms in the latest run: even its 95 % lower bound does \(.*, 400 requests\)\.$/);

        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri, 12)));
        services.results.ResultsWatch.invalidate([]);
        await services.shared.workspace.DocumentBuilder.update([document.uri], []);
        document = services.shared.workspace.LangiumDocuments.getDocument(document.uri)!;
        expect((document.diagnostics ?? []).filter(d => d.code === 'slo-violated')).toEqual([]);
    });
});

/** A connection that records what the server sends and hands back the notification handlers it registered. */
function recordingConnection() {
    const handlers = new Map<string, (params: unknown) => Promise<void>>();
    const sent: string[] = [];
    const connection = {
        onNotification: (method: string, handler: (params: unknown) => Promise<void>) => { handlers.set(method, handler); },
        onRequest: () => undefined,
        sendRequest: async (method: string) => { sent.push(method); },
        sendNotification: async (method: string) => { sent.push(method); },
        console: { error: (message: string) => { sent.push(`error: ${message}`); } },
    };
    return { connection: connection as never, handlers, sent };
}

const hintLabel = (h: InlayHint) => (typeof h.label === 'string' ? h.label : h.label.map(p => p.value).join(''));

describe('measured figures after a results change', () => {
    let server: ReturnType<typeof createTenancyServices>['Tenancy'];
    let recorded: ReturnType<typeof recordingConnection>;

    beforeEach(() => {
        server = createTenancyServices(NodeFileSystem).Tenancy;
        recorded = recordingConnection();
        registerResultsHandlers(recorded.connection, server);
        server.shared.lsp.LanguageServer.initialize({
            processId: null, rootUri: null, workspaceFolders: null,
            capabilities: { workspace: { codeLens: { refreshSupport: true }, inlayHint: { refreshSupport: true } } },
        });
        void server.shared.workspace.ConfigurationProvider.initialized({});
    });

    async function openHere(): Promise<LangiumDocument> {
        const document = server.shared.workspace.LangiumDocumentFactory.fromString(source, URI.parse(uri));
        server.shared.workspace.LangiumDocuments.addDocument(document);
        await server.shared.workspace.DocumentBuilder.build([document], { validation: true });
        return document;
    }

    async function opHints(document: LangiumDocument): Promise<Map<number, string>> {
        const d = server.shared.workspace.LangiumDocuments.getDocument(document.uri)!;
        const hints = await server.lsp.InlayHintProvider!.getInlayHints(d, { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 5, character: 0 } } }) ?? [];
        return new Map(hints.map(h => [h.position.line, hintLabel(h)]));
    }

    it('rebuild, ask the client to refresh lenses and inlay hints, whose op lines then carry the measured figures', async () => {
        const document = await openHere();
        expect([...(await opHints(document)).values()].some(l => l.includes('measured'))).toBe(false);
        // As a terminal run writes it: the client only forwards the file watcher's event.
        const file = writeResults('demo.w.json', makeResults(uri, 'w', [
            tenantResult('a', { uri, requests: 20, soloBase: 15, corunBase: 30, ops: [{ path: 'a/m/dense.0', line: 2, soloMs: 1, corunMs: 1.8 }] }),
            tenantResult('b', { uri, requests: 20, soloBase: 10, corunBase: 11, ops: [{ path: 'b/m/dense.0', line: 2, soloMs: 2, corunMs: 2.2 }, { path: 'b/m/dense.1', line: 3, soloMs: 0.5, corunMs: 0.6 }] }),
        ]));
        await recorded.handlers.get(ResultsChangedNotification.method)!({ changes: [{ uri: pathToFileURL(file).toString(), kind: 'created' }] });
        expect(recorded.sent).toEqual(['workspace/codeLens/refresh', 'workspace/inlayHint/refresh', MeasuredChangedNotification.method]);
        const hints = await opHints(document);
        // Line 2: tenant a's own op (shown first), with b counted; line 3: only b measured it, so b is shown.
        expect(hints.get(2)).toMatch(/^ ≈.* ±[\d.]+ %\?? · measured 1\.00 ms \([−+][\d.]+%, (inside|outside) band\) · co-run 1\.80 ms, 1\.80× solo \(a; 1 more tenant\)$/);
        expect(hints.get(3)).toMatch(/^ ≈.* ±[\d.]+ %\?? · measured 0\.50 ms \([−+][\d.]+%, (inside|outside) band\) · co-run 0\.60 ms, 1\.20× solo \(b; 1 more tenant\)$/);
    });

    it('refresh inlay hints when the tenancy settings change (tenancy.inlayHints.enabled)', async () => {
        const document = await openHere();
        expect((await opHints(document)).size).toBeGreaterThan(0);
        server.shared.workspace.ConfigurationProvider.updateConfiguration({ settings: { tenancy: { inlayHints: { enabled: false } } } });
        expect(recorded.sent).toEqual(['workspace/inlayHint/refresh']);
        expect((await opHints(document)).size).toBe(0);
    });

    it('say what was expected of a malformed change notification', async () => {
        await recorded.handlers.get(ResultsChangedNotification.method)!({ uris: ['x'] });
        expect(recorded.sent).toEqual([expect.stringMatching(/^error: tenancy\/resultsChanged: expected \{ changes: \[\{ uri, kind \}\] \}, found \{"uris":\["x"\]\}$/)]);
    });
});

describe('recorded predictions', () => {
    it('go into the report beside the measurement', async () => {
        await open();
        const results = makeResults(uri, 'w', twoTenants(uri));
        results.predictions = { profileFile: null, uncalibrated: true, prediction: { tenants: [{ name: 'a', corun: { p99: 28, p50: 20 }, ops: [{ path: 'a/m/dense', soloMs: 1.2, corunMs: 1.5 }] }] } };
        writeResults('demo.w.json', results);
        const report = reportFor(services.results.ResultsWatch, { uri, workload: 'w' });
        expect('report' in report && report.report.tenants[0]!.slos[0]!.predictedMs).toBe(28);
        expect('report' in report && report.report.ops.find(o => o.path === 'a/m/dense')!.predictedMs).toBe(1.5);
    });
});

describe('report and status', () => {
    it('build the report with the previous run from history', async () => {
        const document = await open();
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri), '2026-11-29T12:00:00.000Z'));
        writeResults('history/demo.w.2026-11-29T12-00-00.000Z.json', makeResults(uri, 'w', twoTenants(uri), '2026-11-29T12:00:00.000Z'));
        writeResults('history/demo.w.2026-11-29T11-00-00.000Z.json', makeResults(uri, 'w', twoTenants(uri, 40), '2026-11-29T11:00:00.000Z'));
        const result = reportFor(services.results.ResultsWatch, { uri, workload: 'w' });
        expect('report' in result && isReportModel(result.report)).toBe(true);
        if (!('report' in result)) return;
        expect(result.report.adapter).toBe('mesa llvmpipe (software)');
        expect(result.report.tenants.map(t => t.name)).toEqual(['a', 'b']);
        expect(result.report.tenants[0]!.corunLatenciesMs).toHaveLength(400);
        expect(result.report.ops).toHaveLength(3);
        expect(result.report.timeline).toHaveLength(6);
        expect(result.report.comparison?.previousFinishedAt).toBe('2026-11-29T11:00:00.000Z');
        expect(result.report.comparison?.rows.find(r => r.tenant === 'a' && r.metric === 'p99')).toMatchObject({ previousMs: expect.closeTo(43.96, 1), currentMs: expect.closeTo(33.96, 1) });
        const status = workspaceStatus(services.results.ResultsWatch, document, uri);
        expect(status).toMatchObject({ calibrated: false, adapter: 'mesa llvmpipe (software)', lastRun: { workload: 'w', status: 'complete' } });
    });
    it('say how to get results when there are none', () => {
        expect(reportFor(services.results.ResultsWatch, { uri, workload: 'w' })).toEqual({ error: expect.stringMatching(/^No results for workload w yet \(expected .*demo\.w\.json\): run it/) });
    });
});

describe('results location', () => {
    it('follows a workspace marker created after the first lookup once the watcher reports a change', () => {
        const watch = services.results.ResultsWatch;
        const sub = path.join(dir, 'sub');
        mkdirSync(sub);
        const subUri = pathToFileURL(path.join(sub, 'inner.tenancy')).toString();
        // The folder is remembered between lookups (one walk up the file system per folder and workspace state) …
        expect(watch.paths(subUri, 'w')?.latest).toBe(path.join(dir, '.tenancy', 'results', 'inner.w.json'));
        mkdirSync(path.join(sub, '.tenancy'));
        expect(watch.paths(subUri, 'w')?.latest).toBe(path.join(dir, '.tenancy', 'results', 'inner.w.json'));
        // … until a watched file changes (or the workspace does): then the nearer `.tenancy` wins, as for the CLI.
        watch.invalidate([pathToFileURL(path.join(sub, '.tenancy', 'results', 'inner.w.json')).toString()]);
        expect(watch.paths(subUri, 'w')?.latest).toBe(path.join(sub, '.tenancy', 'results', 'inner.w.json'));
    });
});
