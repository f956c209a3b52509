/// <reference lib="dom" />
/**
 * What the report webview's pages share: the channel to the extension, theme colours (from the
 * --vscode-* CSS variables, so the pages read in light, dark and high contrast), DOM building,
 * sections and chart canvases, and the charts drawn (destroyed before the next page).
 */
import { Chart } from 'chart.js';
import type { ReportViewReply } from '../../../protocol/report.js';
import { formatMs } from '../../../protocol/units.js';

interface VsCodeApi {
    postMessage(message: ReportViewReply): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** Posts to the extension (to the parent page outside VS Code, as in the page tests). */
export const vscode: VsCodeApi = typeof acquireVsCodeApi === 'function'
    ? acquireVsCodeApi()
    : { postMessage: message => window.parent.postMessage(message, '*') };

/** A theme colour by CSS variable, with a fallback for a plain browser page. */
export function themeColor(variable: string, fallback: string): string {
    const value = getComputedStyle(document.body).getPropertyValue(variable).trim();
    return value || fallback;
}

/** One colour per tenant (or series), in order. */
export function tenantColors(): string[] {
    return [
        themeColor('--vscode-charts-blue', '#3794ff'),
        themeColor('--vscode-charts-orange', '#d18616'),
        themeColor('--vscode-charts-green', '#89d185'),
        themeColor('--vscode-charts-purple', '#b180d7'),
        themeColor('--vscode-charts-red', '#f14c4c'),
        themeColor('--vscode-charts-yellow', '#cca700'),
    ];
}

/** `rgb(…)`/`#rrggbb` with an alpha, for fills. */
export function withAlpha(color: string, alpha: number): string {
    const hex = /^#([0-9a-f]{6})$/i.exec(color);
    if (hex) {
        const n = Number.parseInt(hex[1]!, 16);
        return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
    }
    const rgb = /^rgba?\(([^)]+)\)$/.exec(color);
    if (rgb) {
        const [r, g, b] = rgb[1]!.split(',').map(s => s.trim());
        return `rgba(${r}, ${g}, ${b}, ${alpha})`;
    }
    return color;
}

/** A latency in ms, or `—` when there is none. */
export function ms(value: number | undefined | null): string {
    return value === undefined || value === null || !Number.isFinite(value) ? '—' : formatMs(value);
}

/** An element with properties and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, children: (Node | string)[] = []): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    Object.assign(node, props);
    for (const child of children) node.append(child);
    return node;
}

const charts: { destroy(): void }[] = [];

/** Keeps a drawn chart so that the next page destroys it. */
export function keepChart(chart: { destroy(): void }): void {
    charts.push(chart);
}

/** Empties the page: destroys its charts and returns the root element, cleared. */
export function clearPage(): HTMLElement {
    for (const chart of charts.splice(0)) chart.destroy();
    const root = document.getElementById('root')!;
    root.replaceChildren();
    return root;
}

/** A titled section. */
export function section(id: string, title: string, ...content: Node[]): HTMLElement {
    return el('section', { id }, [el('h2', { textContent: title }), ...content]);
}

/** A chart's canvas in a box of the given height. */
export function canvasBox(id: string, height: number): { box: HTMLElement; canvas: HTMLCanvasElement } {
    const canvas = el('canvas', { id });
    canvas.setAttribute('role', 'img');
    const box = el('div', { className: 'chart' }, [canvas]);
    box.style.height = `${height}px`;
    return { box, canvas };
}

/** Chart options every chart starts from, with the theme's colours and font. */
export function baseOptions() {
    const fg = themeColor('--vscode-foreground', '#cccccc');
    const grid = withAlpha(themeColor('--vscode-foreground', '#cccccc'), 0.15);
    Chart.defaults.color = fg;
    Chart.defaults.borderColor = grid;
    Chart.defaults.font.family = themeColor('--vscode-font-family', 'sans-serif');
    return { animation: false as const, responsive: true, maintainAspectRatio: false };
}

/** A link that opens a results (or comparison) file in the editor. */
export function openResultsLink(resultsPath: string, text: string): HTMLElement {
    const open = el('a', { href: '#', textContent: text, id: 'open-results' });
    open.addEventListener('click', event => { event.preventDefault(); vscode.postMessage({ type: 'openResults', path: resultsPath }); });
    return el('p', {}, [open]);
}
