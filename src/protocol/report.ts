/**
 * The report of one run as the webview draws it. The language server builds it from results
 * files (it may read the runtime's results schema; the extension and the webview may not), the
 * extension passes it to the webview unchanged. No dependencies.
 */

/** Sent with the custom request below; the server answers a {@link ReportResult}. */
export interface ReportParams {
    /** Document URI of the .tenancy file. */
    uri: string;
    workload: string;
}

export type ReportResult = { report: ReportModel } | { error: string };

/** Client → server: the report of a workload's latest run (and its comparison with the previous one). */
export namespace ReportRequest {
    export const method = 'tenancy/report';
}

export interface ReportSlo {
    percentile: string;
    targetMs: number;
    measuredMs: number | undefined;
    predictedMs: number | undefined;
    met: boolean | undefined;
}

export interface ReportTenant {
    name: string;
    requests: number;
    /** Latencies of the co-run, in ms, sorted ascending (sampled to at most a few thousand). */
    corunLatenciesMs: number[];
    /** Latencies of the solo run, in ms, sorted ascending (empty if not measured). */
    soloLatenciesMs: number[];
    p50Ms: number | undefined;
    p99Ms: number | undefined;
    /** Co-run over solo latency at the tenant's first SLO percentile (or p50). */
    slowdown: number | undefined;
    throughputPerSecond: number | undefined;
    slos: ReportSlo[];
}

export interface ReportOp {
    tenant: string;
    /** Stable op path (`vision/tiny_resnet/block.2/conv1`). */
    path: string;
    kind: string;
    soloMs: number | undefined;
    corunMs: number | undefined;
    slowdown: number | undefined;
    predictedMs: number | undefined;
}

/** One kernel interval of the timeline (ms since the start of the measured window). */
export interface ReportInterval {
    tenant: string;
    startMs: number;
    endMs: number;
    label: string;
}

export interface ReportComparisonRow {
    tenant: string;
    metric: string;
    previousMs: number | undefined;
    currentMs: number | undefined;
}

export interface ReportModel {
    workload: string;
    /** Source file name for the title. */
    file: string;
    /** ISO time the run finished. */
    finishedAt: string;
    adapter: string;
    policy: string;
    /** Run status: complete, partial (a phase hit its time limit), cancelled or failed. */
    status: 'complete' | 'partial' | 'cancelled' | 'failed';
    /** Why the run is not complete, as the runtime wrote it. */
    reason: string | undefined;
    durationMs: number | undefined;
    tenants: ReportTenant[];
    ops: ReportOp[];
    timeline: ReportInterval[];
    /** The previous run from the history folder, if any. */
    comparison: { previousFinishedAt: string; rows: ReportComparisonRow[] } | undefined;
    /** Results file this report was built from (absolute path). */
    resultsPath: string;
}

/** Messages from the extension to the webview. */
export type ReportViewMessage =
    | { type: 'report'; report: ReportModel }
    | { type: 'error'; message: string };

/** Messages from the webview to the extension. */
export type ReportViewReply =
    | { type: 'ready' }
    | { type: 'rendered'; charts: string[] }
    | { type: 'openResults'; path: string };

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Type guard for a {@link ReportModel} (the fields the webview relies on). */
export function isReportModel(value: unknown): value is ReportModel {
    return isRecord(value) && typeof value.workload === 'string' && typeof value.adapter === 'string'
        && Array.isArray(value.tenants) && Array.isArray(value.ops) && Array.isArray(value.timeline)
        && value.tenants.every(t => isRecord(t) && typeof t.name === 'string' && Array.isArray(t.corunLatenciesMs) && Array.isArray(t.slos));
}

/** Type guard for a {@link ReportResult}. */
export function isReportResult(value: unknown): value is ReportResult {
    return isRecord(value) && (typeof value.error === 'string' || isReportModel(value.report));
}

/** Type guard for messages the webview sends. */
export function isReportViewReply(value: unknown): value is ReportViewReply {
    if (!isRecord(value)) return false;
    return value.type === 'ready'
        || (value.type === 'rendered' && Array.isArray(value.charts))
        || (value.type === 'openResults' && typeof value.path === 'string');
}
