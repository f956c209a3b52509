import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { URI, type LangiumDocument } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InlayHint } from 'vscode-languageserver';
import { CommandIds } from '../../../src/protocol/commands.js';
import { MeasuredChangedNotification, ResultsChangedNotification } from '../../../src/protocol/messages.js';
import { isReportModel } from '../../../src/protocol/report.js';
import { isComparisonReportModel } from '../../../src/protocol/comparison-report.js';
import type { Comparison } from '../../../src/runtime/report/compare.js';
import { tenantSummary } from '../../../src/language-server/lsp/code-lens.js';
import { comparisonSummary, measuredGain, measuredGainOf } from '../../../src/language-server/lsp/measured-comparison.js';
import { comparisonReportFor, registerResultsHandlers, reportFor, workspaceStatus } from '../../../src/language-server/lsp/results-watch.js';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { makeComparison } from '../../fixtures/results/make-comparison.js';
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
/** What the server logged (files it ignored). */
let logged: string[];
let services: ReturnType<typeof createTenancyServices>['Tenancy'];

beforeEach(() => {
    logged = [];
    dir = mkdtempSync(path.join(tmpdir(), 'tenancy-results-'));
    mkdirSync(path.join(dir, '.tenancy', 'results', 'history'), { recursive: true });
    uri = pathToFileURL(path.join(dir, 'demo.tenancy')).toString();
    writeFileSync(path.join(dir, 'demo.tenancy'), source);
    // Node file system: rebuilding a document after a results change reloads it like the server does.
    services = createTenancyServices(NodeFileSystem).Tenancy;
    // The validation check is registered with the handlers; a stub connection takes the rest.
    const stub = { onNotification: () => undefined, onRequest: () => undefined, console: { warn: (message: string) => logged.push(message) } } as never;
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
        expect(lenses.map(l => l.command!.title)).toEqual(['▶ Run benchmark', '▶ Compare schedules', '⟳ Calibrate device', '▶ Run solo', '▶ Run solo']);
        expect(lenses[0]!.command).toMatchObject({ command: CommandIds.runWorkload, arguments: [{ uri, workload: 'w' }] });
        expect(lenses[0]!.range.start.line).toBe(6);
        expect(lenses[1]!.command).toMatchObject({ command: CommandIds.compareSchedules, arguments: [{ uri, workload: 'w' }] });
        expect(lenses[1]!.range.start.line).toBe(6);
        expect(lenses[3]!.command).toMatchObject({ command: CommandIds.runTenantSolo, arguments: [{ uri, workload: 'w', tenant: 'a' }] });
        expect(lenses[3]!.range.start.line).toBe(7);
    });

    it('show the measured summary per tenant and the report after a run; calibrate disappears with a profile', async () => {
        const document = await open();
        writeResults('demo.w.json', makeResults(uri, 'w', twoTenants(uri)));
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ adapter: { vendor: 'mesa', device: 'llvmpipe' } }));
        const titles = await lensTitles(document);
        expect(titles[0]).toBe('▶ Run benchmark');
        expect(titles).not.toContain('⟳ Calibrate device');
        expect(titles[2]).toMatch(/^\$\(graph\) Report \(run at .*, complete\)$/);
        // Every figure with its 95 % bounds or interval: a's p99 (400 requests bound it) and its SLO verdict, b's median (50 do not bound a p99).
        expect(titles.some(t => /^p99 34 ms \(33\.9\d*–34\) ✗ SLO 25 ms · 1\.79× slower \([\d.]+–[\d.]+\) vs solo · 400 req$/.test(t)), titles.join('\n')).toBe(true);
        expect(titles.some(t => /^p50 11\.2 ms \([\d.]+–[\d.]+\) · 1\.\d\d× slower \([\d.]+–[\d.]+\) vs solo · 50 req$/.test(t)), titles.join('\n')).toBe(true);
    });

    it('read a results path that runs through a file as no results, not an error', async () => {
        const document = await open();
        rmSync(path.join(dir, '.tenancy', 'results'), { recursive: true });
        writeFileSync(path.join(dir, '.tenancy', 'results'), 'not a folder');
        expect(services.results.ResultsWatch.latest(uri, 'w')).toEqual({ kind: 'missing', path: path.join(dir, '.tenancy', 'results', 'demo.w.json') });
        expect(await lensTitles(document)).toEqual(['▶ Run benchmark', '▶ Compare schedules', '⟳ Calibrate device', '▶ Run solo', '▶ Run solo']);
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
    // The server names its messages by their typed message objects (lsp/messages.ts), or LSP's own.
    type Message = { method: string };
    const connection = {
        onNotification: (type: Message, handler: (params: unknown) => Promise<void>) => { handlers.set(type.method, handler); },
        onRequest: () => undefined,
        sendRequest: async (type: Message) => { sent.push(type.method); },
        sendNotification: async (type: Message) => { sent.push(type.method); },
        console: { error: (message: string) => { sent.push(`error: ${message}`); }, warn: (message: string) => { sent.push(`warn: ${message}`); } },
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
        expect(hints.get(2)).toMatch(/^ ≈.* ±[\d.]+%\?? · measured 1 ms \([−+][\d.]+%, (inside|outside) band\) · co-run 1\.8 ms, 1\.80× solo \((inside|outside) band\) \(a; 1 more tenant\)$/);
        expect(hints.get(3)).toMatch(/^ ≈.* ±[\d.]+%\?? · measured 0\.5 ms \([−+][\d.]+%, (inside|outside) band\) · co-run 0\.6 ms, 1\.20× solo \((inside|outside) band\) \(b; 1 more tenant\)$/);
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
        // As recordedPredictions writes them: each SLO's prediction with its band (an unbounded end as null), each op's co-run band.
        results.predictions = {
            profileFile: null, uncalibrated: true, prediction: {
                tenants: [{
                    name: 'a', corun: { p99: 28, p50: 20 }, slos: [{ percentile: 'p99', corunMs: 28, corunBandMs: { low: 21, high: null } }],
                    ops: [{ path: 'a/m/dense', soloMs: 1.2, corunMs: 1.5, corunBand: { relative: 0.35, calibrated: true } }],
                }],
            },
        };
        writeResults('demo.w.json', results);
        const report = reportFor(services.results.ResultsWatch, { uri, workload: 'w' });
        if (!('report' in report)) throw new Error('no report');
        expect(report.report.tenants[0]!.slos[0]).toMatchObject({ predictedMs: 28, predictedLowMs: 21, predictedHighMs: null });
        expect(report.report.ops.find(o => o.path === 'a/m/dense')).toMatchObject({ predictedMs: 1.5, predictedBand: 0.35 });
    });

    it('from a run recorded before the bands: the figures, with no band', async () => {
        await open();
        const results = makeResults(uri, 'w', twoTenants(uri));
        results.predictions = { profileFile: null, uncalibrated: true, prediction: { tenants: [{ name: 'a', corun: { p99: 28, p50: 20 }, ops: [{ path: 'a/m/dense', soloMs: 1.2, corunMs: 1.5 }] }] } };
        writeResults('demo.w.json', results);
        const report = reportFor(services.results.ResultsWatch, { uri, workload: 'w' });
        if (!('report' in report)) throw new Error('no report');
        expect(report.report.tenants[0]!.slos[0]).toMatchObject({ predictedMs: 28, predictedLowMs: null, predictedHighMs: null });
        expect(report.report.ops.find(o => o.path === 'a/m/dense')).toMatchObject({ predictedMs: 1.5, predictedBand: undefined });
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
    it('treat results and profile files as untrusted: malformed or hostile ones are reported, never thrown, and names come back as plain one-line text', async () => {
        const document = await open();
        const watch = services.results.ResultsWatch;
        const hostile = '<img src=x onerror=alert(1)> [run](command:workbench.action.terminal.new) $(alert)\n'.repeat(200);
        // Not JSON: an unreadable-results lens, the report says why in text.
        writeFileSync(path.join(dir, '.tenancy', 'results', 'demo.w.json'), hostile);
        watch.invalidate([pathToFileURL(path.join(dir, '.tenancy', 'results', 'demo.w.json')).toString()]);
        expect(await lensTitles(document)).toContain('⚠ Results unreadable — show report for details');
        expect(reportFor(watch, { uri, workload: 'w' })).toEqual({ error: expect.stringMatching(/^The results file .*demo\.w\.json cannot be read: /) });
        // Valid JSON of the wrong shape, and numbers where strings belong: reported, not thrown.
        for (const value of [null, [], 'text', { schemaVersion: '1', tenants: 'all' }, { ...makeResults(uri, 'w', twoTenants(uri)), tenants: [{ name: 42 }] }]) {
            writeResults('demo.w.json', value);
            watch.invalidate([pathToFileURL(path.join(dir, '.tenancy', 'results', 'demo.w.json')).toString()]);
            expect(await lensTitles(document)).toContain('⚠ Results unreadable — show report for details');
            expect('error' in reportFor(watch, { uri, workload: 'w' })).toBe(true);
        }
        // Schema-valid, hostile strings: the adapter's name is one plain line without icon syntax.
        const results = makeResults(uri, 'w', twoTenants(uri));
        writeResults('demo.w.json', { ...results, adapter: { ...results.adapter, vendor: hostile, device: hostile, description: hostile }, reason: hostile });
        watch.invalidate([pathToFileURL(path.join(dir, '.tenancy', 'results', 'demo.w.json')).toString()]);
        const report = reportFor(watch, { uri, workload: 'w' });
        expect('report' in report).toBe(true);
        const shown = workspaceStatus(watch, document, uri).adapter!;
        expect(shown).not.toMatch(/[\n\r]|\$\(/);
        expect(shown.length).toBeLessThanOrEqual(80);
        // The device profile: malformed (it exists, no adapter is named), then hostile.
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), '{"adapter": ');
        expect(watch.deviceProfile(uri)).toEqual({ exists: true, adapter: undefined });
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ adapter: { vendor: hostile, architecture: hostile } }));
        expect(watch.deviceProfile(uri).adapter).not.toMatch(/[\n\r]|\$\(/);
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

describe('comparisons of schedules', () => {
    // Each comparison bootstraps its intervals (seconds each, minutes on a loaded host): built once, given the test's document.
    let better: Comparison, noGain: Comparison, worse: Comparison;
    beforeAll(() => {
        better = makeComparison('file:///fixture/demo.tenancy', 'w', { layerBlockMs: 8 });
        noGain = makeComparison('file:///fixture/demo.tenancy', 'w', { layerBlockMs: 40 });
        worse = makeComparison('file:///fixture/demo.tenancy', 'w', { layerBlockMs: 60 });
    }, 600_000);
    const writeComparison = (comparison: Comparison | object) =>
        writeResults('demo.w.compare.json', 'schedules' in comparison ? { ...comparison, sourceUri: uri } : comparison);

    it('show the measured best on the workload after a comparison, opening the comparison report', async () => {
        const document = await open();
        writeComparison(better);
        const lenses = (await services.lsp.CodeLensProvider!.provideCodeLens(document, { textDocument: { uri } }))!;
        const best = lenses.find(l => l.command!.command === CommandIds.showComparison)!;
        expect(best.command!.title).toMatch(/^\$\(graph\) measured best: layer_block\(size: 4\) — a's p99 predicted 4\.00×, measured \d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\)$/);
        expect(best.command!.arguments).toEqual([{ uri, workload: 'w' }]);
        expect(best.range.start.line).toBe(6);
        // Right after the compare lens, before calibrate.
        expect(lenses.map(l => l.command!.title).slice(0, 3)).toEqual(['▶ Run benchmark', '▶ Compare schedules', best.command!.title]);

        const report = comparisonReportFor(services.results.ResultsWatch, { uri, workload: 'w' });
        expect('comparison' in report && isComparisonReportModel(report.comparison)).toBe(true);
        if (!('comparison' in report)) return;
        expect(report.comparison).toMatchObject({ workload: 'w', file: 'demo.tenancy', baseline: 'concurrent', best: 'layer_block(size: 4)', status: 'complete', adapter: 'mesa llvmpipe (software)' });
        expect(report.comparison.schedules.map(s => [s.name, s.asked, s.baseline])).toEqual([
            ['concurrent', 'concurrent', true], ['layer_block(size: 4)', 'layer_block(size: auto)', false], ['sequential', 'sequential', false],
        ]);
        expect(report.comparison.schedules[1]!.headline).toMatchObject({ metric: 'latency', tenant: 'a', statistic: 'p99', predicted: 4, measured: { verdict: 'better' } });
        expect(report.comparison.resultsPath).toBe(path.join(dir, '.tenancy', 'results', 'demo.w.compare.json'));
    });

    it('give other features the measured gain beside the predicted one, by the schedule as written or as it ran', () => {
        writeComparison(better);
        const watch = services.results.ResultsWatch;
        expect(watch.measuredComparison(uri, 'w')?.best).toBe('layer_block(size: 4)');
        const asked = measuredGain(watch, uri, 'w', 'layer_block(size:auto)')!;
        expect(asked).toMatchObject({ schedule: 'layer_block(size: 4)', asked: 'layer_block(size: auto)', baseline: 'concurrent', what: "a's p99", predicted: 4, betterThanBaseline: 'confirmed', complete: true, valid: true });
        expect(asked.text).toMatch(/^predicted 4\.00×, measured (\d+\.\d\d)× \((\d+\.\d\d)–(\d+\.\d\d)\)$/);
        expect(asked.measured!.low!).toBeGreaterThan(1);
        expect(measuredGain(watch, uri, 'w', 'layer_block(size: 4)')).toEqual(asked);
        // The baseline has no gain over itself; a schedule not compared has none at all.
        expect(measuredGain(watch, uri, 'w', 'concurrent')).toBeUndefined();
        expect(measuredGain(watch, uri, 'w', 'round_robin')).toBeUndefined();
        expect(measuredGain(watch, uri, 'other', 'sequential')).toBeUndefined();
    });

    it('judge a prediction contradicted when the measurement is worse, or no gain with the predicted one ruled out', () => {
        const none = measuredGainOf(noGain, 'layer_block(size: auto)')!;
        expect(none.measured!.verdict).toBe('no-change');
        expect(none.measured!.low!).toBeLessThan(1);
        expect(none.measured!.high!).toBeLessThan(4);
        expect(none.betterThanBaseline).toBe('contradicted');
        const worseGain = measuredGainOf(worse, 'layer_block(size: auto)')!;
        expect(worseGain.measured).toMatchObject({ verdict: 'worse' });
        expect(worseGain.measured!.high!).toBeLessThan(1);
        expect(worseGain.betterThanBaseline).toBe('contradicted');
        // sequential: predicted 1.2×, its interval holds both 1 and 1.2: nothing is ruled out.
        const sequential = measuredGainOf(noGain, 'sequential')!;
        expect(sequential.measured!.low!).toBeLessThan(1);
        expect(sequential.measured!.high!).toBeGreaterThan(1.2);
        expect(sequential.betterThanBaseline).toBe('inconclusive');
        expect(comparisonSummary(noGain)).toBe('concurrent stays best (measured against 2 other schedules)');
        expect(comparisonSummary({ ...noGain, status: 'cancelled', valid: false })).toBe('(cancelled) concurrent stays best (measured against 2 other schedules) · not valid');
    });

    it('ignore a comparison file of another schema version, say so on the lens and in the log once per version of the file', async () => {
        const document = await open();
        const file = writeComparison({ schemaVersion: 2, kind: 'comparison' });
        const titles = await lensTitles(document);
        expect(titles).toContain('⚠ Comparison unreadable — show it for details');
        expect(titles.some(t => t.startsWith('$(graph) measured best'))).toBe(false);
        expect(services.results.ResultsWatch.measuredComparison(uri, 'w')).toBeUndefined();
        expect(comparisonReportFor(services.results.ResultsWatch, { uri, workload: 'w' })).toEqual({
            error: `The comparison file ${file} cannot be read: comparison written by a newer Tenancy (comparison schema 2; this one reads 1): update Tenancy`,
        });
        expect(logged).toEqual([`Tenancy: ignoring the comparison file ${file}: comparison written by a newer Tenancy (comparison schema 2; this one reads 1): update Tenancy`]);
        // A file that fits no schema is invalid too, and logged when it changes.
        writeComparison({ ...better, schedules: 'none' });
        services.results.ResultsWatch.invalidate([pathToFileURL(file).toString()]);
        expect(services.results.ResultsWatch.latestComparison(uri, 'w')).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/^invalid comparison file: schedules: /) });
        expect(logged).toHaveLength(2);
    });

    it('say how to get a comparison when there is none, and offer no measured lens', async () => {
        const document = await open();
        expect((await lensTitles(document)).filter(t => t.includes('omparison') || t.includes('measured best'))).toEqual([]);
        expect(comparisonReportFor(services.results.ResultsWatch, { uri, workload: 'w' })).toEqual({
            error: `No comparison of schedules for workload w yet (expected ${path.join(dir, '.tenancy', 'results', 'demo.w.compare.json')}): compare them with "▶ Compare schedules" or \`tenancy compare\`.`,
        });
        expect(comparisonReportFor(services.results.ResultsWatch, { uri })).toEqual({ error: 'tenancy/comparisonReport expected { uri, workload }, found {"uri":"' + uri + '"}' });
    });
});
