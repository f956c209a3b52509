/// <reference lib="dom" />
/**
 * The comparison of schedules page of the report webview: per tenant a chart of its co-run p50
 * and p99 under every schedule, each with its 95 % bounds as an error bar, the SLO targets as
 * lines and the predicted p99 as a mark; a chart of each schedule's headline gain over the
 * baseline with its interval beside the predicted gain; the measured best and why; the table of
 * every figure; validity and host warnings. Draws a {@link ComparisonReportModel}.
 */
import { Chart, type ChartConfiguration, type ChartDataset, type Plugin } from 'chart.js';
import type { ComparisonReportModel, ComparisonSchedule, ComparisonTenant } from '../../../protocol/comparison-report.js';
import { formatCapacityLoad, formatGain, formatPredictedMeasured, formatRange, formatSlowdown, sloMark } from '../../../protocol/figures.js';
import { formatMs, plural } from '../../../protocol/units.js';
import { baseOptions, canvasBox, clearPage, el, keepChart, ms, openResultsLink, section, tenantColors, themeColor, withAlpha } from './draw.js';

/** An error bar's ends; a null end is unbounded (drawn to the edge of the chart, dashed). */
type Bar = { low: number | null; high: number | null } | undefined;

/**
 * Draws error bars over the points or bars of the datasets `bars` names (dataset index → one
 * bar per data point): a vertical line from the low to the high end with caps; an end the
 * samples cannot bound runs to the chart's edge, dashed.
 */
function errorBars(bars: ReadonlyMap<number, readonly Bar[]>, color: string): Plugin {
    return {
        id: 'errorBars',
        afterDatasetsDraw(chart) {
            const { ctx, chartArea } = chart;
            const y = chart.scales.y!;
            ctx.save();
            ctx.strokeStyle = color;
            ctx.lineWidth = 1.5;
            for (const [index, list] of bars) {
                if (!chart.isDatasetVisible(index)) continue;
                chart.getDatasetMeta(index).data.forEach((element, i) => {
                    const bar = list[i];
                    if (!bar || (bar.low === null && bar.high === null)) return;
                    const x = element.x;
                    const top = bar.high !== null ? y.getPixelForValue(bar.high) : chartArea.top;
                    const bottom = bar.low !== null ? y.getPixelForValue(bar.low) : chartArea.bottom;
                    ctx.setLineDash([]);
                    for (const [end, bounded] of [[top, bar.high !== null], [bottom, bar.low !== null]] as const) {
                        if (!bounded) continue;
                        ctx.beginPath();
                        ctx.moveTo(x - 5, end);
                        ctx.lineTo(x + 5, end);
                        ctx.stroke();
                    }
                    ctx.setLineDash(bar.high === null || bar.low === null ? [4, 3] : []);
                    ctx.beginPath();
                    ctx.moveTo(x, Math.max(chartArea.top, Math.min(chartArea.bottom, top)));
                    ctx.lineTo(x, Math.max(chartArea.top, Math.min(chartArea.bottom, bottom)));
                    ctx.stroke();
                });
            }
            ctx.restore();
        },
    };
}

function scheduleLabel(s: ComparisonSchedule): string {
    return s.baseline ? `${s.name} (baseline)` : s.name;
}

function tenantOf(s: ComparisonSchedule, name: string): ComparisonTenant | undefined {
    return s.tenants.find(t => t.name === name);
}

/** One tenant's co-run p50 and p99 under each schedule, with bounds, SLO targets and the predicted p99. */
function drawTenantLatency(canvas: HTMLCanvasElement, model: ComparisonReportModel, tenant: string): void {
    const colors = tenantColors();
    const fg = themeColor('--vscode-foreground', '#cccccc');
    const sloColor = themeColor('--vscode-charts-red', '#f14c4c');
    const labels = model.schedules.map(scheduleLabel);
    const figures = model.schedules.map(s => tenantOf(s, tenant));
    const slos = figures.find(t => t && t.slos.length > 0)?.slos ?? [];
    type Data = (number | null)[];
    const datasets: ChartDataset<'bar' | 'line', Data>[] = [
        { type: 'bar', label: 'co-run p50', data: figures.map(t => t?.p50?.ms ?? null), backgroundColor: withAlpha(colors[0]!, 0.7) },
        { type: 'bar', label: 'co-run p99', data: figures.map(t => t?.p99?.ms ?? null), backgroundColor: withAlpha(colors[1]!, 0.7) },
        {
            type: 'line', label: 'predicted p99', data: figures.map(t => t?.predictedP99Ms ?? null), showLine: false,
            pointStyle: 'crossRot', pointRadius: 8, pointBorderWidth: 2, borderColor: fg, backgroundColor: fg,
        },
        ...slos.map((slo): ChartDataset<'line', Data> => ({
            type: 'line', label: `SLO ${slo.percentile} ≤ ${formatMs(slo.targetMs)}`, data: labels.map(() => slo.targetMs),
            borderColor: sloColor, backgroundColor: sloColor, borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0,
        })),
    ];
    const bars = new Map<number, Bar[]>([
        [0, figures.map(t => t?.p50 ? { low: t.p50.low, high: t.p50.high } : undefined)],
        [1, figures.map(t => t?.p99 ? { low: t.p99.low, high: t.p99.high } : undefined)],
    ]);
    // Room for the bounded upper ends and the targets; an unbounded end runs to the top.
    const tops = [...figures.flatMap(t => [t?.p99?.high, t?.p99?.ms, t?.p50?.high, t?.predictedP99Ms]), ...slos.map(s => s.targetMs)]
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const config: ChartConfiguration<'bar' | 'line', Data, string> = {
        type: 'bar',
        data: { labels, datasets },
        options: {
            ...baseOptions(),
            plugins: {
                tooltip: {
                    callbacks: {
                        label: ctx => {
                            const t = figures[ctx.dataIndex];
                            if (ctx.datasetIndex === 0 && t?.p50) return `p50 ${formatMs(t.p50.ms)} (${formatRange(t.p50.low, t.p50.high)})`;
                            if (ctx.datasetIndex === 1 && t?.p99) return `p99 ${formatMs(t.p99.ms)} (${formatRange(t.p99.low, t.p99.high)})`;
                            return `${ctx.dataset.label}: ${ms(ctx.parsed.y)}`;
                        },
                    },
                },
            },
            scales: {
                y: { min: 0, suggestedMax: tops.length ? Math.max(...tops) * 1.1 : undefined, title: { display: true, text: 'co-run latency (ms), 95 % bounds' } },
            },
        },
        plugins: [errorBars(bars, fg)],
    };
    keepChart(new Chart(canvas, config));
}

/** Each schedule's headline gain over the baseline with its interval, beside the predicted gain (log scale; above 1: better). */
function drawGains(canvas: HTMLCanvasElement, model: ComparisonReportModel, compared: ComparisonSchedule[]): void {
    const fg = themeColor('--vscode-foreground', '#cccccc');
    const colors = tenantColors();
    type Data = (number | null)[];
    const datasets: ChartDataset<'line', Data>[] = [
        {
            label: 'measured gain (95 % interval)', data: compared.map(s => s.headline?.measured?.estimate ?? null), showLine: false,
            pointRadius: 6, borderColor: colors[0], backgroundColor: colors[0],
        },
        {
            label: 'predicted gain', data: compared.map(s => s.headline?.predicted ?? null), showLine: false,
            pointStyle: 'crossRot', pointRadius: 8, pointBorderWidth: 2, borderColor: fg, backgroundColor: fg,
        },
        { label: `no change (as ${model.baseline})`, data: compared.map(() => 1), borderColor: withAlpha(fg, 0.6), borderDash: [6, 4], borderWidth: 1, pointRadius: 0 },
    ];
    const bars = new Map<number, Bar[]>([[0, compared.map(s => s.headline?.measured ? { low: s.headline.measured.low, high: s.headline.measured.high } : undefined)]]);
    const values = compared.flatMap(s => [s.headline?.measured?.low, s.headline?.measured?.high, s.headline?.measured?.estimate, s.headline?.predicted, 1])
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
    const config: ChartConfiguration<'line', Data, string> = {
        type: 'line',
        data: { labels: compared.map(s => s.name), datasets },
        options: {
            ...baseOptions(),
            plugins: {
                tooltip: {
                    callbacks: {
                        label: ctx => {
                            const h = compared[ctx.dataIndex]?.headline;
                            if (!h) return '';
                            const what = h.metric === 'capacity' ? 'capacity' : `${h.tenant}'s ${h.statistic}`;
                            return `${what}: ${formatPredictedMeasured(h.predicted ?? null, h.measured ?? null)}`;
                        },
                    },
                },
            },
            scales: {
                x: { offset: true },
                y: {
                    type: 'logarithmic', suggestedMin: Math.min(...values) / 1.2, suggestedMax: Math.max(...values) * 1.2,
                    title: { display: true, text: `gain over ${model.baseline} (×, above 1: better)` },
                },
            },
        },
        plugins: [errorBars(bars, colors[0]!)],
    };
    keepChart(new Chart(canvas, config));
}

function boundedCell(b: ComparisonTenant['p50'], requests: number): string {
    if (!b) return '—';
    return b.high === null ? `${ms(b.ms)} (${formatRange(b.low, b.high)}; ${plural(requests, 'request')})` : `${ms(b.ms)} (${formatRange(b.low, b.high)})`;
}

function sloCell(t: ComparisonTenant): { text: string; className: string } {
    if (t.slos.length === 0) return { text: '—', className: '' };
    const text = t.slos.map(s => `${s.percentile} ≤ ${ms(s.targetMs)} ${s.verdict === 'invalid' ? `invalid (needs ${s.requestsNeeded ?? '?'} requests)` : sloMark(s.verdict)}`).join(', ');
    const verdicts = t.slos.map(s => s.verdict);
    return { text, className: verdicts.includes('violated') ? 'bad' : verdicts.every(v => v === 'met') ? 'good' : 'warning' };
}

/** Every schedule × tenant: co-run p50 and p99 with bounds, predicted, SLO verdicts, gain over the baseline, slowdown over solo. */
function schedulesTable(model: ComparisonReportModel): HTMLTableElement {
    const headers = ['schedule', 'tenant', 'requests', 'p50 (95 % bounds)', 'p99 (95 % bounds)', 'predicted p50 / p99', 'SLO', `vs ${model.baseline}`, 'vs solo'];
    const head = el('tr', {}, headers.map(h => el('th', { textContent: h })));
    const rows = model.schedules.flatMap(s => s.tenants.map((t, i) => {
        const slo = sloCell(t);
        const gain = s.baseline ? '—' : t.gain ? `${t.gainStatistic} ${formatGain(t.gain)}` : `${t.gainStatistic} —`;
        const gainClass = t.gain?.verdict === 'better' ? 'good' : t.gain?.verdict === 'worse' ? 'bad' : '';
        return el('tr', {}, [
            el('td', { textContent: i === 0 ? scheduleLabel(s) : '' }),
            el('td', { textContent: t.name }),
            el('td', { textContent: String(t.requests) }),
            el('td', { textContent: boundedCell(t.p50, t.requests) }),
            el('td', { textContent: boundedCell(t.p99, t.requests) }),
            el('td', { textContent: `${ms(t.predictedP50Ms)} / ${ms(t.predictedP99Ms)}` }),
            el('td', { textContent: slo.text, className: slo.className }),
            el('td', { textContent: gain, className: gainClass }),
            el('td', { textContent: t.slowdown ? `${t.slowdownOf}: ${formatSlowdown(t.slowdown)}` : '—' }),
        ]);
    }));
    return el('table', { id: 'schedules-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

function capacityTable(model: ComparisonReportModel): HTMLElement | undefined {
    const searched = model.schedules.filter(s => s.capacity);
    if (searched.length === 0) return undefined;
    const head = el('tr', {}, ['schedule', 'capacity (load)', 'QoS throughput', 'predicted', 'probes'].map(h => el('th', { textContent: h })));
    const rows = searched.map(s => {
        const c = s.capacity!;
        return el('tr', {}, [
            el('td', { textContent: scheduleLabel(s) }), el('td', { textContent: formatCapacityLoad(c) }),
            el('td', { textContent: `${c.throughputPerSecond.toFixed(1)}/s` }),
            el('td', { textContent: `${s.predictedQosThroughput.toFixed(1)}/s at ${c.predictedLoad.toFixed(2)}×` }),
            el('td', { textContent: `${c.probes}${c.budgetReached ? ' (budget reached)' : ''}` }),
        ]);
    });
    return el('table', { id: 'capacity-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

/** The measured best, or that the baseline stays, and why. */
function bestLine(model: ComparisonReportModel): HTMLElement {
    const text = model.best ? `Measured best: ${model.best}. ${model.bestWhy}.` : `${model.baseline} stays best: ${model.bestWhy}.`;
    return el('p', { id: 'best', className: model.best ? 'good' : '', textContent: text });
}

/** Replaces the page with the comparison; returns the ids of the charts drawn. */
export function renderComparison(model: ComparisonReportModel): string[] {
    const root = clearPage();
    const rounds = `${plural(model.rounds, 'round')}${model.roundMs !== null ? ` of ${formatMs(model.roundMs)} per phase` : ''}`;
    const meta = `${model.file} · ${model.adapter} · ${plural(model.schedules.length, 'schedule')} measured in turn, ${rounds} · ${new Date(model.finishedAt).toLocaleString()}`;
    root.append(el('h1', { textContent: `Workload ${model.workload}: schedules compared` }), el('p', { className: 'muted', id: 'meta', textContent: meta }));
    if (model.status !== 'complete') {
        const what = model.status === 'cancelled' ? 'This comparison was cancelled' : model.status === 'partial' ? 'This comparison is partial' : 'This comparison failed';
        root.append(el('p', { className: 'warning', id: 'run-status', textContent: `${what}${model.reason ? `: ${model.reason}` : ''}. The figures cover only the part that ran.` }));
    }
    if (!model.valid) root.append(el('p', { className: 'warning', id: 'validity', textContent: `Not valid: ${model.invalidReasons.join('; ')}.` }));
    if (model.hostWarning) root.append(el('p', { className: 'warning', id: 'host-warning', textContent: `Warning: ${model.hostWarning}.` }));
    if (model.measurementNote) root.append(el('p', { className: 'muted', id: 'measurement-note', textContent: `Rounds: ${model.measurementNote}.` }));
    root.append(bestLine(model));

    const drawn: string[] = [];
    const compared = model.schedules.filter(s => !s.baseline && s.headline);
    const headlines = el('ul', { id: 'headlines' }, compared.map(s => {
        const h = s.headline!;
        const what = h.metric === 'capacity' ? 'capacity' : `${h.tenant}'s ${h.statistic}`;
        const className = h.measured?.verdict === 'better' ? 'good' : h.measured?.verdict === 'worse' ? 'bad' : '';
        return el('li', { className, textContent: `${s.name}: ${what} ${formatPredictedMeasured(h.predicted ?? null, h.measured ?? null)}${h.measured ? ` — ${formatGain(h.measured)}` : ''}` });
    }));
    if (compared.length > 0) {
        const gains = canvasBox('chart-gains', 260);
        root.append(section('gains', `Against the baseline, ${model.baseline} (measured and predicted)`, headlines, gains.box));
        drawGains(gains.canvas, model, compared);
        drawn.push('chart-gains');
    } else {
        root.append(section('gains', `Against the baseline, ${model.baseline}`, el('p', { className: 'muted', textContent: 'No other schedule has a measured gain.' })));
    }

    const tenants = [...new Set(model.schedules.flatMap(s => s.tenants.map(t => t.name)))];
    const boxes: HTMLElement[] = [];
    const pending: [HTMLCanvasElement, string][] = [];
    tenants.forEach((tenant, i) => {
        const chart = canvasBox(`chart-latency-${i}`, 260);
        boxes.push(el('h3', { textContent: tenant }), chart.box);
        pending.push([chart.canvas, tenant]);
    });
    root.append(section('latency', 'Co-run latency per schedule (p50 and p99 with 95 % bounds; × predicted p99; dashed: SLO)', ...boxes));
    pending.forEach(([canvas, tenant], i) => {
        drawTenantLatency(canvas, model, tenant);
        drawn.push(`chart-latency-${i}`);
    });

    root.append(section('schedules', 'Every schedule and tenant', schedulesTable(model)));
    const capacity = capacityTable(model);
    if (capacity) root.append(section('capacity', 'Capacity: the highest load at which every SLO held', capacity));
    const resolved = model.schedules.filter(s => s.why);
    if (resolved.length > 0) root.append(section('why', 'How the schedules were chosen', el('ul', {}, resolved.map(s => el('li', { textContent: `${s.asked} → ${s.name}: ${s.why}` })))));
    root.append(openResultsLink(model.resultsPath, 'Open the comparison file'));
    document.body.dataset.rendered = drawn.join(',');
    document.body.dataset.view = 'comparison';
    return drawn;
}
