/**
 * The lines the native WebGPU stack writes to stderr that tell a Tenancy user nothing, a filter
 * that drops exactly those, and what the launcher and the CLI under it agree on. Dawn prints its
 * notices from C++ straight to file descriptor 2 (no flag or variable turns them off), so the CLI
 * runs under a parent process that filters its stderr (launcher.ts). Only whole lines that match
 * are dropped: any other output, including a real Dawn error and the calibrate progress line that
 * redraws itself with `\r`, passes at once.
 */

/** Harmless start-up notices, each matched against one whole line. */
export const nativeNoise: readonly { pattern: RegExp; why: string }[] = [
    {
        pattern: /^Warning: maxDynamic(?:Uniform|Storage)BuffersPerPipelineLayout artificially reduced from \d+ to \d+ to fit dynamic offset allocation limit\.$/,
        why: 'Dawn clamps two limits Tenancy never uses (dynamic buffer offsets), on every adapter.',
    },
    {
        pattern: /^error: XDG_RUNTIME_DIR is invalid or not set in the environment\.$/,
        why: "libwayland, called by Mesa's Vulkan device-select layer when WAYLAND_DISPLAY is set without XDG_RUNTIME_DIR; compute needs no display.",
    },
];

/** How each noise line starts: a partial line that could still become one is held back until its newline. */
const noiseStarts = ['Warning: maxDynamic', 'error: XDG_RUNTIME_DIR'];

/** Whether one line (without its line break) is a known harmless notice. */
export function isNativeNoise(line: string): boolean {
    return nativeNoise.some(n => n.pattern.test(line));
}

function mayBecomeNoise(partial: string): boolean {
    return noiseStarts.some(start => start.startsWith(partial) || partial.startsWith(start));
}

/** Drops {@link nativeNoise} lines from a text stream fed in chunks; everything else passes through unchanged. */
export class StderrFilter {
    private held = '';
    /** The current line has already been passed on in part, so it is not noise. */
    private lineStarted = false;

    /** Feeds a chunk; returns the text to write now. */
    push(chunk: string): string {
        let out = '';
        let text = this.held + chunk;
        this.held = '';
        for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n')) {
            const line = text.slice(0, end + 1);
            if (this.lineStarted || !isNativeNoise(line.replace(/\r?\n$/, ''))) out += line;
            this.lineStarted = false;
            text = text.slice(end + 1);
        }
        if (text !== '') {
            if (!this.lineStarted && mayBecomeNoise(text)) {
                this.held = text;
            } else {
                out += text;
                this.lineStarted = true;
            }
        }
        return out;
    }

    /** The rest at end of stream (an unterminated last line, unless it is noise). */
    flush(): string {
        const rest = this.held;
        this.held = '';
        this.lineStarted = false;
        return rest === '' || isNativeNoise(rest.replace(/\r$/, '')) ? '' : rest;
    }
}

/**
 * The environment variable between launcher.ts and the CLI it starts: `piped` (stderr is the
 * launcher's pipe), `piped-tty` (… and the launcher's stderr is a terminal), or `raw`, set by a
 * user to run the CLI in one process with Dawn's output unfiltered (e.g. under a debugger).
 */
export const stderrModeVariable = 'TENANCY_STDERR';

/** Whether the user sees stderr on a terminal (then progress may redraw one line), through the launcher's pipe or not. */
export function stderrIsTerminal(): boolean {
    return process.stderr.isTTY === true || process.env[stderrModeVariable] === 'piped-tty';
}

/** In the CLI under the launcher: exit when the launcher is gone (killed outright) rather than run on unseen. */
export function exitWithLauncher(exitCode: number): void {
    if (!process.env[stderrModeVariable]?.startsWith('piped') || !process.channel) return;
    process.channel.unref();
    process.on('disconnect', () => process.exit(exitCode));
}
