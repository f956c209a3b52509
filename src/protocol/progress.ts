/**
 * Progress events of `tenancy run|compare|capacity --progress jsonl`: one JSON object per line on stdout (and
 * nothing else on stdout; the human-readable table goes to stderr in that mode). The VS Code
 * extension spawns the CLI and parses these lines. No dependencies.
 *
 * Order: `start`, then `phase` events ([tune →] compile → solo per tenant → corun → report) with
 * `progress` events in between, then exactly one of `result` (results were written, also for
 * cancelled/partial/failed runs that got far enough to write) or `error` (nothing written),
 * possibly preceded by an `error` that explains a failed `result`. The process exit code is
 * authoritative (0 ok, 1 input errors, 2 no adapter/environment, 130 cancelled, 70 bug).
 *
 * `tenancy calibrate` has no JSON stream: its progress is a line per step on stderr
 * (calibrateProgressLine), which the extension reads back for its notification's bar.
 */

export const PROGRESS_PROTOCOL_VERSION = 1;

/** 'tune': `tenancy run --tune` timing kernel variants of signatures the tuning cache lacks, before compile. */
export type RunPhase = 'tune' | 'compile' | 'solo' | 'corun' | 'report';

export type ProgressEvent =
    /** The run began. */
    | { type: 'start'; version: typeof PROGRESS_PROTOCOL_VERSION; workload: string; tenants: string[]; policy: string; adapter?: string }
    /**
     * A phase began; solo phases name their tenant; measuring phases their round (0: the warm-up
     * round); `tenancy compare`'s co-runs their schedule; `tenancy capacity`'s probes their load.
     */
    | { type: 'phase'; phase: RunPhase; tenant?: string; round?: number; schedule?: string; load?: number }
    /** Overall fraction done, 0…1 (monotonic), with the current phase and, while measuring, the round and the rounds planned so far. */
    | { type: 'progress'; fraction: number; phase: RunPhase; tenant?: string; round?: number; rounds?: number }
    /** Results were written (status says whether the run completed). */
    | { type: 'result'; resultsFile: string; historyFile: string; status: 'complete' | 'partial' | 'cancelled' | 'failed' }
    /** The run failed or a problem stopped it; opPath names the op when known. */
    | { type: 'error'; message: string; opPath?: string; exitCode?: number };

const phases: readonly string[] = ['tune', 'compile', 'solo', 'corun', 'report'];
const statuses: readonly string[] = ['complete', 'partial', 'cancelled', 'failed'];

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
const optionalCount = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0);

/** Type guard for one parsed progress line. */
export function isProgressEvent(value: unknown): value is ProgressEvent {
    if (!isRecord(value)) return false;
    switch (value.type) {
        case 'start':
            return value.version === PROGRESS_PROTOCOL_VERSION && typeof value.workload === 'string'
                && Array.isArray(value.tenants) && value.tenants.every(t => typeof t === 'string')
                && typeof value.policy === 'string' && optionalString(value.adapter);
        case 'phase':
            return typeof value.phase === 'string' && phases.includes(value.phase) && optionalString(value.tenant) && optionalCount(value.round)
                && optionalString(value.schedule) && (value.load === undefined || (typeof value.load === 'number' && value.load > 0));
        case 'progress':
            return typeof value.fraction === 'number' && value.fraction >= 0 && value.fraction <= 1
                && typeof value.phase === 'string' && phases.includes(value.phase) && optionalString(value.tenant)
                && optionalCount(value.round) && optionalCount(value.rounds);
        case 'result':
            return typeof value.resultsFile === 'string' && typeof value.historyFile === 'string'
                && typeof value.status === 'string' && statuses.includes(value.status);
        case 'error':
            return typeof value.message === 'string' && optionalString(value.opPath)
                && (value.exitCode === undefined || typeof value.exitCode === 'number');
        default:
            return false;
    }
}

/** `tenancy calibrate`'s progress on stderr, a line per step: `calibrate [ 35%] what it measures`. */
export function calibrateProgressLine(fraction: number, message: string): string {
    return `calibrate [${String(Math.round(Math.min(1, Math.max(0, fraction)) * 100)).padStart(3)}%] ${message}`;
}

/** The percent (0…100) and message of a calibrateProgressLine; undefined for any other line (warnings, errors). */
export function parseCalibrateProgressLine(line: string): { percent: number; message: string } | undefined {
    const m = /^calibrate \[\s*(\d{1,3})%\] (.*)$/.exec(line);
    return m && Number(m[1]) <= 100 ? { percent: Number(m[1]), message: m[2] } : undefined;
}
