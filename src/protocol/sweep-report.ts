/**
 * A merged sweep (`tenancy merge`'s document) as the report webview draws it: per workload and
 * device, each tenant's co-run latency against the load under every schedule and the
 * QoS-satisfied throughput; per load, the comparison of schedules in the comparison page's
 * model; the repeats one by one; the cells left out. The language server builds it from the
 * merged file (it may read the runtime's schema; the extension and the webview may not), the
 * extension passes it to the webview unchanged. No dependencies but the protocol's own.
 */
import type { BoundedMs, ComparisonReportModel } from './comparison-report.js';

/** Client → server: the report of a merged sweep; the server answers a {@link SweepReportResult}. */
export namespace SweepReportRequest {
    export const method = 'tenancy/sweepReport';
    export type Params = SweepReportParams;
    export type Result = SweepReportResult;
}

export interface SweepReportParams {
    /** A sweep folder (its `merged.json` is read), or a file `tenancy merge` wrote (absolute path). */
    path: string;
}

export type SweepReportResult = { sweep: SweepReportModel } | { error: string };

/** One schedule's figures for one tenant at one load (undefined: not measured there). */
export interface SweepLoadPoint {
    load: number;
    p50: BoundedMs | undefined;
    p99: BoundedMs | undefined;
    predictedP99Ms: number | undefined;
}

export interface SweepLoadSeries {
    /** The schedule as it ran. */
    schedule: string;
    baseline: boolean;
    /** One per load of the axis, in its order. */
    points: SweepLoadPoint[];
}

export interface SweepLoadTenant {
    name: string;
    slos: { percentile: string; targetMs: number }[];
    series: SweepLoadSeries[];
}

/** A schedule's QoS-satisfied throughput: the highest load swept at which every SLO held. */
export interface SweepQos {
    schedule: string;
    /** 0: no load met every SLO. */
    load: number;
    failedLoad: number | null;
    throughputPerSecond: number;
    predictedLoad: number;
    probes: { load: number; verdict: 'met' | 'violated' | 'inconclusive' }[];
}

/** One workload on one device across the sweep's loads. */
export interface SweepLoadAxis {
    workload: string;
    device: string;
    loads: number[];
    tenants: SweepLoadTenant[];
    qos: SweepQos[];
}

/** One schedule's tenant at one load and device, repeat by repeat (null: no figures in that repeat). */
export interface SweepRepeats {
    workload: string;
    device: string;
    load: number;
    schedule: string;
    tenant: string;
    p50Ms: (number | null)[];
    p99Ms: (number | null)[];
    /** Highest repeat / lowest (null: fewer than two repeats have figures). */
    p50Spread: number | null;
    p99Spread: number | null;
}

export interface SweepReportModel {
    /** The sweep's id (its folder's name when it was made). */
    sweep: string;
    /** The .tenancy (or IR) file the sweep was made from, by name. */
    file: string;
    cells: { total: number; merged: number };
    /** Every cell left out, with why: `cell 3 (mix, sequential, 1.5× load, repeat 1): failed — …`. */
    notMerged: string[];
    axes: SweepLoadAxis[];
    /** Per workload, device and load, in the merged document's order; each with its `load` and `device`. */
    comparisons: ComparisonReportModel[];
    repeats: SweepRepeats[];
    /** The merged file this report was built from (absolute path). */
    resultsPath: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Type guard for {@link SweepReportParams}. */
export function isSweepReportParams(value: unknown): value is SweepReportParams {
    return isRecord(value) && typeof value.path === 'string' && value.path.length > 0;
}

/** Type guard for a {@link SweepReportModel} (the fields the webview relies on). */
export function isSweepReportModel(value: unknown): value is SweepReportModel {
    return isRecord(value) && typeof value.sweep === 'string' && isRecord(value.cells)
        && Array.isArray(value.notMerged) && Array.isArray(value.comparisons) && Array.isArray(value.repeats)
        && Array.isArray(value.axes) && value.axes.every(a => isRecord(a) && Array.isArray(a.loads) && Array.isArray(a.tenants) && Array.isArray(a.qos));
}

/** Type guard for a {@link SweepReportResult}. */
export function isSweepReportResult(value: unknown): value is SweepReportResult {
    return isRecord(value) && (typeof value.error === 'string' || isSweepReportModel(value.sweep));
}
