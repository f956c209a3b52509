/** Bundles the extension-host integration suite (mocha, vscode external) for the test runs. */
import * as path from 'node:path';
import { build } from 'esbuild';
import { projectRoot, workRoot } from './code-server.js';

/** Builds test/e2e/.work/integration/index.cjs and returns its path. */
export async function bundleIntegrationSuite(): Promise<string> {
    const outfile = path.join(workRoot, 'integration', 'index.cjs');
    await build({
        entryPoints: [path.join(projectRoot, 'test', 'e2e', 'integration', 'index.ts')],
        outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node22', sourcemap: 'inline',
        external: ['vscode', 'mocha'], logLevel: 'warning',
    });
    return outfile;
}
