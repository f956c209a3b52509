/**
 * One submission, checked and awaited: the way a request's work (or a chunk of it) goes to the
 * queue, for the runtime and for the calibration that times it.
 */
import { withTimeout } from './wait.js';

/** What a submission came to: the validation error it raised, or when the queue had done it. */
export type Submitted = { error: GPUError; doneAt?: undefined } | { error?: undefined; doneAt: number };

/**
 * Finishes `encoder` and submits its work inside a validation error scope (an encoding error is
 * raised when the encoder finishes: inside the scope, it is this submission's), then waits (bounded
 * by `limitMs`, cancelled by `signal`) until the queue has done it; `doneAt` is performance.now()
 * when it had.
 *
 * The scope's answer and the queue's completion are awaited together. Awaited one after the
 * other, each costs its own turn of Dawn's event polling (dawn-polling.ts): on lavapipe a
 * submission's round trip took 0.54 ms against 0.32 ms together (one pass, medians of 8 × 200),
 * paid once per chunk by a request that a schedule cuts into chunks.
 *
 * A timeout or cancellation rejects as withTimeout does, unless the submission was invalid: its
 * validation error is the cause worth reporting.
 */
export async function submitChecked(device: GPUDevice, encoder: GPUCommandEncoder, limitMs: number, what: string, signal?: AbortSignal): Promise<Submitted> {
    device.pushErrorScope('validation');
    device.queue.submit([encoder.finish()]);
    const [scope, done] = await Promise.allSettled([
        device.popErrorScope(),
        withTimeout(device.queue.onSubmittedWorkDone(), limitMs, what, signal).then(() => performance.now()),
    ]);
    if (scope.status === 'fulfilled' && scope.value) return { error: scope.value };
    if (done.status === 'rejected') throw done.reason;
    if (scope.status === 'rejected') throw scope.reason;
    return { doneAt: done.value };
}
