/**
 * A sweep on a real single-node Slurm cluster (./slurm-cluster.ts) on the software adapter:
 * submitted as a job array and followed with --wait, then merged; then a task cancelled while it
 * runs (scancel), reported by cell, resumed (only that cell resubmitted) and merged. Without
 * Slurm or root it skips loudly here, and fails in CI (scripts/setup-system.sh installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCli } from '../../fixtures/bundle-cli.js';
import { sweepMergeSchema } from '../../../src/runtime/sweep/merge.js';
import { hasAdapter } from '../execute/gpu-helper.js';
import { TWO_MLPS } from './fixture.js';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from './slurm-cluster.js';

const root = join(import.meta.dirname, '../../..');
const node = join(root, 'node_modules/.bin/node');
const work = mkdtempSync(join(tmpdir(), 'tenancy-slurm-sweep-'));
const cli = join(root, 'out', 'test', `cli-slurm-${process.pid}.mjs`);

const unavailable = slurmUnavailable();
if (unavailable && process.env.CI) throw new Error(`${unavailable}; CI is set, so the Slurm integration test must run`);
if (unavailable) console.warn(`\n*** ${unavailable}: SKIPPING the Slurm integration test ***\n`);
const gpu = await hasAdapter();

let cluster: SlurmCluster | undefined;

function runCli(args: string[]) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve => {
        const child = spawn(node, [cli, ...args], { env: { ...cluster!.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir() } });
        let stdout = '', stderr = '';
        child.stdout.on('data', (chunk: Buffer) => { stdout += chunk; });
        child.stderr.on('data', (chunk: Buffer) => { stderr += chunk; });
        child.on('close', code => resolve({ code, stdout, stderr }));
    });
}

const squeue = () => spawnSync('squeue', ['--noheader', '--array', '--format=%i %T'], { env: cluster!.env, encoding: 'utf8' }).stdout.trim();

describe.skipIf(unavailable !== undefined || !gpu)('tenancy sweep --slurm on a real single-node cluster', () => {
    beforeAll(async () => {
        await bundleCli(cli, root);
        cluster = await startSlurmCluster();
    }, 120_000);
    afterAll(async () => {
        await cluster?.stop();
    }, 60_000);

    it('submits a job array, follows it with --wait to the end, and merges the cells', async () => {
        const folder = join(work, 'waited');
        const r = await runCli(['sweep', TWO_MLPS, '--schedules', 'sequential', '--duration', '300ms', '--warmup', '50ms', '--rounds', '2',
            '--out', folder, '--slurm', '--gpus', '0', '--wait', '--poll', '1s']);
        expect(r.code, `${r.stderr}\n${cluster!.logs()}`).toBe(0);
        expect(r.stderr).toMatch(/submitted job \d+: 2 array tasks for 2 cells/);
        expect(r.stderr).toContain('2/2 done');
        const script = readFileSync(join(folder, 'slurm', 'job-1.sh'), 'utf8');
        expect(script).toContain('#SBATCH --array=0-1');
        expect(script).toContain(`run --sweep ${folder} --cell "$SLURM_ARRAY_TASK_ID"`);
        const merged = await runCli(['merge', folder]);
        expect(merged.code, merged.stderr).toBe(0);
        const doc = sweepMergeSchema.parse(JSON.parse(readFileSync(join(folder, 'merged.json'), 'utf8')));
        expect(doc.cells).toEqual({ total: 2, merged: 2 });
        expect(doc.comparisons[0].schedules.map(s => s.name)).toEqual(['concurrent', 'sequential']);
    }, 300_000);

    it('reports a task cancelled mid-run by its cell, and --resume resubmits only that cell', async () => {
        const folder = join(work, 'cancelled');
        const made = await runCli(['sweep', TWO_MLPS, '--schedules', 'sequential', '--duration', '4s', '--warmup', '50ms', '--rounds', '2',
            '--out', folder, '--slurm', '--gpus', '0']);
        expect(made.code, made.stderr).toBe(0);
        const jobId = /submitted job (\d+)/.exec(made.stderr)![1];
        // Cancel task 0 once its cell has started measuring.
        const started = Date.now();
        while (!(existsSync(join(folder, 'cells', 'cell-0000.state.json')) && squeue().includes(`${jobId}_0 RUNNING`))) {
            if (Date.now() - started > 120_000) throw new Error(`task 0 never ran: ${squeue()}\n${cluster!.logs()}`);
            await new Promise(r => setTimeout(r, 500));
        }
        await new Promise(r => setTimeout(r, 1000));
        expect(spawnSync('scancel', [`${jobId}_0`], { env: cluster!.env }).status).toBe(0);

        // The cell is named with how its task ended, once Slurm has ended it.
        let report = await runCli(['sweep', '--status', folder]);
        for (let i = 0; i < 60 && !report.stdout.includes('cancelled —'); i++) {
            await new Promise(r => setTimeout(r, 500));
            report = await runCli(['sweep', '--status', folder]);
        }
        expect(report.code).toBe(5);
        expect(report.stdout).toContain(`cell 0 (two_mlps, concurrent, 1× load, repeat 1): cancelled — job ${jobId}, task 0 ended CANCELLED`);

        const waited = await runCli(['sweep', '--resume', folder, '--wait', '--poll', '1s']);
        // Task 1 is queued, running or done; cell 0 has no figures: the resume resubmits cell 0 alone.
        expect(waited.stderr).toMatch(/submitted job \d+: 1 array task for 1 cell/);
        expect(readFileSync(join(folder, 'slurm', 'job-2.sh'), 'utf8')).toContain('#SBATCH --array=0\n');
        expect(waited.code, `${waited.stderr}\n${cluster!.logs()}`).toBe(0);
        const status = await runCli(['sweep', '--status', folder]);
        expect(status.stdout).toContain('2/2 done');
        const merged = await runCli(['merge', folder]);
        expect(merged.code, merged.stderr).toBe(0);
    }, 400_000);
});
