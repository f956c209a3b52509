import { AstUtils, CstUtils, GrammarUtils, type AstNode, type CstNode, type LangiumDocument, type MaybePromise } from 'langium';
import type { HoverProvider } from 'langium/lsp';
import type { Hover, HoverParams } from 'vscode-languageserver';
import type { OperatorParam, OperatorSignature } from '../analysis/operators.js';
import { formatSignature } from '../analysis/operators.js';
import {
    isArg, isArrivalProp, isBenchmarkSetting, isCall, isDeviceDecl, isDimVar, isInput, isLet, isModel, isNamedArg,
    isNameRef, isOutput, isParam, isPriorityProp, isScheduleDecl, isSloProp, isTenant, isWorkload,
    type Binding, type Call, type Model, type ScheduleDecl, type Tenant, type Workload,
} from '../generated/ast.js';
import { callTarget, inputType, modelSignature, type CallTarget } from './call-target.js';
import { findWord, wordSignature, type Word, type WordContext } from './workload-words.js';
import { isZooModel } from './zoo-uri.js';
import { analysisHoverSection } from './analysis-hover.js';
import { predictionHoverSection } from '../prediction/prediction-features.js';
import { scheduleHoverSection } from '../prediction/schedule-hints.js';
import { resolveDimVar } from '../references/bindings.js';
import type { TenancyServices } from '../tenancy-module.js';

/** What the cursor is on, resolved: every hover section renders from this. */
export type HoverTarget =
    | { kind: 'model'; model: Model; call?: Call }
    | { kind: 'operator'; op: OperatorSignature; call?: Call }
    | { kind: 'binding'; binding: Binding }
    | { kind: 'argument'; name: string; call: Call; target: CallTarget }
    | { kind: 'tenant'; tenant: Tenant }
    | { kind: 'workload'; workload: Workload }
    | { kind: 'schedule'; schedule: ScheduleDecl }
    | { kind: 'word'; context: WordContext; word: Word; node: AstNode };

/**
 * One part of a hover: markdown, or undefined when it has nothing to say about the target.
 * Sections are joined in order.
 */
export type HoverSection = (target: HoverTarget, document: LangiumDocument) => MaybePromise<string | undefined>;

/**
 * Hover = a list of sections over one resolved target, in order: what it is, its docs, its
 * details, the analysis (shapes, costs), the predictions (services.prediction.Predictions) and,
 * on a schedule, the schedules compared (services.prediction.ScheduleHints).
 */
export class TenancyHoverProvider implements HoverProvider {
    protected readonly sections: HoverSection[];

    constructor(protected readonly services: TenancyServices) {
        const docs = services.documentation.DocumentationProvider;
        // Made on first use: the prediction services are wired to services that may not exist yet.
        let prediction: HoverSection | undefined;
        let schedules: HoverSection | undefined;
        this.sections = [
            target => signatureSection(target),
            target => {
                const documented = documentedNode(target);
                return documented && docs.getDocumentation(documented);
            },
            target => detailSection(target),
            analysisHoverSection(() => services.analysis.Analyzer),
            (target, document) => (prediction ??= predictionHoverSection(services))(target, document),
            (target, document) => (schedules ??= scheduleHoverSection(services))(target, document),
        ];
    }

    async getHoverContent(document: LangiumDocument, params: HoverParams): Promise<Hover | undefined> {
        const cst = document.parseResult.value.$cstNode;
        if (!cst) return undefined;
        const leaf = CstUtils.findDeclarationNodeAtOffset(cst, document.textDocument.offsetAt(params.position), /\w/);
        const target = leaf && hoverTarget(leaf);
        if (!target) return undefined;
        const parts: string[] = [];
        for (const section of this.sections) {
            const part = await section(target, document);
            if (part) parts.push(part);
        }
        if (parts.length === 0) return undefined;
        return { contents: { kind: 'markdown', value: parts.join('\n\n') }, range: leaf.range };
    }
}

/** Resolves the token under the cursor to what it names. */
export function hoverTarget(leaf: CstNode): HoverTarget | undefined {
    const node: AstNode = leaf.astNode;
    const feature = GrammarUtils.findAssignment(leaf)?.feature;
    if (isCall(node) && feature === 'callee') {
        const target = callTarget(node);
        if (!target) return undefined;
        return target.kind === 'model' ? { kind: 'model', model: target.model, call: node } : { kind: 'operator', op: target.op, call: node };
    }
    if (isNameRef(node)) {
        const ref = node.ref.ref;
        return ref ? { kind: 'binding', binding: ref } : undefined;
    }
    if (feature === 'name') {
        if (isModel(node)) return { kind: 'model', model: node };
        if (isTenant(node)) return { kind: 'tenant', tenant: node };
        if (isWorkload(node)) return { kind: 'workload', workload: node };
        if (isDimVar(node)) {
            // A lone name naming a parameter or an earlier dim variable stands for that binding.
            const model = AstUtils.getContainerOfType(node, isModel);
            return { kind: 'binding', binding: model ? resolveDimVar(node, model) : node };
        }
        if (isParam(node) || isInput(node) || isLet(node) || isOutput(node)) return { kind: 'binding', binding: node };
        if (isArg(node) && node.name) {
            const target = callTarget(node.$container);
            return target ? { kind: 'argument', name: node.name, call: node.$container, target } : undefined;
        }
        if (isNamedArg(node)) return wordArgTarget(node);
    }
    // `output relu(x)` has no name: the keyword stands for the output.
    if (isOutput(node) && leaf.text === 'output' && !node.name) return { kind: 'binding', binding: node };
    if (isScheduleDecl(node) && leaf.text === 'schedule' && !feature) return { kind: 'schedule', schedule: node };
    return wordTarget(node, feature);
}

/** The node whose `///` docs a target shows. */
function documentedNode(target: HoverTarget): AstNode | undefined {
    switch (target.kind) {
        case 'model': return target.model;
        case 'tenant': return target.tenant;
        case 'workload': return target.workload;
        case 'argument': return target.target.kind === 'model' ? target.target.model : undefined;
        default: return undefined;
    }
}

function wordTarget(node: AstNode, feature: string | undefined): HoverTarget | undefined {
    const pick = (context: WordContext, text: string | undefined) => {
        const word = text === undefined ? undefined : findWord(context, text);
        return word ? { kind: 'word' as const, context, word, node } : undefined;
    };
    if (isArrivalProp(node) && feature === 'kind') return pick('arrival', node.kind);
    if (isScheduleDecl(node) && feature === 'policy') return pick('schedule', node.policy);
    if (isSloProp(node) && feature === 'percentile') return pick('percentile', node.percentile);
    if (isPriorityProp(node) && feature === 'level') return pick('priority', node.level);
    if (isDeviceDecl(node) && feature === 'kind') return pick('device', node.kind);
    if (isBenchmarkSetting(node) && feature === 'key') return pick('benchmark', node.key);
    return undefined;
}

function wordArgTarget(node: AstNode & { name: string; $container: AstNode }): HoverTarget | undefined {
    const owner = node.$container;
    const context: WordContext | undefined = isArrivalProp(owner) ? 'arrival' : isScheduleDecl(owner) ? 'schedule' : isDeviceDecl(owner) ? 'device' : undefined;
    const text = isArrivalProp(owner) || isDeviceDecl(owner) ? owner.kind : isScheduleDecl(owner) ? owner.policy : undefined;
    const word = context && text !== undefined ? findWord(context, text) : undefined;
    return context && word ? { kind: 'word', context, word, node: owner } : undefined;
}

const code = (text: string) => '```tenancy\n' + text + '\n```';

/** The first section: what the thing is, as code. */
export function signatureSection(target: HoverTarget): string | undefined {
    switch (target.kind) {
        case 'model': return code(modelSignature(target.model));
        case 'operator': return code(formatSignature(target.op));
        case 'argument': {
            const sig = target.target.kind === 'operator' ? formatSignature(target.target.op) : modelSignature(target.target.model);
            return code(sig);
        }
        case 'tenant': return code(`tenant ${target.tenant.name}`);
        case 'workload': return code(`workload ${target.workload.name}`);
        case 'word': return code(wordSignature(target.word));
        case 'schedule': return code(target.schedule.$cstNode?.text.replace(/\s+/g, ' ').trim() ?? 'schedule');
        case 'binding': return code(bindingText(target.binding));
    }
}

function bindingText(b: Binding): string {
    if (isInput(b)) return `input ${b.name}: ${inputType(b)}`;
    if (isParam(b)) return `(parameter) ${b.name}${b.default === undefined ? '' : ` = ${b.default}`}`;
    if (isDimVar(b)) return `(dim variable) ${b.name}`;
    if (isOutput(b)) return b.name ? `output ${b.name}` : 'output';
    return `(tensor) ${b.name}`;
}

/** The second section: parameters, shape rules, tenant properties. */
export function detailSection(target: HoverTarget): string | undefined {
    switch (target.kind) {
        case 'operator': return operatorDetails(target.op);
        case 'model': return modelDetails(target.model);
        case 'argument': {
            if (target.target.kind === 'operator') {
                const p = target.target.op.params.find(q => q.name === target.name);
                return p ? paramLine(p) : `\`${target.name}\` is not a parameter of \`${target.target.op.name}\``;
            }
            const p = target.target.model.params.find(q => q.name === target.name);
            return p ? `\`${p.name}\` — integer parameter${p.default === undefined ? ' (required)' : `, default ${p.default}`}` : undefined;
        }
        case 'tenant': return tenantDetails(target.tenant);
        case 'workload': return `Tenants: ${target.workload.members.filter(isTenant).filter(t => t.name).map(t => `\`${t.name}\``).join(', ') || 'none'}`;
        case 'word': return wordDetails(target.word);
        case 'schedule': {
            const word = target.schedule.policy === undefined ? undefined : findWord('schedule', target.schedule.policy);
            return word && wordDetails(word);
        }
        case 'binding': {
            const b = target.binding;
            if (isDimVar(b)) return 'A dim variable: binds by unification when the model is called as a block.';
            if (isParam(b)) return `Integer parameter${b.$container.name ? ` of \`${b.$container.name}\`` : ''}${b.default === undefined ? ' (required)' : `, default ${b.default}`}.`;
            return undefined;
        }
    }
}

function paramLine(p: OperatorParam): string {
    return `\`${p.name}\`${p.default === undefined ? '' : ` = \`${p.default}\``} — ${p.doc}`;
}

function operatorDetails(op: OperatorSignature): string {
    const lines = [op.doc, '', `**Output:** ${op.shapeRule}`, '', ...op.params.map(p => `- ${paramLine(p)}`)];
    if (op.hasWeights) lines.push('', 'Owns implicit weights, filled deterministically from the benchmark seed.');
    if (op.composite) lines.push('', 'Composite: lowers to several kernels.');
    return lines.join('\n');
}

function modelDetails(model: Model): string {
    const lines: string[] = [];
    if (isZooModel(model)) lines.push('*From the built-in model zoo.*', '');
    for (const s of model.statements) {
        if (isInput(s)) lines.push(`- input \`${s.name}: ${inputType(s)}\``);
        else if (isOutput(s)) lines.push(`- output${s.name ? ` \`${s.name}\`` : ''}`);
    }
    return lines.join('\n');
}

function tenantDetails(t: Tenant): string {
    const lines: string[] = [];
    for (const p of t.props) {
        const text = p.$cstNode?.text.replace(/\s+/g, ' ').trim();
        if (text) lines.push(`- \`${text}\``);
    }
    if (!t.props.some(isArrivalProp)) lines.push('- `arrival closed(clients: 1)` (default)');
    if (!t.props.some(isPriorityProp)) lines.push('- `priority normal` (default)');
    return lines.join('\n');
}

function wordDetails(w: Word): string {
    const lines = [w.doc];
    for (const a of w.args ?? []) lines.push(`- \`${a.name}\`${a.default === undefined ? '' : ` = \`${a.default}\``} — ${a.doc}`);
    return lines.join('\n');
}
