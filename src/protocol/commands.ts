/**
 * Command ids and their argument payloads, shared by the language server (which puts them in
 * code lenses) and the extension (which registers and asserts them). No dependencies: both
 * sides import this file.
 */

/** Every command the extension registers, as `tenancy.${name}`. */
export const CommandNames = {
    runWorkload: 'workload.run',
    runTenantSolo: 'tenant.runSolo',
    compareSchedules: 'workload.compare',
    cancelRun: 'workload.cancel',
    calibrateDevice: 'device.calibrate',
    showReport: 'report.show',
    showComparison: 'comparison.show',
    showOutput: 'output.show',
} as const;

export type CommandName = (typeof CommandNames)[keyof typeof CommandNames];

/** The full command id of a command name (`tenancy.workload.run`). */
export function commandId<N extends CommandName>(name: N): `tenancy.${N}` {
    return `tenancy.${name}`;
}

export const CommandIds = {
    runWorkload: commandId(CommandNames.runWorkload),
    runTenantSolo: commandId(CommandNames.runTenantSolo),
    compareSchedules: commandId(CommandNames.compareSchedules),
    cancelRun: commandId(CommandNames.cancelRun),
    calibrateDevice: commandId(CommandNames.calibrateDevice),
    showReport: commandId(CommandNames.showReport),
    showComparison: commandId(CommandNames.showComparison),
    showOutput: commandId(CommandNames.showOutput),
} as const;

/** A workload in a document: what "Run benchmark", "Compare schedules", "Show report" and "Cancel" act on. */
export interface WorkloadRef {
    /** Document URI (`file:///…/vision-and-nlp.tenancy`). */
    uri: string;
    /** Workload name as written. */
    workload: string;
}

/** Arguments of `tenancy.tenant.runSolo`: one tenant of a workload, run alone. */
export interface TenantRef extends WorkloadRef {
    tenant: string;
}

/**
 * Arguments of `tenancy.workload.compare`: a workload measured under its own schedule and
 * others. `schedules`, when given, are the others as written after `schedule`
 * (`layer_block(size: auto)`); without it, the setting `tenancy.compare.schedules`, else the
 * CLI's default candidates.
 */
export interface CompareRef extends WorkloadRef {
    schedules?: string[];
}

/** Arguments of `tenancy.device.calibrate`: the document whose workspace gets the profile. */
export interface DocumentRef {
    uri: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
    return typeof value === 'string' && value.length > 0;
}

/** Type guard for {@link DocumentRef}. */
export function isDocumentRef(value: unknown): value is DocumentRef {
    return isRecord(value) && isNonEmptyString(value.uri);
}

/** Type guard for {@link WorkloadRef}. */
export function isWorkloadRef(value: unknown): value is WorkloadRef {
    return isDocumentRef(value) && isNonEmptyString((value as unknown as Record<string, unknown>).workload);
}

/** Type guard for {@link TenantRef}. */
export function isTenantRef(value: unknown): value is TenantRef {
    return isWorkloadRef(value) && isNonEmptyString((value as unknown as Record<string, unknown>).tenant);
}

/** Type guard for {@link CompareRef}. */
export function isCompareRef(value: unknown): value is CompareRef {
    if (!isWorkloadRef(value)) return false;
    const schedules = (value as unknown as Record<string, unknown>).schedules;
    return schedules === undefined || (Array.isArray(schedules) && schedules.length > 0 && schedules.every(isNonEmptyString));
}

/** Describes what a payload should have looked like, for error messages ("expected …, found …"). */
export function describePayload(value: unknown): string {
    if (value === undefined) return 'nothing';
    try {
        const text = JSON.stringify(value);
        return text.length > 200 ? `${text.slice(0, 200)}…` : text;
    } catch {
        return String(value);
    }
}
