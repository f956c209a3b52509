import type { LangiumDocument } from 'langium';
import {
    formatBytes, formatCount, formatFlops, formatTensor,
    type Cost, type ModelAnalysis, type TenancyAnalyzer, type Value,
} from '../analysis/index.js';
import { isLet, isOutput, isTenant, type Model } from '../generated/ast.js';
import type { HoverSection, HoverTarget } from './hover-provider.js';

/**
 * The hover section that shows what the analysis infers (a view over `analysis/`, no second
 * logic): a tensor's shape and the cost of the op producing it, a call's output and cost, a
 * model's totals (at its defaults, or as a tenant instantiates it), a tenant's totals.
 */
export function analysisHoverSection(analyzer: () => TenancyAnalyzer): HoverSection {
    return (target: HoverTarget, _document: LangiumDocument) => {
        const a = analyzer();
        switch (target.kind) {
            case 'binding': {
                const b = target.binding;
                const value = a.binding(b);
                const lines: string[] = [];
                // A parameter or dim variable is its own symbol: only a computed value says more.
                if (value && !(value.kind === 'dim' && value.dim.toString() === b.name)) lines.push(valueLine(value));
                if ((isLet(b) || isOutput(b)) && b.value) {
                    const cost = a.expression(b.value)?.cost;
                    if (cost) lines.push(costLine(cost));
                }
                return lines.join('\n\n') || undefined;
            }
            case 'operator':
            case 'model': {
                if (target.call) {
                    const tenant = target.call.$container?.$container;
                    if (target.kind === 'model' && tenant && isTenant(tenant)) {
                        const instance = a.tenant(tenant);
                        return instance && totalsLines(instance, 'As this tenant instantiates it');
                    }
                    const info = a.expression(target.call);
                    if (!info) return undefined;
                    return [valueLine(info.value, 'Inferred'), info.cost && costLine(info.cost)].filter(Boolean).join('\n\n');
                }
                return target.kind === 'model' ? totalsLines(a.atDefaults(target.model), defaultsLabel(target.model)) : undefined;
            }
            case 'tenant': {
                const instance = a.tenant(target.tenant);
                return instance && totalsLines(instance, 'Model instance');
            }
            default:
                return undefined;
        }
    };
}

function defaultsLabel(model: Model): string {
    return model.params.every(p => p.default !== undefined) || model.params.length === 0 ? 'At the defaults' : 'At the defaults (other parameters symbolic)';
}

function valueLine(value: Value, label = 'Shape'): string {
    switch (value.kind) {
        case 'tensor': return `**${label}:** \`${formatTensor(value.tensor)}\``;
        case 'dim': return `**Value:** \`${value.dim.toString()}\``;
        case 'error': return '**Shape:** unknown (see the error on this line)';
        default: return '';
    }
}

function costLine(cost: Cost): string {
    return `**Cost:** ${formatFlops(cost.flops)} · reads ${formatBytes(cost.bytesRead)} · writes ${formatBytes(cost.bytesWritten)} · ${formatCount(cost.params)} params`;
}

function totalsLines(analysis: ModelAnalysis, label: string): string {
    const t = analysis.totals;
    const lines = [
        `**${label}:** ${formatFlops(t.flops)} · ${formatCount(t.params)} params (${formatBytes(t.weightBytes)}) · ${t.opCount} ops`,
    ];
    const io = [...analysis.inputs.map(i => `in \`${formatTensor(i)}\``), ...analysis.outputs.map(o => `out \`${formatTensor(o)}\``)];
    if (io.length > 0) lines.push(io.join(' · '));
    if (t.peakBytes !== undefined) lines.push(`**Peak memory:** ${formatBytes(t.peakBytes)}`);
    return lines.join('\n\n');
}
