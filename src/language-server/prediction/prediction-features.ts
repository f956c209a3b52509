/**
 * The editor's views of predictions: a hover section (op, tenant, workload), inlay hints
 * (`≈1.2 ms ±12%` per op line, predicted p50/p99 per tenant, and after a run the measured figures
 * with the error beside them — the editor's only inline view of measurements) and the three
 * prediction diagnostics (slo-infeasible, overloaded, slo-at-risk). All render from
 * PredictionService's cached per-workload prediction and format.ts's measuredFigure: no second logic.
 */
import { AstUtils, getDiagnosticRange, GrammarUtils, toDiagnosticSeverity, type LangiumDocument, type ValidationAcceptor, type ValidationChecks } from 'langium';
import type { InlayHintProvider, LangiumServices } from 'langium/lsp';
import { InlayHintKind, MarkupKind, type CancellationToken, type Diagnostic, type InlayHint, type InlayHintParams } from 'vscode-languageserver';
import {
    isArrivalProp, isSloProp, isTenant, isWorkload, type TenancyAstType, type Workload,
} from '../generated/ast.js';
import type { HoverSection, HoverTarget } from '../lsp/hover-provider.js';
import { IssueCodes } from '../validation/issue-codes.js';
import {
    formatBand, formatBandRange, formatUtilisation, measuredFigure, opBandTerms, sloRiskReason, measuredTenant, opHint, opHintTooltip, opHoverMarkdown, tenantHint,
    tenantHoverMarkdown, workloadHoverMarkdown, type OpInstanceFigures,
} from './format.js';
import type { PredictionService, WorkloadPredictionView } from './prediction-service.js';
import { formatMs, formatPercent } from '../../protocol/units.js';

type Services = LangiumServices & { prediction: { Predictions: PredictionService } };

/** The workload predictions whose ops can come from a document (not the whole workspace's). */
function viewsTouching(services: Services, document: LangiumDocument): WorkloadPredictionView[] {
    return services.prediction.Predictions.viewsTouching(document.uri.toString(), services.shared.workspace.LangiumDocuments.all);
}

/** The hover section of predictions (appended to the hover's list). */
export function predictionHoverSection(services: Services): HoverSection {
    const predictions = services.prediction.Predictions;
    return (target: HoverTarget, document: LangiumDocument): string | undefined => {
        if (target.kind === 'operator' && target.call?.$cstNode) {
            const range = target.call.$cstNode.range;
            const instances = predictions.opsAt(document.uri.toString(), range, viewsTouching(services, document));
            if (instances.length === 0) return undefined;
            // Instances from several workloads name their workload (one test, not one per pair: a repeated line has thousands).
            const severalWorkloads = instances.some(j => j.view !== instances[0].view);
            const rows = instances.map(i => ({
                tenant: severalWorkloads ? `${i.view.prediction.workload}/${i.tenant.name}` : i.tenant.name,
                op: i.op,
                measured: measuredTenant(i.view.measured, i.tenant.name),
            }));
            // A repeated block line has several instances per tenant: a row each (they may differ by position in the
            // chain) and the tenant's total, which is what the line's inlay hint shows.
            return opHoverMarkdown(rows, instances[0].view.prediction, severalWorkloads ? undefined : instances[0].view.measured);
        }
        if (target.kind === 'tenant') {
            const workload = target.tenant.$container;
            if (!isWorkload(workload)) return undefined;
            const view = predictions.forWorkload(workload);
            const t = view?.prediction.tenants.find(x => x.name === target.tenant.name);
            if (!view || !t) return undefined;
            // While the schedule's simulation is pending, the tenant as alone (its solo figures), and why.
            const p = view.prediction;
            return p.corunPending
                ? `${tenantHoverMarkdown(t, { ...p, tenants: [t] }, measuredTenant(view.measured, t.name), view.measured)}\n\n*Co-run figures: simulating the schedule (${p.policy}); solo until then.*`
                : tenantHoverMarkdown(t, p, measuredTenant(view.measured, t.name), view.measured);
        }
        if (target.kind === 'workload') {
            const view = predictions.forWorkload(target.workload);
            return view ? workloadHoverMarkdown(view.prediction) : undefined;
        }
        return undefined;
    };
}

/** Inlay hints: predicted (and measured) figures per op line and per tenant. Off with `tenancy.inlayHints.enabled: false`. */
export class PredictionInlayHintProvider implements InlayHintProvider {
    constructor(protected readonly services: Services) {}

    async getInlayHints(document: LangiumDocument, params: InlayHintParams, _cancel?: CancellationToken): Promise<InlayHint[] | undefined> {
        if (!(await this.enabled())) return undefined;
        const uri = document.uri.toString();
        const views = viewsTouching(this.services, document);
        const hints: InlayHint[] = [];
        const inRange = (line: number) => line >= params.range.start.line && line <= params.range.end.line;

        // Per op line, per tenant: its instances of the line's ops, matched to its measured ops by path. One tenant is
        // shown (the first with a measurement, else the first), the others counted; the hover has them all.
        interface TenantLine { view: WorkloadPredictionView; tenant: string; instances: OpInstanceFigures[] }
        const lines = new Map<number, Map<string, TenantLine>>();
        for (const view of views) {
            for (const t of view.prediction.tenants) {
                const measured = measuredTenant(view.measured, t.name);
                const key = `${view.prediction.workload}/${t.name}`;
                for (const op of t.ops) {
                    const s = op.source;
                    if (!s || s.uri !== uri || !inRange(s.start.line)) continue;
                    let tenants = lines.get(s.start.line);
                    if (!tenants) lines.set(s.start.line, tenants = new Map());
                    let entry = tenants.get(key);
                    if (!entry) tenants.set(key, entry = { view, tenant: t.name, instances: [] });
                    entry.instances.push({ op, measured });
                }
            }
        }
        const text = document.textDocument;
        for (const [line, tenants] of lines) {
            const lineText = text.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/(\r\n|\r|\n)$/, '');
            const figures = [...tenants.values()].map(entry => ({ entry, figure: measuredFigure(entry.instances, opBandTerms(entry.view.prediction, entry.tenant)) }));
            const { entry, figure } = figures.find(f => f.figure.solo || f.figure.corun) ?? figures[0];
            const p = entry.view.prediction;
            // A line of a repeated block (or a model op used twice) sums its instances: say how many.
            const repeats = figure.instances > 1 ? ` in ${figure.instances} instances` : '';
            const more = tenants.size > 1 ? ` (${entry.tenant}; ${tenants.size - 1} more tenant${tenants.size > 2 ? 's' : ''})` : '';
            hints.push({
                position: { line, character: lineText.length },
                label: ` ${opHint(figure, p.profile.uncalibrated, entry.view.measured?.status)}${repeats}${more}`,
                kind: InlayHintKind.Type,
                paddingLeft: true,
                tooltip: { kind: MarkupKind.Markdown, value: opHintTooltip(figure, p, entry.tenant, entry.instances.map(i => i.op), entry.view.measured) },
            });
        }

        // Per tenant of this document's workloads.
        for (const view of views) {
            if (AstUtils.getDocument(view.workload).uri.toString() !== uri) continue;
            const multi = view.prediction.tenants.length > 1;
            for (const member of view.workload.members) {
                if (!isTenant(member) || !member.$cstNode) continue;
                const nameNode = GrammarUtils.findNodeForProperty(member.$cstNode, 'name') ?? member.$cstNode;
                if (!inRange(nameNode.range.end.line)) continue;
                const t = view.prediction.tenants.find(x => x.name === member.name);
                if (!t) continue;
                hints.push({
                    position: nameNode.range.end,
                    // While the schedule's simulation is pending the figures are the solo ones, and say so.
                    label: ` ${tenantHint(t, measuredTenant(view.measured, t.name), view.prediction.profile.uncalibrated, multi && !view.prediction.corunPending)}`,
                    kind: InlayHintKind.Type,
                    paddingLeft: true,
                });
            }
        }
        return hints.sort((a, b) => a.position.line - b.position.line || a.position.character - b.position.character);
    }

    /** `tenancy.inlayHints.enabled` (default true) via workspace/configuration. */
    protected async enabled(): Promise<boolean> {
        try {
            // The provider answers after the client's `initialized`; a client that never sends it must not stall hints.
            const value = await Promise.race([
                this.services.shared.workspace.ConfigurationProvider.getConfiguration('tenancy', 'inlayHints'),
                new Promise(resolve => setTimeout(() => resolve(undefined), 1000).unref()),
            ]);
            return !(value && typeof value === 'object' && (value as { enabled?: unknown }).enabled === false);
        } catch {
            return true;
        }
    }
}

/** Validation of the prediction diagnostics on each workload (computed once per build, cached by the service). */
export function checkWorkloadPredictions(services: Services, workload: Workload, accept: ValidationAcceptor): void {
    const view = services.prediction.Predictions.forWorkload(workload);
    const skipped = services.prediction.Predictions.skippedReason(workload);
    if (skipped) {
        accept('info', `No predictions in the editor for this workload: ${skipped} (the prediction's cost grows with them).`,
            { node: workload, property: 'name', code: IssueCodes.TimeLimit, data: { code: IssueCodes.TimeLimit } });
    }
    if (!view) return;
    const p = view.prediction;
    const label = p.profile.uncalibrated ? ' (uncalibrated default profile: run `tenancy calibrate`)' : '';
    if (p.overloaded) {
        const open = p.tenants.filter(t => t.openLoop).map(t => `${t.name} ${t.throughputPerSecond.toFixed(1)}/s × ${formatMs(t.serviceMs)}`);
        accept('warning', `Predicted device utilisation ${formatUtilisation(p.deviceUtilisation, p.deviceUtilisationBand)}: the open-loop arrivals (${open.join(', ')}) need more than the device can serve${label}.`,
            { node: workload, property: 'name', code: IssueCodes.Overloaded, data: { code: IssueCodes.Overloaded } });
    }
    for (const member of workload.members) {
        if (!isTenant(member)) continue;
        const t = p.tenants.find(x => x.name === member.name);
        if (!t) continue;
        if (!p.overloaded && t.openLoop && t.corunUtilisation >= 1) {
            const arrival = member.props.find(isArrivalProp);
            accept('warning', `Predicted utilisation of tenant ${t.name}'s queue is ${formatPercent(t.corunUtilisation)} under ${p.policy} co-run (service ${formatMs(t.serviceMs)} slowed ×${t.slowdown.toFixed(2)}): requests arrive faster than they are served${label}.`,
                { node: arrival ?? member, property: arrival ? 'kind' : 'name', code: IssueCodes.Overloaded, data: { code: IssueCodes.Overloaded } });
        }
        for (const s of t.slos) {
            const prop = member.props.find(x => isSloProp(x) && x.percentile === s.percentile);
            const report = (code: string, message: string) => {
                if (prop) accept('warning', message, { node: prop, code, data: { code } });
                else accept('warning', message, { node: member, property: 'name', code, data: { code } });
            };
            const band = `${formatBand(t.band)}${t.band.calibrated ? '' : ', uncalibrated band'}`;
            if (s.verdict === 'infeasible') {
                report(IssueCodes.SloInfeasible, `Predicted solo ${s.percentile} latency ${formatMs(s.soloServiceMs)} already exceeds the SLO of ${formatMs(s.targetMs)}, even at its 90 % band's low end ${formatMs(s.soloServiceBandMs.low)} (${band})${label}.`);
            } else if (s.verdict === 'at-risk') {
                const multi = p.tenants.length > 1;
                report(IssueCodes.SloAtRisk, `SLO ${s.percentile} ≤ ${formatMs(s.targetMs)} at risk: ${sloRiskReason(s, multi)} — predicted ${multi ? `co-run (${p.policy})` : 'queued'} ${s.percentile} latency ${formatMs(s.corunMs)} (${formatBandRange(s.corunBandMs)} ms, ${band}), solo ${formatMs(s.soloMs)}${label}.`);
            }
        }
    }
}

/** The codes checkWorkloadPredictions raises from the co-run figures (and with them), which a new schedule simulation can change. */
export const PREDICTION_CODES: readonly string[] = [IssueCodes.SloInfeasible, IssueCodes.SloAtRisk, IssueCodes.Overloaded];

/**
 * The prediction diagnostics of a document's workloads, as its check raises them (the schedule job
 * re-publishes them once a workload's co-run simulation comes in, between builds).
 */
export function predictionDiagnostics(services: Services, document: LangiumDocument): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    const accept: ValidationAcceptor = (severity, message, info) => {
        if (!PREDICTION_CODES.includes(String(info.code))) return;
        diagnostics.push({
            message, range: getDiagnosticRange(info), severity: toDiagnosticSeverity(severity), code: info.code, data: info.data,
            source: services.LanguageMetaData.languageId,
        });
    };
    const root = document.parseResult.value as { elements?: unknown[] };
    for (const workload of (root.elements ?? []).filter(isWorkload)) checkWorkloadPredictions(services, workload, accept);
    return diagnostics;
}

/** Registers the validation checks of predictions. Call once when creating the services. */
export function registerPredictionFeatures(services: Services): void {
    const checks: ValidationChecks<TenancyAstType> = {
        Workload: (workload, accept) => checkWorkloadPredictions(services, workload, accept),
    };
    // Default ('fast') category on purpose: Langium 4.4 runs 'slow' checks on no build of the
    // language server (updates validate 'built-in' and 'fast' only), so there these diagnostics
    // would never reach the editor. They stay affordable because the service predicts each
    // workload once and keeps it across edits that do not touch it.
    services.validation.ValidationRegistry.register(checks);
}
