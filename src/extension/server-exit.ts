/**
 * Why the language server stopped, for the message the user sees when it is restarted (or not):
 * the last lines the server wrote — its stderr, where Node prints an uncaught exception or
 * "JavaScript heap out of memory", and its log — are kept, and the last that names an error is
 * the cause. No `vscode` import: tested on its own.
 */

/** The tail of what the server wrote. */
export class ServerOutputTail {
    private readonly lines: string[] = [];

    constructor(private readonly max = 200) {}

    /** Records text the server wrote (one or more lines). */
    record(text: string): void {
        for (const line of text.split(/\r?\n/)) {
            if (line.trim() === '') continue;
            this.lines.push(line);
            if (this.lines.length > this.max) this.lines.shift();
        }
    }

    /** The last line naming an error (`RangeError: Maximum call stack size exceeded`, `FATAL ERROR: … heap out of memory`), shortened; undefined when none. */
    cause(): string | undefined {
        for (let i = this.lines.length - 1; i >= 0; i--) {
            const line = this.lines[i]!.trim();
            if (/^\s*at /.test(line)) continue; // a stack frame: the error line is above it
            if (/\b(?:[A-Z][A-Za-z]*)?Error\b|FATAL|out of memory|ENOMEM|Maximum call stack|Aborted|Segmentation fault|uncaught|unhandled/i.test(line)) {
                const text = line.replace(/^\[[^\]]*\]\s*/, ''); // a log line's "[Error - 10:42:01]" prefix
                return text.length > 240 ? `${text.slice(0, 237)}…` : text;
            }
        }
        return undefined;
    }
}

/** What the user is told when the server stopped: why (when its output says), and whether it is restarted. */
export function serverStoppedMessage(cause: string | undefined, restart: { restarted: boolean; recent: number; max: number; windowMinutes: number }): string {
    const why = cause ? `: ${cause}` : ' (its output names no cause; see the log)';
    return restart.restarted
        ? `Tenancy: the language server stopped unexpectedly${why}. Restarting it (${restart.recent} of ${restart.max} restarts within ${restart.windowMinutes} minutes).`
        : `Tenancy: the language server stopped ${restart.max + 1} times within ${restart.windowMinutes} minutes and will not be restarted; the last time${why}. Reload the window to start it again.`;
}
