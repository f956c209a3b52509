import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RestartBudget } from '../../src/extension/restart-budget.js';
import { ServerOutputTail, serverStoppedMessage } from '../../src/extension/server-exit.js';

/** The stderr of a Node process that dies as a server can. */
function stderrOf(script: string, execArgv: string[] = []): string {
    return spawnSync(process.execPath, [...execArgv, '-e', script], { encoding: 'utf8', timeout: 60_000 }).stderr;
}

describe('why the language server stopped', () => {
    it('an uncaught exception: its error line, not a stack frame or the Node version', () => {
        const tail = new ServerOutputTail();
        tail.record('[Info  - 10:42:01] Tenancy language server started\n');
        for (const line of stderrOf('function f(n) { return f(n + 1) + 1 } f(0)').split('\n')) tail.record(line);
        expect(tail.cause()).toMatch(/^RangeError: Maximum call stack size exceeded$/);
    });

    it('out of memory: Node\'s fatal error line', () => {
        const tail = new ServerOutputTail();
        tail.record(stderrOf('const a = []; for (;;) a.push(new Array(1e5).fill(1.5))', ['--max-old-space-size=24']));
        expect(tail.cause()).toMatch(/FATAL ERROR: .*heap.*out of memory|JavaScript heap out of memory/);
    });

    it('a log line\'s prefix is dropped; long lines are shortened; nothing erroneous: no cause', () => {
        const tail = new ServerOutputTail(3);
        tail.record('[Error - 10:42:01] TypeError: Cannot read properties of undefined (reading \'callee\')');
        expect(tail.cause()).toBe("TypeError: Cannot read properties of undefined (reading 'callee')");
        tail.record(`Error: ${'x'.repeat(400)}`);
        expect(tail.cause()!.length).toBe(238);
        tail.record('a\nb\nc');
        expect(tail.cause()).toBeUndefined(); // only the last 3 lines are kept
    });

    it('the message says why and whether it restarts', () => {
        expect(serverStoppedMessage('RangeError: Maximum call stack size exceeded', { restarted: true, recent: 1, max: 3, windowMinutes: 3 }))
            .toBe('Tenancy: the language server stopped unexpectedly: RangeError: Maximum call stack size exceeded. Restarting it (1 of 3 restarts within 3 minutes).');
        expect(serverStoppedMessage(undefined, { restarted: false, recent: 3, max: 3, windowMinutes: 3 }))
            .toBe('Tenancy: the language server stopped 4 times within 3 minutes and will not be restarted; the last time (its output names no cause; see the log). Reload the window to start it again.');
    });

    it('the restart budget: three within the window, then none until the oldest leaves it', () => {
        let now = 0;
        const budget = new RestartBudget(3, 60_000, () => now);
        expect([budget.tryRestart(), budget.tryRestart(), budget.tryRestart(), budget.tryRestart()]).toEqual([true, true, true, false]);
        expect(budget.recent).toBe(3);
        now = 60_001;
        expect(budget.tryRestart()).toBe(true);
    });
});
