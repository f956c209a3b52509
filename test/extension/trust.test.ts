/**
 * An untrusted workspace: running, running a tenant solo, comparing schedules and calibrating
 * execute the workload on this machine's GPU, so they refuse and say why (with a way to trust
 * the workspace) before anything is started. `vscode` is a stand-in that records what the commands do.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({
    handlers: new Map<string, (...args: unknown[]) => unknown>(),
    warnings: [] as string[],
    executed: [] as unknown[][],
    answer: undefined as string | undefined,
}));

vi.mock('vscode', () => ({
    workspace: { isTrusted: false, textDocuments: [], getWorkspaceFolder: () => undefined },
    window: {
        showWarningMessage: async (message: string) => { calls.warnings.push(message); return calls.answer; },
        showErrorMessage: async (message: string) => { calls.warnings.push(`error: ${message}`); return undefined; },
        showInformationMessage: async () => undefined,
        withProgress: () => { throw new Error('a run was started'); },
    },
    commands: {
        registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => { calls.handlers.set(id, handler); return { dispose() {} }; },
        executeCommand: async (...args: unknown[]) => { calls.executed.push(args); return undefined; },
    },
    Uri: { parse: (s: string) => ({ scheme: s.split(':')[0], fsPath: s.replace(/^file:\/\//, ''), toString: () => s }) },
}));

const { registerCommands } = await import('../../src/extension/commands.js');
const { RunRegistry } = await import('../../src/extension/run.js');

describe('untrusted workspace', () => {
    const cliNode = vi.fn(() => ({ command: '/usr/bin/node', source: 'extension-host' as const }));
    const runs = new RunRegistry();

    beforeEach(() => {
        calls.handlers.clear();
        calls.warnings.length = 0;
        calls.executed.length = 0;
        cliNode.mockClear();
        registerCommands({
            context: { asAbsolutePath: (p: string) => `/ext/${p}` }, output: { appendLine() {}, append() {}, show() {} },
            config: { resultsFolder: '.tenancy/results', runAdapter: 'workload' }, client: () => undefined, cliNode, runs,
            status: { setRunning() {} }, reports: {}, onRunFinished: { fire() {} },
        } as never);
    });

    const ref = { uri: 'file:///work/ws/vision.tenancy', workload: 'vision' };

    it.each([
        ['tenancy.workload.run', ref, 'Running benchmarks'],
        ['tenancy.tenant.runSolo', { ...ref, tenant: 'cnn' }, 'Running benchmarks'],
        ['tenancy.workload.compare', ref, 'Running benchmarks'],
        ['tenancy.workload.compare', { ...ref, schedules: ['concurrent'] }, 'Running benchmarks'],
        ['tenancy.device.calibrate', { uri: ref.uri }, 'Calibrating the device'],
    ])('%s refuses with the reason and starts nothing', async (id, arg, what) => {
        calls.answer = undefined;
        expect(await calls.handlers.get(id)!(arg)).toBeUndefined();
        expect(calls.warnings).toEqual([
            `Tenancy: ${what} is disabled in an untrusted workspace, because it executes the workload on this machine's GPU. Language features keep working. Trust the workspace to run.`,
        ]);
        expect(cliNode).not.toHaveBeenCalled();
        expect(runs.size).toBe(0);
        expect(calls.executed).toEqual([]);
    });

    it('the message\'s button opens workspace trust', async () => {
        calls.answer = 'Manage Workspace Trust';
        await calls.handlers.get('tenancy.workload.run')!(ref);
        expect(calls.executed).toEqual([['workbench.trust.manage']]);
        expect(cliNode).not.toHaveBeenCalled();
    });
});
