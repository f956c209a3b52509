/**
 * What a run tells its caller while it works: the phase it entered and how far it is. The
 * runtime's own vocabulary — the CLI maps it to the wire format of `--progress jsonl`
 * (src/protocol/progress.ts), so the runtime knows nothing of who listens.
 */

/** Phases of a run, in order: [tune →] compile → solo (per tenant) → corun, repeated per round → report. */
export type RunPhase = 'tune' | 'compile' | 'solo' | 'corun' | 'report';

export type RunEvent =
    /**
     * A phase began; solo phases name their tenant; measuring phases their round (0: the warm-up
     * round); co-runs their schedule when a session compares several; capacity probes their load.
     */
    | { type: 'phase'; phase: RunPhase; tenant?: string; round?: number; schedule?: string; load?: number }
    /** Overall fraction done, 0…1 (monotonic), with the current phase and, while measuring, the round and the rounds planned so far. */
    | { type: 'progress'; fraction: number; phase: RunPhase; tenant?: string; round?: number; rounds?: number };
