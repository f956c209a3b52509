/**
 * Runs the mocha integration suite (test/e2e/integration) inside code-server's extension host
 * with the extension loaded from this source tree, and checks its report.
 */
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { bundleIntegrationSuite } from './bundle.js';
import { launchChromium } from './chromium.js';
import { projectRoot, startCodeServer, workRoot, type CodeServer } from './code-server.js';
import { makeWorkspace } from './workspace.js';
import { fixtureSweep } from './fixtures/sweep-model.js';

const screenshots = path.join(projectRoot, 'test', 'e2e', 'screenshots');
let server: CodeServer | undefined;
let browser: BrowserContext | undefined;
let sweepFolder: string;

beforeAll(async () => {
    // Merging takes seconds (bootstrap intervals): outside the suite's own time.
    sweepFolder = (await fixtureSweep()).folder;
    for (const file of ['out/extension/main.cjs', 'out/language-server/main.cjs', 'out/cli/main.mjs', 'out/report-view/main.js']) {
        if (!existsSync(path.join(projectRoot, file))) throw new Error(`expected ${file}; build first (npm run build)`);
    }
    mkdirSync(screenshots, { recursive: true });
});
afterAll(async () => {
    await browser?.close();
    await server?.stop();
});

describe('integration suite in code-server', () => {
    it('passes every test in the extension host', async () => {
        const started = Date.now();
        const suite = await bundleIntegrationSuite();
        const report = path.join(workRoot, `integration-report-${process.pid}.json`);
        server = await startCodeServer({ env: { TENANCY_INTEGRATION_REPORT: report } });
        browser = await launchChromium();
        const page = await browser.newPage();
        await page.close();
        const exitCode = new Promise<number>(resolve => {
            void browser!.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
        });
        const workspace = makeWorkspace();
        // A merged sweep for "Tenancy: Open Sweep Results" (the suite opens it by its sweep.json).
        cpSync(sweepFolder, path.join(workspace, '.tenancy', 'sweeps', 'sweep-a'), { recursive: true });
        const { openWorkbench } = await import('./code-server.js');
        const workbench = await openWorkbench(browser, server, { folder: workspace, extensionDevelopmentPath: projectRoot, extensionTestsPath: suite });
        // The suite's report file is the completion signal (code-server does not always call codeAutomationExit).
        const reportWritten = new Promise<number>(resolve => {
            const poll = setInterval(() => { if (existsSync(report)) { clearInterval(poll); resolve(-1); } }, 250);
        });
        const code = await Promise.race([
            exitCode, reportWritten,
            new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`the integration suite did not finish within 150 s; code-server log:\n${server!.log().slice(-4000)}`)), 150_000)),
        ]);
        await workbench.screenshot({ path: path.join(screenshots, 'integration-end.png') }).catch(() => undefined);
        expect(existsSync(report), `expected the suite's report at ${report} (exit code ${code}); code-server log:\n${server.log().slice(-3000)}`).toBe(true);
        const result = JSON.parse(readFileSync(report, 'utf8')) as { failures: number; durationMs: number; tests: { title: string; state: string; durationMs: number; error?: string }[] };
        console.log(`integration suite: ${result.tests.length} tests in ${result.durationMs} ms (total with startup ${Date.now() - started} ms)`);
        for (const t of result.tests) console.log(`  ${t.state === 'passed' ? '✓' : t.state === 'failed' ? '✗' : '-'} ${t.title} (${t.durationMs} ms)${t.error ? `\n      ${t.error.split('\n').slice(0, 4).join('\n      ')}` : ''}`);
        expect(result.tests.filter(t => t.state === 'failed').map(t => `${t.title}: ${t.error?.split('\n')[0]}`)).toEqual([]);
        expect(result.failures).toBe(0);
        expect(code === -1 || code === 0, `codeAutomationExit(${code})`).toBe(true);
    });
});
