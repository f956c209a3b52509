/**
 * The `tenancy` command — the composition root: the only place that joins the language
 * server's services (parsing, checking, lowering) with the runtime (GPU). One file per
 * subcommand in ./commands, each exporting `register(program)`. Bundled as out/cli/tenancy.mjs and
 * started by launcher.ts (out/cli/main.mjs), which filters its stderr.
 */
import { Command } from 'commander';
import { exitCodes } from '../protocol/exit-codes.js';
import * as run from './commands/run.js';
import * as devices from './commands/devices.js';
import * as calibrate from './commands/calibrate.js';
import * as predict from './commands/predict.js';
import * as check from './commands/check.js';
import * as ir from './commands/ir.js';
import * as compare from './commands/compare.js';
import * as capacity from './commands/capacity.js';
import * as sweep from './commands/sweep.js';
import * as merge from './commands/merge.js';
import { exitWithLauncher } from './filtered-stderr.js';
import packageJson from '../../package.json' with { type: 'json' };

exitWithLauncher(exitCodes.cancelled);

const program = new Command()
    .name('tenancy')
    .description('Check, predict and run multi-tenant deep-learning workloads described in .tenancy files.')
    .version(packageJson.version, '-V, --version', 'print the version of Tenancy')
    .showHelpAfterError()
    .exitOverride();

// Each subcommand module: src/cli/commands/<name>.ts exporting register(program).
for (const command of [check, ir, run, compare, capacity, sweep, merge, devices, calibrate, predict] as { register(program: Command): void }[]) {
    command.register(program);
}

try {
    await program.parseAsync(process.argv);
} catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    if (typeof code === 'number') {
        // commander already printed the usage error (or help/version).
        process.exitCode = code === 0 ? 0 : exitCodes.usage;
    } else {
        console.error(`tenancy: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = exitCodes.internal;
    }
}
