/**
 * A sweep folder: the manifest (`sweep.json`, written once when the sweep is made) and where
 * each cell's files, the Slurm job scripts and logs, and the merged comparison live. The manifest
 * is the whole truth of what to run: each workload's IR, the matrix's cells with their seeds,
 * the measurement settings, the device profile schedules resolve on and the predictions made
 * with it; a cell runs from it alone, on any machine that sees the folder. Versioned: a folder
 * from another Tenancy is refused with the reason (its cells' figures would not pool with this
 * one's). Pure: Node fs only, no device.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { IrSchedule, WorkloadIR } from '../ir/types.js';
import { scheduleSchema } from '../ir/schema.js';
import { IrValidationError, parseWorkloadIr } from '../ir/validate.js';
import { deviceProfileSchema } from '../predict/profile.js';
import { predictedScheduleSchema } from '../report/compare.js';
import { writeFileAtomic } from '../report/write.js';

export const SWEEP_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();

/** One run of the matrix: a workload under a schedule at a load, one of its repeats. */
export const sweepCellSchema = z.object({
    index: count,
    workload: z.string(),
    /** The schedule as asked, in the language's words (`layer_block(size: auto)`). */
    schedule: z.string(),
    /** Index into the workload's `schedules` (0: its own schedule, the baseline). */
    scheduleIndex: count,
    /** × every tenant's declared traffic. */
    load: z.number().positive(),
    repeat: count,
    /** The seed of its arrivals and weights: the workload's own plus the repeat, so every schedule and load of one repeat sees the same random streams. */
    seed: z.number().int(),
});
export type SweepCell = z.infer<typeof sweepCellSchema>;

/** What the runs measure: the benchmark block's overrides given when the sweep was made (absent: the block's). */
export const sweepRunSchema = z.object({
    durationMs: z.number().positive().optional(),
    warmupMs: z.number().nonnegative().optional(),
    requests: z.number().int().positive().optional(),
    rounds: z.number().int().positive().optional(),
    budgetMs: z.number().positive().optional(),
    minRequests: z.number().int().positive().optional(),
    adapter: z.enum(['auto', 'high_performance', 'low_power', 'fallback']).optional(),
    fusion: z.boolean(),
    timing: z.enum(['auto', 'cpu']),
    /** Use the node's tuning cache (its adapter's tuned variants), or ignore it. */
    tuning: z.enum(['cache', 'off']),
});

export const sweepWorkloadSchema = z.object({
    name: z.string(),
    /** The workload IR every cell of it runs (validated on reading). */
    ir: z.unknown(),
    irHash: z.string(),
    /** The schedules measured, as asked: the workload's own first (the baseline), each kept once by what it resolves to. */
    schedules: z.array(z.object({ name: z.string(), schedule: scheduleSchema, resolved: z.string(), why: z.string().optional() })),
    /** The simulation's figures per load (in `loads` order), one per schedule, made when the sweep was. */
    predicted: z.array(z.array(predictedScheduleSchema)),
});

export const sweepManifestSchema = z.object({
    schemaVersion: z.number().int(),
    kind: z.literal('sweep'),
    tenancyVersion: z.string(),
    /** The folder's name when it was made, so a copy elsewhere still says which sweep it is. */
    id: z.string(),
    createdAt: z.string(),
    /** The .tenancy (or IR) file the workloads came from. */
    source: z.string(),
    /** The workspace whose tuning pins cells use when they can see it. */
    workspaceFolder: z.string().optional(),
    loads: z.array(z.number().positive()).min(1),
    repeat: z.number().int().positive(),
    run: sweepRunSchema,
    /** The device profile schedules resolve on (`auto`, searched arguments) and predictions were made with. */
    profile: deviceProfileSchema,
    workloads: z.array(sweepWorkloadSchema).min(1),
    cells: z.array(sweepCellSchema).min(1),
});
export type SweepManifest = z.infer<typeof sweepManifestSchema>;
export type SweepWorkload = z.infer<typeof sweepWorkloadSchema>;

/** A sweep folder that cannot be used: missing, unreadable, invalid, or from another Tenancy. */
export class SweepFolderError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'SweepFolderError';
    }
}

/** Where everything of a sweep lives, under its folder. */
export interface SweepPaths {
    folder: string;
    manifest: string;
    /** A cell's results file (the results schema), its rounds (to pool repeats) and its state (who runs it, how it ended). */
    results(cell: number): string;
    rounds(cell: number): string;
    state(cell: number): string;
    slurmDir: string;
    /** Job scripts, their submissions and the tasks' output. */
    jobScript(submission: number): string;
    submissions: string;
    logs: string;
    merged: string;
}

const cellName = (cell: number) => `cell-${String(cell).padStart(4, '0')}`;

/** The paths of a sweep folder. */
export function sweepPaths(folder: string): SweepPaths {
    const root = resolve(folder);
    const cells = join(root, 'cells');
    const slurmDir = join(root, 'slurm');
    return {
        folder: root,
        manifest: join(root, 'sweep.json'),
        results: cell => join(cells, `${cellName(cell)}.results.json`),
        rounds: cell => join(cells, `${cellName(cell)}.rounds.json`),
        state: cell => join(cells, `${cellName(cell)}.state.json`),
        slurmDir,
        jobScript: n => join(slurmDir, `job-${n}.sh`),
        submissions: join(slurmDir, 'submissions.json'),
        logs: join(slurmDir, 'logs'),
        merged: join(root, 'merged.json'),
    };
}

/** A manifest read and checked: the workloads' IR validated, the cells consistent with them. */
export interface LoadedSweep {
    paths: SweepPaths;
    manifest: SweepManifest;
    /** By workload name. */
    irs: ReadonlyMap<string, WorkloadIR>;
}

/**
 * Reads a sweep folder's manifest. Throws SweepFolderError when it is missing, not a manifest,
 * of another schema, or made by another Tenancy version (`tenancyVersion`: this one's).
 */
export function readSweep(folder: string, tenancyVersion: string): LoadedSweep {
    const paths = sweepPaths(folder);
    if (!existsSync(paths.manifest)) {
        throw new SweepFolderError(`${paths.folder} is not a sweep folder: it has no sweep.json (make one with tenancy sweep <file>)`);
    }
    let value: unknown;
    try {
        value = JSON.parse(readFileSync(paths.manifest, 'utf8'));
    } catch (error) {
        throw new SweepFolderError(`cannot read ${paths.manifest}: ${(error as Error).message}`);
    }
    const head = value as { kind?: unknown; schemaVersion?: unknown; tenancyVersion?: unknown } | null;
    if (head?.kind !== 'sweep') throw new SweepFolderError(`${paths.manifest} is not a sweep manifest (kind ${JSON.stringify(head?.kind)})`);
    if (head.schemaVersion !== SWEEP_SCHEMA_VERSION || head.tenancyVersion !== tenancyVersion) {
        throw new SweepFolderError(`${paths.folder} was made by Tenancy ${String(head.tenancyVersion)} (sweep schema ${String(head.schemaVersion)}); this is Tenancy ${tenancyVersion} (sweep schema ${SWEEP_SCHEMA_VERSION}). ` +
            'Figures of different versions are not comparable, so its cells are neither run nor merged here: make a new sweep, or use that version');
    }
    const parsed = sweepManifestSchema.safeParse(value);
    if (!parsed.success) {
        const first = parsed.error.issues.slice(0, 5).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`);
        throw new SweepFolderError(`${paths.manifest} is not a valid sweep manifest: ${first.join('; ')}`);
    }
    const manifest = parsed.data;
    const irs = new Map<string, WorkloadIR>();
    for (const w of manifest.workloads) {
        try {
            irs.set(w.name, parseWorkloadIr(w.ir));
        } catch (error) {
            if (error instanceof IrValidationError) throw new SweepFolderError(`${paths.manifest}: workload ${w.name}: ${error.message}`);
            throw error;
        }
    }
    manifest.cells.forEach((c, i) => {
        const w = manifest.workloads.find(x => x.name === c.workload);
        if (c.index !== i) throw new SweepFolderError(`${paths.manifest}: cells[${i}] has index ${c.index}; cells are listed in index order`);
        if (!w || !w.schedules[c.scheduleIndex]) throw new SweepFolderError(`${paths.manifest}: cell ${i} names workload ${c.workload} schedule ${c.scheduleIndex}, which the manifest does not have`);
    });
    return { paths, manifest, irs };
}

/** Writes a new manifest (atomically); refuses a folder that already holds one. */
export async function writeManifest(folder: string, manifest: SweepManifest): Promise<SweepPaths> {
    const paths = sweepPaths(folder);
    if (existsSync(paths.manifest)) throw new SweepFolderError(`${paths.folder} already holds a sweep; resume it with tenancy sweep --resume ${paths.folder}, or choose another folder with --out`);
    await writeFileAtomic(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
    return paths;
}

/** The schedule of a cell as IR. */
export function cellSchedule(manifest: SweepManifest, cell: SweepCell): IrSchedule {
    return manifest.workloads.find(w => w.name === cell.workload)!.schedules[cell.scheduleIndex].schedule;
}

/** A cell in words: `cell 7 (two_mlps, layer_block(size: 4), 1.5× load, repeat 2)`. */
export function describeCell(cell: Pick<SweepCell, 'index' | 'workload' | 'schedule' | 'load' | 'repeat'>): string {
    return `cell ${cell.index} (${cell.workload}, ${cell.schedule}, ${cell.load}× load, repeat ${cell.repeat + 1})`;
}
