/**
 * Starts the pinned code-server (installed by scripts/setup-e2e.sh) and opens its workbench in
 * Chromium with our extension loaded from the source tree (extensionDevelopmentPath) or from
 * an installed .vsix, optionally running a mocha suite in the extension host
 * (extensionTestsPath). Everything it starts is killed by process group in stop().
 * The install and its traps are in scripts/setup-e2e.sh; what the VS Code tests run, in README.md
 * ("Packaging and the VS Code tests").
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export const projectRoot = path.resolve(import.meta.dirname, '../..');
export const workRoot = path.join(projectRoot, 'test', 'e2e', '.work');
const node = path.join(projectRoot, 'node_modules', '.bin', 'node');

/** The code-server entry script, installing code-server first if needed (idempotent, cached). */
export function ensureCodeServer(): string {
    const result = spawnSync('bash', [path.join(projectRoot, 'scripts', 'setup-e2e.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new Error(`scripts/setup-e2e.sh failed with exit code ${result.status}; see its messages above`);
    const entry = result.stdout.trim().split('\n').at(-1) ?? '';
    if (!existsSync(entry)) throw new Error(`expected the code-server entry script from setup-e2e.sh, found ${JSON.stringify(entry)}`);
    return entry;
}

async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            server.close(() => typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')));
        });
    });
}

export interface CodeServer {
    url: string;
    authority: string;
    /** Folder with this session's user data, extensions, logs. */
    dir: string;
    extensionsDir: string;
    process: ChildProcess;
    /** Everything code-server printed (for failure messages). */
    log: () => string;
    stop(): Promise<void>;
}

export interface StartOptions {
    /** Extra environment for code-server and so for the extension host (e.g. a report path). */
    env?: Record<string, string>;
    /** A .vsix to install before starting. */
    vsix?: string;
}

/** Starts code-server on a free port with a fresh profile and waits for /healthz. */
export async function startCodeServer(options: StartOptions = {}): Promise<CodeServer> {
    const entry = ensureCodeServer();
    mkdirSync(workRoot, { recursive: true });
    const dir = mkdtempSync(path.join(workRoot, 'cs-'));
    const userData = path.join(dir, 'user-data');
    const extensionsDir = path.join(dir, 'extensions');
    mkdirSync(path.join(userData, 'User'), { recursive: true });
    mkdirSync(extensionsDir, { recursive: true });
    writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
        'workbench.startupEditor': 'none',
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.colorTheme': 'Default Dark Modern',
        'security.workspace.trust.enabled': false,
        'editor.codeLens': true,
        'editor.hover.delay': 100,
        // The sticky header covers the editor's top lines: a click on a line scrolled under it lands on the header.
        'editor.stickyScroll.enabled': false,
        'files.watcherExclude': { '**/node_modules/**': true },
    }, null, 2));
    const config = path.join(dir, 'config.yaml');
    writeFileSync(config, '');
    const port = await freePort();
    const env = {
        ...process.env,
        EXTENSIONS_GALLERY: '{}',
        XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
        XDG_DATA_HOME: path.join(dir, 'xdg-data'),
        // A new user's cache: no device profile, tuning or co_tuned choices a calibration on this machine left.
        XDG_CACHE_HOME: path.join(dir, 'xdg-cache'),
        XDG_RUNTIME_DIR: path.join(dir, 'xdg-runtime'),
        ...options.env,
    };
    mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
    const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensionsDir];
    if (options.vsix) {
        const install = spawnSync(node, [entry, ...common, '--install-extension', options.vsix, '--force'], { env, encoding: 'utf8' });
        if (install.status !== 0) throw new Error(`code-server --install-extension ${options.vsix} failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
    }
    let log = '';
    const child = spawn(node, [entry, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
        '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
        '--disable-getting-started-override', '--ignore-last-opened'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', chunk => { log += String(chunk); });
    child.stderr?.on('data', chunk => { log += String(chunk); });
    const url = `http://127.0.0.1:${port}`;
    const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
        const exited = new Promise<void>(resolve => child.once('exit', () => resolve()));
        try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
        const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5000);
        await exited;
        clearTimeout(timer);
    };
    const deadline = Date.now() + 30_000;
    for (;;) {
        if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode} before it was ready:\n${log}`);
        try {
            const response = await fetch(`${url}/healthz`);
            if (response.ok) break;
        } catch { /* not listening yet */ }
        if (Date.now() > deadline) {
            await stop();
            throw new Error(`code-server did not answer ${url}/healthz within 30 s:\n${log}`);
        }
        await new Promise(r => setTimeout(r, 200));
    }
    return { url, authority: `127.0.0.1:${port}`, dir, extensionsDir, process: child, log: () => log, stop };
}

export interface OpenOptions {
    folder: string;
    /** Load the extension from this folder (development mode). */
    extensionDevelopmentPath?: string;
    /** Run this extension-host test module (exports run()). */
    extensionTestsPath?: string;
    /** Patch the page to enable the smoke-test driver (default: when a payload is given). It hides notification toasts. */
    smokeTestDriver?: boolean;
}

/**
 * Opens the workbench for a folder. VS Code 1.139 reads `payload` only with the smoke-test
 * driver enabled, so an init script patches the page's configuration before the workbench reads it.
 */
export async function openWorkbench(context: BrowserContext, server: CodeServer, options: OpenOptions): Promise<Page> {
    const page = await context.newPage();
    const needsDriver = options.smokeTestDriver ?? (options.extensionDevelopmentPath !== undefined || options.extensionTestsPath !== undefined);
    if (needsDriver) await page.addInitScript(() => {
        const patch = () => {
            const element = document.getElementById('vscode-workbench-web-configuration');
            if (!element || element.dataset.tenancyPatched) return;
            const settings = JSON.parse(element.getAttribute('data-settings') ?? '{}');
            settings.developmentOptions = { ...settings.developmentOptions, enableSmokeTestDriver: true };
            element.setAttribute('data-settings', JSON.stringify(settings));
            element.dataset.tenancyPatched = 'true';
        };
        new MutationObserver(patch).observe(document, { childList: true, subtree: true });
    });
    const payload: [string, string][] = [];
    const remote = (p: string) => `vscode-remote://${server.authority}${p}`;
    if (options.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)]);
    if (options.extensionTestsPath) payload.push(['extensionTestsPath', remote(options.extensionTestsPath)]);
    const query = new URLSearchParams({ folder: options.folder });
    if (payload.length > 0) query.set('payload', JSON.stringify(payload));
    await page.goto(`${server.url}/?${query.toString()}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return page;
}
