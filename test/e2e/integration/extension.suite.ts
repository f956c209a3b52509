/**
 * Integration tests in the extension host, through the `vscode` API: the example workload
 * opens with diagnostics, hovers and code lenses from the server; "Run benchmark" runs the CLI
 * in a child process and the results file, the measured lens and the measured figures in the
 * inlay hints appear; the report renders.
 * The workspace (test/e2e/workspace.ts) holds examples/quick-start.tenancy and typo.tenancy.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TenancyApi } from '../../../src/extension/main.js';
import { CommandIds } from '../../../src/protocol/commands.js';
import type { RunOutcome } from '../../../src/extension/run.js';

const workload = 'quick_start';

function folder(): string {
    const f = vscode.workspace.workspaceFolders?.[0];
    assert.ok(f, 'expected the test workspace to be open');
    return f.uri.fsPath;
}

/** Resolves when `predicate` holds, re-checking on each event (never a fixed sleep). */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, events: vscode.Event<unknown>[], timeoutMs = 60_000): Promise<T> {
    const first = await probe();
    if (first !== undefined) return first;
    return new Promise<T>((resolve, reject) => {
        const subscriptions: vscode.Disposable[] = [];
        const done = () => { clearTimeout(timer); clearInterval(poll); subscriptions.forEach(s => s.dispose()); };
        const check = async () => {
            const value = await probe();
            if (value !== undefined) { done(); resolve(value); }
        };
        const timer = setTimeout(() => { done(); reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)); }, timeoutMs);
        // Some state (lenses, the file system) has no event of its own: re-probe every second too.
        const poll = setInterval(() => void check(), 1000);
        for (const event of events) subscriptions.push(event(() => void check()));
    });
}

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri) ?? [];
    return lenses.map(l => l.command?.title ?? '');
}

/** The document's inlay hints, as the editor asks for them (over the whole document). */
async function inlayHints(document: vscode.TextDocument): Promise<vscode.InlayHint[]> {
    const range = new vscode.Range(0, 0, document.lineCount, 0);
    return await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', document.uri, range) ?? [];
}

function hintText(hint: vscode.InlayHint): string {
    return typeof hint.label === 'string' ? hint.label : hint.label.map(p => p.value).join('');
}

function hoverText(hovers: vscode.Hover[]): string {
    return hovers.flatMap(h => h.contents.map(c => typeof c === 'string' ? c : 'value' in c ? c.value : '')).join('\n');
}

describe('Tenancy in the extension host', () => {
    let api: TenancyApi;
    let example: vscode.TextDocument;

    before(async () => {
        const extension = vscode.extensions.all.find(e => e.packageJSON.name === 'tenancy');
        assert.ok(extension, 'expected the Tenancy extension to be loaded');
        example = await vscode.workspace.openTextDocument(path.join(folder(), 'quick-start.tenancy'));
        await vscode.window.showTextDocument(example);
        api = await extension.activate() as TenancyApi;
        assert.ok(api.client()?.isRunning(), 'expected the language server to be running after activation');
    });

    it('reports a diagnostic with its code for a mistake', async () => {
        const typo = await vscode.workspace.openTextDocument(path.join(folder(), 'typo.tenancy'));
        const diagnostics = await until('diagnostics of typo.tenancy', () => {
            const list = vscode.languages.getDiagnostics(typo.uri);
            return list.length > 0 ? list : undefined;
        }, [vscode.languages.onDidChangeDiagnostics]);
        const codes = diagnostics.map(d => typeof d.code === 'object' ? d.code.value : d.code);
        assert.ok(codes.includes('unknown-op') || codes.includes('unresolved-reference'), `expected unknown-op, found ${JSON.stringify(diagnostics.map(d => [d.code, d.message]))}`);
        await vscode.window.showTextDocument(example);
    });

    it('shows the example without errors', async () => {
        const errors = await until('the example to be validated', async () => {
            const lenses = await lensTitles(example.uri);
            if (lenses.length === 0) return undefined; // not built yet
            return vscode.languages.getDiagnostics(example.uri).filter(d => d.severity === vscode.DiagnosticSeverity.Error);
        }, [vscode.languages.onDidChangeDiagnostics]);
        assert.deepEqual(errors.map(e => `${e.range.start.line + 1}: ${e.message}`), []);
    });

    it('hovers an operator', async () => {
        const line = example.getText().split('\n').findIndex(l => l.includes('conv2d('));
        const character = example.lineAt(line).text.indexOf('conv2d') + 2;
        const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', example.uri, new vscode.Position(line, character)) ?? [];
        const text = hoverText(hovers);
        assert.match(text, /conv2d/, `expected a hover for conv2d, found ${JSON.stringify(text)}`);
        assert.match(text, /Predicted/, `expected the op's prediction in its hover, found ${JSON.stringify(text)}`);
    });

    it('offers the run lenses on the workload and its tenants', async () => {
        const titles = await lensTitles(example.uri);
        assert.ok(titles.includes('▶ Run benchmark'), `expected "▶ Run benchmark" in ${JSON.stringify(titles)}`);
        assert.equal(titles.filter(t => t === '▶ Run solo').length, 2, `expected two "▶ Run solo" lenses in ${JSON.stringify(titles)}`);
    });

    it('runs the benchmark in a child process; the results file, the measured lens and the measured inlay hints appear', async () => {
        const results = path.join(folder(), '.tenancy', 'results', `quick-start.${workload}.json`);
        const before = existsSync(results) ? statSync(results).mtimeMs : 0;
        const outcome = await vscode.commands.executeCommand<RunOutcome | undefined>(CommandIds.runWorkload, { uri: example.uri.toString(), workload });
        assert.ok(outcome, 'expected the run command to return its outcome');
        assert.equal(outcome.status, 'succeeded', `expected the run to succeed, found ${JSON.stringify(outcome)}`);
        assert.ok(existsSync(results) && statSync(results).mtimeMs > before, `expected a fresh ${results}`);
        const summary = await until('the measured lens', async () => (await lensTitles(example.uri)).find(t => / ms .*req$/.test(t)), []);
        // code-lens.ts tenantSummary: the SLO statistic with its bounds and verdict, what it still needs, or a bounded percentile without an SLO.
        assert.match(summary, /^(\((partial|cancelled)\) )?(p\d+ [\d.]+ ms \([^)]*\) ([✓✗~]|inconclusive|invalid) SLO [\d.]+ ms|p\d+ n\/a: needs \d+ requests \(has \d+\) \(SLO [\d.]+ ms\)|p(99|50) [\d.]+ ms \([^)]*\)|no measured requests)/);
        // Inline figures: the server's inlay hints, the only inline view of measurements — one with `measured` on
        // each measured op line of this document (its models are defined in it), none elsewhere.
        const written = JSON.parse(readFileSync(results, 'utf8')) as { tenants: { ops: { soloMs: number | null; corunMs: number | null; source?: { uri: string; start: { line: number } } }[] }[] };
        const measuredLines = [...new Set(written.tenants.flatMap(t => t.ops)
            .filter(o => o.source?.uri === example.uri.toString() && (o.soloMs !== null || o.corunMs !== null)).map(o => o.source!.start.line))].sort((a, b) => a - b);
        assert.ok(measuredLines.length > 0, 'expected the run to measure ops defined in the example');
        const hints = await until('inlay hints with measured figures', async () => {
            const all = await inlayHints(example);
            return all.some(h => hintText(h).includes('measured')) ? all : undefined;
        }, []);
        // Op lines' hints start with the predicted time (`≈0.24 ms`), tenants' with `≈ p50`.
        const opHints = hints.filter(h => /^\s*≈\d/.test(hintText(h)));
        const withMeasured = opHints.filter(h => hintText(h).includes('measured'));
        assert.deepEqual([...new Set(withMeasured.map(h => h.position.line))].sort((a, b) => a - b), measuredLines,
            `expected measured figures on lines ${JSON.stringify(measuredLines)}, found ${JSON.stringify(withMeasured.map(h => [h.position.line, hintText(h)]))}`);
        // One hint per op line: the prediction first, then what was measured.
        const opLines = opHints.map(h => h.position.line);
        assert.equal(new Set(opLines).size, opLines.length, `expected one hint per op line, found ${JSON.stringify(opHints.map(h => [h.position.line, hintText(h)]))}`);
        for (const h of withMeasured) assert.match(hintText(h), /^\s*≈[\d.]+ (ms|µs|s)\?? ±[\d.]+%\?? · measured (co-run )?[\d.]+ (ms|µs|s) \(([−+][\d.]+%|n\/a)(, (inside|outside) band)?\)/);
        const tenantHints = hints.filter(h => /^\s*≈ p50/.test(hintText(h)));
        assert.equal(tenantHints.length, 2, `expected a hint per tenant, found ${JSON.stringify(hints.map(hintText))}`);
        // p99 when the run bounded it, else the highest percentile it did bound (and what p99 still needs).
        for (const h of tenantHints) assert.match(hintText(h), / · measured p\d+ [\d.]+ (ms|µs|s) \(/);

        // The op's hover carries the table, with the same measured figure as its line's hint (one decision, one view).
        const line = example.getText().split('\n').findIndex(l => l.includes('conv2d('));
        const hint = withMeasured.find(h => h.position.line === line);
        assert.ok(hint, `expected a measured figure on line ${line + 1} (conv2d), found ${JSON.stringify(withMeasured.map(h => [h.position.line, hintText(h)]))}`);
        // The hint's measured time and error; the hover's cell has no band verdict (`, inside band` is the hint's).
        const measuredHint = /measured ([\d.]+ (ms|µs|s)) \(([−+][\d.]+%|n\/a)/.exec(hintText(hint));
        const figure = measuredHint ? `${measuredHint[1]} (${measuredHint[3]})` : undefined;
        const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', example.uri, new vscode.Position(line, example.lineAt(line).text.indexOf('conv2d') + 2)) ?? [];
        assert.ok(figure && hoverText(hovers).includes(`| ${figure} |`), `expected the hint's ${JSON.stringify(figure)} in the hover table, found ${JSON.stringify(hoverText(hovers))}`);
    });

    it('turns the inlay hints off and on with tenancy.inlayHints.enabled', async () => {
        const settings = vscode.workspace.getConfiguration('tenancy');
        await settings.update('inlayHints.enabled', false, vscode.ConfigurationTarget.Workspace);
        try {
            await until('no inlay hints', async () => (await inlayHints(example)).length === 0 ? true : undefined, [], 30_000);
        } finally {
            await settings.update('inlayHints.enabled', undefined, vscode.ConfigurationTarget.Workspace);
        }
        await until('the inlay hints back', async () => (await inlayHints(example)).length > 0 ? true : undefined, [], 30_000);
    });

    it('opens the report and draws its charts', async () => {
        const rendered = new Promise<string[]>(resolve => {
            const sub = api.reports.onDidRender(e => { sub.dispose(); resolve(e.charts); });
        });
        const failed = new Promise<never>((_, reject) => {
            const sub = api.reports.onDidFail(e => { sub.dispose(); reject(new Error(`the report showed an error: ${e.message}`)); });
        });
        await vscode.commands.executeCommand(CommandIds.showReport, { uri: example.uri.toString(), workload });
        const charts = await Promise.race([rendered, failed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the report did not render within 30 s')), 30_000))]);
        assert.ok(charts.includes('chart-cdf'), `expected the latency CDF among ${JSON.stringify(charts)}`);
    });

    it('opens a merged sweep from its sweep.json (Tenancy: Open Sweep Results) and draws latency against load', async () => {
        const sweep = path.join(folder(), '.tenancy', 'sweeps', 'sweep-a');
        const rendered = new Promise<string[]>(resolve => {
            const sub = api.reports.onDidRender(e => { if (e.target.kind === 'sweep') { sub.dispose(); resolve(e.charts); } });
        });
        const failed = new Promise<never>((_, reject) => {
            const sub = api.reports.onDidFail(e => { if (e.target.kind === 'sweep') { sub.dispose(); reject(new Error(`the sweep view showed an error: ${e.message}`)); } });
        });
        await vscode.commands.executeCommand(CommandIds.openSweepResults, vscode.Uri.file(path.join(sweep, 'sweep.json')));
        const charts = await Promise.race([rendered, failed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the sweep view did not render within 30 s')), 30_000))]);
        assert.deepEqual(charts, ['chart-load-0-0', 'chart-load-0-1']);
    });

    it('shows the adapter, calibration and last run in the status item', async () => {
        const status = await until('the status after the run', () => api.status.current?.lastRun ? api.status.current : undefined, [], 30_000);
        assert.equal(status.lastRun?.workload, workload);
        assert.ok(status.adapter, `expected the adapter of the run, found ${JSON.stringify(status)}`);
        assert.equal(status.calibrated, existsSync(path.join(folder(), '.tenancy', 'device-profile.json')));
    });

    it('cancels a run: the child gets SIGTERM and the outcome is cancelled', async () => {
        const ref = { uri: example.uri.toString(), workload };
        const running = vscode.commands.executeCommand<RunOutcome | undefined>(CommandIds.runWorkload, ref);
        await until('the run to start', () => api.isRunning(ref.uri, workload) ? true : undefined, [], 30_000);
        await vscode.commands.executeCommand(CommandIds.cancelRun, ref);
        const outcome = await running;
        assert.equal(outcome?.status, 'cancelled', `expected a cancelled run, found ${JSON.stringify(outcome)}`);
        assert.equal(api.isRunning(ref.uri, workload), false);
    });

    it('says why when a lens payload is malformed instead of running', async () => {
        const outcome = await vscode.commands.executeCommand(CommandIds.runWorkload, { uri: example.uri.toString() });
        assert.equal(outcome, undefined);
    });
});
