// Runs the integration suite in a downloaded desktop VS Code (@vscode/test-electron), where
// its update server is reachable. (Here it is not: the same suite runs inside code-server via
// `npm run test:e2e`.) Usage, after `node esbuild.mjs`:
//   node_modules/.bin/node test/e2e/integration/run-electron.mjs [vscode version, default stable]
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(path.join(tmpdir(), 'tenancy-electron-'));
const suite = path.join(work, 'integration', 'index.cjs');
await build({
    entryPoints: [path.join(root, 'test/e2e/integration/index.ts')], outfile: suite, bundle: true,
    platform: 'node', format: 'cjs', target: 'node22', external: ['vscode', 'mocha'], logLevel: 'warning',
    // mocha is resolved from the project, not from the temp folder.
    nodePaths: [path.join(root, 'node_modules')],
});
// The same workspace as test/e2e/workspace.ts builds.
const ws = path.join(work, 'ws');
mkdirSync(path.join(ws, '.vscode'), { recursive: true });
mkdirSync(path.join(ws, '.tenancy'), { recursive: true });
copyFileSync(path.join(root, 'examples/vision-and-nlp.tenancy'), path.join(ws, 'vision-and-nlp.tenancy'));
writeFileSync(path.join(ws, 'typo.tenancy'), 'model broken(batch = 1) {\n  input x: f32[batch, 16]\n  output relu(dense_layer(x, 8))\n}\n');
writeFileSync(path.join(ws, '.vscode/settings.json'), JSON.stringify({ 'tenancy.run.duration': 1 }));
const report = path.join(work, 'report.json');
try {
    await runTests({
        version: process.argv[2] ?? 'stable',
        extensionDevelopmentPath: root,
        extensionTestsPath: suite,
        launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust'],
        extensionTestsEnv: { TENANCY_INTEGRATION_REPORT: report, NODE_PATH: path.join(root, 'node_modules') },
    });
    console.log(readFileSync(report, 'utf8'));
} catch (error) {
    console.error(`integration suite under test-electron failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
}
