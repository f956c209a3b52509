/** Exit codes of the `tenancy` command (documented in the README); the extension reads them too. */
export const exitCodes = {
    ok: 0,
    /** The input has errors (diagnostics of severity error), or a run violated nothing but failed a check. */
    inputErrors: 1,
    /** No GPU adapter, or the environment cannot run the command (the GPU failed, the results cannot be written). */
    environment: 2,
    /** `tenancy run --fail-on slo`: a measured SLO verdict is violated (✗). */
    sloViolated: 3,
    /** `tenancy run --fail-on invalid`: the figures are not valid (too few requests, an incomplete run). */
    invalid: 4,
    /** `tenancy sweep`, `merge`: cells are left without figures (failed, cancelled, timed out, missing or invalid); each is named. */
    incomplete: 5,
    /** A usage error (unknown option, missing argument). */
    usage: 64,
    /** The run was cancelled (SIGINT/SIGTERM); partial results were written. */
    cancelled: 130,
    /** A bug in Tenancy. */
    internal: 70,
} as const;
