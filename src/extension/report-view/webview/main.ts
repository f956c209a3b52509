/// <reference lib="dom" />
/**
 * The report webview's script (bundled by esbuild for the browser, chart.js inlined): draws
 * the latency CDFs, per-op slowdown bars, the kernel timeline and the SLO and comparison
 * tables of a {@link ReportModel} it receives from the extension by postMessage, a
 * comparison of schedules (./comparison.ts) or a merged sweep (./sweep.ts). Colours come from
 * the theme's CSS variables, so the report reads in light, dark and high contrast.
 */
import {
    BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement,
    LogarithmicScale, PointElement, ScatterController, Tooltip, type ChartConfiguration,
} from 'chart.js';
import type { ReportModel, ReportTenant, ReportViewMessage } from '../../../protocol/report.js';
import { formatPercent, formatRatio } from '../../../protocol/units.js';
import { formatRange, formatSlowdown, sloMark } from '../../../protocol/figures.js';
import { renderComparison } from './comparison.js';
import { renderSweep } from './sweep.js';
import { baseOptions, canvasBox, clearPage, el, keepChart, ms, openResultsLink, section, tenantColors, themeColor, vscode, withAlpha } from './draw.js';

Chart.register(BarController, BarElement, CategoryScale, Legend, LinearScale, LineController, LineElement,
    LogarithmicScale, PointElement, ScatterController, Tooltip);

/** Points of an empirical CDF from sorted samples (x = latency, y = fraction ≤ x). */
function cdfPoints(sorted: number[]): { x: number; y: number }[] {
    const n = sorted.length;
    return sorted.map((x, i) => ({ x, y: (i + 1) / n }));
}

/** Few samples draw as points (a one-request CDF has no line to draw). */
function pointRadius(samples: number[]): number {
    return samples.length < 30 ? 3 : 0;
}

function drawCdf(canvas: HTMLCanvasElement, tenants: ReportTenant[]): void {
    const colors = tenantColors();
    const datasets: ChartConfiguration<'scatter'>['data']['datasets'] = [];
    tenants.forEach((t, i) => {
        const color = colors[i % colors.length]!;
        if (t.corunLatenciesMs.length > 0) {
            datasets.push({ label: `${t.name} co-run`, data: cdfPoints(t.corunLatenciesMs), showLine: true, borderColor: color, backgroundColor: color, pointRadius: pointRadius(t.corunLatenciesMs), borderWidth: 2 });
        }
        if (t.soloLatenciesMs.length > 0) {
            datasets.push({ label: `${t.name} solo`, data: cdfPoints(t.soloLatenciesMs), showLine: true, borderColor: color, backgroundColor: color, pointRadius: pointRadius(t.soloLatenciesMs), borderWidth: 1.5, borderDash: [6, 4] });
        }
    });
    keepChart(new Chart(canvas, {
        type: 'scatter',
        data: { datasets },
        options: {
            ...baseOptions(),
            scales: {
                x: { type: 'linear', title: { display: true, text: 'request latency (ms)' } },
                y: { min: 0, max: 1, title: { display: true, text: 'fraction of requests' } },
            },
        },
    }));
}

function drawOpSlowdown(canvas: HTMLCanvasElement, report: ReportModel): void {
    const colors = tenantColors();
    const tenantIndex = new Map(report.tenants.map((t, i) => [t.name, i]));
    const ops = report.ops.filter(o => o.slowdown !== undefined)
        .sort((a, b) => (b.corunMs ?? 0) - (a.corunMs ?? 0)).slice(0, 20);
    keepChart(new Chart(canvas, {
        type: 'bar',
        data: {
            labels: ops.map(o => o.path),
            datasets: [{
                label: 'co-run / solo GPU time',
                data: ops.map(o => o.slowdown?.estimate ?? 0),
                backgroundColor: ops.map(o => withAlpha(colors[(tenantIndex.get(o.tenant) ?? 0) % colors.length]!, 0.75)),
            }],
        },
        options: {
            ...baseOptions(),
            indexAxis: 'y',
            plugins: {
                legend: { display: false },
                tooltip: { callbacks: { label: ctx => { const o = ops[ctx.dataIndex]!; return `${o.slowdown ? formatSlowdown(o.slowdown) : '—'} (solo ${ms(o.soloMs)}, co-run ${ms(o.corunMs)}, predicted co-run ${ms(o.predictedMs)}${o.predictedBand !== undefined ? ` ±${formatPercent(o.predictedBand)}` : ''})${o.attribution ? `; ${o.attribution}` : ''}`; } } },
            },
            scales: { x: { min: 0, title: { display: true, text: 'slowdown (×), the 20 longest ops' } } },
        },
    }));
}

function drawTimeline(canvas: HTMLCanvasElement, report: ReportModel): void {
    const colors = tenantColors();
    const names = report.tenants.map(t => t.name);
    const datasets = report.tenants.map((t, i) => ({
        label: t.name,
        data: report.timeline.filter(s => s.tenant === t.name).slice(0, 3000)
            .map(s => ({ x: [s.startMs, s.endMs] as [number, number], y: t.name, label: s.label })),
        backgroundColor: withAlpha(colors[i % colors.length]!, 0.8),
        borderWidth: 0,
        barPercentage: 0.8,
        categoryPercentage: 1,
        grouped: false,
    }));
    keepChart(new Chart(canvas, {
        type: 'bar',
        data: { labels: names, datasets },
        options: {
            ...baseOptions(),
            indexAxis: 'y',
            plugins: {
                tooltip: { callbacks: { label: ctx => { const raw = ctx.raw as { x: [number, number]; label: string }; return `${raw.label}: ${ms(raw.x[1] - raw.x[0])} at ${raw.x[0].toFixed(1)} ms`; } } },
            },
            scales: { x: { type: 'linear', title: { display: true, text: 'time since the start of measurement (ms)' } } },
        },
    }));
}

function sloTable(report: ReportModel): HTMLTableElement {
    const head = el('tr', {}, ['tenant', 'SLO', 'measured (95 % bounds)', 'predicted (90 % band)', 'slowdown vs solo', 'requests', ''].map(h => el('th', { textContent: h })));
    const rows: HTMLTableRowElement[] = [];
    for (const t of report.tenants) {
        const slos = t.slos.length > 0 ? t.slos : [undefined];
        for (const slo of slos) {
            const measured = !slo ? ms(t.p99Ms)
                : slo.verdict === 'invalid' ? `n/a: needs ${slo.requestsNeeded ?? '?'} requests`
                    : `${ms(slo.measuredMs)} (${formatRange(slo.lowMs, slo.highMs)})`;
            const verdict = slo ? sloMark(slo.verdict) : '';
            const row = el('tr', {}, [
                el('td', { textContent: t.name }),
                el('td', { textContent: slo ? `${slo.percentile} ≤ ${ms(slo.targetMs)}` : 'none' }),
                el('td', { textContent: measured }),
                el('td', { textContent: slo?.predictedMs !== undefined && (slo.predictedLowMs !== null || slo.predictedHighMs !== null) ? `${ms(slo.predictedMs)} (${formatRange(slo.predictedLowMs, slo.predictedHighMs)})` : ms(slo?.predictedMs) }),
                el('td', { textContent: t.slowdown ? `${t.slowdownOf}: ${formatSlowdown(t.slowdown)}` : '—' }),
                el('td', { textContent: String(t.requests) }),
                el('td', { textContent: verdict, className: slo?.verdict === 'violated' ? 'bad' : slo?.verdict === 'met' ? 'good' : slo ? 'warning' : '' }),
            ]);
            rows.push(row);
        }
    }
    return el('table', { id: 'slo-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

/** Where each tenant's request time went, solo against co-run (queueing, GPU, host). */
function breakdownTable(report: ReportModel): HTMLTableElement {
    const head = el('tr', {}, ['tenant', 'phase', 'queueing', 'GPU', 'host', 'A/A noise (solo vs solo)'].map(h => el('th', { textContent: h })));
    const rows = report.tenants.flatMap(t => (['solo', 'corun'] as const).flatMap(phase => {
        const b = t.breakdown[phase];
        if (!b) return [];
        return [el('tr', {}, [
            el('td', { textContent: t.name }), el('td', { textContent: phase === 'corun' ? 'co-run' : 'solo' }),
            el('td', { textContent: ms(b.queueingMs) }), el('td', { textContent: ms(b.gpuMs) }), el('td', { textContent: ms(b.hostMs) }),
            el('td', { textContent: phase === 'solo' && t.noise ? formatSlowdown(t.noise) : '' }),
        ])];
    }));
    return el('table', { id: 'breakdown-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

/** The tenant × tenant interference heatmap: rows are victims, columns aggressors; a cell's shade is the share of the victim's co-run GPU time the aggressor overlapped. */
function interferenceHeatmap(report: ReportModel): HTMLElement {
    if (report.interference.length === 0) return el('p', { className: 'muted', textContent: 'No kernels of different tenants overlapped in the co-run rounds.' });
    const names = report.tenants.map(t => t.name);
    const head = el('tr', {}, [el('th', { textContent: 'victim \\ aggressor' }), ...names.map(n => el('th', { textContent: n }))]);
    const accent = themeColor('--vscode-charts-red', '#f14c4c');
    const rows = names.map(victim => el('tr', {}, [el('th', { textContent: victim }), ...names.map(aggressor => {
        const cell = report.interference.find(c => c.victim === victim && c.aggressor === aggressor);
        if (!cell) return el('td', { textContent: victim === aggressor ? '—' : '' });
        const td = el('td', { textContent: `${formatPercent(cell.overlappedFraction)} overlapped${cell.slowdown !== undefined ? `, ${formatRatio(cell.slowdown)} solo` : ''}` });
        td.style.background = withAlpha(accent, Math.min(0.8, cell.overlappedFraction));
        return td;
    })]));
    return el('table', { id: 'interference-heatmap' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

/** Per op: who it overlapped in the co-run rounds and what that did to it (the 20 longest ops). */
function attributionList(report: ReportModel): HTMLElement {
    const ops = report.ops.filter(o => o.attribution).sort((a, b) => (b.corunMs ?? 0) - (a.corunMs ?? 0)).slice(0, 20);
    if (ops.length === 0) return el('p', { className: 'muted', textContent: 'No op overlapped another tenant\'s kernels.' });
    return el('ul', { id: 'attribution' }, ops.map(o => el('li', { textContent: `${o.path}: ${o.attribution}` })));
}

function comparisonTable(report: ReportModel): HTMLElement {
    const comparison = report.comparison;
    if (!comparison) return el('p', { className: 'muted', textContent: 'No previous run in the history folder yet.' });
    const head = el('tr', {}, ['tenant', 'metric', 'previous', 'this run', 'change'].map(h => el('th', { textContent: h })));
    const rows = comparison.rows.map(r => {
        const change = r.previousMs !== undefined && r.currentMs !== undefined && r.previousMs > 0
            ? (r.currentMs - r.previousMs) / r.previousMs : undefined;
        const text = change === undefined ? '—' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
        return el('tr', {}, [
            el('td', { textContent: r.tenant }), el('td', { textContent: r.metric }),
            el('td', { textContent: ms(r.previousMs) }), el('td', { textContent: ms(r.currentMs) }),
            el('td', { textContent: text, className: change === undefined ? '' : change > 0.05 ? 'bad' : change < -0.05 ? 'good' : '' }),
        ]);
    });
    return el('div', {}, [
        el('p', { className: 'muted', textContent: `Previous run: ${new Date(comparison.previousFinishedAt).toLocaleString()}` }),
        el('table', { id: 'comparison-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]),
    ]);
}

/** Replaces the page with the report; returns the ids of the charts drawn. */
export function renderReport(report: ReportModel): string[] {
    const root = clearPage();
    const meta = `${report.file} · ${report.adapter} · policy ${report.policy} · ${new Date(report.finishedAt).toLocaleString()}`;
    root.append(el('h1', { textContent: `Workload ${report.workload}` }), el('p', { className: 'muted', id: 'meta', textContent: meta }));
    if (report.status !== 'complete') {
        const what = report.status === 'cancelled' ? 'This run was cancelled' : report.status === 'partial' ? 'This run is partial' : 'This run failed';
        root.append(el('p', { className: 'warning', id: 'run-status', textContent: `${what}${report.reason ? `: ${report.reason}` : ''}. The figures cover only the part that ran.` }));
    }

    if (!report.valid) root.append(el('p', { className: 'warning', id: 'validity', textContent: `Not valid: ${report.invalidReasons.join('; ')}.` }));
    if (report.hostWarning) root.append(el('p', { className: 'warning', id: 'host-warning', textContent: `Warning: ${report.hostWarning}.` }));
    if (report.measurementNote) root.append(el('p', { className: 'muted', id: 'measurement-note', textContent: `Rounds: ${report.measurementNote}.` }));
    root.append(section('slo', 'Service-level objectives', sloTable(report)));
    root.append(section('breakdown', 'Where request time went (mean per request)', breakdownTable(report)));
    root.append(section('interference', 'Who slows whom', interferenceHeatmap(report), attributionList(report)));
    const drawn: string[] = [];
    const cdf = canvasBox('chart-cdf', 300);
    root.append(section('latency', 'Request latency, solo (dashed) and co-run', cdf.box));
    drawCdf(cdf.canvas, report.tenants);
    drawn.push('chart-cdf');

    if (report.ops.some(o => o.slowdown !== undefined)) {
        const bars = canvasBox('chart-ops', Math.max(200, Math.min(20, report.ops.length) * 22 + 60));
        root.append(section('ops', 'Per-op slowdown under co-location', bars.box));
        drawOpSlowdown(bars.canvas, report);
        drawn.push('chart-ops');
    } else {
        root.append(section('ops', 'Per-op slowdown under co-location', el('p', { className: 'muted', textContent: 'This run has no per-op solo and co-run times.' })));
    }

    if (report.timeline.length > 0) {
        const gantt = canvasBox('chart-timeline', 80 + report.tenants.length * 50);
        root.append(section('timeline', 'Kernel timeline', gantt.box));
        drawTimeline(gantt.canvas, report);
        drawn.push('chart-timeline');
    } else {
        root.append(section('timeline', 'Kernel timeline', el('p', { className: 'muted', textContent: 'This run recorded no kernel intervals.' })));
    }

    root.append(section('comparison', 'Compared with the previous run', comparisonTable(report)));
    root.append(openResultsLink(report.resultsPath, 'Open the results file'));
    document.body.dataset.rendered = drawn.join(',');
    document.body.dataset.view = 'report';
    return drawn;
}

window.addEventListener('message', (event: MessageEvent<ReportViewMessage>) => {
    const message = event.data;
    if (message?.type === 'report') {
        const drawn = renderReport(message.report);
        vscode.postMessage({ type: 'rendered', charts: drawn });
    } else if (message?.type === 'comparison') {
        const drawn = renderComparison(message.comparison);
        vscode.postMessage({ type: 'rendered', charts: drawn });
    } else if (message?.type === 'sweep') {
        const drawn = renderSweep(message.sweep);
        vscode.postMessage({ type: 'rendered', charts: drawn });
    } else if (message?.type === 'error') {
        clearPage().append(el('p', { className: 'error', id: 'report-error', textContent: message.message }));
    }
});

vscode.postMessage({ type: 'ready' });
