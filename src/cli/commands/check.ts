/** `tenancy check <files…> [--json]`: diagnostics of .tenancy files; exit 1 when any is an error. */
import type { Command } from 'commander';
import { exitCodes } from '../../protocol/exit-codes.js';
import { formatDiagnostic, loadWorkspace, WorkspaceInputError, type CheckDiagnostic } from '../load-workspace.js';

/** What `check` prints with --json. */
export interface CheckReport {
    diagnostics: CheckDiagnostic[];
    summary: { files: number; errors: number; warnings: number; infos: number; hints: number };
}

/** Runs the check; returns the exit code (prints to the given streams). */
export async function runCheck(files: string[], options: { json?: boolean }, out: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
    let workspace;
    try {
        workspace = await loadWorkspace(files);
    } catch (error) {
        if (error instanceof WorkspaceInputError) {
            err(`tenancy check: ${error.message}`);
            return exitCodes.inputErrors;
        }
        throw error;
    }
    const count = (s: string) => workspace.diagnostics.filter(d => d.severity === s).length;
    const summary = { files: files.length, errors: count('error'), warnings: count('warning'), infos: count('info'), hints: count('hint') };
    if (options.json) {
        out(JSON.stringify({ diagnostics: workspace.diagnostics, summary } satisfies CheckReport, null, 2));
    } else {
        for (const d of workspace.diagnostics) out(formatDiagnostic(d));
        const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
        err(`${plural(summary.files, 'file')} checked: ${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')}, ${plural(summary.infos + summary.hints, 'hint')}`);
    }
    return summary.errors > 0 ? exitCodes.inputErrors : exitCodes.ok;
}

export function register(program: Command): void {
    program
        .command('check')
        .description('check .tenancy files: syntax, names, shapes, workloads (exit 1 on errors)')
        .argument('<files...>', '.tenancy files (their imports and the model zoo load too)')
        .option('--json', 'print the diagnostics as JSON')
        .action(async (files: string[], options: { json?: boolean }) => {
            process.exitCode = await runCheck(files, options);
        });
}
