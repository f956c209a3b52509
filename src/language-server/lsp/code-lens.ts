/**
 * Code lenses: on a workload "▶ Run benchmark" (and "⟳ Calibrate device" while the device has
 * no profile) and, after a run, its report; on a tenant "▶ Run solo" and, after a run, the
 * measured summary (`p99 31.2 ms ✗ (SLO 25 ms) · 1.8× slower than solo · 212 req`). Payloads
 * are the typed refs of src/protocol/commands.ts, asserted by the extension's guards.
 */
import type { LangiumDocument } from 'langium';
import type { CodeLensProvider } from 'langium/lsp';
import type { CodeLens, CodeLensParams, Range } from 'vscode-languageserver';
import { CommandIds, type DocumentRef, type TenantRef, type WorkloadRef } from '../../protocol/commands.js';
import type { Results, TenantResult } from '../../runtime/report/schema.js';
import type { Tenant, Workload } from '../generated/ast.js';
import { tenantsOf, workloadsOf, type ResultsWatch } from './results-watch.js';

function formatMs(value: number): string {
    if (Number.isInteger(value)) return String(value); // targets as written: `SLO 25 ms`
    return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

/** The measured one-line summary of a tenant in a run. */
export function tenantSummary(tenant: TenantResult, status: Results['status']): string {
    const main = tenant.corun ?? tenant.solo;
    const parts: string[] = [];
    const slo = tenant.slos[0];
    if (slo && slo.measuredMs !== null) {
        const mark = slo.met === true ? ' ✓' : slo.met === false ? ' ✗' : '';
        parts.push(`${slo.percentile} ${formatMs(slo.measuredMs)} ms${mark} (SLO ${formatMs(slo.targetMs)} ms)`);
    } else if (main) {
        parts.push(`p99 ${formatMs(main.latencyMs.p99)} ms`);
    } else {
        parts.push('no measured requests');
    }
    const slowdown = slo ? tenant.slowdown.p99 ?? tenant.slowdown.mean : tenant.slowdown.p99;
    if (tenant.corun && slowdown !== null && slowdown !== undefined) {
        parts.push(slowdown >= 1 ? `${slowdown.toFixed(1)}× slower than solo` : `${slowdown.toFixed(2)}× solo`);
    } else if (!tenant.corun && tenant.solo) {
        parts.push('solo');
    }
    if (main) parts.push(`${main.requests} req`);
    const prefix = status === 'complete' ? '' : `(${status}) `;
    return prefix + parts.join(' · ');
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
