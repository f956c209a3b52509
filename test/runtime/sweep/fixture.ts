/**
 * Sweep folders for tests without a GPU: a manifest made from the two-MLP fixture by the
 * runtime's own matrix, and cells' files written through the runtime's results builder from
 * synthetic rounds (the same statistics a real cell writes).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { irHash } from '../../../src/runtime/ir/hash.js';
import { parseWorkloadIr } from '../../../src/runtime/ir/validate.js';
import type { IrSchedule, WorkloadIR } from '../../../src/runtime/ir/types.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { buildResults, type TenantPhaseData } from '../../../src/runtime/report/build.js';
import type { Results } from '../../../src/runtime/report/schema.js';
import { cellRoundsOf, writeCellFiles } from '../../../src/runtime/sweep/cells.js';
import { cellSchedule, readSweep, SWEEP_SCHEMA_VERSION, writeManifest, type LoadedSweep } from '../../../src/runtime/sweep/manifest.js';
import { expandMatrix } from '../../../src/runtime/sweep/matrix.js';
import packageJson from '../../../package.json' with { type: 'json' };

export const TWO_MLPS = join(import.meta.dirname, '../../fixtures/ir/two-mlps.json');

/** The two-MLP workload (tenants small and large). */
export function twoMlps(): WorkloadIR {
    return parseWorkloadIr(JSON.parse(readFileSync(TWO_MLPS, 'utf8')));
}

/** A new sweep folder of the two-MLP workload. */
export async function makeSweep(options: { schedules?: IrSchedule[]; loads?: number[]; repeat?: number } = {}): Promise<LoadedSweep> {
    const ir = twoMlps();
    const profile = defaultProfile();
    const matrix = expandMatrix({ workloads: [{ ir, irHash: irHash(ir) }], schedules: options.schedules ?? [{ policy: 'sequential' }], loads: options.loads, repeat: options.repeat, profile });
    const folder = join(mkdtempSync(join(tmpdir(), 'tenancy-sweep-')), 'sweep-a');
    await writeManifest(folder, {
        schemaVersion: SWEEP_SCHEMA_VERSION, kind: 'sweep', tenancyVersion: packageJson.version, id: 'sweep-a', createdAt: '2026-12-01T00:00:00.000Z',
        source: TWO_MLPS, loads: matrix.loads, repeat: matrix.repeat, run: { fusion: true, timing: 'auto', tuning: 'off' }, profile,
        workloads: matrix.workloads, cells: matrix.cells,
    });
    return readSweep(folder, packageJson.version);
}

/**
 * Writes cell `index`'s results and rounds as a run would: `rounds` rounds per phase, each tenant's
 * latencies `base(tenant) × (1 + i/100)` ms for i < `perRound`, co-run × `corunFactor(tenant)`.
 */
export async function writeCell(sweep: LoadedSweep, index: number, options: {
    rounds?: number; perRound?: number; base?: (tenant: string) => number; corunFactor?: (tenant: string) => number;
    status?: Results['status']; adapterDevice?: string; seed?: number;
} = {}): Promise<Results> {
    const cell = sweep.manifest.cells[index];
    const ir = { ...sweep.irs.get(cell.workload)!, schedule: cellSchedule(sweep.manifest, cell) };
    const n = options.rounds ?? 4, per = options.perRound ?? 40;
    const phase = (ms: number): TenantPhaseData => ({
        latenciesMs: Array.from({ length: per }, (_, i) => ms * (1 + i / 100)), windowMs: 500, unfinished: 0, opTimesMs: [], breakdown: [],
    });
    const tenants = ir.tenants.map(tenant => {
        const base = options.base?.(tenant.name) ?? 2;
        return { tenant, ops: [], memoryBytes: 1e6, solo: Array.from({ length: n }, () => phase(base)), corun: Array.from({ length: n }, () => phase(base * (options.corunFactor?.(tenant.name) ?? 1.5))) };
    });
    const schedule = sweep.manifest.workloads.find(w => w.name === cell.workload)!.schedules[cell.scheduleIndex];
    const started = new Date(Date.UTC(2026, 11, 1, 0, index));
    const results = buildResults({
        ir, irHash: irHash(ir),
        adapter: { vendor: 'mesa', architecture: 'software', device: options.adapterDevice ?? 'llvmpipe', description: '', isFallbackAdapter: false, features: [] },
        policy: schedule.resolved, seed: options.seed ?? cell.seed, load: cell.load, timing: 'gpu-timestamps', fusion: true, tenancyVersion: packageJson.version,
        startedAt: started, finishedAt: new Date(started.getTime() + 30_000), status: options.status ?? 'complete',
        tenants, corunRuns: [], timeline: null, minRequests: 0,
        measurement: { plannedRounds: n, rounds: n, roundMs: 500, warmupMs: 50, budgetMs: 30_000, budgetReached: false, extendedRounds: 0, elapsedMs: 5000 },
        host: { loadBefore: 0.5, loadAfter: 0.5, cores: 2, stealFraction: 0 },
    });
    await writeCellFiles(sweep.paths, index, results, cellRoundsOf(index, tenants.map(t => ({ name: t.tenant.name, solo: t.solo, corun: t.corun }))));
    return results;
}
