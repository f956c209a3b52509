/**
 * The extension-host entry of the integration suite (VS Code's extensionTestsPath contract:
 * a module exporting run()). Runs the mocha suite and writes a JSON report to
 * $TENANCY_INTEGRATION_REPORT, because the extension host's console does not reach the test
 * process. Works under @vscode/test-electron and inside code-server alike.
 */
import { writeFileSync } from 'node:fs';

interface TestRecord {
    title: string;
    state: 'passed' | 'failed' | 'pending';
    durationMs: number;
    error?: string;
}

export async function run(): Promise<void> {
    // mocha 12 exports the class as a property; required at run time from the project's node_modules.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Mocha } = require('mocha') as typeof import('mocha') & { Mocha: typeof import('mocha') };
    const mocha = new Mocha({ ui: 'bdd', timeout: 180_000, color: false });
    mocha.suite.emit('pre-require', globalThis, 'extension.suite', mocha);
    // Loaded after pre-require so that describe/it exist as globals (bundled lazily by esbuild).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./extension.suite.js');
    const records: TestRecord[] = [];
    const started = Date.now();
    const failures = await new Promise<number>(resolve => {
        const runner = mocha.run(count => resolve(count));
        runner.on('pass', test => records.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 }));
        runner.on('fail', (test, error: Error) => records.push({ title: test.fullTitle(), state: 'failed', durationMs: test.duration ?? 0, error: error.stack ?? error.message }));
        runner.on('pending', test => records.push({ title: test.fullTitle(), state: 'pending', durationMs: 0 }));
    });
    const report = process.env.TENANCY_INTEGRATION_REPORT;
    if (report) writeFileSync(report, JSON.stringify({ failures, durationMs: Date.now() - started, tests: records }, null, 2));
    if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
}
