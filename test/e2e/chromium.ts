/** Launching Debian's Chromium through playwright-core, headless, with the flags below. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const chromiumPath = process.env.TENANCY_CHROMIUM ?? '/usr/bin/chromium';

/** A persistent Chromium context in a fresh profile folder. */
export async function launchChromium(viewport = { width: 1400, height: 900 }): Promise<BrowserContext> {
    const profile = mkdtempSync(path.join(tmpdir(), 'tenancy-chromium-'));
    return chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        viewport,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
}
