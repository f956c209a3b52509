/**
 * Stable diagnostic codes (LANGUAGE.md "Diagnostics"). Sent as `data: { code }` and as the LSP
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
}

export type IssueCode = (typeof IssueCodes)[keyof typeof IssueCodes];
