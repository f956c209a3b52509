/**
 * How often a crashed language server may be restarted: a few times, then stop and say so.
 * A server that crashes on every start must not become a silent restart loop.
 */
export class RestartBudget {
    private readonly restarts: number[] = [];

    constructor(
        /** Restarts allowed within the window. */
        readonly maxRestarts = 3,
        /** Window in milliseconds. */
        readonly windowMs = 3 * 60_000,
        private readonly now: () => number = Date.now,
    ) {}

    /** Records a crash; true if one more restart is allowed. */
    tryRestart(): boolean {
        const t = this.now();
        while (this.restarts.length > 0 && t - this.restarts[0]! > this.windowMs) this.restarts.shift();
        if (this.restarts.length >= this.maxRestarts) return false;
        this.restarts.push(t);
        return true;
    }

    /** Restarts recorded within the current window. */
    get recent(): number {
        return this.restarts.length;
    }
}
