/** The sweep's matrix (cells, seeds, schedules kept once, predictions per load), its loads flag, shards and the manifest's refusals. */
import { writeFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { irHash } from '../../../src/runtime/ir/hash.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { ScheduleNotImplementedError } from '../../../src/runtime/schedule/policy.js';
import { readSweep, SweepFolderError, writeManifest } from '../../../src/runtime/sweep/manifest.js';
import { expandMatrix, MatrixError, MAX_CELLS, parseLoads } from '../../../src/runtime/sweep/matrix.js';
import { arraySpec, cellsOfShard, shardCount, shardOfCell, shardsOfCells } from '../../../src/runtime/sweep/shards.js';
import { makeSweep, twoMlps } from './fixture.js';
import packageJson from '../../../package.json' with { type: 'json' };

const profile = defaultProfile();
const workload = () => { const ir = twoMlps(); return { ir, irHash: irHash(ir) }; };

describe('expandMatrix', () => {
    it('orders cells workload, repeat, load, schedule; seeds are the workload\'s plus the repeat', () => {
        const m = expandMatrix({ workloads: [workload()], schedules: [{ policy: 'sequential' }], loads: [0.5, 1], repeat: 2, profile });
        expect(m.workloads[0].schedules.map(s => s.resolved)).toEqual(['concurrent', 'sequential']);
        expect(m.cells).toHaveLength(8);
        expect(m.cells.map(c => `${c.repeat}/${c.load}/${c.schedule}/${c.seed}`)).toEqual([
            '0/0.5/concurrent/42', '0/0.5/sequential/42', '0/1/concurrent/42', '0/1/sequential/42',
            '1/0.5/concurrent/43', '1/0.5/sequential/43', '1/1/concurrent/43', '1/1/sequential/43',
        ]);
        expect(m.cells.map(c => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
        // One prediction per load and schedule; more load never predicts lower p99.
        expect(m.workloads[0].predicted.map(p => p.length)).toEqual([2, 2]);
        expect(m.workloads[0].predicted[1][0].tenants[0].p99Ms).toBeGreaterThanOrEqual(m.workloads[0].predicted[0][0].tenants[0].p99Ms);
    });

    it('keeps a schedule once by what it resolves to, and sweeps only its own for one tenant', () => {
        const m = expandMatrix({ workloads: [workload()], schedules: [{ policy: 'concurrent' }, { policy: 'sequential' }, { policy: 'sequential' }], profile });
        expect(m.workloads[0].schedules.map(s => s.name)).toEqual(['concurrent', 'sequential']);
        const one = twoMlps();
        one.tenants = one.tenants.slice(0, 1);
        const single = expandMatrix({ workloads: [{ ir: one, irHash: irHash(one) }], schedules: [{ policy: 'sequential' }], profile });
        expect(single.cells).toHaveLength(1);
        expect(single.notes[0]).toContain('has one tenant: only its own schedule is swept');
    });

    it('refuses bad loads, repeats, unrunnable schedules, a workload twice and too many cells', () => {
        expect(() => expandMatrix({ workloads: [workload()], loads: [], profile })).toThrow(MatrixError);
        expect(() => expandMatrix({ workloads: [workload()], loads: [1, 0], profile })).toThrow(/positive factor.*found 0/);
        expect(() => expandMatrix({ workloads: [workload()], loads: [1, 1], profile })).toThrow('load 1 is listed twice');
        expect(() => expandMatrix({ workloads: [workload()], repeat: 0, profile })).toThrow('--repeat must be a positive integer; found 0');
        expect(() => expandMatrix({ workloads: [workload()], schedules: [{ policy: 'teleport' } as never], profile })).toThrow(ScheduleNotImplementedError);
        expect(() => expandMatrix({ workloads: [workload(), workload()], profile })).toThrow('workload two_mlps is listed twice');
        expect(() => expandMatrix({ workloads: [workload()], schedules: [{ policy: 'sequential' }], repeat: MAX_CELLS, profile })).toThrow(/more than 10000; sweep fewer/);
    });
});

describe('parseLoads', () => {
    it('reads factors with an optional ×, and names what it cannot read', () => {
        expect(parseLoads('0.5, 1,1.5x, 2×')).toEqual([0.5, 1, 1.5, 2]);
        expect(() => parseLoads('')).toThrow('--loads names no load');
        expect(() => parseLoads('1,fast')).toThrow("found 'fast'");
        expect(() => parseLoads('0')).toThrow("found '0'");
    });
});

describe('shards', () => {
    it('deal cells in contiguous blocks; a task index maps back to its cells', () => {
        expect(shardCount(10, 3)).toBe(4);
        expect(cellsOfShard(0, 3, 10)).toEqual([0, 1, 2]);
        expect(cellsOfShard(3, 3, 10)).toEqual([9]);
        expect(cellsOfShard(4, 3, 10)).toEqual([]);
        expect(shardOfCell(7, 3)).toBe(2);
        expect(shardsOfCells([9, 1, 2, 7], 3)).toEqual([0, 2, 3]);
        expect(cellsOfShard(5, 1, 10)).toEqual([5]);
    });

    it('write Slurm array specs as ranges', () => {
        expect(arraySpec([0, 1, 2, 3, 7, 9, 10])).toBe('0-3,7,9-10');
        expect(arraySpec([4])).toBe('4');
        expect(arraySpec([3, 1, 2, 2])).toBe('1-3');
    });
});

describe('sweep folder', () => {
    it('is refused when missing, not a manifest, or made by another Tenancy version, with the reason', async () => {
        const sweep = await makeSweep();
        expect(readSweep(sweep.paths.folder, packageJson.version).manifest.cells).toHaveLength(2);
        expect(() => readSweep(`${sweep.paths.folder}-nope`, packageJson.version)).toThrow(/has no sweep\.json \(make one with tenancy sweep <file>\)/);
        const manifest = JSON.parse(readFileSync(sweep.paths.manifest, 'utf8'));
        writeFileSync(sweep.paths.manifest, JSON.stringify({ ...manifest, tenancyVersion: '0.0.1' }));
        expect(() => readSweep(sweep.paths.folder, packageJson.version)).toThrow(SweepFolderError);
        expect(() => readSweep(sweep.paths.folder, packageJson.version)).toThrow(new RegExp(`made by Tenancy 0\\.0\\.1 \\(sweep schema 1\\); this is Tenancy ${packageJson.version.replace(/\./g, '\\.')}.*make a new sweep, or use that version`));
        writeFileSync(sweep.paths.manifest, JSON.stringify({ kind: 'results' }));
        expect(() => readSweep(sweep.paths.folder, packageJson.version)).toThrow('is not a sweep manifest (kind "results")');
        writeFileSync(sweep.paths.manifest, JSON.stringify({ ...manifest, cells: [] }));
        expect(() => readSweep(sweep.paths.folder, packageJson.version)).toThrow(/is not a valid sweep manifest: cells/);
        await expect(writeManifest(sweep.paths.folder, manifest)).rejects.toThrow('already holds a sweep; resume it with tenancy sweep --resume');
    });
});
