/**
 * The report webview's page and script in a plain Chromium (no VS Code): it must render all
 * three charts and both tables from a report model, under its own strict CSP, in light and
 * dark theme colours. Screenshots go to test/e2e/screenshots/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { reportHtml } from '../../src/extension/report-view/html.js';
import { launchChromium } from './chromium.js';
import { fixtureReport } from './fixtures/report-model.js';
import { fixtureSweep } from './fixtures/sweep-model.js';

const root = path.resolve(import.meta.dirname, '../..');
const script = path.join(root, 'out/report-view/main.js');
const screenshots = path.join(root, 'test/e2e/screenshots');

const themes = {
    dark: '--vscode-foreground:#cccccc;--vscode-editor-background:#1e1e1e;--vscode-descriptionForeground:#9d9d9d;--vscode-charts-blue:#3794ff;--vscode-charts-orange:#d18616;--vscode-errorForeground:#f48771;',
    light: '--vscode-foreground:#3b3b3b;--vscode-editor-background:#ffffff;--vscode-descriptionForeground:#717171;--vscode-charts-blue:#1a85ff;--vscode-charts-orange:#d18616;--vscode-errorForeground:#a1260d;',
};

let context: BrowserContext;

beforeAll(async () => {
    if (!existsSync(script)) throw new Error(`expected the webview bundle ${script}; run node esbuild.mjs first`);
    mkdirSync(screenshots, { recursive: true });
    context = await launchChromium({ width: 1100, height: 1600 });
});
afterAll(async () => { await context?.close(); });

async function openReport(theme: keyof typeof themes): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(e.message));
    // Serve the page and its script from one fake origin so that the CSP applies as in VS Code.
    const origin = 'https://webview.test';
    await page.route(`${origin}/**`, route => {
        const url = new URL(route.request().url());
        if (url.pathname === '/main.js') return route.fulfill({ contentType: 'text/javascript', body: readFileSync(script, 'utf8') });
        const html = reportHtml({ cspSource: origin, scriptUri: `${origin}/main.js`, nonce: 'testnonce123' })
            .replace('</style>', `body { ${themes[theme]} }\n</style>`); // theme variables as VS Code sets them
        return route.fulfill({ contentType: 'text/html', body: html });
    });
    await page.goto(`${origin}/index.html`);
    await page.evaluate(report => window.postMessage({ type: 'report', report }, '*'), fixtureReport());
    await page.waitForFunction(() => document.body.dataset.rendered !== undefined, undefined, { timeout: 10_000 });
    return { page, errors };
}

/** Count of canvas pixels that differ from the first pixel: a drawn chart has thousands. */
async function inkedPixels(page: Page, id: string): Promise<number> {
    return page.evaluate(canvasId => {
        const canvas = document.getElementById(canvasId) as HTMLCanvasElement;
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let inked = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0) inked++;
        return inked;
    }, id);
}

describe('report webview page', () => {
    for (const theme of ['dark', 'light'] as const) {
        it(`renders CDF, op bars, timeline and tables (${theme})`, async () => {
            const { page, errors } = await openReport(theme);
            expect(await page.evaluate(() => document.body.dataset.rendered)).toBe('chart-cdf,chart-ops,chart-timeline');
            for (const id of ['chart-cdf', 'chart-ops', 'chart-timeline']) expect(await inkedPixels(page, id)).toBeGreaterThan(2000);
            const slo = await page.locator('#slo-table tbody tr').allInnerTexts();
            expect(slo).toHaveLength(2);
            expect(slo[0]).toMatch(/vision\s+p99 ≤ 40 ms\s+n\/a: needs 299 requests/);
            // Each predicted statistic with its 90 % band, as the run recorded it (no upper end: `≥`).
            expect(await page.locator('#slo-table thead th').allInnerTexts()).toContain('predicted (90 % band)');
            expect(slo[0]).toContain('35 ms (27–50)');
            expect(slo[1]).toContain('101 ms (≥ 78)');
            expect(await page.locator('#interference-heatmap tbody tr').count()).toBe(2);
            expect(await page.locator('#attribution li').count()).toBeGreaterThan(0);
            expect(await page.locator('#validity').innerText()).toMatch(/^Not valid: vision: its p99 SLO needs 299 requests/);
            expect(await page.locator('#comparison-table tbody tr').count()).toBe(2);
            expect(await page.locator('h1').innerText()).toBe('Workload vision_and_nlp');
            await page.screenshot({ path: path.join(screenshots, `report-page-${theme}.png`), fullPage: true });
            expect(errors).toEqual([]);
            await page.close();
        });
    }

    it('blocks inline scripts without the nonce (the CSP is in force)', async () => {
        const { page } = await openReport('dark');
        const ran = await page.evaluate(() => new Promise<boolean>(resolve => {
            const s = document.createElement('script');
            s.textContent = 'window.__injected = true';
            document.body.append(s);
            setTimeout(() => resolve((window as unknown as { __injected?: boolean }).__injected === true), 50);
        }));
        expect(ran).toBe(false);
        await page.close();
    });

    it('says when a run is partial, and why; a one-request CDF still draws', async () => {
        const { page, errors } = await openReport('dark');
        const report = fixtureReport();
        report.status = 'partial';
        report.reason = 'solo phase of vision hit its time limit of 5.0 s';
        report.tenants[1]!.corunLatenciesMs = [2464];
        report.tenants[1]!.soloLatenciesMs = [2480];
        await page.evaluate(r => window.postMessage({ type: 'report', report: r }, '*'), report);
        await expect.poll(() => page.locator('#run-status').innerText()).toBe('This run is partial: solo phase of vision hit its time limit of 5.0 s. The figures cover only the part that ran.');
        expect(await inkedPixels(page, 'chart-cdf')).toBeGreaterThan(2000);
        expect(errors).toEqual([]);
        await page.close();
    });

    it('draws a merged sweep: latency against load per tenant, QoS, each load\'s comparison (openable as the comparison page), the repeats, the cells left out', async () => {
        const { page, errors } = await openReport('dark');
        const { model } = await fixtureSweep();
        const replies: unknown[] = [];
        await page.exposeFunction('recordReply', (m: unknown) => { replies.push(m); });
        await page.evaluate(() => window.addEventListener('message', e => { if (e.data?.type === 'rendered') (window as unknown as { recordReply(m: unknown): void }).recordReply(e.data); }));
        await page.evaluate(sweep => window.postMessage({ type: 'sweep', sweep }, '*'), model);
        await page.waitForFunction(() => document.body.dataset.view === 'sweep', undefined, { timeout: 10_000 });
        expect(await page.evaluate(() => document.body.dataset.rendered)).toBe('chart-load-0-0,chart-load-0-1');
        for (const id of ['chart-load-0-0', 'chart-load-0-1']) expect(await inkedPixels(page, id)).toBeGreaterThan(2000);
        expect(await page.locator('h1').innerText()).toBe('Sweep sweep-a');
        expect(await page.locator('#meta').innerText()).toBe('two-mlps.json · 7 of 8 cells merged · 2 comparisons (workload × device × load)');
        expect(await page.locator('#not-merged li').allInnerTexts()).toEqual(['cell 7 (two_mlps, sequential, 2× load, repeat 2): missing — never started']);
        expect(await page.locator('#qos-table-0 tbody tr').count()).toBe(2);
        expect(await page.locator('#schedules-table-1 tbody tr').count()).toBe(4);
        const repeats = await page.locator('#repeats-table tbody tr').allInnerTexts();
        expect(repeats).toHaveLength(8);
        expect(repeats[0]).toMatch(/^two_mlps\s+mesa llvmpipe\s+1×\s+concurrent\s+small\s+[\d.]+ [\d.]+\s+1\.20×/);
        await page.screenshot({ path: path.join(screenshots, 'sweep-page-dark.png'), fullPage: true });

        await page.locator('#open-comparison-1').click();
        await expect.poll(() => page.locator('h1').innerText()).toBe('Workload two_mlps: schedules compared at 2× load');
        // The extension hears what each page drew (its tests and the status wait on it).
        await expect.poll(() => replies.some(r => (r as { charts: string[] }).charts.includes('chart-latency-0'))).toBe(true);
        expect(await page.locator('#meta').innerText()).toMatch(/^two-mlps\.tenancy · mesa llvmpipe · 2× load · 2 schedules measured in separate runs \(a sweep's cells\)/);
        expect(await inkedPixels(page, 'chart-latency-0')).toBeGreaterThan(2000);
        await page.locator('#back').click();
        await expect.poll(() => page.locator('h1').innerText()).toBe('Sweep sweep-a');
        expect(await inkedPixels(page, 'chart-load-0-1')).toBeGreaterThan(2000);
        expect(errors).toEqual([]);
        await page.close();
    });

    it('shows an error message sent instead of a report', async () => {
        const { page } = await openReport('light');
        await page.evaluate(() => window.postMessage({ type: 'error', message: 'No results for workload w yet: run it first.' }, '*'));
        await expect.poll(() => page.locator('#report-error').innerText()).toContain('run it first');
        await page.close();
    });
});
