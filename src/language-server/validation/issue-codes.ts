/**
 * Stable diagnostic codes (docs/language.md#diagnostics). Sent as `data: { code }` and as the LSP
 * diagnostic `code`; quick fixes and tests match on these, never on message text.
 */
export namespace IssueCodes {
    export const Syntax = 'syntax';
    export const UnresolvedReference = 'unresolved-reference';
    export const DuplicateName = 'duplicate-name';
    export const UnknownOp = 'unknown-op';
    export const BadArgument = 'bad-argument';
    export const ShapeMismatch = 'shape-mismatch';
    export const RepeatShape = 'repeat-shape';
    export const UnboundDim = 'unbound-dim';
    export const Recursion = 'recursion';
    export const ImportCycle = 'import-cycle';
    export const BufferTooLarge = 'buffer-too-large';
    export const OutOfMemory = 'out-of-memory';
    export const TooLarge = 'too-large';
    export const SloInfeasible = 'slo-infeasible';
    export const Overloaded = 'overloaded';
    export const SloAtRisk = 'slo-at-risk';
    export const SloViolated = 'slo-violated';
    export const ScheduleHint = 'schedule-hint';
    export const Unused = 'unused';
    export const ShadowedZooModel = 'shadowed-zoo-model';
    export const KeywordName = 'keyword-name';
    /** A bug in Tenancy: a build phase or a check of this file threw; its other diagnostics may be incomplete. */
    export const InternalError = 'internal-error';
    /** Checking the file stopped at its time limit; what follows the diagnostic is not checked. */
    export const TimeLimit = 'time-limit';
    /** The file is larger than a file may be to be checked; it is not parsed. */
    export const FileTooLarge = 'file-too-large';
    /** The language accepts it, the runtime cannot run it (a tenant's model with an f16 input). */
    export const Unsupported = 'unsupported';
}

export type IssueCode = (typeof IssueCodes)[keyof typeof IssueCodes];
