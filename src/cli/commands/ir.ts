/** `tenancy ir <file> [--workload W]`: prints the Workload IR of a checked workload as JSON. */
import type { Command } from 'commander';
import { LoweringError } from '../../language-server/lower.js';
import { exitCodes } from '../../protocol/exit-codes.js';
import { loadWorkspace, WorkspaceInputError } from '../load-workspace.js';

/** Runs the command; returns the exit code. */
export async function runIr(file: string, options: { workload?: string }, out: (text: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
    try {
        const workspace = await loadWorkspace([file]);
        out(JSON.stringify(workspace.lower(options.workload, file), null, 2));
        return exitCodes.ok;
    } catch (error) {
        if (error instanceof WorkspaceInputError || error instanceof LoweringError) {
            err(`tenancy ir: ${error.message}`);
            return exitCodes.inputErrors;
        }
        throw error;
    }
}

export function register(program: Command): void {
    program
        .command('ir')
        .description('print the Workload IR (JSON) of a workload in a .tenancy file')
        .argument('<file>', 'a .tenancy file')
        .option('-w, --workload <name>', 'the workload to lower (required when the file has several)')
        .action(async (file: string, options: { workload?: string }) => {
            process.exitCode = await runIr(file, options);
        });
}
