/**
 * The comparison of schedules (`tenancy compare`'s file) as the report webview draws it. The
 * language server builds it from the `.compare.json` (it may read the runtime's schema; the
 * extension and the webview may not), the extension passes it to the webview unchanged. No
 * dependencies but the protocol's own.
 */
import type { GainVerdictWord } from './figures.js';
import type { ReportParams, ReportRatio } from './report.js';

/** Client → server: the latest comparison of a workload's schedules; the server answers a {@link ComparisonReportResult}. */
export namespace ComparisonReportRequest {
    export const method = 'tenancy/comparisonReport';
    export type Params = ComparisonReportParams;
    export type Result = ComparisonReportResult;
}

/** The parameters of {@link ComparisonReportRequest}: the same as a report's. */
export type ComparisonReportParams = ReportParams;

export type ComparisonReportResult = { comparison: ComparisonReportModel } | { error: string };

/** A schedule's gain over the baseline with its 95 % interval (above 1: better; figures.ts formatGain writes it). */
export interface ComparisonGain {
    estimate: number;
    low: number | null;
    high: number | null;
    verdict: GainVerdictWord;
}

/** A latency statistic with its one-sided 95 % bounds (a null end: too few requests to give one). */
export interface BoundedMs {
    ms: number;
    low: number | null;
    high: number | null;
}

export interface ComparisonSlo {
    percentile: string;
    targetMs: number;
    measuredMs: number | null;
    lowMs: number | null;
    highMs: number | null;
    verdict: 'met' | 'violated' | 'inconclusive' | 'invalid';
    /** Requests the percentile needs before it can be bounded (null once it has them). */
    requestsNeeded: number | null;
}

/** One tenant co-running under one schedule. */
export interface ComparisonTenant {
    name: string;
    /** Co-run requests measured over all rounds. */
    requests: number;
    throughputPerSecond: number;
    /** Undefined when the tenant completed no measured request under this schedule. */
    p50: BoundedMs | undefined;
    p99: BoundedMs | undefined;
    slos: ComparisonSlo[];
    /** Co-run / solo on p99 (else p50), with which statistic it is. */
    slowdown: ReportRatio | undefined;
    slowdownOf: 'p99' | 'p50' | undefined;
    /** Against the baseline on `gainStatistic` (undefined for the baseline itself). */
    gain: ComparisonGain | undefined;
    gainStatistic: string;
    /** What the simulation predicted for it under this schedule. */
    predictedP50Ms: number | undefined;
    predictedP99Ms: number | undefined;
}

/** The headline of a schedule against the baseline: the measured gain beside the predicted one. */
export interface ComparisonHeadline {
    metric: 'latency' | 'capacity';
    /** The tenant and statistic a latency headline is about. */
    tenant: string | undefined;
    statistic: string | undefined;
    measured: ComparisonGain | undefined;
    predicted: number | undefined;
}

export interface ComparisonCapacity {
    /** The highest load (× every tenant's traffic) at which every SLO held, and the lowest at which one did not (null: none failed). */
    load: number;
    failedLoad: number | null;
    throughputPerSecond: number;
    predictedLoad: number;
    probes: number;
    budgetReached: boolean;
}

export interface ComparisonSchedule {
    /** What ran, its `auto` arguments resolved. */
    name: string;
    /** As asked for (`layer_block(size: auto)`). */
    asked: string;
    /** Why those arguments (for `auto`). */
    why: string | undefined;
    baseline: boolean;
    valid: boolean;
    invalidReasons: string[];
    /** Whether the simulation predicted every SLO met, and its QoS-satisfied throughput. */
    predictedSloMet: boolean;
    predictedQosThroughput: number;
    tenants: ComparisonTenant[];
    /** Undefined for the baseline. */
    headline: ComparisonHeadline | undefined;
    capacity: ComparisonCapacity | undefined;
}

export interface ComparisonReportModel {
    workload: string;
    /** Source file name for the title. */
    file: string;
    finishedAt: string;
    adapter: string;
    status: 'complete' | 'partial' | 'cancelled' | 'failed';
    /** Why the comparison is not complete, as the runtime wrote it. */
    reason: string | undefined;
    /** The workload's schedule: the others' gains are against it. */
    baseline: string;
    /** The schedule that did best as measured (undefined: none beat the baseline beyond its interval), and why. */
    best: string | undefined;
    bestWhy: string;
    schedules: ComparisonSchedule[];
    /** Measured rounds and each phase's length (null in request-count mode). */
    rounds: number;
    roundMs: number | null;
    measurementNote: string | undefined;
    hostWarning: string | undefined;
    valid: boolean;
    invalidReasons: string[];
    /** The comparison file this report was built from (absolute path). */
    resultsPath: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Type guard for a {@link ComparisonReportModel} (the fields the webview relies on). */
export function isComparisonReportModel(value: unknown): value is ComparisonReportModel {
    return isRecord(value) && typeof value.workload === 'string' && typeof value.baseline === 'string'
        && typeof value.bestWhy === 'string' && Array.isArray(value.schedules)
        && value.schedules.every(s => isRecord(s) && typeof s.name === 'string' && Array.isArray(s.tenants)
            && s.tenants.every(t => isRecord(t) && typeof t.name === 'string' && Array.isArray(t.slos)));
}

/** Type guard for a {@link ComparisonReportResult}. */
export function isComparisonReportResult(value: unknown): value is ComparisonReportResult {
    return isRecord(value) && (typeof value.error === 'string' || isComparisonReportModel(value.comparison));
}
