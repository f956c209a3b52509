/**
 * Bounded waiting: every wait on the GPU (onSubmittedWorkDone, mapAsync, device requests) has
 * a time limit and gives way to cancellation, so a run never hangs.
 */

/** Raised when a wait exceeds its limit. */
export class WaitTimeoutError extends Error {
    constructor(readonly what: string, readonly ms: number) {
        super(`${what} did not finish within ${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);
        this.name = 'WaitTimeoutError';
    }
}

/** Resolves like `promise`, or rejects after `ms` (WaitTimeoutError) or on abort (the signal's reason). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) { reject(signal.reason); return; }
        const timer = setTimeout(() => { cleanup(); reject(new WaitTimeoutError(what, ms)); }, ms);
        const onAbort = () => { cleanup(); reject(signal!.reason); };
        const cleanup = () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
        signal?.addEventListener('abort', onAbort, { once: true });
        promise.then(v => { cleanup(); resolve(v); }, e => { cleanup(); reject(e); });
    });
}

