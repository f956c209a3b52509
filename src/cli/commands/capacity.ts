/**
 * `tenancy capacity <file> [--workload W] [--schedule S…] [--json]`: the highest load (× every
 * tenant's declared traffic: Poisson and periodic rates, closed-loop clients) at which every SLO
 * holds — VELTAIR's QoS-satisfied throughput — measured by bisection from the load the
 * simulation predicts, each probe a short measurement with its SLO verdicts. Without
 * `--schedule`, the workload's own schedule. Prints a table (or the JSON report with `--json`);
 * writes nothing. Exit codes as `tenancy run`.
 */
import type { Command } from 'commander';
import { exitCodes } from '../../protocol/exit-codes.js';
import type { IrSchedule } from '../../runtime/ir/types.js';
import { capacityWorkload, CapacityInputError, DEFAULT_CAPACITY_BUDGET_MS } from '../../runtime/execute/compare.js';
import { capacityTable } from '../../runtime/report/table.js';
import { scheduleName } from '../../runtime/schedule/policy.js';
import {
    addMeasureOptions, CommandOutput, inputErrorCode, measureErrorCode, parseDuration, readMeasureInput, UsageError, withCancellation, type MeasureFlags, type MeasureInput,
} from '../measure-options.js';
import { parseSchedules, splitScheduleList } from '../schedule-option.js';

interface CapacityFlags extends MeasureFlags {
    schedule?: string[];
    capacityBudget?: string;
}

export function register(program: Command): void {
    addMeasureOptions(program.command('capacity')
        .description('Measure the highest load at which every SLO holds (QoS-satisfied throughput), by bisection over the traffic'))
        .option('--schedule <schedule...>', 'the schedules to search, each as in a schedule line (default: the workload\'s own)')
        .option('--capacity-budget <time>', `the most one schedule's search may take (default ${DEFAULT_CAPACITY_BUDGET_MS / 1000}s)`)
        .action(async (file: string | undefined, opts: CapacityFlags) => {
            process.exitCode = await capacityCommand(file, opts);
        });
}

async function capacityCommand(file: string | undefined, opts: CapacityFlags): Promise<number> {
    const out = new CommandOutput('capacity', opts.progress === 'jsonl', opts.json);
    let input: MeasureInput, schedules: IrSchedule[] | undefined, budgetMs: number | undefined;
    try {
        if (opts.schedule !== undefined) {
            try {
                schedules = parseSchedules(opts.schedule.flatMap(splitScheduleList));
            } catch (error) {
                throw new UsageError(`--schedule: ${(error as Error).message}`);
            }
        }
        if (opts.capacityBudget !== undefined) budgetMs = parseDuration(opts.capacityBudget, '--capacity-budget');
        input = await readMeasureInput('capacity', file, opts);
    } catch (error) {
        return inputErrorCode(error, out);
    }
    const { ir } = input;
    out.start(ir.workload, opts.tenant && opts.tenant.length ? opts.tenant : ir.tenants.map(t => t.name), scheduleName(ir.schedule));
    return withCancellation(out, async signal => {
        try {
            const report = await capacityWorkload({ ...input.options, ir, signal, onEvent: out.onEvent, ...(schedules ? { schedules } : {}), capacity: { budgetMs } });
            if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
            out.table(capacityTable(report));
            if (report.status === 'cancelled') return exitCodes.cancelled;
            if (report.status === 'failed') {
                console.error(`tenancy capacity: the run failed: ${report.reason}`);
                return exitCodes.environment;
            }
            return exitCodes.ok;
        } catch (error) {
            if (error instanceof CapacityInputError) return out.fail(exitCodes.inputErrors, error.message);
            return measureErrorCode(error, out, signal);
        }
    });
}
