/**
 * Schedules named on the command line (`--schedules "concurrent, layer_block(size: 4)"`),
 * read by the language's own parser and workload reading — the same words, arguments,
 * defaults and messages as a `schedule` line in a .tenancy file.
 */
import { AstUtils, EmptyFileSystem } from 'langium';
import type { IrSchedule } from '../runtime/ir/types.js';
import { UsageError } from './measure-options.js';
import { readWorkload } from '../language-server/analysis/workload.js';
import { isDocument, isScheduleDecl, isWorkload } from '../language-server/generated/ast.js';
import { createTenancyServices } from '../language-server/tenancy-module.js';

/** Splits a list at top-level commas: `a, b(x: 1, y: 2)` → `a`, `b(x: 1, y: 2)`. */
export function splitScheduleList(text: string): string[] {
    const parts: string[] = [];
    let depth = 0, start = 0;
    for (let i = 0; i < text.length; i++) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')') depth = Math.max(0, depth - 1);
        else if (text[i] === ',' && depth === 0) {
            parts.push(text.slice(start, i));
            start = i + 1;
        }
    }
    parts.push(text.slice(start));
    return parts.map(p => p.trim()).filter(p => p.length > 0);
}

/** Reads each schedule as a workload's `schedule` line would be read; a problem is thrown as an Error that names the schedule and says why. */
export function parseSchedules(texts: readonly string[]): IrSchedule[] {
    const { Tenancy } = createTenancyServices(EmptyFileSystem);
    return texts.map(text => {
        if (/[{}\n]/.test(text)) throw new Error(`'${text}' is not a schedule; write it as in a schedule line, e.g. layer_block(size: 4)`);
        const result = Tenancy.parser.LangiumParser.parse(`workload cli {\n  schedule ${text}\n}\n`);
        const problem = result.lexerErrors[0]?.message ?? result.parserErrors[0]?.message;
        if (problem) throw new Error(`'${text}' is not a schedule (${problem}); write it as in a schedule line, e.g. layer_block(size: 4)`);
        const root = result.value;
        const workload = isDocument(root) ? root.elements.find(isWorkload) : undefined;
        if (!workload) throw new Error(`'${text}' is not a schedule; write it as in a schedule line, e.g. layer_block(size: 4)`);
        const reading = readWorkload(workload);
        const issue = reading.issues.find(i => i.severity === 'error' && AstUtils.getContainerOfType(i.node, isScheduleDecl));
        if (issue) throw new Error(`schedule '${text}': ${issue.message}`);
        return reading.schedule;
    });
}

/** The `--schedules` list of compare and sweep: undefined when not given; a UsageError when empty or unreadable. */
export function schedulesFlag(text: string | undefined): IrSchedule[] | undefined {
    if (text === undefined) return undefined;
    const texts = splitScheduleList(text);
    if (texts.length === 0) throw new UsageError('--schedules names no schedule; e.g. --schedules "concurrent, layer_block(size: 4)"');
    try {
        return parseSchedules(texts);
    } catch (error) {
        throw new UsageError(`--schedules: ${(error as Error).message}`);
    }
}
