/**
 * The bounds that keep the language server's work proportional to the text, whatever the text
 * denotes, and the `too-large` issues that say where one is reached. The analysis itself never
 * unrolls a `repeat` or copies a block it has seen (evaluate.ts); what must be listed op by op —
 * the Workload IR the runtime executes, and the peak memory computed over it — is listed only for
 * instances within `maxUnrolledSteps`. Validation reports the issues below on the tenant or
 * workload line, and lowering refuses with the same messages, so nothing tries to lower first.
 */
import type { AstNode } from 'langium';
import type { Tenant, Workload } from '../generated/ast.js';
import { IssueCodes } from '../validation/issue-codes.js';
import type { AnalysisIssue, ModelAnalysis } from './types.js';
import type { WorkloadReading } from './workload.js';

/**
 * The most steps one tenant's model instance may unroll to, and a workload's tenants together,
 * for lowering: ops, block calls and LSTM time steps (the runtime runs one kernel per layer and
 * time step). The largest zoo model at its defaults has a few hundred.
 */
export const maxUnrolledSteps = 20_000;

/** How deep model calls may nest below a call (a model calling a model calling …): the analysis inlines them recursively. */
export const maxCallDepth = 64;

/** Sizes so large that only their magnitude matters are kept at this (no Infinity in a message). */
const saturation = 1e300;

/** a + b × c, saturated. */
export function addScaled(a: number, b: number, c = 1): number {
    return Math.min(saturation, a + b * c);
}

/** `1,000,000,000`, or `about 1.0 × 10^18` past what a number holds exactly (no locale data: validation formats these often). */
export function formatSize(n: number): string {
    if (n < 1e15) return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return `about ${n.toExponential(1).replace('e+', ' × 10^')}`;
}

/** How large a model instance is when unrolled (symbolic repeat counts count once). */
export interface UnrolledSize {
    /** Operator applications. */
    ops: number;
    /** Ops, block calls and LSTM time steps: what lowering lists and the runtime runs. */
    steps: number;
}

/**
 * `too-large` issues of a workload: on a tenant's model line when its instance alone unrolls past
 * the limit, else on the workload's name when its tenants together do. Tenants whose model does
 * not resolve or has errors are left out (their own diagnostics say why).
 */
export function tooLargeIssues(workload: Workload, reading: WorkloadReading, instanceOf: (tenant: Tenant) => ModelAnalysis | undefined): AnalysisIssue[] {
    const issues: AnalysisIssue[] = [];
    let total = 0;
    const parts: { name: string; steps: number }[] = [];
    for (const t of reading.tenants) {
        const instance = instanceOf(t.node);
        if (!instance || !t.model || instance.issues.length > 0 || instance.unboundDims.length > 0) continue;
        const size = instance.size;
        if (size.steps > maxUnrolledSteps) {
            issues.push(tooLarge(`tenant ${t.name}: ${instance.model.name}(${[...instance.params].map(([k, v]) => `${k}: ${v}`).join(', ')}) unrolls to ${describeSize(size)}; `
                + `the Workload IR lists every op the runtime runs, and lowering stops at ${formatSize(maxUnrolledSteps)} steps per workload — use a smaller repeat count or parameter`,
            t.model.call, 'callee'));
        }
        total = addScaled(total, size.steps);
        parts.push({ name: t.name, steps: size.steps });
    }
    if (issues.length === 0 && total > maxUnrolledSteps) {
        const each = parts.map(p => `${p.name} ${formatSize(p.steps)}`).join(', ');
        issues.push(tooLarge(`workload ${workload.name}: its tenants unroll to ${formatSize(total)} steps together (${each}); `
            + `lowering stops at ${formatSize(maxUnrolledSteps)} steps per workload — split the tenants over several workloads`, workload, 'name'));
    }
    return issues;
}

/** `1,000,000,000 ops (1,000,000,001 steps: ops, block calls and LSTM time steps)`. */
export function describeSize(size: UnrolledSize): string {
    const ops = `${formatSize(size.ops)} op${size.ops === 1 ? '' : 's'}`;
    return size.steps === size.ops ? ops : `${ops} (${formatSize(size.steps)} steps: ops, block calls and LSTM time steps)`;
}

function tooLarge(message: string, node: AstNode, property?: string): AnalysisIssue {
    return { code: IssueCodes.TooLarge, severity: 'error', message, node, property };
}
