/**
 * Measured per-op figures for a document, from the latest results of its workloads: per
 * source line and tenant, the op's co-run GPU time and its slowdown over solo. Ops map to
 * lines through the source ranges the IR gave them (an op line of a block model used by
 * `repeat` gathers every repetition; a shared model line gathers every tenant using it).
 */
import type { LangiumDocument } from 'langium';
import type { MeasuredFigure, MeasuredVerdict } from '../../protocol/messages.js';
import type { OpResult, Results } from '../../runtime/report/schema.js';
import { recordedTenantPrediction } from './results-format.js';
import { workloadsOf, type ResultsWatch } from './results-watch.js';

interface LineTotals {
    line: number;
    startCharacter: number;
    endCharacter: number;
    /** Per tenant (and workload): sums over the ops of this line. */
    tenants: Map<string, { workload: string; tenant: string; soloMs: number; corunMs: number; predictedMs: number | undefined; ops: OpResult[]; status: Results['status'] }>;
}

/** Slowdown at or above which a figure is drawn as a warning. */
export const slowSlowdown = 1.5;

function formatMs(value: number): string {
    return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** The figures of every op line of a document that has measured results. */
export function measuredFigures(watch: ResultsWatch, document: LangiumDocument): MeasuredFigure[] {
    const uri = document.uri.toString();
    const lines = new Map<number, LineTotals>();
    for (const workload of workloadsOf(document)) {
        const latest = watch.latest(uri, workload.name);
        if (latest?.kind !== 'ok') continue;
        const results = latest.results;
        for (const tenant of results.tenants) {
            const predicted = recordedTenantPrediction(results, tenant.name)?.ops;
            for (const op of tenant.ops) {
                if (!op.source || op.source.uri !== uri || op.corunMs === null && op.soloMs === null) continue;
                const line = op.source.start.line;
                let totals = lines.get(line);
                if (!totals) {
                    totals = { line, startCharacter: op.source.start.character, endCharacter: op.source.end.line === line ? op.source.end.character : op.source.start.character, tenants: new Map() };
                    lines.set(line, totals);
                }
                const key = `${results.workload}/${tenant.name}`;
                const sums = totals.tenants.get(key) ?? { workload: results.workload, tenant: tenant.name, soloMs: 0, corunMs: 0, predictedMs: undefined, ops: [], status: results.status };
                sums.soloMs += op.soloMs ?? 0;
                sums.corunMs += op.corunMs ?? 0;
                // The prediction recorded with the run (what the editor showed when it started).
                const p = predicted?.get(op.path)?.corunMs;
                if (typeof p === 'number' && Number.isFinite(p)) sums.predictedMs = (sums.predictedMs ?? 0) + p;
                sums.ops.push(op);
                totals.tenants.set(key, sums);
            }
        }
    }
    const figures: MeasuredFigure[] = [];
    for (const totals of [...lines.values()].sort((a, b) => a.line - b.line)) {
        const parts: string[] = [];
        const hover: string[] = ['| tenant | ops | solo | co-run | slowdown | predicted co-run |', '|---|---:|---:|---:|---:|---:|'];
        let verdict: MeasuredVerdict = 'ok';
        for (const sums of totals.tenants.values()) {
            const slowdown = sums.soloMs > 0 && sums.corunMs > 0 ? sums.corunMs / sums.soloMs : undefined;
            const shown = sums.corunMs > 0 ? `${formatMs(sums.corunMs)} ms co-run` : `${formatMs(sums.soloMs)} ms solo`;
            parts.push(`${sums.tenant}: ${shown}${slowdown !== undefined ? ` · ${slowdown.toFixed(2)}×` : ''}`);
            hover.push(`| ${sums.tenant} | ${sums.ops.length} | ${sums.soloMs > 0 ? `${formatMs(sums.soloMs)} ms` : '—'} | ${sums.corunMs > 0 ? `${formatMs(sums.corunMs)} ms` : '—'} | ${slowdown !== undefined ? `${slowdown.toFixed(2)}×` : '—'} | ${sums.predictedMs !== undefined ? `${formatMs(sums.predictedMs)} ms` : '—'} |`);
            if (slowdown !== undefined && slowdown >= slowSlowdown) verdict = 'slow';
            if (sums.status === 'cancelled' || sums.status === 'partial') verdict = 'cancelled';
        }
        const opPaths = [...totals.tenants.values()].flatMap(s => s.ops.map(o => o.path));
        const more = opPaths.length > 4 ? ` and ${opPaths.length - 4} more` : '';
        figures.push({
            range: { start: { line: totals.line, character: totals.startCharacter }, end: { line: totals.line, character: totals.endCharacter } },
            text: `⏱ ${parts.join('  |  ')}`,
            hover: [`**Measured vs predicted** (latest run, mean GPU time per request)`, '', ...hover, '', `ops: ${opPaths.slice(0, 4).map(p => `\`${p}\``).join(', ')}${more}`].join('\n'),
            verdict,
        });
    }
    return figures;
}
