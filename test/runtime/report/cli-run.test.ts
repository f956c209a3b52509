/**
 * The `tenancy run` command end to end in a child process: progress JSON lines, results files,
 * exit codes, SIGTERM → cancelled results and exit 130; `tenancy compare` and `capacity`'s
 * refusals and comparison file. The CLI is bundled from source here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { bundleCli } from '../../fixtures/bundle-cli.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { isProgressEvent, type ProgressEvent } from '../../../src/protocol/progress.js';
import { parseResults } from '../../../src/runtime/report/schema.js';
import { comparisonSchema } from '../../../src/runtime/report/compare.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const root = join(import.meta.dirname, '../../..');
const node = join(root, 'node_modules/.bin/node');
const work = mkdtempSync(join(tmpdir(), 'tenancy-cli-'));
// Inside the project so the external `webgpu` resolves from node_modules.
const cli = join(root, 'out', 'test', `cli-${process.pid}.mjs`);
const fixture = join(root, 'test/fixtures/ir/two-mlps.json');
// The CLI's user cache (profiles, tuning, co_tuned choices) is this file's own: what a calibration on this machine left
// there must not change what these tests resolve, and the tests must not leave choices behind for the user.
const cacheHome = mkdtempSync(join(tmpdir(), 'tenancy-cli-cache-'));

/** Runs the CLI; `env` adds variables, `wrap` runs it under another command (`wrap…, node, cli, args…`). */
function runCli(args: string[], onLine?: (event: ProgressEvent, child: ReturnType<typeof spawn>) => void, options: { env?: Record<string, string>; wrap?: string[] } = {}) {
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; events: ProgressEvent[]; ms: number }>((resolve) => {
        const command = [...(options.wrap ?? []), node, cli, ...args];
        const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir(), XDG_CACHE_HOME: cacheHome, ...options.env } });
        let stdout = '', stderr = '', pending = '';
        const events: ProgressEvent[] = [];
        const started = performance.now();
        child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk;
            pending += chunk;
            const lines = pending.split('\n');
            pending = lines.pop()!;
            for (const line of lines) {
                if (!line.trim().startsWith('{')) continue; // the table, without --progress
                const value: unknown = JSON.parse(line);
                if (isProgressEvent(value)) { events.push(value); onLine?.(value, child); }
            }
        });
        child.stderr.on('data', (chunk: Buffer) => { stderr += chunk; });
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, events, ms: performance.now() - started }));
    });
}

const gpu = await hasAdapter();

beforeAll(async () => {
    await bundleCli(cli, root);
});

describe('tenancy run (CLI)', () => {
    it('rejects invalid IR with exit code 1 and the op path', async () => {
        const bad = join(work, 'bad.json');
        const ir = JSON.parse(readFileSync(fixture, 'utf8'));
        ir.tenants[0].graph.ops[0].attrs.units = 'many';
        writeFileSync(bad, JSON.stringify(ir));
        const r = await runCli(['run', '--ir', bad, '--progress', 'jsonl']);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('tenant small, op small/mlp/fc1: attrs.units must be a positive integer');
        expect(r.events.at(-1)).toMatchObject({ type: 'error', exitCode: 1 });
    });

    it('stops on errors in a .tenancy file with the diagnostics of tenancy check (exit 1)', async () => {
        const file = join(work, 'bad.tenancy');
        writeFileSync(file, 'workload bad {\n  tenant a { model nosuch() }\n}\n');
        const r = await runCli(['run', file]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/bad\.tenancy:2:\d+ error unresolved-reference/);
    });

    it('prints its version', async () => {
        const r = await runCli(['--version']);
        expect(r.code).toBe(0);
        expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    });

    it('refuses what --fail-on, --rounds and --budget do not take, exit 64', async () => {
        expect((await runCli(['run', '--ir', fixture, '--fail-on', 'slow'])).stderr).toContain("--fail-on takes slo or invalid; found 'slow'");
        expect((await runCli(['run', '--ir', fixture, '--rounds', '0'])).code).toBe(64);
        expect((await runCli(['run', '--ir', fixture, '--budget', 'forever'])).stderr).toContain("--budget must look like 5s, 250ms or 2m; found 'forever'");
    });

    it('usage errors exit 64', async () => {
        const r = await runCli(['run', '--ir', fixture, '--duration', 'soon']);
        expect(r.code).toBe(64);
        expect(r.stderr).toContain("--duration/--warmup must look like 5s, 250ms or 2m; found 'soon'");
    });
});

describe.skipIf(!gpu)('tenancy run on the software adapter (CLI)', () => {
    it('streams progress, writes results and history, exit 0', async () => {
        const dir = join(work, 'results-ok');
        const r = await runCli(['run', '--ir', fixture, '--duration', '300ms', '--warmup', '50ms', '--progress', 'jsonl', '--results-dir', dir]);
        expect(r.code, r.stderr).toBe(0);
        // Only progress events on stdout.
        expect(r.stdout.trim().split('\n').every(l => isProgressEvent(JSON.parse(l)))).toBe(true);
        const types = r.events.map(e => e.type);
        expect(types[0]).toBe('start');
        expect(types.at(-1)).toBe('result');
        const fractions = r.events.filter(e => e.type === 'progress').map(e => (e as { fraction: number }).fraction);
        expect(fractions.every((f, i) => i === 0 || f >= fractions[i - 1])).toBe(true);
        const result = r.events.at(-1) as Extract<ProgressEvent, { type: 'result' }>;
        expect(result.resultsFile).toBe(join(dir, 'two-mlps.two_mlps.json'));
        const results = parseResults(JSON.parse(readFileSync(result.resultsFile, 'utf8')));
        expect(results.status).toBe('complete');
        // Slowdowns of the median always, of p99 only where both phases have the 299 requests it needs.
        expect(results.tenants.map(t => t.slowdown.p50 !== null)).toEqual([true, true]);
        for (const t of results.tenants) expect(t.slowdown.p99 !== null).toBe(t.solo!.requests >= 299 && t.corun!.requests >= 299);
        expect(readdirSync(join(dir, 'history'))).toHaveLength(1);
        expect(r.stderr).toMatch(/tenant\s+requests\s+co-run p50\s+co-run p99\s+slowdown p50/);
    });

    it('draws one progress line on stderr when a terminal is behind the launcher\'s pipe, the table on stdout', async () => {
        // What the launcher sets when its stderr is a terminal (src/cli/launcher.ts): the CLI's stderr is then its pipe.
        const r = await runCli(['run', '--ir', fixture, '--duration', '300ms', '--warmup', '50ms', '--results-dir', join(work, 'results-tty')], undefined, { env: { TENANCY_STDERR: 'piped-tty' } });
        expect(r.code, r.stderr).toBe(0);
        const drawn = r.stderr.split('\r\x1b[K').filter(Boolean);
        expect(drawn.some(l => /^compile · \d+ %/.test(l)), r.stderr).toBe(true);
        expect(drawn.some(l => /^warm-up round · solo small · \d+ %/.test(l)), r.stderr).toBe(true);
        expect(r.stdout).toMatch(/^workload two_mlps/m);
        // Without a terminal: no line drawn.
        const piped = await runCli(['run', '--ir', fixture, '--duration', '300ms', '--warmup', '50ms', '--results-dir', join(work, 'results-piped')], undefined, { env: { TENANCY_STDERR: 'piped' } });
        expect(piped.code, piped.stderr).toBe(0);
        expect(piped.stderr).not.toContain('\r\x1b[K');
    });

    it('runs a .tenancy file through the language server (parse, check, lower)', async () => {
        const file = join(work, 'ok.tenancy');
        writeFileSync(file, [
            'model m(batch = 4) {', '  input x: f32[batch, 32]', '  output dense(relu(dense(x, 64)), 8)', '}',
            'workload w {', '  tenant a { model m() }', '  tenant b { model m(batch: 8) }', '  benchmark { duration 200ms warmup 50ms seed 1 }', '}', '',
        ].join('\n'));
        const dir = join(work, 'results-tenancy');
        const r = await runCli(['run', file, '--workload', 'w', '--results-dir', dir]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/^a\s+\d+/m);
        const results = parseResults(JSON.parse(readFileSync(join(dir, 'ok.w.json'), 'utf8')));
        expect(results.tenants.map(t => t.name)).toEqual(['a', 'b']);
        expect(results.sourceUri).toMatch(/ok\.tenancy$/);
    });

    it('--fail-on gives CI an exit code of its own: 3 for a violated SLO, 4 for figures that are not valid', async () => {
        const ir = JSON.parse(readFileSync(fixture, 'utf8'));
        ir.tenants[0].slos = [{ percentile: 'p50', ms: 0.001 }];
        const tight = join(work, 'tight.json');
        writeFileSync(tight, JSON.stringify(ir));
        // A budget of a second: no room for the rounds the SLO percentiles would need.
        const args = ['--duration', '200ms', '--warmup', '50ms', '--rounds', '2', '--budget', '1s', '--results-dir', join(work, 'results-fail')];
        const slo = await runCli(['run', '--ir', tight, ...args, '--fail-on', 'slo', 'invalid']);
        expect(slo.code, slo.stderr).toBe(3);
        expect(slo.stderr).toMatch(/SLO violated: small p50 ≤ 0\.001 ms \(--fail-on slo\)/);
        // The tenants' p99 and p95 cannot be bounded in 200 ms: not valid.
        const invalid = await runCli(['run', '--ir', fixture, ...args, '--fail-on', 'invalid']);
        expect(invalid.code, invalid.stderr).toBe(4);
        expect(invalid.stderr).toMatch(/the figures are not valid: .* \(--fail-on invalid\)/);
        expect((await runCli(['run', '--ir', fixture, ...args])).code).toBe(0);
    });

    it('a run of one tenant writes results of its own, leaving the workload\'s co-run results', async () => {
        const dir = join(work, 'results-solo');
        const r = await runCli(['run', '--ir', fixture, '--tenant', 'small', '--duration', '200ms', '--warmup', '50ms', '--results-dir', dir]);
        expect(r.code, r.stderr).toBe(0);
        expect(readdirSync(dir).filter(n => n.endsWith('.json'))).toEqual(['two-mlps.two_mlps.solo-small.json']);
        expect(readdirSync(join(dir, 'history'))[0]).toMatch(/^two-mlps\.two_mlps\.solo-small\.\d{4}-/);
    });

    it('SIGTERM stops the run within a second, writes cancelled results, exit 130', async () => {
        const dir = join(work, 'results-cancel');
        let signalledAt = 0;
        const r = await runCli(['run', '--ir', fixture, '--duration', '60s', '--progress', 'jsonl', '--results-dir', dir], (event, child) => {
            // The first measured solo phase (round 0 is the warm-up round, whose requests are discarded).
            if (event.type === 'phase' && event.phase === 'solo' && (event.round ?? 0) >= 1 && !signalledAt) {
                setTimeout(() => { signalledAt = performance.now(); child.kill('SIGTERM'); }, 500);
            }
        });
        expect(r.code, r.stderr).toBe(130);
        expect(r.events.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
        const results = parseResults(JSON.parse(readFileSync(join(dir, 'two-mlps.two_mlps.json'), 'utf8')));
        expect(results.status).toBe('cancelled');
        expect(results.tenants[0].solo!.requests).toBeGreaterThan(0);
        expect(signalledAt).toBeGreaterThan(0);
    });
});

/** A results folder holding an earlier run's files (latest and a history copy), to check that a fault leaves them intact. */
function seededResults(name: string): { dir: string; latest: string; history: string; text: string } {
    const dir = join(work, name);
    mkdirSync(join(dir, 'history'), { recursive: true });
    const text = `${JSON.stringify({ earlier: 'run', name })}\n`;
    const latest = join(dir, 'two-mlps.two_mlps.json'), history = join(dir, 'history', 'two-mlps.two_mlps.2020-01-01T00-00-00.000Z.json');
    writeFileSync(latest, text);
    writeFileSync(history, text);
    return { dir, latest, history, text };
}

/**
 * Whether this host lets an unprivileged process mount a small tmpfs in a user and mount
 * namespace of its own (`unshare -rm`), where a full disk and a read-only folder can be made
 * without touching the machine. Where it cannot, those two tests say so and skip.
 */
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=64k none "${tmpdir()}"`]).status === 0;
if (!canMount) console.warn('\n*** unshare -rm cannot mount a tmpfs here: SKIPPING the disk-full and read-only results tests ***\n');

/** Runs the CLI in a namespace where `dir` is a 256 KiB tmpfs holding the seeded files, full (`full`) or read-only (`ro`). */
function underTmpfs(dir: string, seeded: string, mode: 'full' | 'ro'): string[] {
    const script = [
        'dir="$1"; seeded="$2"; mode="$3"; shift 3',
        'mount -t tmpfs -o size=256k none "$dir" || exit 99',
        'mkdir -p "$dir/history" && cp "$seeded" "$dir/two-mlps.two_mlps.json" && cp "$seeded" "$dir/history/two-mlps.two_mlps.2020-01-01T00-00-00.000Z.json"',
        '[ "$mode" = full ] && { dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null; true; }',
        '[ "$mode" = ro ] && mount -o remount,ro "$dir"',
        '"$@"; rc=$?',
        'cmp -s "$seeded" "$dir/two-mlps.two_mlps.json" && echo "FAULT-CHECK: previous results intact" >&2',
        'echo "FAULT-CHECK: history files $(ls -A "$dir/history" | wc -l)" >&2',
        'exit $rc',
    ].join('\n');
    return ['unshare', '-rm', 'sh', '-c', script, 'sh', dir, seeded, mode];
}

describe('tenancy run under faults (CLI)', () => {
    it.runIf(process.platform === 'linux')('no adapter (no Vulkan driver): exit 2 with the reason and what to install, the previous results intact', async () => {
        const seeded = seededResults('results-no-adapter');
        const r = await runCli(['run', '--ir', fixture, '--progress', 'jsonl', '--results-dir', seeded.dir], undefined, { env: { VK_ICD_FILENAMES: join(work, 'no-such-icd.json') } });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/tenancy run: .*Tenancy needs a WebGPU adapter .*install Mesa lavapipe/);
        expect(r.events.at(-1)).toMatchObject({ type: 'error', exitCode: 2 });
        expect(readFileSync(seeded.latest, 'utf8')).toBe(seeded.text);
        expect(readdirSync(join(seeded.dir, 'history'))).toEqual([basename(seeded.history)]);
    });

    it.runIf(gpu)('SIGINT in the warm-up round and in a co-run phase: cancelled results, exit 130, the earlier history intact', async () => {
        for (const when of ['warm-up', 'co-run'] as const) {
            const seeded = seededResults(`results-sigint-${when}`);
            let sent = false;
            const r = await runCli(['run', '--ir', fixture, '--duration', '20s', '--warmup', '5s', '--progress', 'jsonl', '--results-dir', seeded.dir], (event, child) => {
                const hit = event.type === 'phase' && (when === 'warm-up' ? event.round === 0 && event.phase === 'solo' : event.phase === 'corun' && (event.round ?? 0) >= 1);
                if (hit && !sent) { sent = true; setTimeout(() => child.kill('SIGINT'), 300); }
            });
            expect(sent, when).toBe(true);
            expect(r.code, `${when}: ${r.stderr}`).toBe(130);
            expect(r.stderr).toContain('tenancy run: SIGINT received; stopping and writing what was measured');
            expect(r.events.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
            expect(parseResults(JSON.parse(readFileSync(seeded.latest, 'utf8'))).status).toBe('cancelled');
            expect(readFileSync(seeded.history, 'utf8')).toBe(seeded.text);
        }
    });

    it.runIf(gpu)('the CLI killed (SIGKILL) mid-run: the previous results intact, no temp file left', async () => {
        const seeded = seededResults('results-killed');
        const r = await runCli(['run', '--ir', fixture, '--duration', '20s', '--warmup', '0', '--progress', 'jsonl', '--results-dir', seeded.dir], (event, child) => {
            if (event.type === 'phase' && event.phase === 'corun') child.kill('SIGKILL');
        });
        expect(r.signal).toBe('SIGKILL');
        expect(readFileSync(seeded.latest, 'utf8')).toBe(seeded.text);
        expect(readdirSync(seeded.dir).sort()).toEqual(['history', 'two-mlps.two_mlps.json']);
    });

    for (const [mode, reason] of [['full', 'the disk is full'], ['ro', 'the file system is read-only']] as const) {
        it.runIf(gpu && canMount)(`${mode === 'full' ? 'a full disk' : 'a read-only results folder'}: exit 2, says so and where this run's results were kept, the previous results intact`, async () => {
            const dir = join(work, `results-${mode}`);
            mkdirSync(dir, { recursive: true });
            const seeded = join(work, `seeded-${mode}.json`);
            writeFileSync(seeded, `${JSON.stringify({ earlier: 'run' })}\n`);
            const r = await runCli(['run', '--ir', fixture, '--duration', '200ms', '--warmup', '0', '--progress', 'jsonl', '--results-dir', dir], undefined, { wrap: underTmpfs(dir, seeded, mode) });
            expect(r.code, r.stderr).toBe(2);
            const message = new RegExp(`tenancy run: could not write ${dir}/(history/)?two-mlps\\.two_mlps\\.[^ ]*json: ${reason} \\(E[A-Z]+\\); the results already there are unchanged; this run's results are kept in (\\S+\\.json)`);
            expect(r.stderr).toMatch(message);
            expect(r.stderr).toContain('FAULT-CHECK: previous results intact');
            expect(r.stderr).toContain('FAULT-CHECK: history files 1');
            const kept = message.exec(r.stderr)![2]!;
            expect(parseResults(JSON.parse(readFileSync(kept, 'utf8'))).status).toBe('complete');
            rmSync(kept);
        });
    }
});

describe('tenancy compare and capacity (CLI)', () => {
    it('refuse a schedule they cannot read or run, and a one-tenant workload, before measuring', async () => {
        const bad = await runCli(['compare', '--ir', fixture, '--schedules', 'layer_blocks']);
        expect(bad.code).toBe(64);
        expect(bad.stderr).toContain("tenancy compare: --schedules: schedule 'layer_blocks': unknown schedule 'layer_blocks'");
        const refused = await runCli(['compare', '--ir', fixture, '--schedules', 'co_tuned(variants: 2), co_tuned(variants: 4)', '--progress', 'jsonl']);
        expect(refused.code).toBe(1);
        expect(refused.events.at(-1)).toMatchObject({ type: 'error', exitCode: 1 });
        const one = await runCli(['compare', '--ir', fixture, '--tenant', 'small']);
        expect(one.code).toBe(64);
        expect(one.stderr).toContain('one tenant is selected: schedules differ only when tenants share the GPU');
        expect((await runCli(['capacity', '--ir', fixture, '--capacity-budget', 'long'])).code).toBe(64);
    });
});

describe.skipIf(!gpu)('tenancy compare on the software adapter (CLI)', () => {
    it('writes the comparison file and its history, prints the table with gains, exit 0', async () => {
        const dir = join(work, 'results-compare');
        const r = await runCli(['compare', '--ir', fixture, '--schedules', 'sequential', '--duration', '400ms', '--warmup', '50ms', '--rounds', '2', '--results-dir', dir]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/^concurrent \(baseline\)\s+small/m);
        expect(r.stdout).toMatch(/^sequential\s+small/m);
        const file = join(dir, 'two-mlps.two_mlps.compare.json');
        expect(r.stderr).toContain(`comparison: ${file}`);
        const comparison = comparisonSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
        expect(comparison.schedules.map(s => s.name)).toEqual(['concurrent', 'sequential']);
        expect(readdirSync(join(dir, 'history'))).toHaveLength(1);
    });
});
