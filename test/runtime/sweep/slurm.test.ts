/** Slurm through its commands, with a stand-in runner: the job script, sbatch's answers and refusals, squeue/sacct/scontrol parsing, and each cell's status from its files and its task. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeCellState } from '../../../src/runtime/sweep/cells.js';
import { checkSlurmOptions, endedTasks, jobScript, queuedTasks, readSubmissions, SlurmError, submitArray, type CommandResult, type CommandRunner, type SlurmOptions } from '../../../src/runtime/sweep/slurm.js';
import { cellsToResume, isActive, sweepStatus, unfinishedLines } from '../../../src/runtime/sweep/status.js';
import { makeSweep, writeCell } from './fixture.js';

const options: SlurmOptions = { gpus: 1, extra: [], cellsPerTask: 1 };

/** A runner answering each command from a table, recording every call. */
function fakeRunner(answers: Record<string, Partial<CommandResult> | ((args: readonly string[]) => Partial<CommandResult>)>) {
    const calls: string[][] = [];
    const run: CommandRunner = async (command, args) => {
        calls.push([command, ...args]);
        const a = answers[command];
        const r = typeof a === 'function' ? a(args) : a;
        if (!r) return { code: null, stdout: '', stderr: '', error: Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT' }) };
        return { code: 0, stdout: '', stderr: '', ...r };
    };
    return { run, calls };
}

describe('the job array script', () => {
    it('runs one cell per task by default, with the partition, time, GPUs and extra lines asked for', async () => {
        const sweep = await makeSweep();
        const text = jobScript({ paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0, 1], options: { ...options, partition: 'gpu', time: '30:00', gpus: 2, extra: ['--account=lab'], maxRunning: 4 }, command: '/usr/bin/node /opt/t/main.mjs' });
        expect(text).toContain('#SBATCH --job-name=tenancy-sweep-a\n#SBATCH --array=0-1%4\n');
        expect(text).toContain(`#SBATCH --output=${sweep.paths.logs}/%A_%a.out`);
        expect(text).toContain('#SBATCH --partition=gpu\n#SBATCH --time=30:00\n#SBATCH --gres=gpu:2\n#SBATCH --account=lab\n');
        expect(text).toContain(`exec /usr/bin/node /opt/t/main.mjs run --sweep ${sweep.paths.folder} --cell "$SLURM_ARRAY_TASK_ID"`);
        const shards = jobScript({ paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0], options: { ...options, gpus: 0, cellsPerTask: 2 }, command: 'tenancy' });
        expect(shards).toContain('--shard "$SLURM_ARRAY_TASK_ID" --cells-per-task 2');
        expect(shards).toContain('#SBATCH --exclusive');
        expect(shards).not.toContain('--gres');
    });

    it('refuses options sbatch would not take or that the sweep sets itself', () => {
        expect(() => checkSlurmOptions({ ...options, time: 'an hour' })).toThrow("--time takes Slurm's time format");
        expect(() => checkSlurmOptions({ ...options, partition: 'a b' })).toThrow('--partition takes a partition name');
        expect(() => checkSlurmOptions({ ...options, extra: ['account=lab'] })).toThrow('--sbatch takes one sbatch option as written after #SBATCH');
        expect(() => checkSlurmOptions({ ...options, extra: ['--array=0-3'] })).toThrow('the sweep sets --array itself');
        expect(() => checkSlurmOptions({ ...options, time: '1-00:00:00', extra: ['--constraint=a100'] })).not.toThrow();
    });
});

describe('submitting', () => {
    it('records the job id sbatch gives; a second submission is kept beside the first', async () => {
        const sweep = await makeSweep();
        let n = 10;
        const { run, calls } = fakeRunner({ sbatch: () => ({ stdout: `${n++};cluster\n` }) });
        const first = await submitArray(run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0, 1], options, command: 'tenancy' });
        expect(first.jobId).toBe('10');
        expect(calls[0]).toEqual(['sbatch', '--parsable', sweep.paths.jobScript(1)]);
        expect(existsSync(sweep.paths.jobScript(1))).toBe(true);
        await submitArray(run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 1, tasks: [1], options, command: 'tenancy' });
        expect(readSubmissions(sweep.paths).map(s => [s.jobId, s.tasks])).toEqual([['10', [0, 1]], ['11', [1]]]);
    });

    it('says what to do when sbatch is missing, and quotes its refusal', async () => {
        const sweep = await makeSweep();
        const missing = submitArray(fakeRunner({}).run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0, 1], options, command: 'tenancy' });
        await expect(missing).rejects.toThrow(SlurmError);
        await expect(missing).rejects.toThrow(/sbatch was not found: this machine is not a Slurm submit host.*or run the cells here with --local/);
        const refused = fakeRunner({ sbatch: { code: 1, stderr: 'sbatch: error: invalid partition specified: gpu\n' } });
        await expect(submitArray(refused.run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0, 1], options, command: 'tenancy' }))
            .rejects.toThrow(/sbatch refused the job array \(.*job-1\.sh\): invalid partition specified: gpu/);
        expect(readSubmissions(sweep.paths)).toEqual([]);
        const odd = fakeRunner({ sbatch: { stdout: 'Submitted batch job\n' } });
        await expect(submitArray(odd.run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 2, tasks: [0, 1], options, command: 'tenancy' })).rejects.toThrow("sbatch answered 'Submitted batch job', not a job id");
    });
});

describe("tasks' states", () => {
    it('reads squeue, compact pending arrays included', async () => {
        const { run, calls } = fakeRunner({ squeue: { stdout: '12_[2-3,5%2]|PENDING|JobArrayTaskLimit\n12_0|RUNNING|None\n' } });
        const states = await queuedTasks(run, 'sweep-a');
        expect(calls[0]).toContain('--name=tenancy-sweep-a');
        expect([...states.keys()].sort()).toEqual(['12_0', '12_2', '12_3', '12_5']);
        expect(states.get('12_3')).toEqual({ jobId: '12', taskId: 3, state: 'PENDING', detail: 'JobArrayTaskLimit' });
        expect(states.get('12_0')).toEqual({ jobId: '12', taskId: 0, state: 'RUNNING' });
        await expect(queuedTasks(fakeRunner({ squeue: { code: 1, stderr: 'slurm_load_jobs error: Unable to contact slurm controller' } }).run, 'x')).rejects.toThrow('squeue failed: slurm_load_jobs error');
    });

    it('reads sacct, and scontrol where accounting is off', async () => {
        const sacct = fakeRunner({ sacct: { stdout: '12_0|COMPLETED|0:0\n12_1|CANCELLED by 0|0:15\n12_2|TIMEOUT|0:0\n' } });
        const ended = await endedTasks(sacct.run, ['12']);
        expect(ended.get('12_1')).toEqual({ jobId: '12', taskId: 1, state: 'CANCELLED', detail: 'exit 0:15' });
        expect(ended.get('12_2')?.state).toBe('TIMEOUT');
        const scontrol = fakeRunner({
            sacct: { code: 1, stderr: 'Slurm accounting storage is disabled' },
            scontrol: { stdout: 'JobId=13 ArrayJobId=12 ArrayTaskId=0 JobState=COMPLETED Reason=None ExitCode=0:0\nJobId=14 ArrayJobId=12 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0\n' },
        });
        const fallback = await endedTasks(scontrol.run, ['12']);
        expect(fallback.get('12_1')).toEqual({ jobId: '12', taskId: 1, state: 'FAILED', detail: 'exit 2:0' });
        expect(scontrol.calls[1]).toEqual(['scontrol', '--oneliner', 'show', 'job', '12']);
    });
});

describe('sweep status', () => {
    it('names every cell: done by its files, else by its task (pending, running, cancelled, timed out, gone)', async () => {
        const sweep = await makeSweep({ loads: [1, 2, 3] });
        const run = fakeRunner({ sbatch: { stdout: '12\n' } });
        await submitArray(run.run, { paths: sweep.paths, sweepId: 'sweep-a', cells: 6, tasks: [0, 1, 2, 3, 4, 5], options, command: 'tenancy' });
        await writeCell(sweep, 0);
        await writeCellState(sweep.paths, { cell: 2, status: 'running', startedAt: '2026-12-01T00:00:00Z', host: 'node7', pid: 1, slurm: { jobId: '12', taskId: 2 } });
        const queued = new Map([['12_1', { jobId: '12', taskId: 1, state: 'PENDING', detail: 'Resources' }], ['12_2', { jobId: '12', taskId: 2, state: 'RUNNING' }]]);
        const ended = new Map([['12_3', { jobId: '12', taskId: 3, state: 'CANCELLED' }], ['12_4', { jobId: '12', taskId: 4, state: 'TIMEOUT' }], ['12_5', { jobId: '12', taskId: 5, state: 'COMPLETED' }]]);
        const status = sweepStatus(sweep, readSubmissions(sweep.paths), queued, ended);
        expect(status.cells.map(c => c.status)).toEqual(['done', 'pending', 'running', 'cancelled', 'timed-out', 'failed']);
        expect(isActive(status)).toBe(true);
        expect(cellsToResume(status).map(c => c.index)).toEqual([3, 4, 5]);
        const lines = unfinishedLines(status);
        expect(lines[0]).toBe('cell 1 (two_mlps, sequential, 1× load, repeat 1): pending — job 12, task 1 pending (Resources)');
        expect(lines[3]).toBe('cell 4 (two_mlps, concurrent, 3× load, repeat 1): timed-out — job 12, task 4 ended TIMEOUT');
        expect(lines[4]).toMatch(/^cell 5 .*: failed — job 12, task 5 ended without finishing it \(never started\); Slurm says COMPLETED$/);
    });

    it('marks a cell whose results file is unreadable or of another cell invalid, and resumes it', async () => {
        const sweep = await makeSweep();
        await writeCell(sweep, 0);
        writeFileSync(sweep.paths.results(1), readFileSync(sweep.paths.results(0)));
        let status = sweepStatus(sweep, [], new Map(), new Map());
        expect(status.cells[1]).toMatchObject({ status: 'invalid' });
        expect(status.cells[1].reason).toContain("cell-0001.results.json is not this cell's results: it ran another version of the workload");
        writeFileSync(sweep.paths.results(1), '{"half');
        status = sweepStatus(sweep, [], new Map(), new Map());
        expect(status.cells[1]).toMatchObject({ status: 'invalid' });
        expect(cellsToResume(status).map(c => c.index)).toEqual([1]);
    });
});
