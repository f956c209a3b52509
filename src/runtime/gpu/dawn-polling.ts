/**
 * How often Dawn's Node binding looks for finished GPU work.
 *
 * The `webgpu` package learns that a queue's work is done, or a buffer mapped, only when the
 * Dawn instance processes its events, and while any of its promises is pending it asks for that
 * again through the global `setImmediate` on every turn of the event loop, with a new native
 * function each time (Dawn's AsyncRunner; crbug.com/dawn/1127). While a tenant's GPU work is in
 * flight — all of a co-run with a closed-loop tenant — the main thread therefore spins: it takes
 * a core (on the software adapter, one of the two the "GPU" itself runs on) and makes so much
 * garbage that V8 collects for 20–100 ms every second or so. Those pauses land in the requests'
 * latencies as stalls: measured on the verdicts benchmark's A/B workload on lavapipe, 2.0–3.4 s of
 * collection in a 23 s run, latencies of 100–600 ms beside a 2 ms median, and A/A mean ratios of
 * 0.3–5.6× between identical phases.
 *
 * Paced, each of those calls first sleeps the thread for {@link POLL_INTERVAL_MS} (Atomics.wait:
 * the core is free meanwhile, the event loop's other work still runs between polls). Finished work
 * is then seen at most that much later, a tenth of a millisecond, well under a small kernel's time,
 * and the collections fall to about a twentieth (the same workload: 0.1–0.16 s per 23 s run; the
 * victim's solo median unchanged). `TENANCY_DAWN_POLLING=spin` keeps Dawn's own behaviour (for
 * side-by-side measurements).
 */

/** The sleep before each of Dawn's event polls, ms. */
export const POLL_INTERVAL_MS = 0.1;

/** Dawn's own behaviour (`spin`) or a sleep before each poll (`paced`, the default). */
export type DawnPolling = 'spin' | 'paced';

type Immediate = typeof globalThis.setImmediate;

/** A `setImmediate` that first sleeps `intervalMs` (via `sleep`), then defers to `immediate`. */
export function pacedImmediate(immediate: Immediate, sleep: (ms: number) => void, intervalMs = POLL_INTERVAL_MS): Immediate {
    const paced = (callback: (...args: unknown[]) => void, ...args: unknown[]) => {
        sleep(intervalMs);
        return immediate(callback, ...args);
    };
    return Object.assign(paced, { __promisify__: immediate.__promisify__ }) as Immediate;
}

/** Blocks the thread for `ms` without spinning (the main thread of Node may wait). */
function sleep(ms: number): void {
    Atomics.wait(sleepCell, 0, 0, ms);
}
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

let original: Immediate | undefined;

/** The polling the environment asks for: `TENANCY_DAWN_POLLING=spin`, else paced. */
export function dawnPollingFromEnvironment(env: NodeJS.ProcessEnv = process.env): DawnPolling {
    return env.TENANCY_DAWN_POLLING === 'spin' ? 'spin' : 'paced';
}

/**
 * Sets how Dawn polls, for the whole process (Dawn looks the global up on every poll). Called
 * when Dawn is opened; idempotent.
 */
export function setDawnPolling(polling: DawnPolling): void {
    if (polling === 'paced' && original === undefined) {
        original = globalThis.setImmediate;
        globalThis.setImmediate = pacedImmediate(original, sleep);
    } else if (polling === 'spin' && original !== undefined) {
        globalThis.setImmediate = original;
        original = undefined;
    }
}

/** How Dawn polls now. */
export function dawnPolling(): DawnPolling {
    return original === undefined ? 'spin' : 'paced';
}
