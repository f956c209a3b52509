/**
 * Custom LSP messages between the extension and the language server (like vscode-eslint's
 * shared customMessages.ts): one namespace per message with its `method`, direction and purpose,
 * and its `Params` (and a request's `Result`) types. Unlike vscode-eslint's, the namespaces hold
 * no `NotificationType`/`RequestType` objects: src/protocol has no dependencies, and the client
 * and the server each bundle their own copy of vscode-jsonrpc, whose message types have a private
 * member, so a type made from one copy is not the other's. Each side makes its typed messages
 * from these, in one place (src/extension/messages.ts on the client,
 * src/language-server/lsp/messages.ts on the server).
 */

export type ResultsFileChangeKind = 'created' | 'changed' | 'deleted';

export interface ResultsChangedParams {
    /** file: URIs of results files (`.tenancy/results/*.json`) or device profiles that changed. */
    changes: { uri: string; kind: ResultsFileChangeKind }[];
}

/**
 * Client → server: results files or the device profile changed on disk (a run from the
 * editor or from a terminal). The server drops its cached results, rebuilds (`slo-violated`
 * diagnostics), asks the client to refresh code lenses and inlay hints (the measured figures
 * beside the predictions: LSP `workspace/codeLens/refresh`, `workspace/inlayHint/refresh`)
 * and sends {@link MeasuredChangedNotification}.
 */
export namespace ResultsChangedNotification {
    export const method = 'tenancy/resultsChanged';
    export type Params = ResultsChangedParams;
}

export interface MeasuredChangedParams {
    /** Documents whose latest results may have changed. */
    uris: string[];
}

/**
 * Server → client, after it reloaded changed results: refresh what the client draws from them
 * (the report panels, the status item). The editor's inline figures are LSP inlay hints,
 * refreshed by the server itself.
 */
export namespace MeasuredChangedNotification {
    export const method = 'tenancy/measuredChanged';
    export type Params = MeasuredChangedParams;
}

/** Initialization options the client sends to the server. */
export interface TenancyInitializationOptions {
    /** Results folder, relative to the workspace folder (setting `tenancy.results.folder`). */
    resultsFolder: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    /**
     * The most recent run of any workload of the document: whether its figures are valid, and why
     * the host was busy when it was (a warning the status item shows).
     */
    lastRun: { workload: string; finishedAt: string; status: string; resultsPath: string; valid?: boolean; hostWarning?: string } | undefined;
}

/** Client → server: calibration, adapter and last run for the status item. */
export namespace WorkspaceStatusRequest {
    export const method = 'tenancy/workspaceStatus';
    export type Params = WorkspaceStatusParams;
    export type Result = WorkspaceStatusResult;
}

/** Type guard for {@link WorkspaceStatusResult}. */
export function isWorkspaceStatusResult(value: unknown): value is WorkspaceStatusResult {
    return isRecord(value) && typeof value.calibrated === 'boolean'
        && (value.adapter === undefined || typeof value.adapter === 'string')
        && (value.lastRun === undefined || (isRecord(value.lastRun) && typeof value.lastRun.workload === 'string'
            && typeof value.lastRun.finishedAt === 'string' && typeof value.lastRun.status === 'string'
            && (value.lastRun.valid === undefined || typeof value.lastRun.valid === 'boolean')
            && (value.lastRun.hostWarning === undefined || typeof value.lastRun.hostWarning === 'string')));
}
