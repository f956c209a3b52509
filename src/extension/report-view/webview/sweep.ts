/// <reference lib="dom" />
/**
 * The merged sweep page of the report webview: per workload and device, a chart per tenant of
 * its co-run p99 against the load under every schedule (each with its 95 % bounds as an error
 * bar, the predicted p99 as a mark, the SLO targets as dashed lines) and the table of each
 * schedule's QoS-satisfied throughput; per load, the comparison of schedules (its best and its
 * table, and a link to the whole comparison page); the repeats one by one with their spread; the
 * cells left out. Draws a {@link SweepReportModel}.
 */
import { Chart, type ChartConfiguration, type ChartDataset } from 'chart.js';
import type { SweepLoadAxis, SweepReportModel } from '../../../protocol/sweep-report.js';
import { formatBoundedMs } from '../../../protocol/figures.js';
import { formatMs, formatRatio, msValue, plural } from '../../../protocol/units.js';
import { bestLine, errorBars, renderComparison, schedulesTable, type Bar } from './comparison.js';
import { baseOptions, canvasBox, clearPage, el, keepChart, ms, openResultsLink, section, tenantColors, themeColor, vscode } from './draw.js';

/** One tenant's co-run p99 against the load, a line per schedule. */
function drawLoadChart(canvas: HTMLCanvasElement, axis: SweepLoadAxis, tenant: SweepLoadAxis['tenants'][number]): void {
    const colors = tenantColors();
    const fg = themeColor('--vscode-foreground', '#cccccc');
    const sloColor = themeColor('--vscode-charts-red', '#f14c4c');
    type Data = (number | null)[];
    const datasets: ChartDataset<'line', Data>[] = [];
    const bars = new Map<number, Bar[]>();
    tenant.series.forEach((series, i) => {
        const color = colors[i % colors.length]!;
        bars.set(datasets.length, series.points.map(p => (p.p99 ? { low: p.p99.low, high: p.p99.high } : undefined)));
        datasets.push({
            label: `${series.schedule}${series.baseline ? ' (baseline)' : ''} p99`, data: series.points.map(p => p.p99?.ms ?? null),
            borderColor: color, backgroundColor: color, pointRadius: 4, borderWidth: 2, spanGaps: false,
        });
        datasets.push({
            label: `${series.schedule} predicted p99`, data: series.points.map(p => p.predictedP99Ms ?? null), showLine: false,
            pointStyle: 'crossRot', pointRadius: 7, pointBorderWidth: 2, borderColor: color, backgroundColor: color,
        });
    });
    for (const slo of tenant.slos) {
        datasets.push({
            label: `SLO ${slo.percentile} ≤ ${formatMs(slo.targetMs)}`, data: axis.loads.map(() => slo.targetMs),
            borderColor: sloColor, backgroundColor: sloColor, borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0,
        });
    }
    const tops = [...tenant.series.flatMap(s => s.points.flatMap(p => [p.p99?.high, p.p99?.ms, p.predictedP99Ms])), ...tenant.slos.map(s => s.targetMs)]
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const config: ChartConfiguration<'line', Data, string> = {
        type: 'line',
        data: { labels: axis.loads.map(l => `${l}×`), datasets },
        options: {
            ...baseOptions(),
            plugins: {
                tooltip: {
                    callbacks: {
                        label: ctx => {
                            const series = tenant.series[Math.floor(ctx.datasetIndex / 2)];
                            const point = ctx.datasetIndex < tenant.series.length * 2 ? series?.points[ctx.dataIndex] : undefined;
                            if (point?.p99 && ctx.datasetIndex % 2 === 0) return `${series!.schedule} p99 ${formatBoundedMs(point.p99.ms, point.p99.low, point.p99.high)}, p50 ${ms(point.p50?.ms)}`;
                            return `${ctx.dataset.label}: ${ms(ctx.parsed.y)}`;
                        },
                    },
                },
            },
            scales: {
                x: { title: { display: true, text: 'load (× every tenant\'s declared traffic)' } },
                // Logarithmic: latency grows steeply towards overload, and a prediction may be far off the measurement.
                y: { type: 'logarithmic', suggestedMax: tops.length ? Math.max(...tops) * 1.2 : undefined, title: { display: true, text: 'co-run p99 (ms, log scale), 95 % bounds' } },
            },
        },
        plugins: [errorBars(bars, fg)],
    };
    keepChart(new Chart(canvas, config));
}

function qosTable(axis: SweepLoadAxis, id: string): HTMLTableElement {
    const head = el('tr', {}, ['schedule', 'SLOs held up to', 'QoS throughput', 'predicted capacity', 'per load'].map(h => el('th', { textContent: h })));
    const rows = axis.qos.map(q => el('tr', {}, [
        el('td', { textContent: q.schedule }),
        el('td', { textContent: `${q.load > 0 ? `${q.load}×` : 'no load swept'}${q.failedLoad !== null ? ` (not at ${q.failedLoad}×)` : ''}`, className: q.load > 0 ? 'good' : 'bad' }),
        el('td', { textContent: `${q.throughputPerSecond.toFixed(1)}/s` }),
        el('td', { textContent: `${q.predictedLoad.toFixed(2)}×` }),
        el('td', { textContent: q.probes.map(p => `${p.load}× ${p.verdict === 'met' ? '✓' : p.verdict === 'violated' ? '✗' : '?'}`).join('  ') }),
    ]));
    return el('table', { id }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

function repeatsTable(model: SweepReportModel): HTMLTableElement {
    const head = el('tr', {}, ['workload', 'device', 'load', 'schedule', 'tenant', 'p50 per repeat (ms)', 'spread', 'p99 per repeat (ms)', 'spread'].map(h => el('th', { textContent: h })));
    const rows = model.repeats.map(r => el('tr', {}, [
        r.workload, r.device, `${r.load}×`, r.schedule, r.tenant,
        r.p50Ms.map(msValue).join(' '), formatRatio(r.p50Spread), r.p99Ms.map(msValue).join(' '), formatRatio(r.p99Spread),
    ].map(text => el('td', { textContent: text }))));
    return el('table', { id: 'repeats-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

/** Replaces the page with the merged sweep; returns the ids of the charts drawn. */
export function renderSweep(model: SweepReportModel): string[] {
    const root = clearPage();
    const meta = `${model.file} · ${model.cells.merged} of ${plural(model.cells.total, 'cell')} merged · ${plural(model.comparisons.length, 'comparison')} (workload × device × load)`;
    root.append(el('h1', { textContent: `Sweep ${model.sweep}` }), el('p', { className: 'muted', id: 'meta', textContent: meta }));
    if (model.notMerged.length > 0) {
        root.append(el('div', { className: 'warning', id: 'not-merged' }, [
            el('p', { textContent: `${plural(model.notMerged.length, 'cell')} without figures, not merged (run them with tenancy sweep --resume):` }),
            el('ul', {}, model.notMerged.map(line => el('li', { textContent: line }))),
        ]));
    }
    root.append(el('p', { className: 'muted', id: 'drift-note', textContent: 'Each cell is a separate run: unlike tenancy compare\'s interleaved rounds, drift of the host between cells is not cancelled. The repeats below show how far runs of one cell differ.' }));

    const drawn: string[] = [];
    const pending: [HTMLCanvasElement, SweepLoadAxis, SweepLoadAxis['tenants'][number], string][] = [];
    model.axes.forEach((axis, i) => {
        const boxes: HTMLElement[] = [];
        axis.tenants.forEach((tenant, j) => {
            const id = `chart-load-${i}-${j}`;
            const chart = canvasBox(id, 260);
            boxes.push(el('h3', { textContent: tenant.name }), chart.box);
            pending.push([chart.canvas, axis, tenant, id]);
        });
        root.append(section(`axis-${i}`, `${axis.workload} on ${axis.device}: co-run p99 against load (95 % bounds; × predicted; dashed: SLO)`, ...boxes,
            el('h3', { textContent: 'QoS-satisfied throughput: the highest load swept at which every SLO held' }), qosTable(axis, `qos-table-${i}`)));
    });
    for (const [canvas, axis, tenant, id] of pending) {
        drawLoadChart(canvas, axis, tenant);
        drawn.push(id);
    }

    const perLoad = model.comparisons.map((comparison, k) => {
        const open = el('a', { href: '#', id: `open-comparison-${k}`, textContent: 'Open as a comparison page' });
        open.addEventListener('click', event => {
            event.preventDefault();
            const charts = renderComparison(comparison, { label: `Sweep ${model.sweep}`, go: () => vscode.postMessage({ type: 'rendered', charts: renderSweep(model) }) });
            vscode.postMessage({ type: 'rendered', charts });
        });
        return el('div', { className: 'sweep-comparison' }, [
            el('h3', { textContent: `${comparison.workload} · ${comparison.device ?? comparison.adapter} · ${comparison.load ?? 1}× load` }),
            bestLine(comparison, `best-${k}`), schedulesTable(comparison, `schedules-table-${k}`), el('p', {}, [open]),
        ]);
    });
    root.append(section('loads', 'Schedules compared at each load', ...perLoad));
    if (model.repeats.length > 0) root.append(section('repeats', 'Repeats one by one (spread = highest repeat / lowest)', repeatsTable(model)));
    root.append(openResultsLink(model.resultsPath, 'Open the merged file'));
    document.body.dataset.rendered = drawn.join(',');
    document.body.dataset.view = 'sweep';
    return drawn;
}
