/**
 * Builds the comparison report's model (src/protocol/comparison-report.ts) from a comparison
 * file: the extension and the webview never read the runtime's schema themselves.
 */
import type {
    BoundedMs, ComparisonReportModel, ComparisonSchedule, ComparisonTenant,
} from '../../protocol/comparison-report.js';
import type { ComparedSchedule, ComparedTenant, Comparison } from '../../runtime/report/compare.js';
import { fileName } from './report-model.js';
import { adapterName } from './results-format.js';

function bounded(t: ComparedTenant, statistic: 'p50' | 'p99'): BoundedMs | undefined {
    if (!t.latencyMs) return undefined;
    const b = t.boundsMs?.[statistic];
    return { ms: t.latencyMs[statistic], low: b?.low ?? null, high: b?.high ?? null };
}

function tenantModel(t: ComparedTenant, predicted: ComparedSchedule['predicted']['tenants'][number] | undefined): ComparisonTenant {
    const slowdownOf = t.slowdown.p99 ? 'p99' : t.slowdown.p50 ? 'p50' : undefined;
    return {
        name: t.name,
        requests: t.requests,
        throughputPerSecond: t.throughputPerSecond,
        p50: bounded(t, 'p50'),
        p99: bounded(t, 'p99'),
        slos: t.slos.map(s => ({
            percentile: s.percentile, targetMs: s.targetMs, measuredMs: s.measuredMs,
            lowMs: s.boundsMs?.low ?? null, highMs: s.boundsMs?.high ?? null,
            verdict: s.verdict, requestsNeeded: s.requestsNeeded,
        })),
        slowdown: slowdownOf ? t.slowdown[slowdownOf] ?? undefined : undefined,
        slowdownOf,
        gain: t.gain ?? undefined,
        gainStatistic: t.gainStatistic,
        predictedP50Ms: predicted?.p50Ms,
        predictedP99Ms: predicted?.p99Ms,
    };
}

function scheduleModel(s: ComparedSchedule): ComparisonSchedule {
    return {
        name: s.name,
        asked: s.asked,
        why: s.why,
        baseline: s.baseline,
        valid: s.valid,
        invalidReasons: s.invalidReasons,
        predictedSloMet: s.predicted.sloMet,
        predictedQosThroughput: s.predicted.qosThroughput,
        tenants: s.tenants.map(t => tenantModel(t, s.predicted.tenants.find(p => p.name === t.name))),
        headline: s.gain ? {
            metric: s.gain.metric, tenant: s.gain.tenant, statistic: s.gain.statistic,
            measured: s.gain.measured ?? undefined, predicted: s.gain.predicted ?? undefined,
        } : undefined,
        capacity: s.capacity ? {
            load: s.capacity.load, failedLoad: s.capacity.failedLoad, throughputPerSecond: s.capacity.throughputPerSecond,
            predictedLoad: s.capacity.predictedLoad, probes: s.capacity.probes.length, budgetReached: s.capacity.budgetReached,
        } : undefined,
    };
}

/** The report of a comparison of schedules read from `resultsPath`. */
export function buildComparisonReportModel(comparison: Comparison, resultsPath: string): ComparisonReportModel {
    return {
        workload: comparison.workload,
        file: fileName(comparison.sourceUri),
        finishedAt: comparison.finishedAt,
        adapter: adapterName(comparison.adapter) ?? 'unknown adapter',
        status: comparison.status,
        reason: comparison.reason,
        baseline: comparison.baseline,
        best: comparison.best ?? undefined,
        bestWhy: comparison.bestWhy,
        schedules: comparison.schedules.map(scheduleModel),
        rounds: comparison.measurement.rounds,
        roundMs: comparison.measurement.roundMs,
        measurementNote: comparison.measurement.note,
        hostWarning: comparison.host.warning,
        valid: comparison.valid,
        invalidReasons: comparison.invalidReasons,
        resultsPath,
    };
}
