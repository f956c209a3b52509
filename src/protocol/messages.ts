/**
 * Custom LSP messages between the extension and the language server (like vscode-eslint's
 * shared customMessages.ts): one namespace per message with its `method`; the parameter and
 * result types beside it. No dependencies — each side builds its typed
 * `NotificationType`/`RequestType` from `method`.
 */

/** Zero-based LSP position and range (structurally identical to the LSP types). */
export interface ProtocolPosition {
    line: number;
    character: number;
}
export interface ProtocolRange {
    start: ProtocolPosition;
    end: ProtocolPosition;
}

export type ResultsFileChangeKind = 'created' | 'changed' | 'deleted';

export interface ResultsChangedParams {
    /** file: URIs of results files (`.tenancy/results/*.json`) or device profiles that changed. */
    changes: { uri: string; kind: ResultsFileChangeKind }[];
}

/**
 * Client → server: results files or the device profile changed on disk (a run from the
 * editor or from a terminal). The server drops its cached results and refreshes lenses,
 * measured figures and `slo-violated` diagnostics.
 */
export namespace ResultsChangedNotification {
    export const method = 'tenancy/resultsChanged';
}

/** How a measured figure compares with what was expected of it. */
export type MeasuredVerdict = 'ok' | 'slow' | 'violated' | 'cancelled';

/** One measured figure to show at the end of a source line (an op or a tenant). */
export interface MeasuredFigure {
    range: ProtocolRange;
    /** Short text after the line, e.g. `co-run 3.1 ms · 1.7× solo`. */
    text: string;
    /** Markdown for the hover: measured vs predicted, per tenant. */
    hover: string;
    verdict: MeasuredVerdict;
}

export interface MeasuredFiguresParams {
    uri: string;
}

export interface MeasuredFiguresResult {
    uri: string;
    figures: MeasuredFigure[];
}

/** Client → server: the measured figures of a document from its latest results. */
export namespace MeasuredFiguresRequest {
    export const method = 'tenancy/measuredFigures';
}

export interface MeasuredChangedParams {
    /** Documents whose measured figures changed. */
    uris: string[];
}

/** Server → client: measured figures of these documents changed; ask again. */
export namespace MeasuredChangedNotification {
    export const method = 'tenancy/measuredChanged';
}

/** Initialization options the client sends to the server. */
export interface TenancyInitializationOptions {
    /** Results folder, relative to the workspace folder (setting `tenancy.results.folder`). */
    resultsFolder: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is ProtocolPosition {
    return isRecord(value) && Number.isInteger(value.line) && Number.isInteger(value.character);
}

/** Type guard for {@link ProtocolRange}. */
export function isProtocolRange(value: unknown): value is ProtocolRange {
    return isRecord(value) && isPosition(value.start) && isPosition(value.end);
}

const verdicts: readonly string[] = ['ok', 'slow', 'violated', 'cancelled'];

/** Type guard for {@link MeasuredFigure}. */
export function isMeasuredFigure(value: unknown): value is MeasuredFigure {
    return isRecord(value) && isProtocolRange(value.range) && typeof value.text === 'string'
        && typeof value.hover === 'string' && typeof value.verdict === 'string' && verdicts.includes(value.verdict);
}

/** Type guard for {@link MeasuredFiguresResult}. */
export function isMeasuredFiguresResult(value: unknown): value is MeasuredFiguresResult {
    return isRecord(value) && typeof value.uri === 'string' && Array.isArray(value.figures)
        && value.figures.every(isMeasuredFigure);
}

/** Type guard for {@link MeasuredChangedParams}. */
export function isMeasuredChangedParams(value: unknown): value is MeasuredChangedParams {
    return isRecord(value) && Array.isArray(value.uris) && value.uris.every(u => typeof u === 'string');
}

/** Type guard for {@link ResultsChangedParams}. */
export function isResultsChangedParams(value: unknown): value is ResultsChangedParams {
    return isRecord(value) && Array.isArray(value.changes) && value.changes.every(c =>
        isRecord(c) && typeof c.uri === 'string' && (c.kind === 'created' || c.kind === 'changed' || c.kind === 'deleted'));
}

/** Default results folder, relative to the workspace folder. */
export const defaultResultsFolder = '.tenancy/results';
/** Device profile written by `tenancy calibrate`, relative to the workspace folder. */
export const deviceProfilePath = '.tenancy/device-profile.json';

export interface WorkspaceStatusParams {
    /** A document of the workspace (the active editor's). */
    uri: string;
}

export interface WorkspaceStatusResult {
    /** `.tenancy/device-profile.json` exists for the document's workspace. */
    calibrated: boolean;
    /** The adapter of the device profile or of the latest run, when known (`mesa llvmpipe (software)`). */
    adapter: string | undefined;
    /** The most recent run of any workload of the document. */
    lastRun: { workload: string; finishedAt: string; status: string; resultsPath: string } | undefined;
}

/** Client → server: calibration, adapter and last run for the status item. */
export namespace WorkspaceStatusRequest {
    export const method = 'tenancy/workspaceStatus';
}

/** Type guard for {@link WorkspaceStatusResult}. */
export function isWorkspaceStatusResult(value: unknown): value is WorkspaceStatusResult {
    return isRecord(value) && typeof value.calibrated === 'boolean'
        && (value.adapter === undefined || typeof value.adapter === 'string')
        && (value.lastRun === undefined || (isRecord(value.lastRun) && typeof value.lastRun.workload === 'string'
            && typeof value.lastRun.finishedAt === 'string' && typeof value.lastRun.status === 'string'));
}
