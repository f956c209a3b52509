/**
 * `tenancy merge`: a sweep's cells gathered into comparisons, one per workload, device and load
 * (the schema of `tenancy compare`, with the load and device axes and the cells each schedule
 * pools), and per schedule its QoS-satisfied throughput over the loads. A schedule's repeats
 * pool their rounds, repeat after repeat; every schedule's round k of a repeat pairs with the
 * baseline's round k of the same repeat (same seed, so the same arrivals), as `tenancy
 * compare` pairs its rounds. Cells without figures to merge are named with why, never skipped
 * in silence. Deterministic: the same folder merges to the same document (times come from the
 * cells, the bootstrap from the seed). Pure: Node fs only.
 */
import { z } from 'zod';
import type { WorkloadIR } from '../ir/types.js';
import { buildResults, type TenantPhaseData } from '../report/build.js';
import { buildComparison, comparisonSchema, probeOf, probeSchema, type Comparison, type ScheduleRunData } from '../report/compare.js';
import type { Results } from '../report/schema.js';
import { comparisonTable, alignTable } from '../report/table.js';
import { readCellOutcome, type CellRounds } from './cells.js';
import { cellSchedule, describeCell, SWEEP_SCHEMA_VERSION, type LoadedSweep, type SweepCell } from './manifest.js';

export const MERGE_SCHEMA_VERSION = 1;

/** A cell the merge left out, and why. */
const notMergedSchema = z.object({
    cell: z.number().int().nonnegative(),
    workload: z.string(),
    schedule: z.string(),
    load: z.number(),
    repeat: z.number().int().nonnegative(),
    status: z.enum(['missing', 'failed', 'cancelled', 'invalid']),
    reason: z.string(),
});

/** One schedule of one workload on one device, across the sweep's loads: the highest load at which every SLO held. */
const qosSchema = z.object({
    workload: z.string(),
    device: z.string(),
    schedule: z.string(),
    /** The highest load whose every SLO was met (0: none was), the lowest above it that was not (null: none). */
    load: z.number(),
    failedLoad: z.number().nullable(),
    /** Completions per second over all tenants at `load` (0 when no load met the SLOs): the QoS-satisfied throughput. */
    throughputPerSecond: z.number(),
    /** Where the simulation put the capacity (× the declared traffic). */
    predictedLoad: z.number(),
    /** Every load measured, in ascending order, with its verdict. */
    probes: z.array(probeSchema),
});

export const sweepMergeSchema = z.object({
    schemaVersion: z.literal(MERGE_SCHEMA_VERSION),
    kind: z.literal('sweep-merge'),
    sweep: z.string(),
    sweepSchemaVersion: z.literal(SWEEP_SCHEMA_VERSION),
    tenancyVersion: z.string(),
    source: z.string(),
    cells: z.object({ total: z.number().int(), merged: z.number().int() }),
    notMerged: z.array(notMergedSchema),
    /** Workload, then device, then load in the sweep's order. */
    comparisons: z.array(comparisonSchema),
    qos: z.array(qosSchema),
});
export type SweepMerge = z.infer<typeof sweepMergeSchema>;

interface DoneCell {
    cell: SweepCell;
    results: Results;
    rounds: CellRounds;
    device: string;
}

/** The device axis: the adapter a cell ran on, `vendor device`. */
function deviceOf(results: Results): string {
    return results.adapter ? `${results.adapter.vendor} ${results.adapter.device}`.trim() : 'unknown adapter';
}

const phaseOf = (r: CellRounds['tenants'][number]['solo'][number] | undefined): TenantPhaseData | undefined =>
    r ? { latenciesMs: r.latenciesMs, windowMs: r.windowMs, unfinished: r.unfinished, opTimesMs: [], breakdown: [] } : undefined;

const STATUS_ORDER = ['complete', 'partial', 'cancelled', 'failed'] as const;

/**
 * One schedule's cells at one load and device pooled into one results document: rounds
 * repeat after repeat, each repeat padded to `widths[repeat]` rounds so that round indices
 * line up across schedules (a missing repeat: all empty, paired with nothing).
 */
function pooledResults(sweep: LoadedSweep, ir: WorkloadIR, cells: readonly DoneCell[], widths: readonly number[]): { results: Results; corun: (TenantPhaseData | undefined)[][] } {
    const { manifest } = sweep;
    const workload = manifest.workloads.find(w => w.name === ir.workload)!;
    const first = cells[0];
    const schedule = workload.schedules[first.cell.scheduleIndex];
    const byRepeat = new Map(cells.map(c => [c.cell.repeat, c]));
    const tenants = ir.tenants.map((tenant, ti) => {
        const solo: (TenantPhaseData | undefined)[] = [], corun: (TenantPhaseData | undefined)[] = [];
        widths.forEach((width, repeat) => {
            const rounds = byRepeat.get(repeat)?.rounds.tenants[ti];
            for (let k = 0; k < width; k++) {
                solo.push(phaseOf(rounds?.solo[k] ?? undefined));
                corun.push(phaseOf(rounds?.corun[k] ?? undefined));
            }
        });
        const memoryBytes = first.results.tenants.find(t => t.name === tenant.name)?.memoryBytes ?? 0;
        return { tenant, ops: [], memoryBytes, solo, corun };
    });
    const all = cells.map(c => c.results);
    const worst = all.reduce((a, b) => (STATUS_ORDER.indexOf(b.status) > STATUS_ORDER.indexOf(a.status) ? b : a));
    const m = all.map(r => r.measurement);
    const notes = [...new Set(m.flatMap(x => (x.note ? [x.note] : [])))];
    const sum = (f: (x: Results['measurement']) => number) => m.reduce((a, x) => a + f(x), 0);
    const maxOf = (values: (number | null)[]) => values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.max(a, v)), null);
    const results = buildResults({
        ir: { ...ir, schedule: cellSchedule(manifest, first.cell) }, irHash: first.results.config.irHash, adapter: first.results.adapter,
        policy: schedule.resolved, ...(schedule.why ? { scheduleWhy: schedule.why } : {}),
        seed: Math.min(...cells.map(c => c.cell.seed)), load: first.cell.load,
        timing: first.results.config.timing, fusion: first.results.config.fusion, tenancyVersion: manifest.tenancyVersion,
        startedAt: new Date(all.map(r => r.startedAt).sort()[0]), finishedAt: new Date(all.map(r => r.finishedAt).sort().at(-1)!),
        status: worst.status, ...(worst.reason ? { reason: worst.reason } : {}),
        tenants, corunRuns: [], timeline: null,
        measurement: {
            plannedRounds: sum(x => x.plannedRounds), rounds: sum(x => x.rounds), roundMs: m[0].roundMs, warmupMs: m[0].warmupMs,
            budgetMs: sum(x => x.budgetMs), budgetReached: m.some(x => x.budgetReached), extendedRounds: sum(x => x.extendedRounds),
            ...(notes.length ? { note: notes.join('; ') } : {}), elapsedMs: sum(x => x.elapsedMs),
        },
        host: {
            loadBefore: maxOf(all.map(r => r.host.loadBefore)), loadAfter: maxOf(all.map(r => r.host.loadAfter)),
            cores: first.results.host.cores, stealFraction: maxOf(all.map(r => r.host.stealFraction)),
        },
        minRequests: manifest.run.minRequests ?? ir.benchmark.minRequests ?? 0,
        ...(manifest.run.requests !== undefined ? { requests: manifest.run.requests } : {}),
        ...(manifest.run.durationMs !== undefined ? { durationMs: manifest.run.durationMs } : {}),
    });
    return { results, corun: tenants.map(t => t.corun) };
}

/** Merges the sweep's cells (see the module comment). */
export function mergeSweep(sweep: LoadedSweep): SweepMerge {
    const { manifest } = sweep;
    const notMerged: SweepMerge['notMerged'] = [];
    const done: DoneCell[] = [];
    for (const cell of manifest.cells) {
        const outcome = readCellOutcome(sweep, cell);
        if (outcome.kind === 'done') done.push({ cell, results: outcome.results, rounds: outcome.rounds, device: deviceOf(outcome.results) });
        else notMerged.push({ cell: cell.index, workload: cell.workload, schedule: cell.schedule, load: cell.load, repeat: cell.repeat, status: outcome.kind, reason: outcome.reason });
    }
    const comparisons: Comparison[] = [];
    const qos: SweepMerge['qos'] = [];
    for (const workload of manifest.workloads) {
        const ir = sweep.irs.get(workload.name)!;
        const cellsOf = done.filter(d => d.cell.workload === workload.name);
        const devices = [...new Set(cellsOf.map(d => d.device))].sort();
        for (const device of devices) {
            const probes = workload.schedules.map(() => [] as z.infer<typeof probeSchema>[]);
            manifest.loads.forEach((load, l) => {
                const group = cellsOf.filter(d => d.device === device && d.cell.load === load);
                if (group.length === 0) return;
                // Each repeat as wide as its widest schedule, so that round k of a repeat is the same arrivals for all.
                const widths = Array.from({ length: manifest.repeat }, (_, r) => Math.max(0, ...group.filter(d => d.cell.repeat === r)
                    .flatMap(d => d.rounds.tenants.map(t => Math.max(t.solo.length, t.corun.length)))));
                const schedules: ScheduleRunData[] = [];
                workload.schedules.forEach((s, si) => {
                    const cells = group.filter(d => d.cell.scheduleIndex === si).sort((a, b) => a.cell.repeat - b.cell.repeat);
                    if (cells.length === 0) return;
                    const pooled = pooledResults(sweep, ir, cells, widths);
                    probes[si].push(probeOf(pooled.results, load, pooled.results.measurement.elapsedMs));
                    schedules.push({
                        name: s.resolved, asked: s.name, ...(s.why ? { why: s.why } : {}), baseline: si === 0,
                        predicted: workload.predicted[l][si], results: pooled.results, corun: pooled.corun, capacity: null,
                        cells: cells.map(c => c.cell.index),
                    });
                });
                const times = group.flatMap(d => [d.results.startedAt, d.results.finishedAt]).sort();
                comparisons.push(buildComparison({
                    tenants: ir.tenants, seed: ir.benchmark.seed, schedules, load, device,
                    startedAt: new Date(times[0]), finishedAt: new Date(times.at(-1)!),
                }));
            });
            workload.schedules.forEach((s, si) => {
                const list = [...probes[si]].sort((a, b) => a.load - b.load);
                if (list.length === 0) return;
                const met = list.filter(p => p.verdict === 'met');
                const top = met.at(-1);
                const failed = list.find(p => p.verdict === 'violated' && p.load > (top?.load ?? 0));
                qos.push({
                    workload: workload.name, device, schedule: s.resolved,
                    load: top?.load ?? 0, failedLoad: failed?.load ?? null, throughputPerSecond: top?.throughputPerSecond ?? 0,
                    predictedLoad: workload.predicted[0][si].capacityLoad, probes: list,
                });
            });
        }
    }
    return {
        schemaVersion: MERGE_SCHEMA_VERSION, kind: 'sweep-merge', sweep: manifest.id, sweepSchemaVersion: SWEEP_SCHEMA_VERSION,
        tenancyVersion: manifest.tenancyVersion, source: manifest.source,
        cells: { total: manifest.cells.length, merged: done.length },
        notMerged, comparisons, qos,
    };
}

/** The merge as text: each comparison's table under its workload, device and load, the QoS-satisfied throughput per schedule, then the cells left out. */
export function mergeTable(merge: SweepMerge): string {
    const parts: string[] = [];
    for (const c of merge.comparisons) {
        parts.push(`== ${c.workload} · ${c.device ?? 'unknown adapter'} · ${c.load ?? 1}× load ==`, comparisonTable(c), '');
    }
    if (merge.qos.length > 0) {
        const rows = [['workload', 'device', 'schedule', 'SLOs held up to', 'QoS throughput', 'predicted', 'per load']];
        for (const q of merge.qos) {
            rows.push([
                q.workload, q.device, q.schedule,
                q.load > 0 ? `${q.load}×${q.failedLoad !== null ? ` (not at ${q.failedLoad}×)` : ''}` : `none${q.failedLoad !== null ? ` (not at ${q.failedLoad}×)` : ''}`,
                `${q.throughputPerSecond.toFixed(1)}/s`, `${q.predictedLoad.toFixed(2)}×`,
                q.probes.map(p => `${p.load}× ${p.verdict === 'met' ? '✓' : p.verdict === 'violated' ? '✗' : '?'}`).join(' '),
            ]);
        }
        parts.push('QoS-satisfied throughput: the highest load swept at which every SLO held (✓ met, ✗ violated or overloaded, ? undecided)', alignTable(rows), '');
    }
    parts.push(`cells: ${merge.cells.merged} of ${merge.cells.total} merged`);
    for (const n of merge.notMerged) parts.push(`  not merged: ${describeCell({ index: n.cell, ...n })}: ${n.status} — ${n.reason}`);
    return parts.join('\n');
}
