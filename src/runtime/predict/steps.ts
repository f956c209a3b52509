/**
 * Stepwise computations: a generator that yields after each unit of work (a simulation, a few
 * milliseconds), so the language server can run it between requests and stop it when the text
 * changes. The plain forms of the predictor's searches drain the same steps.
 */

/** Runs a stepwise computation to its end: the plain form of every `…Steps` function. */
export function completeSteps<T>(steps: Generator<void, T>): T {
    for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
    }
}
