/**
 * Builds the report webview's model (src/protocol/report.ts) from a results file and the
 * previous run: the extension and the webview never read the runtime's schema themselves.
 */
import type { ReportComparisonRow, ReportModel, ReportSlo, ReportTenant } from '../../protocol/report.js';
import type { Results, TenantResult } from '../../runtime/report/schema.js';
import { describeAttribution } from '../../runtime/report/attribution.js';
import { adapterName, finite, recordedTenantPrediction } from './results-format.js';

/** Most timeline intervals sent to the webview (the Gantt chart stays responsive). */
const maxIntervals = 4000;

/** The file name of a document URI, decoded (`vision and nlp.tenancy`), for a report's title. */
export function fileName(uri: string): string {
    const last = uri.split(/[\\/]/).at(-1) ?? uri;
    try {
        return decodeURIComponent(last);
    } catch {
        return last;
    }
}

/** The run's recorded prediction of a tenant's SLO statistic with its 90 % band (none in results recorded before the band; null: no such end). */
function predictedSlo(results: Results, tenant: string, percentile: string): Pick<ReportSlo, 'predictedMs' | 'predictedLowMs' | 'predictedHighMs'> {
    const recorded = recordedTenantPrediction(results, tenant);
    const slo = recorded?.slos.find(s => s.percentile === percentile);
    const band = slo?.corunBandMs;
    return {
        predictedMs: finite(slo?.corunMs) ?? finite(recorded?.corun[percentile]),
        predictedLowMs: finite(band?.low) ?? null,
        predictedHighMs: finite(band?.high) ?? null,
    };
}

function tenantModel(results: Results, t: TenantResult): ReportTenant {
    const main = t.corun ?? t.solo;
    const slos: ReportSlo[] = t.slos.map(s => ({
        percentile: s.percentile,
        targetMs: s.targetMs,
        measuredMs: s.measuredMs ?? undefined,
        lowMs: s.boundsMs?.low ?? null,
        highMs: s.boundsMs?.high ?? null,
        ...predictedSlo(results, t.name, s.percentile),
        verdict: s.verdict,
        requestsNeeded: s.requestsNeeded ?? undefined,
    }));
    const slowdownOf = t.slowdown.p99 ? 'p99' : t.slowdown.p50 ? 'p50' : undefined;
    return {
        name: t.name,
        requests: main?.requests ?? 0,
        corunLatenciesMs: t.corun?.latencySampleMs ?? [],
        soloLatenciesMs: t.solo?.latencySampleMs ?? [],
        p50Ms: main?.latencyMs.p50,
        p99Ms: main?.latencyMs.p99,
        slowdown: slowdownOf ? t.slowdown[slowdownOf] ?? undefined : undefined,
        slowdownOf,
        noise: t.noise ?? undefined,
        throughputPerSecond: main?.throughputPerSecond,
        slos,
        breakdown: { solo: t.solo?.breakdown ?? undefined, corun: t.corun?.breakdown ?? undefined },
        valid: t.valid,
        invalidReasons: t.invalidReasons,
    };
}

function comparison(current: Results, previous: Results | undefined): ReportModel['comparison'] {
    if (!previous) return undefined;
    const rows: ReportComparisonRow[] = [];
    for (const t of current.tenants) {
        const before = previous.tenants.find(p => p.name === t.name);
        const metrics = new Set(['p50', 'p99', ...t.slos.map(s => s.percentile)]);
        for (const metric of metrics) {
            const key = metric as keyof NonNullable<TenantResult['corun']>['latencyMs'];
            const now = (t.corun ?? t.solo)?.latencyMs[key];
            const then = (before?.corun ?? before?.solo)?.latencyMs[key];
            rows.push({ tenant: t.name, metric, previousMs: typeof then === 'number' ? then : undefined, currentMs: typeof now === 'number' ? now : undefined });
        }
    }
    return { previousFinishedAt: previous.finishedAt, rows };
}

/** The report of one run, compared with `previous` when there is one. */
export function buildReportModel(results: Results, previous: Results | undefined, resultsPath: string): ReportModel {
    return {
        workload: results.workload,
        file: fileName(results.sourceUri),
        finishedAt: results.finishedAt,
        adapter: adapterName(results.adapter) ?? 'unknown adapter',
        policy: results.config.policy,
        status: results.status,
        reason: results.reason,
        durationMs: results.config.durationMs,
        tenants: results.tenants.map(t => tenantModel(results, t)),
        ops: results.tenants.flatMap(t => {
            const predicted = recordedTenantPrediction(results, t.name)?.ops;
            return t.ops.map(o => ({
                tenant: t.name, path: o.path, kind: o.kind,
                soloMs: o.soloMs ?? undefined, corunMs: o.corunMs ?? undefined, slowdown: o.slowdown ?? undefined,
                predictedMs: finite(predicted?.get(o.path)?.corunMs),
                predictedBand: finite(predicted?.get(o.path)?.corunBand?.relative),
                attribution: describeAttribution(o.attribution, o.soloP50Ms),
            }));
        }),
        interference: results.tenants.flatMap(t => t.interference.map(i => ({ victim: t.name, aggressor: i.aggressor, overlappedFraction: i.overlappedFraction, slowdown: i.slowdown ?? undefined }))),
        measurementNote: results.measurement.note,
        hostWarning: results.host.warning,
        valid: results.valid,
        invalidReasons: results.invalidReasons,
        timeline: (results.timeline?.intervals ?? []).slice(0, maxIntervals).map(i => ({ tenant: i.tenant, startMs: i.startMs, endMs: i.endMs, label: i.op })),
        comparison: comparison(results, previous),
        resultsPath,
    };
}
