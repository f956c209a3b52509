/**
 * Reading a file's `sweep { … }` block (docs/sweeps.md#the-sweep-block): the matrix
 * (`schedules`, `loads`, `repeat`) and the Slurm settings (`partition`, `time`, `gres`, `sbatch`)
 * that `tenancy sweep <file>` uses where no flag overrides them, plus every problem found on the
 * way (`bad-argument`, `unsupported`). One reading serves the validator (which reports the
 * issues) and the command (which uses the values, and refuses a block with errors), so the two
 * never disagree; the Slurm values pass the same checks as the command's flags
 * (runtime/sweep/slurm-options.ts).
 */
import type { IrSchedule } from '../../runtime/ir/types.js';
import { RUNNABLE_SCHEDULES } from '../../runtime/schedule/policy.js';
import { parseGres, partitionProblem, sbatchLineProblem, slurmTimeOfSeconds, slurmTimeProblem } from '../../runtime/sweep/slurm-options.js';
import type { SweepDecl, SweepSetting, SweepValue } from '../generated/ast.js';
import { IssueCodes } from '../validation/issue-codes.js';
import { parseQuantity } from './quantities.js';
import type { AnalysisIssue } from './types.js';
import { readSchedule } from './workload.js';

/** The keys of a sweep block, in the order the reference lists them. */
export const sweepSettings = ['schedules', 'loads', 'repeat', 'partition', 'time', 'gres', 'sbatch'] as const;
export type SweepSettingKey = (typeof sweepSettings)[number];

/** A sweep block's values; a key the block does not give is absent (the command's default then holds). */
export interface SweepBlock {
    /** Schedules beside each workload's own. */
    schedules?: IrSchedule[];
    /** Factors on every tenant's declared traffic. */
    loads?: number[];
    repeat?: number;
    partition?: string;
    /** Slurm's time format (a time quantity is converted to `minutes:seconds`). */
    time?: string;
    /** GPUs per task (`gres "gpu:N"`). */
    gpus?: number;
    /** Extra `#SBATCH` lines, as written after `#SBATCH`. */
    sbatch?: string[];
}

/** A sweep block as read. */
export interface SweepReading {
    block: SweepBlock;
    issues: AnalysisIssue[];
}

/** Keys that take one value (the others take a comma-separated list). */
const single: readonly SweepSettingKey[] = ['repeat', 'partition', 'time', 'gres'];

function bad(message: string, node: SweepValue | SweepSetting, property?: string): AnalysisIssue {
    return { code: IssueCodes.BadArgument, severity: 'error', message, node, ...(property ? { property } : {}) };
}

/** "word 'gpu'", "number 3", "time 30s", "string "1:00"" — what a sweep value is. */
export function describeSweepValue(v: SweepValue): string {
    if (v.word !== undefined) return v.args.length > 0 || v.$cstNode?.text.includes('(') ? `'${v.$cstNode?.text ?? v.word}'` : `word '${v.word}'`;
    if (v.number !== undefined) return `number ${v.$cstNode?.text ?? v.number}`;
    if (v.quantity !== undefined) {
        const q = parseQuantity(v.quantity);
        return q ? `${q.kind} ${v.quantity}` : v.quantity;
    }
    return `string "${v.text ?? ''}"`;
}

/** A positive whole number, or undefined. */
function positiveInt(v: SweepValue): number | undefined {
    return v.number !== undefined && Number.isInteger(v.number) && v.number > 0 && !v.$cstNode?.text.includes('.') ? v.number : undefined;
}

/** Reads a sweep block (never throws; problems are in `issues`). */
export function readSweepBlock(decl: SweepDecl): SweepReading {
    const issues: AnalysisIssue[] = [];
    const block: SweepBlock = {};
    const seen = new Set<string>();
    for (const setting of decl.settings) {
        if (setting.key === undefined || setting.values.length === 0) continue; // incomplete text: the syntax error says what is missing
        const key = (sweepSettings as readonly string[]).includes(setting.key) ? setting.key as SweepSettingKey : undefined;
        if (!key) {
            issues.push(bad(`unknown sweep setting '${setting.key}'; expected ${sweepSettings.join(', ')}`, setting, 'key'));
            continue;
        }
        if (seen.has(key)) {
            issues.push(bad(`sweep setting '${key}' is given more than once; keep one${key === 'sbatch' || key === 'schedules' || key === 'loads' ? ` (it takes a comma-separated list)` : ''}`, setting, 'key'));
            continue;
        }
        seen.add(key);
        if (single.includes(key) && setting.values.length > 1) {
            issues.push(bad(`sweep ${key} takes one value; found ${setting.values.length}`, setting.values[1]));
            continue;
        }
        const value = setting.values[0];
        switch (key) {
            case 'schedules': {
                const schedules: IrSchedule[] = [];
                for (const v of setting.values) {
                    if (v.word === undefined) {
                        issues.push(bad(`sweep schedules takes schedules as in a schedule line, e.g. layer_block(size: 4); found ${describeSweepValue(v)}`, v));
                        continue;
                    }
                    const before = issues.length;
                    const schedule = readSchedule(v.word, v.args, v, issues, 'word');
                    if (issues.length > before) continue;
                    if (!RUNNABLE_SCHEDULES.includes(schedule.policy)) {
                        issues.push({ code: IssueCodes.Unsupported, severity: 'error', message: `schedule ${schedule.policy} is not implemented by the runtime, so tenancy sweep cannot run it; use one of ${RUNNABLE_SCHEDULES.join(', ')}`, node: v, property: 'word' });
                        continue;
                    }
                    schedules.push(schedule);
                }
                block.schedules = schedules;
                break;
            }
            case 'loads': {
                const loads: number[] = [];
                for (const v of setting.values) {
                    if (v.number === undefined || !(v.number > 0)) {
                        issues.push(bad(`sweep loads takes positive factors on every tenant's traffic, e.g. 0.5, 1, 1.5; found ${describeSweepValue(v)}`, v));
                    } else if (loads.includes(v.number)) {
                        issues.push(bad(`load ${v.number} is listed twice`, v));
                    } else loads.push(v.number);
                }
                block.loads = loads;
                break;
            }
            case 'repeat': {
                const n = positiveInt(value);
                if (n === undefined) issues.push(bad(`sweep repeat takes a positive integer (runs of every workload, schedule and load); found ${describeSweepValue(value)}`, value));
                else block.repeat = n;
                break;
            }
            case 'partition': {
                const text = value.text ?? value.word;
                const problem = text === undefined || value.args.length > 0 ? `takes a partition name; found ${describeSweepValue(value)}` : partitionProblem(text);
                if (problem) issues.push(bad(`sweep partition ${problem}`, value));
                else block.partition = text;
                break;
            }
            case 'time': {
                const time = slurmTime(value);
                if (typeof time === 'object') issues.push(bad(`sweep time ${time.problem}`, value));
                else block.time = time;
                break;
            }
            case 'gres': {
                const gres = value.text !== undefined ? parseGres(value.text) : { problem: `takes gpu:N as a string, e.g. "gpu:1"; found ${describeSweepValue(value)}` };
                if ('problem' in gres) issues.push(bad(`sweep gres ${gres.problem}`, value));
                else block.gpus = gres.gpus;
                break;
            }
            case 'sbatch': {
                const lines: string[] = [];
                for (const v of setting.values) {
                    const problem = v.text === undefined ? `takes sbatch options as strings, e.g. "--account=lab"; found ${describeSweepValue(v)}` : sbatchLineProblem(v.text);
                    if (problem) issues.push(bad(`sweep sbatch ${problem}`, v));
                    else lines.push(v.text!);
                }
                block.sbatch = lines;
                break;
            }
        }
    }
    return { block, issues };
}

const timeExpected = 'takes a time limit: a string in Slurm\'s time format (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS), e.g. "1:00:00", whole minutes (30), or a time such as 1800s';

/** A sweep `time` value in Slurm's format, or why it is not a time limit. */
function slurmTime(v: SweepValue): string | { problem: string } {
    if (v.text !== undefined) {
        const problem = slurmTimeProblem(v.text);
        return problem ? { problem: `${timeExpected}; found '${v.text}'` } : v.text;
    }
    const minutes = positiveInt(v);
    if (minutes !== undefined) return String(minutes);
    if (v.quantity !== undefined) {
        const q = parseQuantity(v.quantity);
        if (q?.kind === 'time' && q.value >= 1000) return slurmTimeOfSeconds(q.value / 1000);
        if (q?.kind === 'time') return { problem: `must be at least 1s (Slurm counts whole seconds); found ${v.quantity}` };
    }
    return { problem: `${timeExpected}; found ${describeSweepValue(v)}` };
}
