/**
 * Builds the sweep report's model (src/protocol/sweep-report.ts) from the document `tenancy
 * merge` writes: the extension and the webview never read the runtime's schema themselves. The
 * load axis is read off the merged comparisons (one per workload, device and load), so every
 * figure it draws is the one the comparison pages and `tenancy merge`'s tables show.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SweepLoadAxis, SweepReportModel, SweepReportResult } from '../../protocol/sweep-report.js';
import { isSweepReportParams, SweepReportRequest } from '../../protocol/sweep-report.js';
import type { ComparedTenant, Comparison } from '../../runtime/report/compare.js';
import { describeCell, sweepPaths } from '../../runtime/sweep/manifest.js';
import { sweepMergeSchema, type SweepMerge } from '../../runtime/sweep/merge.js';
import { buildComparisonReportModel } from './comparison-report-model.js';
import { fileName } from './report-model.js';

function bounded(t: ComparedTenant | undefined, statistic: 'p50' | 'p99') {
    if (!t?.latencyMs) return undefined;
    const b = t.boundsMs?.[statistic];
    return { ms: t.latencyMs[statistic], low: b?.low ?? null, high: b?.high ?? null };
}

/** Per workload and device (in the document's order), each tenant's figures under every schedule at every load swept. */
function loadAxes(merge: SweepMerge): SweepLoadAxis[] {
    const axes: SweepLoadAxis[] = [];
    const groups = new Map<string, Comparison[]>();
    for (const c of merge.comparisons) {
        const key = JSON.stringify([c.workload, c.device ?? '']);
        groups.set(key, [...(groups.get(key) ?? []), c]);
    }
    for (const comparisons of groups.values()) {
        const first = comparisons[0];
        const device = first.device ?? 'unknown adapter';
        const loads = comparisons.map(c => c.load ?? 1);
        // Every schedule measured at some load, in the order they first appear (the baseline first).
        const schedules = comparisons.flatMap(c => c.schedules).filter((s, i, all) => all.findIndex(x => x.name === s.name) === i);
        const tenants = first.schedules[0]?.tenants.map(t => t.name) ?? [];
        axes.push({
            workload: first.workload, device, loads,
            tenants: tenants.map(name => ({
                name,
                slos: (comparisons.flatMap(c => c.schedules).flatMap(s => s.tenants).find(t => t.name === name)?.slos ?? []).map(s => ({ percentile: s.percentile, targetMs: s.targetMs })),
                series: schedules.map(s => ({
                    schedule: s.name,
                    baseline: s.baseline,
                    points: comparisons.map(c => {
                        const at = c.schedules.find(x => x.name === s.name);
                        const t = at?.tenants.find(x => x.name === name);
                        return { load: c.load ?? 1, p50: bounded(t, 'p50'), p99: bounded(t, 'p99'), predictedP99Ms: at?.predicted.tenants.find(p => p.name === name)?.p99Ms };
                    }),
                })),
            })),
            qos: merge.qos.filter(q => q.workload === first.workload && q.device === device).map(q => ({
                schedule: q.schedule, load: q.load, failedLoad: q.failedLoad, throughputPerSecond: q.throughputPerSecond, predictedLoad: q.predictedLoad,
                probes: q.probes.map(p => ({ load: p.load, verdict: p.verdict })),
            })),
        });
    }
    return axes;
}

/** The report of a merged sweep read from `resultsPath`. */
export function buildSweepReportModel(merge: SweepMerge, resultsPath: string): SweepReportModel {
    return {
        sweep: merge.sweep,
        file: fileName(merge.source),
        cells: merge.cells,
        notMerged: merge.notMerged.map(n => `${describeCell({ index: n.cell, ...n })}: ${n.status} — ${n.reason}`),
        axes: loadAxes(merge),
        comparisons: merge.comparisons.map(c => ({ ...buildComparisonReportModel(c, resultsPath), load: c.load ?? 1, device: c.device ?? 'unknown adapter' })),
        repeats: merge.repeats,
        resultsPath,
    };
}

/** The answer to a {@link SweepReportRequest}: the merged document of a sweep folder, or the merged file named. */
export function sweepReportFor(params: unknown): SweepReportResult {
    if (!isSweepReportParams(params)) return { error: `${SweepReportRequest.method} expected { path }, found ${JSON.stringify(params)}` };
    let file = path.resolve(params.path);
    if (!existsSync(file)) return { error: `${file} does not exist; choose a sweep folder (tenancy sweep) or the file tenancy merge wrote` };
    if (statSync(file).isDirectory()) {
        const paths = sweepPaths(file);
        if (!existsSync(paths.manifest)) return { error: `${file} is not a sweep folder: it has no sweep.json (make one with tenancy sweep <file>)` };
        if (!existsSync(paths.merged)) return { error: `The sweep ${file} is not merged yet: run tenancy merge ${file}, then open it again.` };
        file = paths.merged;
    }
    let value: unknown;
    try {
        value = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
        return { error: `Cannot read ${file}: ${(error as Error).message}` };
    }
    const kind = (value as { kind?: unknown } | null)?.kind;
    if (kind !== 'sweep-merge') return { error: `${file} is not a merged sweep (its kind is ${JSON.stringify(kind)}; tenancy merge writes kind "sweep-merge")` };
    const parsed = sweepMergeSchema.safeParse(value);
    if (!parsed.success) {
        const first = parsed.error.issues.slice(0, 3).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`);
        return { error: `${file} is not a merged sweep this Tenancy reads (${first.join('; ')}); merge the sweep again with this version's tenancy merge` };
    }
    return { sweep: buildSweepReportModel(parsed.data, file) };
}
