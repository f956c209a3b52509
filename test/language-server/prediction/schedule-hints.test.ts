/**
 * Schedule hints in the language server (schedule-hints.ts) on open documents, edited as the
 * server edits them (TextDocuments + the builder's update, as on didChange): the hint arrives
 * after the build, off the check; where it goes; the quick fix and its formatted result; the
 * hover table; debounce, cancellation by an edit and resumption; no flicker while recomputing;
 * after a `tenancy compare` (its file on disk, read by ResultsWatch), the measured gain in the
 * hint and the hover, and a hint withdrawn by a measurement that contradicts it.
 * Figures come from the uncalibrated default profile (the one schedule simulation).
 */
import { EmptyFileSystem, URI, type LangiumDocument } from 'langium';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { CodeAction, type Diagnostic } from 'vscode-languageserver';
import { TextDocument } from 'langium';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { isWorkload, type Document } from '../../../src/language-server/generated/ast.js';
import { IssueCodes } from '../../../src/language-server/validation/issue-codes.js';
import { HINT_BAND } from '../../../src/language-server/prediction/schedule-comparison.js';
import { editorComparisonLimits } from '../../../src/language-server/prediction/schedule-hints.js';
import { resolveSchedule } from '../../../src/runtime/predict/schedules.js';
import { compareWorkloadSchedules } from '../../../src/language-server/prediction/schedule-comparison.js';
import { formatMs } from '../../../src/protocol/units.js';
import type { Comparison } from '../../../src/runtime/report/compare.js';
import { makeComparison } from '../../fixtures/results/make-comparison.js';

const { shared, Tenancy } = createTenancyServices(EmptyFileSystem);
const hints = Tenancy.prediction.ScheduleHints;
let count = 0;

/**
 * A latency-critical tenant beside a closed-loop batch tenant. Predicted: sequential queues the
 * small tenant behind whole batch requests (its p95 SLO met at no load), regulated(split: auto,
 * sync: auto) meets it at about 18× sequential's QoS-satisfied throughput.
 */
const rescue = (schedule: string, rate = '40/s', slo = '\n    slo p95 <= 25ms') => `workload rescue {
  tenant small {
    model mlp(batch: 1)
    arrival poisson(rate: ${rate})${slo}
    priority high
  }

  tenant batch {
    model mlp(batch: 64, hidden: 2048)
    arrival closed(clients: 1)
    priority low
  }
${schedule}}
`;

/** Opens a document in the editor (TextDocuments) and builds it as didOpen does. */
async function open(text: string, uri = `file:///hints/doc${count++}.tenancy`): Promise<LangiumDocument<Document>> {
    shared.workspace.TextDocuments!.set(TextDocument.create(uri, 'tenancy', 1, text));
    await shared.workspace.DocumentBuilder.update([URI.parse(uri)], []);
    return shared.workspace.LangiumDocuments.getDocument(URI.parse(uri)) as LangiumDocument<Document>;
}

/** Replaces the document's text and rebuilds it as didChange does. */
async function edit(doc: LangiumDocument, text: string): Promise<void> {
    const uri = doc.uri.toString();
    shared.workspace.TextDocuments!.set(TextDocument.create(uri, 'tenancy', doc.textDocument.version + 1, text));
    await shared.workspace.DocumentBuilder.update([doc.uri], []);
}

const hintsOf = (doc: LangiumDocument): Diagnostic[] => (doc.diagnostics ?? []).filter(d => d.code === IssueCodes.ScheduleHint);
const textAt = (doc: LangiumDocument, d: Diagnostic) => doc.textDocument.getText(d.range);

/** The quick fixes offered for a diagnostic, with the text each gives. */
async function fixes(doc: LangiumDocument, diagnostic: Diagnostic): Promise<{ title: string; text: string }[]> {
    const actions = ((await Tenancy.lsp.CodeActionProvider!.getCodeActions(doc, {
        textDocument: { uri: doc.uri.toString() }, range: diagnostic.range, context: { diagnostics: [diagnostic], triggerKind: 1 },
    })) ?? []).filter(CodeAction.is);
    return actions.map(a => ({ title: a.title, text: TextDocument.applyEdits(doc.textDocument, a.edit!.changes![doc.uri.toString()]!) }));
}

/** The formatter's edits for a text (none when it is formatted). */
async function formatterEdits(text: string) {
    const doc = await open(text);
    return Tenancy.lsp.Formatter!.formatDocument(doc, { textDocument: { uri: doc.uri.toString() }, options: { tabSize: 2, insertSpaces: true } });
}

/** The hover at a word, once the document's comparisons are done (as after a pause in typing). */
async function hoverAt(doc: LangiumDocument, word: string): Promise<string> {
    await hints.idle();
    const offset = doc.textDocument.getText().indexOf(word) + 1;
    const hover = await Tenancy.lsp.HoverProvider!.getHoverContent(doc, { textDocument: { uri: doc.uri.toString() }, position: doc.textDocument.positionAt(offset) });
    return (hover?.contents as { value: string } | undefined)?.value ?? '';
}

// The user cache of this machine (a calibrated profile) must not leak into the tests: the default profile.
const savedCache = process.env.XDG_CACHE_HOME;
beforeAll(() => { process.env.XDG_CACHE_HOME = mkdtempSync(path.join(tmpdir(), 'tenancy-hints-')); });
afterAll(() => {
    rmSync(process.env.XDG_CACHE_HOME!, { recursive: true, force: true });
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
});
beforeEach(() => {
    hints.debounceMs = 0;
    hints.band = HINT_BAND;
});
afterEach(() => hints.idle());

describe('schedule hints', () => {
    test('arrive after the build, on the schedule line; the quick fix rewrites it and the hint goes', async () => {
        const published: string[] = [];
        const listener = hints.onPublished(p => published.push(p.uri));
        const doc = await open(rescue('  schedule sequential\n'));
        // The check itself never simulates: right after the build there is nothing to show yet.
        expect(hintsOf(doc)).toEqual([]);
        await hints.idle();
        listener.dispose();
        const [hint] = hintsOf(doc);
        expect(published).toEqual([doc.uri.toString()]);
        expect(hint.severity).toBe(3);
        expect(hint.data).toEqual({ code: IssueCodes.ScheduleHint, schedule: 'regulated(split: auto, sync: auto)' });
        expect(textAt(doc, hint)).toBe('schedule sequential');
        expect(hint.message).toMatch(/^regulated\(split: auto, sync: auto\) is predicted to meet small's p95 \(\d+(\.\d+)? ms vs \d+(\.\d+)? ms\) at \d+\.\d\d× the QoS-satisfied throughput \(\d+(\.\d+)?\/s vs \d+(\.\d+)?\/s\)$/);

        const [fix] = await fixes(doc, hint);
        expect(fix.title).toBe("Change to 'schedule regulated(split: auto, sync: auto)'");
        expect(fix.text).toBe(rescue('  schedule regulated(split: auto, sync: auto)\n'));
        // The comparison does not depend on the schedule line: the fixed text needs no new simulation and has no hint.
        const steps = hints.stats.steps;
        await edit(doc, fix.text);
        expect(hintsOf(doc)).toEqual([]);
        await hints.idle();
        expect(hintsOf(doc)).toEqual([]);
        expect(hints.stats.steps).toBe(steps);
    }, 60_000);

    test('on the workload name without a schedule line; the quick fix adds the line where the formatter keeps it', async () => {
        // Concurrent (the default) loses to regulated by about 1.2×: a hint only with a narrower band.
        hints.band = 0.1;
        const doc = await open(rescue(''));
        await hints.idle();
        const [hint] = hintsOf(doc);
        expect(textAt(doc, hint)).toBe('rescue');
        expect(hint.message).toMatch(/^regulated\(split: auto, sync: auto\) is predicted to .* the QoS-satisfied throughput .*; small\/mlp\/dense\.0 and batch\/mlp\/dense\.0 collide$/);
        const [fix] = await fixes(doc, hint);
        expect(fix.title).toBe("Add 'schedule regulated(split: auto, sync: auto)'");
        expect(fix.text).toBe(rescue('\n  schedule regulated(split: auto, sync: auto)\n'));
        expect(await formatterEdits(fix.text)).toEqual([]);
        // Before a benchmark block, with its spacing (its duration does not change the comparison: no new simulation).
        const steps = hints.stats.steps;
        const withBenchmark = rescue('\n  benchmark {\n    duration 2s\n  }\n');
        const benchmarked = await open(withBenchmark);
        await hints.idle();
        const [fixed] = await fixes(benchmarked, hintsOf(benchmarked)[0]);
        expect(fixed.text).toBe(rescue('\n  schedule regulated(split: auto, sync: auto)\n\n  benchmark {\n    duration 2s\n  }\n'));
        expect(await formatterEdits(fixed.text)).toEqual([]);
        expect(hints.stats.steps).toBe(steps);
    }, 60_000);

    test('no hint within the band, for one tenant, without SLOs', async () => {
        // Beside a batch tenant of smaller kernels (a kernel waits for the co-runner's kernel in service: behind
        // mlp(batch: 64, hidden: 2048) every schedule but regulated and layer_block misses small's SLO), regulated
        // and sequential are within the band of each other.
        const within = await open(rescue('  schedule regulated(split: auto, sync: auto)\n').replace('mlp(batch: 64, hidden: 2048)', 'mlp(batch: 16, hidden: 2048)'));
        const solo = await open('workload solo {\n  tenant small {\n    model mlp(batch: 1)\n    arrival poisson(rate: 40/s)\n    slo p95 <= 25ms\n  }\n  schedule sequential\n}\n');
        const noSlo = await open(rescue('  schedule sequential\n', '40/s', ''));
        await hints.idle();
        expect(hintsOf(within)).toEqual([]);
        expect(hintsOf(solo)).toEqual([]);
        expect(hintsOf(noSlo)).toEqual([]);
        const workload = (within.parseResult.value.elements.find(isWorkload))!;
        // The declared schedule is not the best, only not worse by the band.
        const comparison = hints.comparison(workload)!;
        expect(comparison.current?.name).toBe('regulated(split: auto, sync: auto)');
        expect(comparison.best.name).not.toBe(comparison.current?.name);
        expect(comparison.best.qosThroughput).toBeLessThan((1 + HINT_BAND) * comparison.current!.qosThroughput);
    }, 60_000);

    test('hover on schedule: every schedule\'s figures, verdicts and throughput, the current and best marked, why; auto marks its choice', async () => {
        const doc = await open(rescue('  schedule sequential\n'));
        const hover = await hoverAt(doc, 'schedule');
        expect(hover).toContain('**Schedules compared**');
        expect(hover).toContain('| schedule | small p50 · p95 · p99 ms (SLO p95 ≤ 25) | batch p50 · p99 ms | QoS-satisfied throughput |  |');
        for (const name of ['concurrent', 'layer_block(size: auto)', 'regulated(split: auto, sync: auto) → regulated(split: ']) expect(hover).toContain(`| ${name}`);
        // Each figure with its 90 % band (a band past 100 % has no upper end).
        const f = String.raw`[\d.]+ \((?:[\d.]+–[\d.]+|≥ [\d.]+)\)`;
        // The QoS-satisfied load with its range (the uncalibrated profile's wide bands often leave it unbounded).
        const load = String.raw`(?:[\d.]+–[\d.]+×|[≥≤] [\d.]+×|no bound)`;
        expect(hover).toMatch(new RegExp(String.raw`\| sequential \| ${f} · ${f} · ${f} ✗ \| ${f} · ${f} \| [\d.]+\/s at [\d.]+× the load \(${load}\) \| current \|`));
        expect(hover).toContain("Ranges: each figure's 90 % band");
        expect(hover).toMatch(new RegExp(String.raw`\| regulated.* ✓ \| .* \| [\d.]+\/s at [\d.]+× the load \(${load}\) \| best \(auto would run it\) \|`));
        expect(hover).toMatch(/Best: regulated\(split: auto, sync: auto\) — /);
        expect(hover).toMatch(/Hint: regulated/);

        const auto = await open(rescue('  schedule auto\n'));
        const autoHover = await hoverAt(auto, 'schedule');
        const workload = auto.parseResult.value.elements.find(isWorkload)!;
        const view = Tenancy.prediction.Predictions.forWorkload(workload)!;
        // The row marked is what the runtime resolves auto to on the same profile.
        const chosen = resolveSchedule(view.ir, view.profile.profile).schedule;
        expect(autoHover).toMatch(new RegExp(`\\| ${chosen.policy}[^\\n]*\\| current \\(auto's choice\\) \\|`));
        expect(hintsOf(auto)).toEqual([]);

        // A schedule that is not a candidate is evaluated too and listed last (co_tuned on the uncalibrated profile, where it is no candidate).
        const own = await hoverAt(await open(rescue('  schedule layer_block(size: 2)\n')), 'schedule');
        // It splits the low-priority batch tenant's long op within, as the runtime would: the row says what runs.
        expect(own).toMatch(/\| layer_block\(size: 2\) → layer_block\(size: 2; 1 op split within\) \| [^\n]* \| current \|\n\nRanges: [^\n]*\nBest: /);
        const coTuned = await hoverAt(await open(rescue('  schedule co_tuned(variants: 2)\n')), 'schedule');
        expect(coTuned).toMatch(/\| co_tuned\(variants: 2\) → co_tuned\(variants: 2; small: C \d+%, batch: C \d+%\) \| [^\n]* \| current \|\n\nRanges: [^\n]*\nBest: /);
    }, 60_000);

    test('an edit cancels the running comparison; it resumes where it stopped, not from the start', async () => {
        const text = rescue('  schedule sequential\n', '30/s');
        // The steps one uninterrupted comparison of this content takes, on fresh services.
        const fresh = createTenancyServices(EmptyFileSystem);
        const freshHints = fresh.Tenancy.prediction.ScheduleHints;
        freshHints.debounceMs = 0;
        fresh.shared.workspace.TextDocuments!.set(TextDocument.create('file:///fresh.tenancy', 'tenancy', 1, text));
        await fresh.shared.workspace.DocumentBuilder.update([URI.parse('file:///fresh.tenancy')], []);
        await freshHints.idle();
        const uninterrupted = freshHints.stats.steps;

        const before = { ...hints.stats };
        const doc = await open(text);
        while (hints.stats.steps < before.steps + 3) await new Promise(resolve => setImmediate(resolve));
        // A comment: the text changes, the workload's content does not.
        await edit(doc, `// tuned\n${text}`);
        expect(hints.stats.cancelled).toBe(before.cancelled + 1);
        await hints.idle();
        expect(hintsOf(doc)).toHaveLength(1);
        expect(hints.stats.comparisons).toBe(before.comparisons + 1);
        expect(hints.stats.steps - before.steps).toBe(uninterrupted);
    }, 60_000);

    test('debounced: a burst of edits compares only the last text; the hint shown meanwhile does not flicker', async () => {
        hints.debounceMs = 300;
        const doc = await open(rescue('  schedule sequential\n', '41/s'));
        await hints.idle();
        expect(hintsOf(doc)).toHaveLength(1);
        const before = { ...hints.stats };
        for (const rate of [42, 43, 44]) {
            await edit(doc, rescue('  schedule sequential\n', `${rate}/s`));
            // The last hint stays on the line until the new comparison is done.
            expect(hintsOf(doc).map(d => textAt(doc, d))).toEqual(['schedule sequential']);
        }
        expect(hints.stats.steps).toBe(before.steps);
        await hints.idle();
        expect(hints.stats.comparisons).toBe(before.comparisons + 1);
        expect(hintsOf(doc)[0].message).toMatch(/^regulated\(split: auto, sync: auto\) is predicted to meet small's p95/);
    }, 60_000);

    test('documents not open in the editor get no comparison, only their schedule simulated off the build; hints off gives none', async () => {
        const before = { ...hints.stats };
        const uri = URI.parse(`file:///hints/closed${count++}.tenancy`);
        const text = rescue('  schedule sequential\n', '35/s');
        const closed = shared.workspace.LangiumDocumentFactory.fromString<Document>(text, uri);
        shared.workspace.LangiumDocuments.addDocument(closed);
        await shared.workspace.DocumentBuilder.build([closed], { validation: true });
        // The build simulated nothing: the co-run figures wait for the job.
        const workload = () => closed.parseResult.value.elements.find(isWorkload)!;
        expect(Tenancy.prediction.Predictions.forWorkload(workload())!.prediction.corunPending).toBe(true);
        expect(hints.stats.steps).toBe(before.steps);
        const published: string[] = [];
        const listener = hints.onPublished(p => published.push(p.uri));
        await hints.idle();
        listener.dispose();
        expect(hints.stats.comparisons).toBe(before.comparisons);
        expect(hints.stats.steps).toBe(before.steps + 1);
        expect(published).toEqual([uri.toString()]);
        expect(hintsOf(closed)).toEqual([]);
        // Its figures are the schedule's simulation, the same as when the check simulates it (an open document).
        const view = Tenancy.prediction.Predictions.forWorkload(workload())!;
        expect(view.prediction.corunPending).toBe(false);
        expect(view.prediction.corunSchedule).toBe('sequential');
        const predictionCodes = new Set<unknown>([IssueCodes.SloAtRisk, IssueCodes.SloInfeasible, IssueCodes.Overloaded]);
        const predictionDiagnostics = (doc: LangiumDocument) => (doc.diagnostics ?? []).filter(d => predictionCodes.has(d.code)).map(d => `${d.code}: ${d.message}`);
        const same = await open(text);
        const openView = Tenancy.prediction.Predictions.forWorkload(same.parseResult.value.elements.find(isWorkload)!)!;
        expect(view.prediction.tenants.map(t => t.corun)).toEqual(openView.prediction.tenants.map(t => t.corun));
        expect(predictionDiagnostics(closed)).toEqual(predictionDiagnostics(same));
        expect(predictionDiagnostics(closed).length).toBeGreaterThan(0);
        await hints.idle();
        // Two workloads in one document not open: both simulated, the document published once.
        const pair = shared.workspace.LangiumDocumentFactory.fromString<Document>(
            `${rescue('  schedule sequential\n', '31/s')}\n${rescue('  schedule concurrent\n', '32/s').replace('workload rescue', 'workload other')}`,
            URI.parse(`file:///hints/closed${count++}.tenancy`));
        shared.workspace.LangiumDocuments.addDocument(pair);
        await shared.workspace.DocumentBuilder.build([pair], { validation: true });
        const pairPublished: string[] = [];
        const pairListener = hints.onPublished(p => pairPublished.push(p.uri));
        await hints.idle();
        pairListener.dispose();
        expect(pairPublished).toEqual([pair.uri.toString()]);
        expect(pair.parseResult.value.elements.filter(isWorkload).map(w => Tenancy.prediction.Predictions.forWorkload(w)!.prediction.corunSchedule)).toEqual(['sequential', 'concurrent']);

        // Another document not open with the same workload (a comment apart): its figures at once, no new simulation.
        const steps = hints.stats.steps;
        const twin = shared.workspace.LangiumDocumentFactory.fromString<Document>(`// a copy\n${text}`, URI.parse(`file:///hints/closed${count++}.tenancy`));
        shared.workspace.LangiumDocuments.addDocument(twin);
        await shared.workspace.DocumentBuilder.build([twin], { validation: true });
        expect(Tenancy.prediction.Predictions.forWorkload(twin.parseResult.value.elements.find(isWorkload)!)!.prediction.corunPending).toBe(false);
        expect(predictionDiagnostics(twin)).toEqual(predictionDiagnostics(closed));
        await hints.idle();
        expect(hints.stats.steps).toBe(steps);

        const beforeOff = { ...hints.stats };
        hints.enabled = false;
        try {
            const off = await open(rescue('  schedule sequential\n', '36/s'));
            await hints.idle();
            expect(hintsOf(off)).toEqual([]);
            expect(hints.stats.comparisons).toBe(beforeOff.comparisons);
            // The hover still compares (on demand), without publishing a hint.
            const offWorkload = off.parseResult.value.elements.find(isWorkload)!;
            const { comparison } = await hints.comparisonSoon(offWorkload, 30_000);
            expect(comparison?.current?.name).toBe('sequential');
            await hints.idle();
            expect(hintsOf(off)).toEqual([]);
        } finally {
            hints.enabled = true;
        }
    }, 60_000);

    test('a document not open whose schedule is searched is compared after the open ones; its co-run figures and slo-at-risk are the comparison\'s, as when open', async () => {
        // An SLO regulated meets with its band straddling it: slo-at-risk (small's co-run p95 3.9 ms on the default profile).
        const text = rescue('  schedule regulated(split: auto, sync: auto)\n', '37/s', '\n    slo p95 <= 5ms');
        const predictionCodes = new Set<unknown>([IssueCodes.SloAtRisk, IssueCodes.SloInfeasible, IssueCodes.Overloaded]);
        const predictionDiagnostics = (doc: LangiumDocument) => (doc.diagnostics ?? []).filter(d => predictionCodes.has(d.code)).map(d => `${d.code}: ${d.message}`);
        const published: string[] = [];
        const listener = hints.onPublished(p => published.push(p.uri));
        hints.debounceMs = 50;
        const closed = shared.workspace.LangiumDocumentFactory.fromString<Document>(text, URI.parse(`file:///hints/closed${count++}.tenancy`));
        shared.workspace.LangiumDocuments.addDocument(closed);
        await shared.workspace.DocumentBuilder.build([closed], { validation: true });
        // A document opened meanwhile (its schedule compared for a hint) goes first.
        const opened = await open(rescue('  schedule sequential\n', '38/s'));
        await hints.idle();
        listener.dispose();
        expect(published).toEqual([opened.uri.toString(), closed.uri.toString()]);

        const workload = closed.parseResult.value.elements.find(isWorkload)!;
        const view = Tenancy.prediction.Predictions.forWorkload(workload)!;
        // The one schedule simulation's row for the declared schedule, computed here on its own.
        const row = compareWorkloadSchedules(view.ir, view.profile.profile).current!;
        expect(view.prediction.corunPending).toBe(false);
        expect(view.prediction.corunSchedule).toBe(row.resolved.name);
        for (const t of view.prediction.tenants) expect(t.corun.p95).toBe(row.tenants.find(r => r.name === t.name)!.p95Ms);
        const small = view.prediction.tenants.find(t => t.name === 'small')!;
        expect(small.corun.p95).toBeGreaterThan(small.solo.p95);
        const [atRisk, ...more] = predictionDiagnostics(closed);
        expect(more).toEqual([]);
        expect(atRisk).toContain(`slo-at-risk: SLO p95 ≤ 5 ms at risk: `);
        expect(atRisk).toContain(`predicted co-run (regulated) p95 latency ${formatMs(small.corun.p95)}`);
        // The same text open in the editor: the same diagnostics.
        const same = await open(text);
        await hints.idle();
        expect(predictionDiagnostics(same)).toEqual(predictionDiagnostics(closed));
    }, 60_000);

    test('a workload of more tenants than the editor compares gets no job; the hover says why', async () => {
        const tenants = (n: number) => Array.from({ length: n }, (_, i) => `  tenant t${i} {\n    model mlp(batch: 1)\n    arrival poisson(rate: 5/s)\n    slo p99 <= 50ms\n  }\n`).join('');
        const before = { ...hints.stats };
        const doc = await open(`workload crowd {\n${tenants(editorComparisonLimits.tenants + 1)}  schedule sequential\n}\n`);
        await hints.idle();
        expect(hints.stats.comparisons).toBe(before.comparisons);
        expect(hints.stats.steps).toBe(before.steps);
        expect(hintsOf(doc)).toEqual([]);
        expect(await hoverAt(doc, 'schedule')).toContain(`**Schedules compared:** ${editorComparisonLimits.tenants + 1} tenants are more than the ${editorComparisonLimits.tenants} whose schedules the editor compares`);
        // Fewer: the job compares them.
        const few = await open(`workload crowd {\n${tenants(2)}  schedule sequential\n}\n`);
        await hints.idle();
        expect(hints.stats.comparisons).toBe(before.comparisons + 1);
        expect(await hoverAt(few, 'schedule')).toContain('**Schedules compared**');
    }, 60_000);
});

describe('schedule hints after tenancy compare', () => {
    let dir: string;
    // tenancy compare of the rescue workload: sequential (its schedule) against regulated, which beat it (a's p99 better) or did not.
    let confirmed: Comparison, contradicted: Comparison;
    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), 'tenancy-hints-compare-'));
        mkdirSync(path.join(dir, '.tenancy', 'results'), { recursive: true });
        const schedules = { baseline: 'sequential', candidate: 'regulated(split: 4, sync: auto)', candidateAsked: 'regulated(split: auto, sync: auto)', other: 'concurrent' };
        const uri = pathToFileURL(path.join(dir, 'mix.tenancy')).toString();
        confirmed = makeComparison(uri, 'rescue', { schedules, layerBlockMs: 8 });
        contradicted = makeComparison(uri, 'rescue', { schedules, layerBlockMs: 40 });
    }, 600_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** Writes the workload's comparison file as `tenancy compare` does and rebuilds the document as a results change does. */
    async function compared(doc: LangiumDocument, comparison: Comparison): Promise<void> {
        const file = path.join(dir, '.tenancy', 'results', 'mix.rescue.compare.json');
        writeFileSync(file, JSON.stringify(comparison));
        Tenancy.results.ResultsWatch.invalidate([pathToFileURL(file).toString()]);
        await shared.workspace.DocumentBuilder.update([doc.uri], []);
    }

    test('the hint and the hover show the measured gain beside the predicted one; a contradicting measurement withdraws the hint, which says so and offers no fix', async () => {
        const doc = await open(rescue('  schedule sequential\n', '39/s'), pathToFileURL(path.join(dir, 'mix.tenancy')).toString());
        await hints.idle();
        expect(hintsOf(doc)[0].message).not.toContain('measured');

        const steps = hints.stats.steps;
        await compared(doc, confirmed);
        const [hint] = hintsOf(doc);
        expect(hint.severity).toBe(3);
        expect(hint.data).toEqual({ code: IssueCodes.ScheduleHint, schedule: 'regulated(split: auto, sync: auto)' });
        expect(hint.message).toMatch(/^regulated\(split: auto, sync: auto\) is predicted to meet small's p95 .* the QoS-satisfied throughput \([\d.]+\/s vs [\d.]+\/s\); a's p99 predicted 4\.00×, measured \d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\)/);
        const hover = await hoverAt(doc, 'schedule');
        expect(hover).toMatch(/\nMeasured \(tenancy compare, 2026-12-01T10:01:00\.000Z\) against sequential: regulated\(split: auto, sync: auto\) → regulated\(split: 4, sync: auto\): a's p99 predicted 4\.00×, measured [\d.]+× \([\d.]+–[\d.]+\); concurrent: /);
        expect((await fixes(doc, hint)).map(f => f.title)).toEqual(["Change to 'schedule regulated(split: auto, sync: auto)'"]);

        await compared(doc, contradicted);
        const [withdrawn] = hintsOf(doc);
        expect(withdrawn.severity).toBe(4);
        expect(textAt(doc, withdrawn)).toBe('schedule sequential');
        expect(withdrawn.message).toMatch(/^regulated\(split: auto, sync: auto\) was predicted to meet small's p95 .*; measured: no gain \(0\.\d\d–1\.\d\d×\) in a's p99 against sequential, hint withdrawn$/);
        expect(withdrawn.data).toEqual({ code: IssueCodes.ScheduleHint, schedule: null });
        expect(await fixes(doc, withdrawn)).toEqual([]);
        expect(await hoverAt(doc, 'schedule')).toMatch(/\nHint withdrawn: regulated.*hint withdrawn\.\n/);
        // The measurement is read, not simulated again.
        expect(hints.stats.steps).toBe(steps);
    }, 180_000);
});
