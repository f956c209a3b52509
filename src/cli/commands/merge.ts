/**
 * `tenancy merge <sweep folder> [--json] [--out file]`: gathers a sweep's cells into one
 * document (runtime/sweep/merge.ts): per workload, device and load a comparison in `tenancy
 * compare`'s schema, each schedule's QoS-satisfied throughput over the loads, and the cells left
 * out with why. Written atomically to `<folder>/merged.json` (or --out); the tables on stdout.
 * Exit codes: 0 every cell merged, 5 some were not (each named; the rest is still written), 1
 * not a sweep folder or one of another Tenancy version, 64 usage.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { exitCodes } from '../../protocol/exit-codes.js';
import { writeFileAtomic } from '../../runtime/report/write.js';
import { readSweep, SweepFolderError } from '../../runtime/sweep/manifest.js';
import { mergeSweep, mergeTable } from '../../runtime/sweep/merge.js';
import packageJson from '../../../package.json' with { type: 'json' };

interface MergeFlags {
    json?: boolean;
    out?: string;
}

export function register(program: Command): void {
    program.command('merge')
        .description("Gather a sweep's cells into comparisons per workload, device and load (tenancy compare's schema) and each schedule's QoS-satisfied throughput")
        .argument('<folder>', 'the sweep folder (tenancy sweep)')
        .option('--json', 'print the merged document on stdout (the tables go to stderr)')
        .option('--out <file>', 'where to write the merged document (default <folder>/merged.json)')
        .action(async (folder: string, opts: MergeFlags) => {
            process.exitCode = await mergeCommand(folder, opts);
        });
}

async function mergeCommand(folder: string, opts: MergeFlags): Promise<number> {
    let merged;
    let target: string;
    try {
        const sweep = readSweep(folder, packageJson.version);
        merged = mergeSweep(sweep);
        target = opts.out !== undefined ? resolve(opts.out) : sweep.paths.merged;
    } catch (error) {
        if (error instanceof SweepFolderError) {
            console.error(`tenancy merge: ${error.message}`);
            return exitCodes.inputErrors;
        }
        throw error;
    }
    await writeFileAtomic(target, `${JSON.stringify(merged, null, 2)}\n`);
    if (opts.json) process.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
    const table = mergeTable(merged);
    if (opts.json) console.error(table);
    else console.log(table);
    console.error(`merged: ${target}`);
    if (merged.notMerged.length > 0) {
        console.error(`tenancy merge: ${merged.notMerged.length} of ${merged.cells.total} cells have no figures to merge (named above); run them with tenancy sweep --resume ${folder}`);
        return exitCodes.incomplete;
    }
    return exitCodes.ok;
}
