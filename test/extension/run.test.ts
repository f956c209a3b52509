import * as path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
    buildRunArgs, CliRun, queryAdapter, interpretExit, parseProgressLine, resolveCliNode, RunRegistry,
    type NodeCandidate, type RunEvent,
} from '../../src/extension/run.js';

const fakeCli = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fake-cli.mjs');
const node: NodeCandidate = { command: process.execPath, env: {}, source: 'extension-host' };

function startFake(mode: string, killAfterMs?: number) {
    const events: RunEvent[] = [];
    let stderr = '';
    const run = new CliRun({
        node, args: [fakeCli, mode, '/ws/.tenancy/results/x.w.json'], cwd: process.cwd(), killAfterMs,
        onEvent: e => events.push(e), onStderr: t => { stderr += t; },
    });
    return { run, events, stderr: () => stderr };
}

describe('parseProgressLine', () => {
    it('turns start, phase and progress events into progress with a title and percent', () => {
        expect(parseProgressLine('{"type":"start","version":1,"workload":"w","tenants":["a","b"],"policy":"concurrent","adapter":"llvmpipe"}'))
            .toEqual({ kind: 'progress', phase: 'start', percent: 0, message: '2 tenants, concurrent on llvmpipe' });
        expect(parseProgressLine('{"type":"phase","phase":"solo","tenant":"vision"}'))
            .toEqual({ kind: 'progress', phase: 'solo', message: 'Measuring solo (vision)' });
        expect(parseProgressLine('{"type":"progress","phase":"corun","fraction":0.25}'))
            .toEqual({ kind: 'progress', phase: 'corun', percent: 25, message: 'Co-running tenants' });
    });
    it('reads result events with their status', () => {
        expect(parseProgressLine('{"type":"result","resultsFile":"/a.json","historyFile":"/h.json","status":"complete"}'))
            .toEqual({ kind: 'results', path: '/a.json', cancelled: false, status: 'complete' });
        expect(parseProgressLine('{"type":"result","resultsFile":"/a.json","historyFile":"/h.json","status":"cancelled"}'))
            .toMatchObject({ cancelled: true, status: 'cancelled' });
    });
    it('reads error events, naming the op', () => {
        expect(parseProgressLine('{"type":"error","message":"device lost","opPath":"vision/m/conv1"}'))
            .toEqual({ kind: 'log', level: 'error', message: 'vision/m/conv1: device lost' });
    });
    it('keeps unknown or malformed lines as unparsed instead of throwing', () => {
        expect(parseProgressLine('   ')).toBeUndefined();
        expect(parseProgressLine('hello')).toEqual({ kind: 'unparsed', line: 'hello', reason: 'not JSON' });
        expect(parseProgressLine('[1,2]')).toMatchObject({ kind: 'unparsed', reason: 'not a progress event' });
        expect(parseProgressLine('{"type":"teapot"}')).toMatchObject({ kind: 'unparsed', reason: 'not a valid "teapot" event' });
        expect(parseProgressLine('{"type":"progress","phase":"corun","fraction":1.5}')).toMatchObject({ kind: 'unparsed' });
        expect(parseProgressLine('{"type":"result","status":"complete"}')).toMatchObject({ kind: 'unparsed' });
    });
});

describe('buildRunArgs', () => {
    it('passes workload, progress mode and only the options that are set', () => {
        expect(buildRunArgs({ cliPath: '/x/cli.mjs', file: '/w/a.tenancy', workload: 'w' }))
            .toEqual(['/x/cli.mjs', 'run', '/w/a.tenancy', '--workload', 'w', '--progress', 'jsonl']);
        expect(buildRunArgs({ cliPath: 'c', file: 'f', workload: 'w', tenant: 't', durationSeconds: 3, adapter: 'low_power', resultsFolder: '/r' }))
            .toEqual(['c', 'run', 'f', '--workload', 'w', '--progress', 'jsonl', '--tenant', 't', '--duration', '3s', '--adapter', 'low_power', '--results-dir', '/r']);
        expect(buildRunArgs({ cliPath: 'c', file: 'f', workload: 'w', adapter: 'workload' })).not.toContain('--adapter');
    });
});

describe('resolveCliNode', () => {
    const base = { execPath: '/host/node', exists: (f: string) => f === '/ext/node_modules/node/bin/node' };
    it('prefers the setting, and says when it does not exist', () => {
        expect(resolveCliNode({ ...base, configuredPath: '/ext/node_modules/node/bin/node', versions: { node: '20.1.0' } }))
            .toMatchObject({ command: '/ext/node_modules/node/bin/node', source: 'setting' });
        const missing = resolveCliNode({ ...base, configuredPath: '/nope', versions: { node: '24.0.0' } });
        expect('error' in missing && missing.error).toContain('/nope');
    });
    it('uses the host runtime when it is Node >= 22, as plain Node under Electron', () => {
        expect(resolveCliNode({ ...base, versions: { node: '24.21.0' } })).toEqual({ command: '/host/node', env: {}, source: 'extension-host' });
        expect(resolveCliNode({ ...base, versions: { node: '22.15.1', electron: '35.0.0' } }))
            .toEqual({ command: '/host/node', env: { ELECTRON_RUN_AS_NODE: '1' }, source: 'extension-host' });
    });
    it('explains, naming the setting, when the host is older and nothing is set', () => {
        const none = resolveCliNode({ ...base, versions: { node: '20.20.0' } });
        expect('error' in none && none.error).toMatch(/needs Node 22 .*runs Node 20\.20\.0/);
        expect('error' in none && none.error).toContain('tenancy.runtime.nodePath');
    });
});

describe('interpretExit', () => {
    const common = { signal: null, cancelRequested: false, stderrTail: 'tenancy: no adapter\n' };
    it('classifies exit codes into actionable failures', () => {
        expect(interpretExit({ ...common, code: 0, resultsPath: '/r.json' })).toEqual({ status: 'succeeded', resultsPath: '/r.json' });
        expect(interpretExit({ ...common, code: 2 })).toMatchObject({ status: 'failed', kind: 'environment', message: expect.stringContaining('tenancy: no adapter') });
        expect(interpretExit({ ...common, code: 1 })).toMatchObject({ kind: 'input' });
        expect(interpretExit({ ...common, code: 64 })).toMatchObject({ kind: 'usage' });
        expect(interpretExit({ ...common, code: 70 })).toMatchObject({ kind: 'internal' });
        expect(interpretExit({ ...common, code: 2, errorMessage: 'no adapter: install lavapipe' })).toMatchObject({ message: expect.stringContaining('install lavapipe') });
        expect(interpretExit({ ...common, code: 9 })).toMatchObject({ kind: 'crash', message: expect.stringContaining('code 9') });
        expect(interpretExit({ ...common, code: null, signal: 'SIGSEGV' })).toMatchObject({ kind: 'crash', message: expect.stringContaining('SIGSEGV') });
    });
    it('treats SIGTERM as cancelled only when the user cancelled', () => {
        expect(interpretExit({ ...common, code: null, signal: 'SIGTERM', cancelRequested: true })).toEqual({ status: 'cancelled', resultsPath: undefined });
        expect(interpretExit({ ...common, code: null, signal: 'SIGTERM' })).toMatchObject({ status: 'failed', kind: 'crash' });
    });
});

describe('CliRun (real child processes)', () => {
    it('streams progress, skips stray output and reports the results path', async () => {
        const { run, events } = startFake('ok');
        const outcome = await run.done;
        expect(outcome).toEqual({ status: 'succeeded', resultsPath: '/ws/.tenancy/results/x.w.json' });
        expect(events.map(e => e.kind)).toEqual(['progress', 'progress', 'unparsed', 'progress', 'results']);
        expect(events[3]).toMatchObject({ phase: 'solo', percent: 75, message: 'Measuring solo (a)' });
    });
    it('reassembles events split across chunks, including an unterminated last line', async () => {
        const { run, events } = startFake('chunked');
        expect(await run.done).toMatchObject({ status: 'succeeded', resultsPath: '/ws/.tenancy/results/x.w.json' });
        expect(events[0]).toMatchObject({ kind: 'progress', phase: 'corun', percent: 50 });
        expect(events).toHaveLength(3);
        expect(events[1]).toMatchObject({ kind: 'progress', phase: 'solo', percent: 25 });
    });
    it('cancels with SIGTERM and reports the partial results', async () => {
        const { run, events } = startFake('slow');
        await new Promise<void>(resolve => {
            const poll = setInterval(() => { if (events.length > 0) { clearInterval(poll); resolve(); } }, 10);
        });
        run.cancel();
        expect(await run.done).toEqual({ status: 'cancelled', resultsPath: '/ws/.tenancy/results/x.w.json' });
        expect(events.at(-1)).toMatchObject({ kind: 'results', cancelled: true });
    });
    it('turns a missing adapter (exit 2) and a crash into failures with stderr', async () => {
        const missing = startFake('exit2');
        expect(await missing.run.done).toMatchObject({ status: 'failed', kind: 'environment', exitCode: 2, message: expect.stringContaining('install a Vulkan driver') });
        expect(missing.stderr()).toContain('no WebGPU adapter');
        expect(await startFake('crash').run.done).toMatchObject({ status: 'failed', kind: 'crash', signal: 'SIGSEGV' });
    });
    it('reports a spawn failure instead of hanging', async () => {
        const run = new CliRun({ node: { command: '/nonexistent/node', env: {}, source: 'setting' }, args: [], cwd: process.cwd(), onEvent: () => {}, onStderr: () => {} });
        expect(await run.done).toMatchObject({ status: 'failed', kind: 'spawn', message: expect.stringContaining('/nonexistent/node') });
    });
});

describe('RunRegistry', () => {
    it('holds one run per workload and forgets it when done', async () => {
        const registry = new RunRegistry();
        const { run } = startFake('ok');
        registry.add('file:///a', 'w', run);
        expect(() => registry.add('file:///a', 'w', run)).toThrow(/already in progress/);
        expect(registry.get('file:///a', 'w')).toBe(run);
        await run.done;
        await new Promise(r => setTimeout(r, 0));
        expect(registry.size).toBe(0);
    });
});

describe('queryAdapter', () => {
    // The fake CLI takes a mode where the real one takes a subcommand: a shim maps `devices --json` to it.
    async function queryWithFake(mode: string) {
        const dir = mkdtempSync(path.join(tmpdir(), 'tenancy-devices-'));
        const shim = path.join(dir, 'cli.mjs');
        writeFileSync(shim, `process.argv.splice(2, 2, ${JSON.stringify(mode)}); await import(${JSON.stringify(pathToFileURL(fakeCli).href)});`);
        return queryAdapter(node, shim, dir);
    }
    it('names the first adapter', async () => {
        expect(await queryWithFake('devices')).toEqual({ adapter: 'mesa llvmpipe (software)' });
    });
    it('says when there is none, with the CLI\'s reason', async () => {
        expect(await queryWithFake('nodevices')).toEqual({ error: 'no WebGPU adapter: tenancy devices: no WebGPU adapter (install a Vulkan driver)' });
    });
});
