/**
 * The `tenancy` command's entry point, bundled as out/cli/main.mjs: a small parent process that
 * runs the CLI (main.ts, bundled beside it as tenancy.mjs) with its stderr passed through
 * {@link StderrFilter}, because the native WebGPU module writes start-up notices to file
 * descriptor 2 that nothing inside that process can intercept. stdout is the CLI's own (progress
 * JSON lines and tables pass untouched); its exit code, or the signal that killed it, is passed
 * back; SIGINT, SIGTERM and SIGHUP are passed on once. TENANCY_STDERR=raw runs the CLI in this
 * process, unfiltered (for a debugger, or to see everything Dawn prints).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitCodes } from '../protocol/exit-codes.js';
import { StderrFilter, stderrModeVariable } from './filtered-stderr.js';

/** The CLI bundle; esbuild writes it beside this one (esbuild.mjs). */
const cli = join(dirname(fileURLToPath(import.meta.url)), 'tenancy.mjs');

/** Runs the CLI in a child process, filtering its stderr; resolves when it has exited and its output is written. */
function runFiltered(args: string[]): Promise<void> {
    // POSIX: a session of its own, so that a terminal's Ctrl-C reaches only this process, which
    // passes it on once (the CLI takes a second SIGINT as "leave now, without partial results").
    // Windows has no sessions: the console sends Ctrl-C and Ctrl-Break to the CLI itself, so this
    // process only outlives them (dying would take the CLI down before it writes partial results).
    const ownSession = process.platform !== 'win32';
    const child = spawn(process.execPath, [...process.execArgv, cli, ...args], {
        // The IPC channel tells the CLI when this process is gone (filtered-stderr.ts, exitWithLauncher).
        stdio: ['inherit', 'inherit', 'pipe', 'ipc'],
        env: { ...process.env, [stderrModeVariable]: process.stderr.isTTY ? 'piped-tty' : 'piped' },
        detached: ownSession,
    });
    const forwarded: NodeJS.Signals[] = ownSession ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGTERM'];
    const forward = (signal: NodeJS.Signals) => { child.kill(signal); };
    for (const signal of forwarded) process.on(signal, forward);
    const ignored: NodeJS.Signals[] = ownSession ? [] : ['SIGINT', 'SIGBREAK'];
    const ignore = () => {};
    for (const signal of ignored) process.on(signal, ignore);
    const filter = new StderrFilter();
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
        const text = filter.push(chunk);
        if (text) process.stderr.write(text);
    });
    return new Promise(resolve => {
        child.on('error', error => {
            console.error(`tenancy: could not start ${process.execPath} ${cli}: ${error.message}`);
            process.exitCode = exitCodes.environment;
            resolve();
        });
        child.on('close', (code, signal) => {
            const rest = filter.flush();
            if (rest) process.stderr.write(rest);
            for (const s of forwarded) process.off(s, forward);
            for (const s of ignored) process.off(s, ignore);
            process.exitCode = code ?? exitCodes.internal;
            // Killed by a signal: die of the same one, so that our own parent sees what happened.
            if (signal) process.kill(process.pid, signal);
            resolve();
        });
    });
}

if (process.env[stderrModeVariable] === 'raw') {
    await import(pathToFileURL(cli).href);
} else {
    await runFiltered(process.argv.slice(2));
}
