/**
 * Text of predicted (and measured) figures for hovers, inlay hints and diagnostics — pure
 * functions over the runtime's prediction and results types, shared by the language server
 * and `tenancy predict` so that both say the same thing.
 */
import type { OpResult, Results, TenantResult } from '../../runtime/report/schema.js';
import type { OpPrediction, TenantPrediction, WorkloadPrediction } from '../../runtime/predict/workload.js';

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

/**
 * How the latest run measured a predicted op, matched by op path (never by line: an edit that
 * moves lines keeps the match). `ops`: the measured op with the same path, plus the parts the
 * run measured separately where the prediction fused them into this op. `fused-into`: the run
 * fused this op into another one, whose figure holds its time.
 */
export type MeasuredMatch =
    | { kind: 'ops'; ops: OpResult[] }
    | { kind: 'fused-into'; into: OpResult };

/** The measured op(s) of a predicted op in a tenant's results — the one matching rule of hints, hovers and reports. */
export function measuredOp(tenant: TenantResult | undefined, op: OpPrediction): MeasuredMatch | undefined {
    if (!tenant) return undefined;
    const own = tenant.ops.filter(o => o.path === op.path || op.fused.includes(o.path));
    if (own.length > 0) return { kind: 'ops', ops: own };
    const into = tenant.ops.find(o => o.fused.includes(op.path));
    return into ? { kind: 'fused-into', into } : undefined;
}

/** The measured tenant of a predicted one, by name. */
export function measuredTenant(results: Results | undefined, name: string): TenantResult | undefined {
    return results?.tenants.find(t => t.name === name);
}

/** One predicted op instance of a tenant, beside that tenant's latest measured results. */
export interface OpInstanceFigures {
    op: OpPrediction;
    measured: TenantResult | undefined;
}

/** A measured time with the prediction of the same ops in the same phase. */
export interface MeasuredVsPredicted {
    ms: number;
    predictedMs: number;
}

/**
 * The measured figure of one op instance or of an op line (a tenant's instances of the ops
 * whose source is that line, e.g. a line of a repeated block): every time is per request,
 * summed over the instances, each phase compared with the prediction of the same ops in the
 * same phase and of the same statistic: the median (the op's typical time; results files
 * record it beside the mean) — or the mean, for results files written before medians were
 * recorded. On a busy host one stalled pass moves an op's mean far more than its median.
 */
export interface MeasuredFigure {
    /** Which time per request the figures are: predicted and measured alike. */
    statistic: 'median' | 'mean';
    /** Predicted solo and co-run time of all the instances. */
    predictedSoloMs: number;
    predictedCorunMs: number;
    instances: number;
    /** Measured solo time of the instances the run timed solo. */
    solo?: MeasuredVsPredicted;
    /** Measured co-run time of the instances the run timed co-running. */
    corun?: MeasuredVsPredicted;
    /** Measured co-run / solo over the measured ops timed in both phases. */
    slowdown?: number;
    /** The measured op the run fused these ops into, when it measured none of them on their own. */
    fusedInto?: string;
}

/** An op's predicted typical (median) time per request, solo and co-run (the co-run one scaled by the op's slowdown). */
export function typicalOpMs(op: OpPrediction): { solo: number; corun: number } {
    return { solo: op.soloP50Ms, corun: op.soloMs > 0 ? op.soloP50Ms * (op.corunMs / op.soloMs) : op.soloP50Ms };
}

/** The statistic a tenant's results allow: medians when every measured op has them (files since they were recorded). */
function statisticOf(instances: OpInstanceFigures[]): MeasuredFigure['statistic'] {
    const measured = instances.flatMap(i => i.measured?.ops ?? []);
    return measured.every(o => o.soloP50Ms !== undefined && o.corunP50Ms !== undefined) ? 'median' : 'mean';
}

/** Decides "the measured figure" of op instances; inlay hints and hovers both show this. */
export function measuredFigure(instances: OpInstanceFigures[]): MeasuredFigure {
    const statistic = statisticOf(instances);
    const figure: MeasuredFigure = { statistic, predictedSoloMs: 0, predictedCorunMs: 0, instances: instances.length };
    const measuredMs = (o: OpResult, phase: 'solo' | 'corun') => statistic === 'median'
        ? (phase === 'solo' ? o.soloP50Ms : o.corunP50Ms) ?? null
        : (phase === 'solo' ? o.soloMs : o.corunMs);
    const counted = new Set<string>();
    let bothSolo = 0, bothCorun = 0;
    const add = (key: 'solo' | 'corun', ms: number, predictedMs: number) => {
        const f = figure[key] ?? (figure[key] = { ms: 0, predictedMs: 0 });
        f.ms += ms;
        f.predictedMs += predictedMs;
    };
    for (const { op, measured } of instances) {
        const typical = typicalOpMs(op);
        const predicted = statistic === 'median' ? typical : { solo: op.soloMs, corun: op.corunMs };
        figure.predictedSoloMs += predicted.solo;
        figure.predictedCorunMs += predicted.corun;
        const match = measuredOp(measured, op);
        if (match?.kind === 'fused-into') {
            figure.fusedInto ??= match.into.path;
            continue;
        }
        // A measured op counts once, even if two predicted ops claim it (never double-counted).
        const ops = (match?.ops ?? []).filter(o => !counted.has(`${measured?.name}/${o.path}`));
        for (const o of ops) counted.add(`${measured?.name}/${o.path}`);
        const sum = (phase: 'solo' | 'corun') => ops.some(o => measuredMs(o, phase) !== null) ? ops.reduce((s, o) => s + (measuredMs(o, phase) ?? 0), 0) : undefined;
        const solo = sum('solo');
        const corun = sum('corun');
        if (solo !== undefined) add('solo', solo, predicted.solo);
        if (corun !== undefined) add('corun', corun, predicted.corun);
        for (const o of ops) {
            const s = measuredMs(o, 'solo'), c = measuredMs(o, 'corun');
            if (s !== null && c !== null) {
                bothSolo += s;
                bothCorun += c;
            }
        }
    }
    if (bothSolo > 0 && bothCorun > 0) figure.slowdown = bothCorun / bothSolo;
    if (figure.solo || figure.corun) delete figure.fusedInto;
    return figure;
}

/** `1.90×` (a measured slowdown). */
export function formatSlowdown(x: number): string {
    return `${x.toFixed(x >= 10 ? 1 : 2)}×`;
}

/** The last segment of an op path (`conv2d.1`). */
function opName(path: string): string {
    return path.split('/').pop() ?? path;
}

/** Status words of a run that did not complete (its figures cover part of the benchmark). */
function runStatusNote(status: Results['status'] | undefined): string {
    return status && status !== 'complete' ? ` (${status} run)` : '';
}

/**
 * Inlay hint text of one op line: `≈0.24 ms` before a run; after it the measured solo time
 * with the prediction's error, and the measured co-run time with its slowdown over solo —
 * `≈0.24 ms · measured 0.48 ms (−50%) · co-run 0.45 ms, 0.94× solo`.
 */
export function opHint(figure: MeasuredFigure, uncalibrated: boolean, status?: Results['status']): string {
    const parts = [`≈${formatMs(figure.predictedSoloMs)}${uncalibrated ? '?' : ''}`];
    const { solo, corun } = figure;
    if (solo) parts.push(`measured ${formatMs(solo.ms)} (${formatError(solo.predictedMs, solo.ms)})`);
    if (corun) {
        const label = solo ? 'co-run' : 'measured co-run';
        // Without a solo time there is no slowdown: grade the co-run prediction instead.
        parts.push(figure.slowdown !== undefined
            ? `${label} ${formatMs(corun.ms)}, ${formatSlowdown(figure.slowdown)} solo`
            : `${label} ${formatMs(corun.ms)} (${formatError(corun.predictedMs, corun.ms)})`);
    }
    if (!solo && !corun && figure.fusedInto) parts.push(`run fused it into ${opName(figure.fusedInto)}`);
    return parts.join(' · ') + (solo || corun ? runStatusNote(status) : '');
}

/** Markdown tooltip of an op line's hint: what each figure is, in words. */
export function opHintTooltip(figure: MeasuredFigure, p: WorkloadPrediction, tenant: string, ops: OpPrediction[], finishedAt: string | undefined): string {
    const names = [...new Set(ops.map(o => opName(o.path)))];
    const what = figure.instances > 1 ? `; the sum over this line's ${figure.instances} op instances (${names.map(n => `\`${n}\``).join(', ')})` : '';
    const lines = [`Predicted ${statisticWords(figure.statistic)} GPU time per request, solo, for \`${tenant}\` — ${profileLabel(p)}${what}.`];
    const { solo, corun } = figure;
    if (solo || corun) {
        lines.push('', `Measured in the latest run${finishedAt ? ` (${new Date(finishedAt).toLocaleString()})` : ''}, ${statisticWords(figure.statistic)} GPU time per request:`);
        if (solo) lines.push(`- solo ${formatMs(solo.ms)} — predicted ${formatMs(solo.predictedMs)}, error ${formatError(solo.predictedMs, solo.ms)}`);
        if (corun) lines.push(`- co-run ${formatMs(corun.ms)}${figure.slowdown !== undefined ? `, ${formatSlowdown(figure.slowdown)} solo` : ''} — predicted ${formatMs(corun.predictedMs)}, error ${formatError(corun.predictedMs, corun.ms)}`);
        lines.push('', 'Error: (predicted − measured) / measured. Hover the op for every tenant and instance.');
    } else if (figure.fusedInto) {
        lines.push('', `The run fused this op into \`${figure.fusedInto}\`: its time is in that op's figure.`);
    }
    return lines.join('\n');
}

/** How the texts name a figure's statistic. */
function statisticWords(statistic: MeasuredFigure['statistic']): string {
    return statistic === 'median' ? 'typical (median)' : 'mean';
}

/** Inlay hint text of a tenant: predicted p50/p99, and the measured p99 of the same phase when there is a run. */
export function tenantHint(t: TenantPrediction, measured: TenantResult | undefined, uncalibrated: boolean, multiTenant: boolean): string {
    const phase = multiTenant ? 'co-run' : 'solo';
    const f = multiTenant ? t.corun : t.solo;
    let text = `≈ p50 ${formatMs(f.p50)} · p99 ${formatMs(f.p99)} ${phase}${uncalibrated ? ' (uncalibrated)' : ''}`;
    // The phase the code lens summarises too: co-run when the run had one, else solo (a solo run).
    const measuredPhase = measured?.corun ? 'corun' : measured?.solo ? 'solo' : undefined;
    const m = measuredPhase && measured?.[measuredPhase]?.latencyMs.p99;
    if (measuredPhase && typeof m === 'number' && Number.isFinite(m)) {
        const predicted = measuredPhase === 'corun' ? t.corun.p99 : t.solo.p99;
        const label = (measuredPhase === 'corun') === multiTenant ? '' : measuredPhase === 'corun' ? ' co-run' : ' solo';
        text += ` · measured p99 ${formatMs(m)}${label} (${formatError(predicted, m)})`;
    }
    return text;
}

/** The instance part of an op path (`basic_block.1` of `vision/tiny_resnet/basic_block.1/conv2d.0`), or ''. */
function instanceOf(path: string): string {
    return path.split('/').slice(2, -1).join('/');
}

/** Markdown of one op line's prediction and measurement: a row per tenant instance, and a total per tenant with several. */
export function opHoverMarkdown(rows: { tenant: string; op: OpPrediction; measured?: TenantResult }[], p: WorkloadPrediction, maxRows = 12): string {
    const lines: string[] = [`**Predicted** — ${profileLabel(p)}`, ''];
    lines.push('| tenant | FLOPs | bytes | FLOP/byte | bound | solo | co-run | measured solo | measured co-run |', '|---|---:|---:|---:|---|---:|---:|---:|---:|');
    const cells = (f: MeasuredFigure) => {
        if (!f.solo && !f.corun) return f.fusedInto ? [`in \`${opName(f.fusedInto)}\``, '—'] : ['—', '—'];
        return [
            f.solo ? `${formatMs(f.solo.ms)} (${formatError(f.solo.predictedMs, f.solo.ms)})` : '—',
            f.corun ? `${formatMs(f.corun.ms)}${f.slowdown !== undefined ? `, ${formatSlowdown(f.slowdown)}` : ''} (${formatError(f.corun.predictedMs, f.corun.ms)})` : '—',
        ];
    };
    let anyMeasured = false;
    let statistic: MeasuredFigure['statistic'] = 'median';
    const byTenant = new Map<string, typeof rows>();
    for (const r of rows) {
        const group = byTenant.get(r.tenant);
        if (group) group.push(r);
        else byTenant.set(r.tenant, [r]);
    }
    let shown = 0;
    for (const [tenant, group] of byTenant) {
        for (const r of group) {
            if (shown++ >= maxRows) continue; // the tenant's total below still covers every instance
            const f = measuredFigure([{ op: r.op, measured: r.measured }]);
            anyMeasured ||= f.solo !== undefined || f.corun !== undefined;
            if (f.statistic === 'mean') statistic = 'mean';
            const label = group.length > 1 && instanceOf(r.op.path) ? `${tenant} · ${instanceOf(r.op.path)}` : tenant;
            lines.push(`| ${label} | ${formatFlops(r.op.flops)} | ${formatBytes(r.op.bytes)} | ${r.op.intensity.toFixed(1)} | ${r.op.bound} | ${formatMs(f.predictedSoloMs)} | ${formatMs(f.predictedCorunMs)} | ${cells(f).join(' | ')} |`);
        }
        if (group.length > 1) {
            const f = measuredFigure(group.map(r => ({ op: r.op, measured: r.measured })));
            lines.push(`| **${tenant}, ${group.length} instances** | | | | | ${formatMs(f.predictedSoloMs)} | ${formatMs(f.predictedCorunMs)} | ${cells(f).join(' | ')} |`);
        }
    }
    if (rows.length > maxRows) lines.push('', `…and ${rows.length - maxRows} more instances`);
    lines.push('', anyMeasured
        ? `Solo and co-run: ${statisticWords(statistic)} GPU time per request, predicted; measured in the latest run; error = (predicted − measured) / measured; × = co-run / solo.`
        : 'Solo and co-run: typical (median) GPU time per request, predicted.');
    const first = rows[0]?.op;
    if (first) {
        // Each launch's share of the op's typical time (launch times are means: the host's factor scales them alike).
        const scale = first.soloMs > 0 ? typicalOpMs(first).solo / first.soloMs : 1;
        const kernels = first.launches.map(l => `\`${l.name}\` ${formatMs(l.ms * scale)}`).join(', ');
        if (kernels) lines.push('', `Kernels: ${kernels}${first.fused.length > 0 ? ` · fused: ${first.fused.map(f => `\`${opName(f)}\``).join(', ')}` : ''}`);
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
