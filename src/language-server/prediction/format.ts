/**
 * Text of predicted (and measured) figures for hovers, inlay hints and diagnostics — pure
 * functions over the runtime's prediction and results types, shared by the language server
 * and `tenancy predict` so that both say the same thing.
 */
import type { OpResult, Results, TenantResult } from '../../runtime/report/schema.js';
import type { OpPrediction, TenantPrediction, WorkloadPrediction } from '../../runtime/predict/workload.js';
import type { Percentile } from '../../runtime/predict/queueing.js';

/** `0.42 ms`, `12.3 ms`, `1.25 s`, `∞` — three significant figures, unit chosen by size. */
export function formatMs(ms: number): string {
    if (!Number.isFinite(ms)) return '∞';
    if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
    if (ms >= 100) return `${ms.toFixed(0)} ms`;
    if (ms >= 10) return `${ms.toFixed(1)} ms`;
    if (ms >= 0.1) return `${ms.toFixed(2)} ms`;
    return `${(ms * 1000).toFixed(ms >= 0.01 ? 0 : 1)} µs`;
}

/** `+8%` / `−12%`: (measured − predicted) / measured, the error of the prediction relative to the measurement. */
export function formatError(predicted: number, measured: number): string {
    if (!(measured > 0) || !Number.isFinite(predicted)) return 'n/a';
    const e = ((predicted - measured) / measured) * 100;
    const r = Math.abs(e) >= 10 ? Math.round(e) : Math.round(e * 10) / 10;
    return `${r >= 0 ? '+' : '−'}${Math.abs(r)}%`;
}

/** 1.2 GFLOP, 340 MFLOP, … */
export function formatFlops(flops: number): string {
    const units: [number, string][] = [[1e12, 'TFLOP'], [1e9, 'GFLOP'], [1e6, 'MFLOP'], [1e3, 'kFLOP']];
    for (const [scale, unit] of units) if (flops >= scale) return `${(flops / scale).toPrecision(3)} ${unit}`;
    return `${flops} FLOP`;
}

/** Bytes in binary units. */
export function formatBytes(bytes: number): string {
    const units: [number, string][] = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];
    for (const [scale, unit] of units) if (bytes >= scale) return `${(bytes / scale).toPrecision(3)} ${unit}`;
    return `${bytes} B`;
}

/** `75%` (utilisation). */
export function formatPercent(x: number): string {
    return Number.isFinite(x) ? `${(x * 100).toFixed(x >= 0.1 ? 0 : 1)}%` : '∞';
}

/** The profile label every predicted figure carries: calibrated device or "uncalibrated". */
export function profileLabel(p: WorkloadPrediction): string {
    return p.profile.uncalibrated ? 'uncalibrated (default profile; run `tenancy calibrate`)' : `calibrated on ${p.profile.device}`;
}

/** The measured op of a predicted op, matched by op path (the producer's, or one fused into it). */
export function measuredOp(tenant: TenantResult | undefined, op: OpPrediction): OpResult | undefined {
    if (!tenant) return undefined;
    return tenant.ops.find(o => o.path === op.path) ?? tenant.ops.find(o => o.fused.includes(op.path) || op.fused.includes(o.path));
}

/** The measured tenant of a predicted one, by name. */
export function measuredTenant(results: Results | undefined, name: string): TenantResult | undefined {
    return results?.tenants.find(t => t.name === name);
}

/** Measured value of a percentile in a phase, or undefined. */
export function measuredPercentile(t: TenantResult | undefined, phase: 'solo' | 'corun', p: Percentile): number | undefined {
    const stats = t?.[phase];
    const v = stats?.latencyMs[p];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Inlay hint text of one op line: `≈1.2 ms`, with the measured time and error when known. */
export function opHint(predictedMs: number, measuredMs: number | undefined, uncalibrated: boolean): string {
    const pred = `≈${formatMs(predictedMs)}${uncalibrated ? '?' : ''}`;
    return measuredMs === undefined ? pred : `${pred} · measured ${formatMs(measuredMs)} (${formatError(predictedMs, measuredMs)})`;
}

/** Inlay hint text of a tenant: predicted p50/p99 co-run, and the measured p99 when there is a run. */
export function tenantHint(t: TenantPrediction, measured: TenantResult | undefined, uncalibrated: boolean, multiTenant: boolean): string {
    const phase = multiTenant ? 'co-run' : 'solo';
    const f = multiTenant ? t.corun : t.solo;
    let text = `≈ p50 ${formatMs(f.p50)} · p99 ${formatMs(f.p99)} ${phase}${uncalibrated ? ' (uncalibrated)' : ''}`;
    const m = measuredPercentile(measured, multiTenant ? 'corun' : 'solo', 'p99') ?? measuredPercentile(measured, 'solo', 'p99');
    if (m !== undefined) text += ` · measured p99 ${formatMs(m)} (${formatError(f.p99, m)})`;
    return text;
}

/** Markdown of one op's prediction (one tenant's instance, or several summed for a repeated line). */
export function opHoverMarkdown(rows: { tenant: string; op: OpPrediction; measured?: OpResult }[], p: WorkloadPrediction): string {
    const lines: string[] = [`**Predicted** — ${profileLabel(p)}`, ''];
    lines.push('| tenant | FLOPs | bytes | FLOP/byte | bound | solo | co-run | measured | error |', '|---|---:|---:|---:|---|---:|---:|---:|---:|');
    for (const r of rows) {
        const m = r.measured;
        const measured = m ? (m.corunMs ?? m.soloMs) : null;
        const predicted = m && m.corunMs !== null ? r.op.corunMs : r.op.soloMs;
        lines.push(`| ${r.tenant} | ${formatFlops(r.op.flops)} | ${formatBytes(r.op.bytes)} | ${r.op.intensity.toFixed(1)} | ${r.op.bound} | ${formatMs(r.op.soloMs)} | ${formatMs(r.op.corunMs)} | ${measured === null ? '—' : formatMs(measured)} | ${measured === null ? '—' : formatError(predicted, measured)} |`);
    }
    const first = rows[0]?.op;
    if (first) {
        const kernels = first.launches.map(l => `\`${l.name}\` ${formatMs(l.ms)}`).join(', ');
        if (kernels) lines.push('', `Kernels: ${kernels}${first.fused.length > 0 ? ` · fused: ${first.fused.map(f => `\`${f.split('/').pop()}\``).join(', ')}` : ''}`);
        if (first.estimated) lines.push('', '*No kernel generator serves this op as written; timed from its FLOPs and bytes.*');
    }
    return lines.join('\n');
}

/** Markdown of a tenant's prediction. */
export function tenantHoverMarkdown(t: TenantPrediction, p: WorkloadPrediction, measured: TenantResult | undefined): string {
    const multi = p.tenants.length > 1;
    const lines: string[] = [`**Predicted** — ${profileLabel(p)}`, ''];
    const row = (label: string, f: TenantPrediction['solo'], m: TenantResult['solo'] | undefined) => {
        const cell = (x: number, key: 'p50' | 'p99' | 'mean') => {
            const mv = m?.latencyMs[key];
            return typeof mv === 'number' ? `${formatMs(x)} (measured ${formatMs(mv)}, ${formatError(x, mv)})` : formatMs(x);
        };
        lines.push(`| ${label} | ${cell(f.mean, 'mean')} | ${cell(f.p50, 'p50')} | ${cell(f.p99, 'p99')} |`);
    };
    lines.push('| | mean | p50 | p99 |', '|---|---:|---:|---:|');
    row('solo', t.solo, measured?.solo ?? undefined);
    if (multi) row(`co-run (${p.policy})`, t.corun, measured?.corun ?? undefined);
    lines.push('');
    lines.push(`Service ${formatMs(t.serviceMs)} per request (${t.launches} kernels, ${t.submits} submit${t.submits === 1 ? '' : 's'})` +
        (multi ? ` · slowdown ×${t.slowdown.toFixed(2)}` : '') +
        ` · utilisation ${formatPercent(t.corunUtilisation)}${t.openLoop ? '' : ' (closed loop)'}`);
    for (const s of t.slos) {
        const verdict = s.verdict === 'ok' ? '✓ met' : s.verdict === 'infeasible' ? '✗ infeasible even solo' : '⚠ at risk under co-run';
        lines.push(`- SLO ${s.percentile} ≤ ${formatMs(s.targetMs)}: ${verdict} (predicted ${formatMs(multi ? s.corunMs : s.soloMs)})`);
    }
    return lines.join('\n');
}

/** Markdown of a workload's device load. */
export function workloadHoverMarkdown(p: WorkloadPrediction): string {
    const lines = [`**Predicted** — ${profileLabel(p)}`, '', `Device utilisation (open-loop demand, solo speed): ${formatPercent(p.deviceUtilisation)}${p.overloaded ? ' — **overloaded**' : ''}`];
    for (const t of p.tenants) lines.push(`- \`${t.name}\`: co-run p99 ${formatMs(t.corun.p99)}, slowdown ×${t.slowdown.toFixed(2)}`);
    return lines.join('\n');
}
