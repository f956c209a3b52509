/**
 * `tenancy compare <file> [--workload W] [--schedules a,b,…] [--capacity] [--json]`: measures a
 * workload under its own schedule (the baseline) and others in one session — the same arrivals
 * and seed, every round running each schedule's co-run in turn, the order reversed on odd
 * rounds — prints per schedule and tenant the latencies with their bounds, SLO verdicts and the
 * gain over the baseline beside the predicted one, and writes the comparison atomically to
 * `<workspace>/.tenancy/results/<file-stem>.<workload>.compare.json` (+ history). With
 * `--capacity`, each schedule's capacity too. Exit codes as `tenancy run`.
 */
import type { Command } from 'commander';
import { exitCodes } from '../../protocol/exit-codes.js';
import type { IrSchedule } from '../../runtime/ir/types.js';
import { compareWorkload, DEFAULT_CAPACITY_BUDGET_MS } from '../../runtime/execute/compare.js';
import { comparisonTable } from '../../runtime/report/table.js';
import { resultsPathsFor } from '../../runtime/report/write.js';
import { scheduleName } from '../../runtime/schedule/policy.js';
import {
    addMeasureOptions, CommandOutput, writeMeasured, inputErrorCode, measureErrorCode, parseDuration, readMeasureInput, UsageError, withCancellation, type MeasureFlags, type MeasureInput,
} from '../measure-options.js';
import { schedulesFlag } from '../schedule-option.js';

interface CompareFlags extends MeasureFlags {
    schedules?: string;
    capacity?: boolean;
    capacityBudget?: string;
    resultsDir?: string;
}

export function register(program: Command): void {
    addMeasureOptions(program.command('compare')
        .description("Measure a workload under its schedule and others in one session (same arrivals, interleaved) and print each schedule's latencies, SLO verdicts and gain"))
        .option('--schedules <list>', 'the schedules beside the workload\'s own, as in a schedule line, comma-separated: "concurrent, layer_block(size: 4)" (default: sequential, concurrent, layer_block(size: auto), regulated)')
        .option('--capacity', "also search each schedule's capacity: the highest load at which every SLO holds")
        .option('--capacity-budget <time>', `the most one schedule's capacity search may take (default ${DEFAULT_CAPACITY_BUDGET_MS / 1000}s)`)
        .option('--results-dir <dir>', 'where to write the comparison (default <workspace>/.tenancy/results)')
        .action(async (file: string | undefined, opts: CompareFlags) => {
            process.exitCode = await compareCommand(file, opts);
        });
}

async function compareCommand(file: string | undefined, opts: CompareFlags): Promise<number> {
    const out = new CommandOutput('compare', opts.progress === 'jsonl', opts.json);
    let input: MeasureInput, schedules: IrSchedule[] | undefined, capacityBudgetMs: number | undefined;
    try {
        schedules = schedulesFlag(opts.schedules);
        if (opts.capacityBudget !== undefined) {
            if (!opts.capacity) throw new UsageError('--capacity-budget needs --capacity');
            capacityBudgetMs = parseDuration(opts.capacityBudget, '--capacity-budget');
        }
        input = await readMeasureInput('compare', file, opts);
    } catch (error) {
        return inputErrorCode(error, out);
    }
    const { ir, sourceFile } = input;
    const measured = opts.tenant && opts.tenant.length ? opts.tenant.length : ir.tenants.length;
    if (measured < 2) {
        return out.fail(exitCodes.usage, `${opts.tenant?.length ? 'one tenant is selected' : `workload ${ir.workload} has one tenant`}: schedules differ only when tenants share the GPU; use tenancy run (or tenancy capacity)`);
    }
    out.start(ir.workload, opts.tenant && opts.tenant.length ? opts.tenant : ir.tenants.map(t => t.name), scheduleName(ir.schedule));
    return withCancellation(out, async signal => {
        try {
            const comparison = await compareWorkload({
                ...input.options, ir, signal, onEvent: out.onEvent, schedules,
                ...(opts.capacity ? { capacity: { budgetMs: capacityBudgetMs } } : {}),
            });
            const paths = resultsPathsFor(sourceFile, ir.workload, opts.resultsDir, undefined, 'compare');
            const written = await writeMeasured(paths, comparison, new Date(comparison.finishedAt));
            if (opts.json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
            out.table(comparisonTable(comparison));
            console.error(`comparison: ${written.latest}`);
            out.emit({ type: 'result', resultsFile: written.latest, historyFile: written.history, status: comparison.status });
            if (comparison.status === 'cancelled') return exitCodes.cancelled;
            if (comparison.status === 'failed') {
                console.error(`tenancy compare: the run failed: ${comparison.reason}`);
                return exitCodes.environment;
            }
            return exitCodes.ok;
        } catch (error) {
            return measureErrorCode(error, out, signal);
        }
    });
}
