/**
 * The report of one run as the webview draws it. The language server builds it from results
 * files (it may read the runtime's results schema; the extension and the webview may not), the
 * extension passes it to the webview unchanged. No dependencies but the protocol's own.
 */
import type { ComparisonReportModel } from './comparison-report.js';
import type { SweepReportModel } from './sweep-report.js';
import type { RatioVerdictWord } from './figures.js';

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
    export type Params = ReportParams;
    export type Result = ReportResult;
}

/** A co-run / solo ratio with its 95 % interval and what it says (figures.ts formatSlowdown writes it). */
export interface ReportRatio {
    estimate: number;
    low: number | null;
    high: number | null;
    verdict: RatioVerdictWord;
}

export interface ReportSlo {
    percentile: string;
    targetMs: number;
    measuredMs: number | undefined;
    /** The measured statistic's 95 % bounds (null ends: too few requests). */
    lowMs: number | null;
    highMs: number | null;
    predictedMs: number | undefined;
    /** The prediction's 90 % band (null: no such end, or the run recorded none). */
    predictedLowMs: number | null;
    predictedHighMs: number | null;
    verdict: 'met' | 'violated' | 'inconclusive' | 'invalid';
    /** Requests the percentile needs before it can be bounded (when it lacks them). */
    requestsNeeded: number | undefined;
}

/** Where a request's time went, mean ms: queueing, GPU time, host overhead. */
export interface ReportBreakdown {
    queueingMs: number;
    gpuMs: number;
    hostMs: number;
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
    /** Co-run over solo latency: p99 when the requests bound it, else p50. */
    slowdown: ReportRatio | undefined;
    /** Which statistic `slowdown` is. */
    slowdownOf: 'p99' | 'p50' | undefined;
    /** A/A: solo rounds against solo rounds (mean): what the host's noise alone gives. */
    noise: ReportRatio | undefined;
    throughputPerSecond: number | undefined;
    slos: ReportSlo[];
    breakdown: { solo: ReportBreakdown | undefined; corun: ReportBreakdown | undefined };
    /** False when an SLO verdict lacks requests (invalidReasons says which). */
    valid: boolean;
    invalidReasons: string[];
}

/** One cell of the interference heatmap: how much of the victim's co-run GPU time the aggressor overlapped, and the victim's slowdown then. */
export interface ReportInterference {
    victim: string;
    aggressor: string;
    overlappedFraction: number;
    slowdown: number | undefined;
}

export interface ReportOp {
    tenant: string;
    /** Stable op path (`vision/tiny_resnet/block.2/conv1`). */
    path: string;
    kind: string;
    soloMs: number | undefined;
    corunMs: number | undefined;
    /** Co-run / solo median time with its interval. */
    slowdown: ReportRatio | undefined;
    predictedMs: number | undefined;
    /** The predicted co-run time's 90 % band, relative (its op's corunBand; undefined where the run recorded none). */
    predictedBand: number | undefined;
    /** Who it overlapped in the co-run phase: `2.1× while nlp/attention ran (63 % of its time), 1.1× otherwise`. */
    attribution: string | undefined;
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
    /** The tenant × tenant interference heatmap (victim rows, aggressor columns). */
    interference: ReportInterference[];
    timeline: ReportInterval[];
    /** What the rounds did (extended, stopped by the budget), in words. */
    measurementNote: string | undefined;
    /** Set when the host was busy during the run. */
    hostWarning: string | undefined;
    /** False when some figure lacks the requests to be bounded. */
    valid: boolean;
    invalidReasons: string[];
    /** The previous run from the history folder, if any. */
    comparison: { previousFinishedAt: string; rows: ReportComparisonRow[] } | undefined;
    /** Results file this report was built from (absolute path). */
    resultsPath: string;
}

/** Messages from the extension to the webview: a run's report, a comparison of schedules, or why neither can be shown. */
export type ReportViewMessage =
    | { type: 'report'; report: ReportModel }
    | { type: 'comparison'; comparison: ComparisonReportModel }
    | { type: 'sweep'; sweep: SweepReportModel }
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
