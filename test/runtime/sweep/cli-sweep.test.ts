/**
 * tenancy sweep, run --sweep and merge as processes (the CLI bundled from source): refusals and
 * their exit codes without a GPU (Slurm missing or refusing included, through PATH), then a
 * small sweep run here on the software adapter, resumed after a cell's files are lost, merged.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleCli } from '../../fixtures/bundle-cli.js';
import { sweepMergeSchema } from '../../../src/runtime/sweep/merge.js';
import { hasAdapter } from '../execute/gpu-helper.js';
import { TWO_MLPS } from './fixture.js';

const root = join(import.meta.dirname, '../../..');
const node = join(root, 'node_modules/.bin/node');
const work = mkdtempSync(join(tmpdir(), 'tenancy-sweep-cli-'));
const cli = join(root, 'out', 'test', `cli-sweep-${process.pid}.mjs`);
/** Tiny measurements: a cell is a few seconds on the software adapter. */
const TINY = ['--duration', '300ms', '--warmup', '50ms', '--rounds', '2'];

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve => {
        const child = spawn(node, [cli, ...args], { env: { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir(), ...env } });
        let stdout = '', stderr = '';
        child.stdout.on('data', (chunk: Buffer) => { stdout += chunk; });
        child.stderr.on('data', (chunk: Buffer) => { stderr += chunk; });
        child.on('close', code => resolve({ code, stdout, stderr }));
    });
}

const gpu = await hasAdapter();

beforeAll(async () => {
    await bundleCli(cli, root);
});

describe('tenancy sweep, run --sweep and merge refuse what they cannot do (CLI)', () => {
    it('names the usage mistake, exit 64', async () => {
        expect((await runCli(['sweep'])).stderr).toContain('give one of: a .tenancy file (a new sweep), --resume <folder> or --status <folder>');
        const both = await runCli(['sweep', TWO_MLPS, '--local', '--slurm']);
        expect(both.code).toBe(64);
        expect(both.stderr).toContain('--local and --slurm exclude each other');
        expect((await runCli(['sweep', TWO_MLPS, '--loads', '1,zero'])).stderr).toContain("--loads takes positive factors on every tenant's traffic, comma-separated (e.g. 0.5,1,1.5); found 'zero'");
        const noSweep = await runCli(['run', '--cell', '0']);
        expect(noSweep.code).toBe(64);
        expect(noSweep.stderr).toContain('--cell and --shard run cells of a sweep: give its folder with --sweep <folder>');
    });

    it('writes a sweep folder without running it; its cells refuse other measurements and indices; Slurm missing or refusing is exit 2 with why', async () => {
        const folder = join(work, 'made');
        const made = await runCli(['sweep', TWO_MLPS, '--schedules', 'sequential', '--loads', '0.5,1', ...TINY, '--out', folder]);
        expect(made.code, made.stderr).toBe(0);
        expect(made.stderr).toContain(`${folder}: 4 cells — two_mlps: 2 schedules (concurrent, sequential) × 2 loads (0.5, 1×) × 1 repeat`);
        expect(made.stdout).toContain(`tenancy run --sweep ${folder} --cell N`);
        const again = await runCli(['sweep', TWO_MLPS, '--out', folder]);
        expect(again.code).toBe(1);
        expect(again.stderr).toContain('already holds a sweep; resume it with tenancy sweep --resume');
        const out = await runCli(['run', '--sweep', folder, '--cell', '4']);
        expect(out.code).toBe(64);
        expect(out.stderr).toContain("--cell must be a cell of the sweep, 0–3; found '4'");
        expect((await runCli(['run', '--sweep', folder, '--cell', '0', '--duration', '1s'])).stderr)
            .toContain("--duration: a sweep's cells measure as its manifest says (set it when making the sweep with tenancy sweep)");
        expect((await runCli(['run', '--sweep', folder, '--shard', '2', '--cells-per-task', '2'])).stderr).toContain("--shard must be one of the sweep's 2 shards of 2 cells, 0–1; found '2'");

        const missing = await runCli(['sweep', '--resume', folder, '--slurm', '--gpus', '0'], { PATH: join(work, 'no-bin') });
        expect(missing.code).toBe(2);
        expect(missing.stderr).toContain("sbatch was not found: this machine is not a Slurm submit host. Install Slurm's client with the cluster's configuration (Debian: slurm-client), or run the cells here with --local");
        const bin = join(work, 'refusing-bin');
        mkdirSync(bin);
        writeFileSync(join(bin, 'sbatch'), '#!/bin/sh\necho "sbatch: error: invalid partition specified: nope" >&2\nexit 1\n');
        chmodSync(join(bin, 'sbatch'), 0o755);
        const refused = await runCli(['sweep', '--resume', folder, '--slurm', '--partition', 'nope'], { PATH: `${bin}:/usr/bin:/bin` });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/sbatch refused the job array \(.*job-1\.sh\): invalid partition specified: nope/);
        expect(readFileSync(join(folder, 'slurm', 'job-1.sh'), 'utf8')).toContain('#SBATCH --partition=nope');
    });

    it('merge refuses a folder that is not a sweep, or one made by another Tenancy, exit 1', async () => {
        const nothing = await runCli(['merge', work]);
        expect(nothing.code).toBe(1);
        expect(nothing.stderr).toContain(`${work} is not a sweep folder: it has no sweep.json`);
        const folder = join(work, 'old');
        expect((await runCli(['sweep', TWO_MLPS, '--out', folder])).code).toBe(0);
        const manifest = JSON.parse(readFileSync(join(folder, 'sweep.json'), 'utf8'));
        writeFileSync(join(folder, 'sweep.json'), JSON.stringify({ ...manifest, tenancyVersion: '0.0.1' }));
        const old = await runCli(['merge', folder]);
        expect(old.code).toBe(1);
        expect(old.stderr).toContain('was made by Tenancy 0.0.1 (sweep schema 1)');
    });
});

describe.skipIf(!gpu)('tenancy sweep --local on the software adapter (CLI)', () => {
    it('runs every cell, skips a cell with figures, resumes only the cell whose files were lost, merges', async () => {
        const folder = join(work, 'local');
        const r = await runCli(['sweep', TWO_MLPS, '--schedules', 'sequential', ...TINY, '--out', folder, '--local']);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain('[2/2] cell 1 (two_mlps, sequential, 1× load, repeat 1)');
        expect(r.stdout).toContain(`every cell has figures: tenancy merge ${folder}`);
        const again = await runCli(['run', '--sweep', folder, '--cell', '0']);
        expect(again.code).toBe(0);
        expect(again.stderr).toContain('cell 0 (two_mlps, concurrent, 1× load, repeat 1) already has figures');

        rmSync(join(folder, 'cells', 'cell-0001.results.json'));
        const status = await runCli(['sweep', '--status', folder]);
        expect(status.code).toBe(5);
        expect(status.stdout).toContain('1/2 done');
        const incomplete = await runCli(['merge', folder]);
        expect(incomplete.code).toBe(5);
        expect(incomplete.stdout).toContain('not merged: cell 1 (two_mlps, sequential, 1× load, repeat 1)');

        const resumed = await runCli(['sweep', '--resume', folder]);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).toContain('[1/1] cell 1 (two_mlps, sequential, 1× load, repeat 1)');
        const merged = await runCli(['merge', folder]);
        expect(merged.code, merged.stderr).toBe(0);
        expect(merged.stdout).toMatch(/== two_mlps · .* · 1× load ==/);
        expect(merged.stdout).toMatch(/^concurrent \(baseline\)\s+small/m);
        const doc = sweepMergeSchema.parse(JSON.parse(readFileSync(join(folder, 'merged.json'), 'utf8')));
        expect(doc.comparisons[0].schedules.map(s => [s.name, s.cells])).toEqual([['concurrent', [0]], ['sequential', [1]]]);
        const first = readFileSync(join(folder, 'merged.json'), 'utf8');
        expect((await runCli(['merge', folder])).code).toBe(0);
        expect(readFileSync(join(folder, 'merged.json'), 'utf8')).toBe(first);
    }, 300_000);
});
