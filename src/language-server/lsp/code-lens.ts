/**
 * Code lenses: on a workload "▶ Run benchmark", "▶ Compare schedules" (two tenants or more), and
 * "⟳ Calibrate device" while the device has no profile; after a run, its report; after a
 * comparison, its measured best (comparisonSummary), which opens the comparison's report; on a
 * tenant "▶ Run solo" and, after a run, the measured summary (`p99 31.2 ms ✗ (SLO 25 ms) · 1.8× slower than solo · 212 req`). Payloads
 * are the typed refs of src/protocol/commands.ts, asserted by the extension's guards.
 */
import type { LangiumDocument } from 'langium';
import type { CodeLensProvider } from 'langium/lsp';
import type { CodeLens, CodeLensParams, Range } from 'vscode-languageserver';
import { CommandIds, type CompareRef, type DocumentRef, type TenantRef, type WorkloadRef } from '../../protocol/commands.js';
import type { Results, TenantResult } from '../../runtime/report/schema.js';
import { formatBoundedMs, formatNeeds, formatSlowdown, sloMark } from '../../protocol/figures.js';
import { formatMs } from '../../protocol/units.js';
import type { Tenant, Workload } from '../generated/ast.js';
import { comparisonSummary } from './measured-comparison.js';
import { tenantsOf, workloadsOf, type ResultsWatch } from './results-watch.js';

/**
 * The measured one-line summary of a tenant in a run, every figure with its uncertainty:
 * `p99 31.2 ms (28–35) ✗ SLO 25 ms · 1.8× slower (1.5–2.2) · 212 req`, or what a percentile still
 * needs (`p99 n/a: needs 299 requests (has 44)`), marked when the figures are not valid.
 */
export function tenantSummary(tenant: TenantResult, status: Results['status']): string {
    const main = tenant.corun ?? tenant.solo;
    const parts: string[] = [];
    const slo = tenant.slos[0];
    if (slo) {
        if (slo.verdict === 'invalid' || slo.measuredMs === null) {
            parts.push(`${slo.percentile} ${formatNeeds(slo.requestsNeeded ?? 0, main?.requests ?? 0)} (SLO ${formatMs(slo.targetMs)})`);
        } else {
            parts.push(`${slo.percentile} ${formatBoundedMs(slo.measuredMs, slo.boundsMs?.low ?? null, slo.boundsMs?.high ?? null)} ${sloMark(slo.verdict)} SLO ${formatMs(slo.targetMs)}`);
        }
    } else if (main) {
        const b = main.boundsMs.p99;
        parts.push(b && b.high !== null ? `p99 ${formatBoundedMs(main.latencyMs.p99, b.low, b.high)}` : `p50 ${formatBoundedMs(main.latencyMs.p50, main.boundsMs.p50?.low ?? null, main.boundsMs.p50?.high ?? null)}`);
    } else {
        parts.push('no measured requests');
    }
    const slowdown = tenant.slowdown.p99 ?? tenant.slowdown.p50;
    if (tenant.corun && slowdown) {
        parts.push(`${formatSlowdown(slowdown)} vs solo`);
    } else if (!tenant.corun && tenant.solo) {
        parts.push('solo');
    }
    if (main) parts.push(`${main.requests} req`);
    const prefix = status === 'complete' ? '' : `(${status}) `;
    return prefix + parts.join(' · ') + (tenant.valid ? '' : ' · not valid');
}

function lineRange(node: { $cstNode?: { range: Range } }): Range | undefined {
    const start = node.$cstNode?.range.start;
    return start ? { start, end: start } : undefined;
}

export class TenancyCodeLensProvider implements CodeLensProvider {
    constructor(private readonly watch: () => ResultsWatch) {}

    provideCodeLens(document: LangiumDocument, _params: CodeLensParams): CodeLens[] {
        const uri = document.uri.toString();
        const lenses: CodeLens[] = [];
        const watch = this.watch();
        const calibrated = watch.deviceProfile(uri).exists;
        for (const workload of workloadsOf(document)) {
            const range = lineRange(workload);
            if (!range || !workload.name) continue;
            const ref: WorkloadRef = { uri, workload: workload.name };
            lenses.push({ range, command: { title: '▶ Run benchmark', command: CommandIds.runWorkload, arguments: [ref] } });
            // Schedules differ only when tenants share the GPU (tenancy compare refuses one tenant).
            if (tenantsOf(workload).length >= 2) lenses.push(...this.compareLenses(uri, workload.name, range));
            if (!calibrated) {
                const docRef: DocumentRef = { uri };
                lenses.push({ range, command: { title: '⟳ Calibrate device', command: CommandIds.calibrateDevice, arguments: [docRef] } });
            }
            const latest = watch.latest(uri, workload.name);
            if (latest?.kind === 'ok') {
                const when = new Date(latest.results.finishedAt).toLocaleTimeString();
                lenses.push({ range, command: { title: `$(graph) Report (run at ${when}, ${latest.results.status})`, command: CommandIds.showReport, arguments: [ref] } });
            } else if (latest?.kind === 'invalid') {
                lenses.push({ range, command: { title: '⚠ Results unreadable — show report for details', command: CommandIds.showReport, arguments: [ref] } });
            }
            lenses.push(...this.tenantLenses(uri, workload, latest?.kind === 'ok' ? latest.results : undefined));
        }
        return lenses;
    }

    private compareLenses(uri: string, workload: string, range: Range): CodeLens[] {
        const ref: CompareRef = { uri, workload };
        const lenses: CodeLens[] = [{ range, command: { title: '▶ Compare schedules', command: CommandIds.compareSchedules, arguments: [ref] } }];
        const latest = this.watch().latestComparison(uri, workload);
        const reportRef: WorkloadRef = { uri, workload };
        if (latest?.kind === 'ok') {
            lenses.push({ range, command: { title: `$(graph) ${comparisonSummary(latest.comparison)}`, command: CommandIds.showComparison, arguments: [reportRef] } });
        } else if (latest?.kind === 'invalid') {
            lenses.push({ range, command: { title: '⚠ Comparison unreadable — show it for details', command: CommandIds.showComparison, arguments: [reportRef] } });
        }
        return lenses;
    }

    private tenantLenses(uri: string, workload: Workload, results: Results | undefined): CodeLens[] {
        const lenses: CodeLens[] = [];
        for (const tenant of tenantsOf(workload)) {
            const range = lineRange(tenant);
            if (!range || !tenant.name) continue;
            const ref: TenantRef = { uri, workload: workload.name, tenant: tenant.name };
            lenses.push({ range, command: { title: '▶ Run solo', command: CommandIds.runTenantSolo, arguments: [ref] } });
            const measured = results?.tenants.find(t => t.name === (tenant as Tenant).name);
            if (measured && results) {
                const workloadRef: WorkloadRef = { uri, workload: workload.name };
                lenses.push({ range, command: { title: tenantSummary(measured, results.status), command: CommandIds.showReport, arguments: [workloadRef] } });
            }
        }
        return lenses;
    }
}
