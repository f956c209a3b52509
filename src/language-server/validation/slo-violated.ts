/**
 * `slo-violated`: a tenant whose latest run measured an SLO statistic beyond its target, even at
 * the statistic's 95 % lower bound. The results come from the ResultsWatch (lsp/results-watch.ts),
 * which rebuilds the documents a new results file concerns, so this check runs again then.
 */
import { AstUtils, type ValidationChecks } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import { isSloProp, isWorkload, type TenancyAstType } from '../generated/ast.js';
import { formatBoundedMs } from '../../protocol/figures.js';
import { formatMs } from '../../protocol/units.js';
import type { ResultsWatch } from '../lsp/results-watch.js';
import { IssueCodes } from './issue-codes.js';

/** Registers the `slo-violated` check on tenants. */
export function registerSloViolated(services: LangiumServices & { results: { ResultsWatch: ResultsWatch } }): void {
    const watch = services.results.ResultsWatch;
    const checks: ValidationChecks<TenancyAstType> = {
        Tenant: (tenant, accept) => {
            const workload = tenant.$container;
            if (!isWorkload(workload)) return;
            const document = AstUtils.getDocument(tenant);
            const latest = watch.latest(document.uri.toString(), workload.name);
            if (latest?.kind !== 'ok') return;
            const measured = latest.results.tenants.find(t => t.name === tenant.name);
            if (!measured) return;
            const when = new Date(latest.results.finishedAt).toLocaleString();
            for (const slo of measured.slos) {
                if (slo.verdict !== 'violated' || slo.measuredMs === null) continue;
                const prop = tenant.props.find(p => isSloProp(p) && p.percentile === slo.percentile);
                const requests = measured.corun?.requests ?? measured.solo?.requests;
                accept('warning',
                    `Measured ${slo.percentile} ${formatBoundedMs(slo.measuredMs, slo.boundsMs?.low ?? null, slo.boundsMs?.high ?? null)} exceeds the SLO of ${formatMs(slo.targetMs)} in the latest run: even its 95 % lower bound does (${when}${requests !== undefined ? `, ${requests} requests` : ''}${latest.results.status !== 'complete' ? `, ${latest.results.status}` : ''}).`,
                    { node: prop ?? tenant, property: prop ? undefined : 'name', code: IssueCodes.SloViolated, data: { code: IssueCodes.SloViolated } });
            }
        },
    };
    services.validation.ValidationRegistry.register(checks);
}
