/**
 * The `tenancy` command as users start it (out/cli/main.mjs, the launcher, running the CLI bundle
 * beside it): Dawn's start-up notices are gone from stderr while real errors, exit codes and
 * signals pass through. Both bundles are built here with esbuild.mjs's entry points.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { cliBuild } from '../../esbuild.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProgressEvent, type ProgressEvent } from '../../src/protocol/progress.js';
import { hasAdapter } from '../runtime/execute/gpu-helper.js';

const root = join(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
// Inside the project, so that the external `webgpu` resolves from node_modules as from out/cli.
const outdir = join(root, 'out', 'test', `launcher-${process.pid}`);
const launcher = join(outdir, 'main.mjs');
const work = mkdtempSync(join(tmpdir(), 'tenancy-launcher-'));
const fixture = join(root, 'test/fixtures/ir/two-mlps.json');
const dawnNotice = /^Warning: maxDynamic(Uniform|Storage)BuffersPerPipelineLayout artificially reduced/m;

interface Exit { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs the launcher; `onEvent` sees each progress event of `--progress jsonl` with the child process. */
function tenancy(args: string[], env: Record<string, string> = {}, onEvent?: (event: ProgressEvent, child: ReturnType<typeof spawn>) => void): Promise<Exit> {
    return new Promise(resolve => {
        const child = spawn(node, [launcher, ...args], { env: { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir(), ...env } });
        let stdout = '', stderr = '', pending = '';
        child.stdout.setEncoding('utf8');
        child.stderr.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
            stdout += chunk;
            pending += chunk;
            const lines = pending.split('\n');
            pending = lines.pop()!;
            for (const line of lines) {
                const value: unknown = line.startsWith('{') ? JSON.parse(line) : undefined;
                if (isProgressEvent(value)) onEvent?.(value, child);
            }
        });
        child.stderr.on('data', (chunk: string) => { stderr += chunk; });
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
}

const gpu = await hasAdapter();

beforeAll(async () => {
    // esbuild.mjs's own CLI options (both entries: the launcher and the CLI it runs), into a folder of this test.
    const { entryPoints, outdir: _outdir, ...options } = cliBuild;
    await build({
        ...options, absWorkingDir: root, outdir, sourcemap: false, logLevel: 'error', nodePaths: [join(root, 'node_modules')],
        entryPoints: { main: entryPoints['cli/main'], tenancy: entryPoints['cli/tenancy'] },
    });
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the launcher passes through what is not noise', () => {
    it('usage errors: the message on stderr, exit 64', async () => {
        const r = await tenancy(['run', '--ir', fixture, '--adapter', 'gpu']);
        expect(r.code).toBe(64);
        expect(r.stderr).toContain("--adapter must be one of auto, high_performance, low_power, fallback; found 'gpu'");
    });

    it('a former --adapter spelling still works, with a deprecation note', async () => {
        const r = await tenancy(['run', join(work, 'missing.tenancy'), '--adapter', 'low-power']);
        expect(r.stderr).toContain('--adapter low-power is deprecated; write --adapter low_power');
        expect(r.stderr).toContain('missing.tenancy: no such file');
        expect(r.code).toBe(1);
    });

    it.runIf(process.platform === 'linux')('a real Vulkan problem: the driver loader\'s warnings and the no-adapter error, exit 2', async () => {
        const r = await tenancy(['devices'], { VK_ICD_FILENAMES: join(work, 'no-such-icd.json') });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('vkCreateInstance: Found no drivers!');
        expect(r.stderr).toContain('tenancy devices: No WebGPU adapter found.');
    });
});

describe.skipIf(!gpu)('the launcher on the software adapter', () => {
    it("tenancy devices: no Dawn start-up notices on stderr (TENANCY_STDERR=raw shows them)", async () => {
        const filtered = await tenancy(['devices']);
        expect(filtered.code, filtered.stderr).toBe(0);
        expect(filtered.stdout).toMatch(/— preference high_performance$/m);
        expect(filtered.stderr).toBe('');
        const raw = await tenancy(['devices'], { TENANCY_STDERR: 'raw' });
        expect(raw.code).toBe(0);
        expect(raw.stderr).toMatch(dawnNotice);
    });

    it('SIGTERM to the launcher reaches the run: cancelled results, exit 130', async () => {
        const dir = join(work, 'results-term');
        // One signal, as a user's Ctrl-C or a scheduler's stop (a second one leaves at once, writing nothing).
        let sent = false;
        const r = await tenancy(['run', '--ir', fixture, '--duration', '60s', '--progress', 'jsonl', '--results-dir', dir], {}, (event, child) => {
            if (event.type === 'progress' && !sent) { sent = true; child.kill('SIGTERM'); }
        });
        expect(r.code, r.stderr).toBe(130);
        expect(r.stderr).toContain('SIGTERM received; stopping and writing what was measured');
        expect(r.stdout).toContain('"status":"cancelled"');
        expect(r.stderr).not.toMatch(dawnNotice);
    });

    it('SIGKILL to the launcher: the run under it ends too, instead of running on unseen', async () => {
        let killedAt = 0;
        const r = await tenancy(['run', '--ir', fixture, '--duration', '60s', '--progress', 'jsonl', '--results-dir', join(work, 'results-kill')], {}, (event, child) => {
            if (event.type === 'progress' && killedAt === 0) {
                killedAt = performance.now();
                child.kill('SIGKILL');
            }
        });
        // The CLI holds the stdout pipe open until it exits, so `close` waits for it: well before its 60 s run ends.
        const closedAt = performance.now();
        expect(r.signal).toBe('SIGKILL');
        expect(killedAt).toBeGreaterThan(0);
        expect(closedAt - killedAt).toBeLessThan(10_000);
    });
});
