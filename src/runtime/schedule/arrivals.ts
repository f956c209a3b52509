/**
 * Arrival processes of docs/language.md#arrivals (poisson, closed, periodic) as deterministic functions of a
 * seeded random stream. Times are milliseconds from the start of a phase. A phase is a warm-up
 * window [0, warmupMs) whose requests are not measured, then either a measured window of
 * `durationMs` or (request-count mode) `requests` measured arrivals.
 */
import type { IrArrival } from '../ir/types.js';
import type { Random } from '../plan/random.js';

/** When a phase stops admitting new requests. */
export interface ArrivalLimit {
    warmupMs: number;
    /** Measured window length (time mode). Ignored when `requests` is set. */
    durationMs: number;
    /** Request-count mode: this many measured arrivals (after warm-up). */
    requests?: number;
}

/** A source of arrival times for one tenant in one phase. */
export interface ArrivalProcess {
    /** True for closed loop (new arrivals come from completions). */
    readonly closedLoop: boolean;
    /** The arrivals known at phase start: all of them (open loop) or one per client (closed). */
    initial(): number[];
    /** Closed loop: the next arrival after a completion at `atMs` (undefined once the limit is reached). */
    onCompletion(atMs: number): number | undefined;
    /** Whether an arrival at `atMs` is measured (not warm-up). */
    isMeasured(atMs: number): boolean;
}

/** Creates the arrival process of a tenant for a phase. */
export function createArrivalProcess(arrival: IrArrival, random: Random, limit: ArrivalLimit): ArrivalProcess {
    const endMs = limit.warmupMs + limit.durationMs;
    const isMeasured = (t: number) => t >= limit.warmupMs;
    let measuredIssued = 0;
    /** Admits an arrival at t if the limit allows, counting measured ones. */
    const admit = (t: number): boolean => {
        if (limit.requests === undefined) return t < endMs;
        if (!isMeasured(t)) return true;
        if (measuredIssued >= limit.requests) return false;
        measuredIssued++;
        return true;
    };
    switch (arrival.kind) {
        case 'poisson':
        case 'periodic': {
            const gap = arrival.kind === 'poisson'
                ? () => random.exponential(1000 / arrival.ratePerSecond)
                : () => arrival.everyMs;
            return {
                closedLoop: false,
                initial() {
                    const times: number[] = [];
                    // Periodic starts at 0; Poisson's first arrival is one gap in.
                    let t = arrival.kind === 'periodic' ? 0 : gap();
                    while (admit(t)) {
                        times.push(t);
                        t += gap();
                    }
                    return times;
                },
                onCompletion: () => undefined,
                isMeasured,
            };
        }
        case 'closed':
            return {
                closedLoop: true,
                initial() {
                    const times: number[] = [];
                    for (let c = 0; c < arrival.clients && admit(0); c++) times.push(0);
                    return times;
                },
                onCompletion(atMs: number) {
                    const t = atMs + arrival.thinkMs;
                    return admit(t) ? t : undefined;
                },
                isMeasured,
            };
    }
}
