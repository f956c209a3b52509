/**
 * A sweep's matrix: workloads (model mixes) × schedules × loads × repeats, expanded into cells,
 * each an independent run with its own results file. Cells are ordered workload, repeat, load,
 * schedule (innermost), so that run one after another the schedules of one load and repeat run
 * back to back and drift of the host hits them alike. A cell's seed is its workload's plus its
 * repeat: every schedule and load of one repeat sees the same random streams (as `tenancy
 * compare`'s schedules do), and each repeat its own. Pure.
 */
import type { IrSchedule, WorkloadIR } from '../ir/types.js';
import { CANDIDATE_SCHEDULES, distinctSchedules, evaluateResolved, simulationInput } from '../predict/schedules.js';
import type { DeviceProfile } from '../predict/profile.js';
import { predictedOf } from '../report/compare.js';
import { RUNNABLE_SCHEDULES, scheduleName, ScheduleNotImplementedError } from '../schedule/policy.js';
import type { SweepCell, SweepWorkload } from './manifest.js';

/** What a sweep measures. */
export interface MatrixInput {
    workloads: readonly { ir: WorkloadIR; irHash: string }[];
    /** Schedules beside each workload's own (default: the candidates `auto` chooses among). */
    schedules?: readonly IrSchedule[];
    /** × every tenant's declared traffic (default [1]). */
    loads?: readonly number[];
    /** Runs of every (workload, schedule, load), each with its own seed (default 1). */
    repeat?: number;
    /** Schedules resolve (`auto`, searched arguments) and are predicted on it. */
    profile: DeviceProfile;
}

/** The expanded matrix, and notes on what was left out and why. */
export interface Matrix {
    loads: number[];
    repeat: number;
    workloads: SweepWorkload[];
    cells: SweepCell[];
    notes: string[];
}

/** Most cells one sweep may have: beyond it a typo in --loads or --repeat is likelier than intent. */
export const MAX_CELLS = 10_000;

/** A matrix that cannot be expanded (bad loads or repeat, a schedule the runtime does not run, too many cells). */
export class MatrixError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'MatrixError';
    }
}

/** Expands the matrix into cells with their seeds, and predicts every schedule at every load. */
export function expandMatrix(input: MatrixInput): Matrix {
    const loads = [...(input.loads ?? [1])];
    const repeat = input.repeat ?? 1;
    if (loads.length === 0) throw new MatrixError('the sweep has no load; give at least one, e.g. --loads 1');
    for (const load of loads) {
        if (!Number.isFinite(load) || load <= 0) throw new MatrixError(`a load is a positive factor on every tenant's traffic; found ${load}`);
    }
    const repeated = loads.find((l, i) => loads.indexOf(l) !== i);
    if (repeated !== undefined) throw new MatrixError(`load ${repeated} is listed twice`);
    if (!Number.isInteger(repeat) || repeat < 1) throw new MatrixError(`--repeat must be a positive integer; found ${repeat}`);
    const asked = input.schedules ?? CANDIDATE_SCHEDULES;
    for (const s of asked) if (!RUNNABLE_SCHEDULES.includes(s.policy)) throw new ScheduleNotImplementedError(s.policy);
    const names = input.workloads.map(w => w.ir.workload);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new MatrixError(`workload ${twice} is listed twice`);

    const notes: string[] = [];
    const workloads: SweepWorkload[] = input.workloads.map(({ ir, irHash }) => {
        if (!RUNNABLE_SCHEDULES.includes(ir.schedule.policy)) throw new ScheduleNotImplementedError(ir.schedule.policy);
        // One tenant has nothing to share the GPU with: schedules differ only in name, so only its own runs.
        if (ir.tenants.length < 2 && asked.length > 0) notes.push(`workload ${ir.workload} has one tenant: only its own schedule is swept (schedules differ only when tenants share the GPU)`);
        const kept = distinctSchedules(ir, input.profile, ir.tenants.length < 2 ? [ir.schedule] : [ir.schedule, ...asked]);
        const simulation = simulationInput(ir, input.profile);
        const predicted = loads.map(() => [] as SweepWorkload['predicted'][number]);
        for (const k of kept) {
            const capacity = evaluateResolved(simulation, k.asked, k.resolved);
            loads.forEach((load, l) => {
                const at = load === 1 ? capacity : { ...evaluateResolved(simulation, k.asked, k.resolved, { capacity: false }, load), qosThroughput: capacity.qosThroughput, capacityLoad: capacity.capacityLoad };
                predicted[l].push(predictedOf(at, ir.tenants));
            });
        }
        return {
            name: ir.workload, ir, irHash,
            schedules: kept.map(k => ({ name: scheduleName(k.asked), schedule: k.asked, resolved: k.resolved.name, ...(k.resolved.why ? { why: k.resolved.why } : {}) })),
            predicted,
        };
    });
    const total = workloads.reduce((a, w) => a + w.schedules.length, 0) * loads.length * repeat;
    if (total > MAX_CELLS) throw new MatrixError(`the matrix has ${total} cells, more than ${MAX_CELLS}; sweep fewer loads, schedules or repeats`);

    const cells: SweepCell[] = [];
    for (const w of workloads) {
        const seed = (w.ir as WorkloadIR).benchmark.seed;
        for (let r = 0; r < repeat; r++) {
            for (const load of loads) {
                w.schedules.forEach((s, scheduleIndex) => {
                    cells.push({ index: cells.length, workload: w.name, schedule: s.name, scheduleIndex, load, repeat: r, seed: seed + r });
                });
            }
        }
    }
    return { loads, repeat, workloads, cells, notes };
}

/** Reads a list of loads: `0.5,1,1.5` (factors, `×` or `x` allowed after each). */
export function parseLoads(text: string): number[] {
    const parts = text.split(',').map(p => p.trim()).filter(p => p.length > 0);
    if (parts.length === 0) throw new MatrixError(`--loads names no load; e.g. --loads 0.5,1,1.5`);
    return parts.map(p => {
        const m = /^(\d+(?:\.\d+)?|\.\d+)\s*[×x]?$/.exec(p);
        if (!m || Number(m[1]) <= 0) throw new MatrixError(`--loads takes positive factors on every tenant's traffic, comma-separated (e.g. 0.5,1,1.5); found '${p}'`);
        return Number(m[1]);
    });
}
