/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The user's path through the real VS Code UI (code-server + Chromium): open the example,
 * see a squiggle and the Problems entry, hover an op, click "▶ Run benchmark", watch the
 * progress, see the measured lens and the measured figures in the inlay hints, open the report
 * and check its charts; on the schedule-hint example, see the schedule hint, apply its quick fix
 * (and undo it), compare the schedules from the lens and see the measured gain beside the
 * predicted one.
 * Screenshots of every step go to test/e2e/screenshots/ (look at them when a step fails).
 * It runs the extension installed from the .vsix (TENANCY_E2E_VSIX, default this machine's
 * dist/tenancy-<platform>-<arch>.vsix from `npm run package -- --host`).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { writeFileAtomic } from '../../src/runtime/report/write.js';
import { launchChromium } from './chromium.js';
import { openWorkbench, projectRoot, startCodeServer, type CodeServer } from './code-server.js';
import { exampleName, hintExampleName, makeWorkspace, resultsName, writeSettings } from './workspace.js';

const screenshots = path.join(projectRoot, 'test', 'e2e', 'screenshots');
// The UI test needs toasts, which VS Code hides when the smoke-test driver (needed to load an
// extension from a folder via `payload`) is on: so it tests the installed .vsix by default.
const vsix = process.env.TENANCY_E2E_VSIX ?? path.join(projectRoot, 'dist', `tenancy-${process.platform}-${process.arch}.vsix`);
const prefix = 'ui-';
let server: CodeServer | undefined;
let browser: BrowserContext | undefined;
let page: Page;
let workspace: string;
const timings: [string, number][] = [];
let last = Date.now();

function lap(step: string): void {
    const now = Date.now();
    timings.push([step, now - last]);
    last = now;
}

async function shot(name: string): Promise<void> {
    await page.screenshot({ path: path.join(screenshots, `${prefix}${name}.png`) });
}

/** Opens a file of the workspace through Quick Open (the explorer row may be virtualised away). */
async function openFile(name: string): Promise<void> {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(name);
    // Wait for the filtered list: the first row is the recent file until the filter applies.
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator(`.tab.active[aria-label*="${name}"]`).waitFor();
    await page.locator('.monaco-editor .view-lines').first().waitFor();
}

/** The text of the active editor's lines (spaces as rendered: U+00A0 back to spaces). */
async function editorLines(): Promise<string[]> {
    return (await page.locator('.monaco-editor .view-line').allInnerTexts()).map(t => t.replace(/\u00a0/g, ' '));
}

/** Hovers a locator until a hover containing `text` shows (lenses and hints move the text under a resting mouse), and returns the hover's text. */
async function hoverText(target: ReturnType<Page['locator']>, text: string): Promise<string> {
    const hover = page.locator('.monaco-hover .hover-contents', { hasText: text }).first();
    for (let attempt = 1; ; attempt++) {
        await page.mouse.move(5, 5);
        await target.hover();
        if (await hover.waitFor({ timeout: 6_000 }).then(() => true, () => false)) break;
        if (attempt === 5) throw new Error(`no hover with '${text}' after 5 attempts of 6 s`);
    }
    // The whole hover: the diagnostics at the position and every section.
    const all = (await page.locator('.monaco-hover').allInnerTexts()).join('\n');
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');
    return all;
}

/**
 * Puts the cursor on `target`, opens the quick-fix menu (Ctrl+.) until it lists `title`, and
 * returns that row. Locally the row shows in under a second; once in CI the menu did not list it
 * within 30 s of a single Ctrl+. although the hint was in Problems and the next test used it, so
 * each attempt waits 10 s, then closes the menu and asks again (up to 5). A retry clicks the line
 * again: the sticky header, which could cover it once the editor scrolled, is off (code-server.ts).
 */
async function quickFix(target: ReturnType<Page['locator']>, title: string) {
    const row = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    for (let attempt = 1; ; attempt++) {
        await target.click();
        await page.keyboard.press('Control+.');
        if (await row.waitFor({ timeout: 10_000 }).then(() => true, () => false)) return row;
        await shot(`quick-fix-attempt-${attempt}`);
        if (attempt === 5) throw new Error(`the quick-fix menu did not list '${title}' after 5 attempts of 10 s`);
        await page.keyboard.press('Escape');
    }
}

/**
 * Milliseconds from the mouse coming to rest on `target` to a hover containing `text` on screen:
 * the whole path through the workbench, the extension host, the language client and the server,
 * plus the editor's hover delay (100 ms in these settings, the same in every sample). Lenses and
 * hints may move the text under a resting mouse: an attempt that shows nothing in 10 s is tried
 * again (up to 3), and the latency is that of the attempt that showed.
 */
async function hoverLatencyMs(target: ReturnType<Page['locator']>, text: string): Promise<number> {
    const hover = page.locator('.monaco-hover .hover-contents', { hasText: text }).first();
    // No Escape to close it: in the workbench Escape also hides the run's progress notification.
    for (let attempt = 1; ; attempt++) {
        await page.mouse.move(5, 5);
        await hover.waitFor({ state: 'hidden', timeout: 10_000 });
        // force: the text cursor may lie over the word (it intercepts the pointer for Playwright's checks, not for the editor).
        await target.hover({ force: true });
        const started = performance.now();
        if (await hover.waitFor({ timeout: 10_000 }).then(() => true, () => false)) {
            const ms = performance.now() - started;
            await page.mouse.move(5, 5);
            return ms;
        }
        if (attempt === 3) throw new Error(`no hover with '${text}' after 3 attempts of 10 s`);
    }
}

/** Hover latencies of the conv2d op of the example, `count` of them while `more()` says so. */
async function opHoverLatencies(count: number, more: () => boolean = () => true): Promise<number[]> {
    const op = page.locator('.view-line span', { hasText: /^conv2d$/ }).first();
    const samples: number[] = [];
    while (samples.length < count) {
        const ms = await hoverLatencyMs(op, 'conv2d');
        if (!more()) break;
        samples.push(ms);
    }
    return samples;
}

const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const describeMs = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms over ${xs.length} (${xs.map(x => x.toFixed(0)).join(', ')})`;

/** Runs a command from the command palette by its title. */
async function runCommand(title: string): Promise<void> {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first().waitFor();
    await page.keyboard.press('Enter');
}

beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    if (!existsSync(vsix)) throw new Error(`expected the packaged extension ${vsix}; run npm run package -- --host (npm run test:e2e does)`);
    server = await startCodeServer({ vsix });
    browser = await launchChromium();
    workspace = makeWorkspace();
    page = await openWorkbench(browser, server, { folder: workspace, smokeTestDriver: false });
    lap('start code-server and open the workbench');
});

afterEach(async context => {
    // A failed step leaves a picture of what the user would have seen.
    if (context.task.result?.state === 'fail') {
        const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
        await shot(`failed-${name}`).catch(() => undefined);
    }
});

afterAll(async () => {
    console.log(`${prefix}e2e timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`);
    await browser?.close();
    await server?.stop();
});

describe(`the user's path (installed ${path.basename(vsix)})`, () => {
    it('shows a squiggle and a Problems entry for a mistake', async () => {
        await openFile('typo.tenancy');
        await page.locator('.squiggly-error').first().waitFor({ timeout: 60_000 });
        await shot('01-squiggle');
        await page.keyboard.press('Control+Shift+M');
        const row = page.locator('.markers-panel .monaco-list-row').filter({ hasText: 'dense_layer' }).first();
        await row.waitFor({ timeout: 30_000 });
        expect(await row.innerText()).toMatch(/dense_layer/);
        await shot('02-problems');
        await page.keyboard.press('Control+Shift+M'); // hide the panel again
        lap('squiggle and Problems entry');
    });

    it('hovers an op of the example', async () => {
        await openFile(exampleName);
        const op = page.locator('.view-line span', { hasText: /^conv2d$/ }).first();
        await op.waitFor({ timeout: 30_000 });
        // The title bar's tooltips are hovers too: pick the one about the op.
        const hover = page.locator('.monaco-hover .hover-contents', { hasText: 'conv2d' }).first();
        // Code lenses and inlay hints arrive after the file opens and move the text under a resting
        // mouse, so the hover may never start: hover the op again where it is now (up to 30 s in all).
        for (let attempt = 1; ; attempt++) {
            await page.mouse.move(5, 5);
            await op.hover();
            const shown = await hover.waitFor({ timeout: 6_000 }).then(() => true, () => false);
            if (shown) break;
            if (attempt === 5) throw new Error('no hover for the conv2d op after 5 attempts of 6 s');
        }
        const text = await hover.innerText();
        expect(text).toMatch(/conv2d/);
        // The prediction (latency on this device's profile) is part of an op's hover.
        expect(text).toMatch(/predicted/i);
        await shot('03-hover');
        await page.mouse.move(5, 5);
        await page.keyboard.press('Escape');
        lap('hover');
    });

    it('runs the benchmark from the lens with progress, stays responsive, then shows measured figures', async () => {
        const run = page.locator('.codelens-decoration a', { hasText: '▶ Run benchmark' }).first();
        await run.waitFor({ timeout: 30_000 });
        // Hover latency while nothing runs, to compare with the latency during the run.
        const idleBefore = await opHoverLatencies(7);
        await shot('04-lenses');
        await run.click();
        const failure = page.locator('.notification-toast', { hasText: /Tenancy: quick_start failed/ }).first();
        // Whichever comes first: the expected state, or the run's error message (fail at once, with its text).
        const orFailure = <T,>(expected: Promise<T>): Promise<T> => Promise.race([
            expected,
            // A closed page or a timeout of this watcher is not a failure of the run: then it never settles.
            failure.waitFor({ timeout: 300_000 }).then(async () => { throw new Error(`the run failed: ${await failure.innerText()}`); }, () => new Promise<never>(() => {})),
        ]);
        // Hovers while the run is in progress (from its first phase, compiling the kernels): a sample counts when the run
        // had not written its results when the hover showed.
        await orFailure(page.locator('.notification-toast', { hasText: /Tenancy: quick_start/ }).first().waitFor({ timeout: 60_000 }));
        const resultsFile = path.join(workspace, '.tenancy', 'results', resultsName);
        const duringRun = await orFailure(opHoverLatencies(7, () => !existsSync(resultsFile)));
        // The progress notification with its phase and percent (the compile phase reports none: on a busy host it takes a minute or more).
        await orFailure(page.locator('.notification-toast', { hasText: /Tenancy: quick_start[\s\S]*\d+%/ }).first().waitFor({ timeout: 150_000 }));
        await shot('05-progress');
        const measured = page.locator('.codelens-decoration a', { hasText: / req$/ }).first();
        await orFailure(measured.waitFor({ timeout: 240_000 }));
        lap('run the benchmark until the measured lens');
        // Inline figures: the run measured the ops of this file (its models are defined in it).
        const written = JSON.parse(readFileSync(path.join(workspace, '.tenancy', 'results', resultsName), 'utf8')) as
            { tenants: { ops: { soloMs: number | null; corunMs: number | null; source?: { uri: string } }[] }[] };
        expect(written.tenants.flatMap(t => t.ops).some(o => o.source?.uri.endsWith(exampleName) && (o.soloMs !== null || o.corunMs !== null))).toBe(true);
        // Inline figures are the language server's inlay hints: VS Code 1.139 renders each as injected text, a span
        // with a generated `dyn-rule-*` class at the end of the line (spaces as U+00A0). One per op line: the
        // prediction, then what was measured — whole, not cut at the editor's default 43 characters.
        const inline = async () => page.evaluate(() => [...document.querySelectorAll('.monaco-editor .view-line span[class*="dyn-rule"]')]
            .map(el => (el.textContent ?? '').replace(/\u00a0/g, ' ').trim()).filter(t => t.startsWith('≈')));
        const measuredOp = /^≈[\d.]+ (ms|µs|s)\?? ±[\d.]+%\?? · measured (co-run )?[\d.]+ (ms|µs|s) \(([−+][\d.]+%|n\/a)(, (inside|outside) band)?\)/;
        await expect.poll(async () => (await inline()).filter(t => measuredOp.test(t)).length, { timeout: 30_000 }).toBeGreaterThan(0);
        const hints = await inline();
        expect(hints.filter(t => t.includes('…'))).toEqual([]);
        const tenantHints = hints.filter(t => t.startsWith('≈ p50'));
        expect(tenantHints.length).toBeGreaterThan(0);
        // p99 when the run bounded it, else the highest percentile it did bound.
        expect(tenantHints.filter(t => !/ · measured p\d+ [\d.]+ (ms|µs|s) \(/.test(t))).toEqual([]);
        // Nothing else draws measured figures: no decoration text after the lines.
        const decorations = await page.evaluate(() => [...document.querySelectorAll('.view-lines span')]
            .map(el => getComputedStyle(el, '::after').content).filter(c => c !== 'none' && c !== 'normal' && c !== '""'));
        expect(decorations).toEqual([]);
        await shot('06-measured');

        // Responsive during the run: hover latency while it runs is within the noise of idle before and after it (the
        // run's child process competes for the same two cores, so not equal; an extension host or server blocked by
        // the run would answer no hover until it ends, tens of seconds). Ratios and overlap, never absolute times.
        const idleAfter = await opHoverLatencies(7);
        const idle = [...idleBefore, ...idleAfter];
        const ratio = median(duringRun) / median(idle);
        console.log(`hover latency idle before the run: ${describeMs(idleBefore)}\n`
            + `hover latency during the run:      ${describeMs(duringRun)}\n`
            + `hover latency idle after the run:  ${describeMs(idleAfter)}\n`
            + `during / idle (medians): ${ratio.toFixed(2)}×`);
        expect(duringRun.length, 'expected at least 4 hovers while the run was in progress (it ended too soon to measure)').toBeGreaterThanOrEqual(4);
        // Overlap within 1.5×: the run's cores make every hover during it somewhat slower (7 idle ones within 134–223 ms
        // and 7 during it within 245–517 ms once, 2026-12-06), where a blocked server would take the whole run.
        expect(Math.min(...duringRun), 'the fastest hover during the run is 1.5× slower than every idle one').toBeLessThanOrEqual(1.5 * Math.max(...idle));
        expect(ratio, 'median hover latency during the run vs idle').toBeLessThan(3);
        lap('hover latency idle and during the run');
    }, 300_000);

    it('updates the inline figures when a run from a terminal rewrites the results', async () => {
        // As `tenancy run` in a terminal: a new results file (written as the CLI writes it), nothing said to the extension.
        const file = path.join(workspace, '.tenancy', 'results', resultsName);
        const results = JSON.parse(readFileSync(file, 'utf8')) as { finishedAt: string; tenants: { ops: { path: string; soloMs: number | null; corunMs: number | null; slowdown: unknown; soloP50Ms?: number | null; corunP50Ms?: number | null }[] }[] };
        const logits = results.tenants.flatMap(t => t.ops).find(o => o.path.endsWith('/logits'));
        expect(logits, 'expected the classifier\'s logits op in the results').toBeDefined();
        expect(logits!.soloP50Ms, 'expected the run to record op medians').toBeGreaterThan(0);
        // The hints show the median per request (the mean carries the host's stalls): 7.77 ms, not the mean.
        Object.assign(logits!, { soloMs: 8.88, corunMs: 11.1, slowdown: { estimate: 11.1 / 8.88, low: 1.1, high: 1.4, verdict: 'slower' }, soloP50Ms: 7.77, corunP50Ms: 9.99 });
        results.finishedAt = new Date().toISOString();
        await writeFileAtomic(file, JSON.stringify(results));
        const expected = 'measured 7.77 ms';
        await expect.poll(async () => page.evaluate(() => [...document.querySelectorAll('.monaco-editor .view-line span[class*="dyn-rule"]')]
            .map(el => (el.textContent ?? '').replace(/\u00a0/g, ' '))), { timeout: 30_000 })
            .toEqual(expect.arrayContaining([expect.stringContaining(`${expected} (`)]));
        await shot('06b-terminal-run');
        lap('inline figures after a terminal run');
    });

    it('opens the report from the lens and draws its charts', async () => {
        await page.locator('.codelens-decoration a', { hasText: 'Report' }).first().click();
        const outer = page.frameLocator('iframe.webview');
        const inner = outer.frameLocator('iframe#active-frame');
        await inner.locator('body[data-rendered]').waitFor({ timeout: 60_000 });
        const rendered = await inner.locator('body').getAttribute('data-rendered');
        expect(rendered?.split(',')).toContain('chart-cdf');
        const frame: Frame | undefined = page.frames().find(f => f.url().includes('active-frame') || f.name() === 'active-frame');
        if (frame) {
            const inked = await frame.evaluate(() => {
                const canvas = document.getElementById('chart-cdf') as HTMLCanvasElement;
                const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
                let n = 0;
                for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
                return n;
            });
            expect(inked).toBeGreaterThan(1000);
        }
        await shot('07-report');
        lap('report');
    });

    it('shows a schedule hint on the example; its quick fix rewrites the schedule line', async () => {
        // One editor: the lenses and lines below are this file's.
        await runCommand('View: Close All Editors');
        await openFile(hintExampleName);
        // The workload is at the end of the file: bring its schedule line into view.
        await page.keyboard.press('Control+End');
        // The hint is information: a squiggle of its own kind on the schedule line, and a Problems entry.
        await page.locator('.squiggly-info').first().waitFor({ timeout: 60_000 });
        await page.keyboard.press('Control+Shift+M');
        const row = page.locator('.markers-panel .monaco-list-row').filter({ hasText: 'QoS-satisfied throughput' }).first();
        await row.waitFor({ timeout: 30_000 });
        expect(await row.innerText()).toMatch(/regulated\(split: auto, sync: auto\) is predicted to meet vision's p95 \([\d.]+ ms vs [\d.]+ ms\) at [\d.]+× the QoS-satisfied throughput/);
        await shot('08-schedule-hint');
        await page.keyboard.press('Control+Shift+M');
        lap('schedule hint');

        const word = page.locator('.view-line', { hasText: 'schedule sequential' }).first().locator('span span', { hasText: /^sequential$/ }).first();
        const fix = await quickFix(word, "Change to 'schedule regulated(split: auto, sync: auto)'");
        await shot('09-quick-fix');
        await fix.click();
        await expect.poll(async () => (await editorLines()).map(l => l.trim()), { timeout: 10_000 }).toContain('schedule regulated(split: auto, sync: auto)');
        expect((await editorLines()).map(l => l.trim())).not.toContain('schedule sequential');
        // Back to the declared schedule, to verify the hint by measurement.
        await page.keyboard.press('Control+Z');
        await expect.poll(async () => (await editorLines()).map(l => l.trim()), { timeout: 10_000 }).toContain('schedule sequential');
        await page.keyboard.press('Control+S');
        lap('quick fix applied and undone');
    });

    it('compares the schedules from the lens, then shows the measured gain beside the predicted one', async () => {
        // 2 s, not 1: vision's p95 gain needs 59 requests of each schedule (40/s).
        writeSettings(workspace, 2);
        // VS Code reads a changed settings file through its file watcher, within a moment.
        await page.waitForTimeout(2_000);
        const compare = page.locator('.codelens-decoration a', { hasText: '▶ Compare schedules' }).first();
        await compare.waitFor({ timeout: 30_000 });
        await compare.click();
        const failure = page.locator('.notification-toast', { hasText: /Tenancy: hinted: comparing schedules failed/ }).first();
        const orFailure = (expected: Promise<unknown>) => Promise.race([
            expected,
            failure.waitFor({ timeout: 400_000 }).then(async () => { throw new Error(`the comparison failed: ${await failure.innerText()}`); }, () => new Promise<never>(() => {})),
        ]);
        await orFailure(page.locator('.notification-toast', { hasText: /Tenancy: hinted: comparing schedules/ }).first().waitFor({ timeout: 60_000 }));
        await shot('10-comparing');
        // The lens with what was measured: the measured best with its gain beside the predicted, or the baseline staying best.
        const measured = page.locator('.codelens-decoration a', { hasText: /measured best: |stays best \(measured against/ }).first();
        await orFailure(measured.waitFor({ timeout: 360_000 }));
        lap('compare the schedules until the measured lens');
        expect(await measured.innerText()).toMatch(/^(measured best: regulated\(.+\) — vision's p95 predicted [\d.]+×, measured [\d.]+×|measured best: regulated\(.+\) — .+|sequential stays best \(measured against 1 other schedule\))/);
        await shot('11-compared');
        // The hover on `schedule`: the hint (with the measured gain, or withdrawn by it) and what was measured, predicted beside measured.
        const keyword = page.locator('.view-line', { hasText: 'schedule sequential' }).first().locator('span span', { hasText: /^schedule$/ }).first();
        const text = await hoverText(keyword, 'Measured (tenancy compare');
        expect(text).toMatch(/Measured \(tenancy compare, [^)]*\) against sequential: regulated\(split: auto, sync: auto\) → regulated\(.*\): vision's p95 predicted [\d.]+×, measured [\d.]+×/);
        expect(text).toMatch(/regulated\(split: auto, sync: auto\) is predicted to meet vision's p95 .*; vision's p95 predicted [\d.]+×, measured [\d.]+×|regulated\(split: auto, sync: auto\) was predicted to meet vision's p95 .*; measured: (no gain|worse) \([\d.]+–[\d.]+×\) in vision's p95 against sequential, hint withdrawn/);
        await shot('12-measured-hint');
        lap('measured gain in the hint and the hover');
    });
});
