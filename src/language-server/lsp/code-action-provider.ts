import { AstUtils, CstUtils, GrammarUtils, type AstNode, type LangiumDocument, type MaybePromise } from 'langium';
import type { CodeActionProvider, LangiumServices } from 'langium/lsp';
import { CodeActionKind, type CodeAction, type CodeActionParams, type Command, type Diagnostic } from 'vscode-languageserver';
import { findOperator, operators } from '../analysis/operators.js';
import {
    isArg, isArrivalProp, isCall, isDeviceDecl, isDocument, isModel, isNamedArg, isNameRef, isScheduleDecl,
    isSloProp, isPriorityProp, isBenchmarkSetting, isLet, isTenant, isWorkload, type Call, type Expression,
} from '../generated/ast.js';
import { bindingTable } from '../references/bindings.js';
import type { TenancyServices } from '../tenancy-module.js';
import { IssueCodes } from '../validation/issue-codes.js';
import { closest } from '../validation/suggest.js';
import { callTarget } from './call-target.js';
import { scheduleFix } from './schedule-fix.js';
import { workloadWords, type WordContext } from './workload-words.js';

/**
 * Quick fixes keyed on the stable IssueCodes: did-you-mean for unresolved references, unknown
 * operators and bad argument names or words, "create model" for a call of a model that does
 * not exist, and a schedule hint's schedule line (schedule-fix.ts). Candidates come from the
 * diagnostic's `data.suggestions` when the validator attached them, else from the scope and the
 * operator and word tables.
 */
export class TenancyCodeActionProvider implements CodeActionProvider {
    constructor(protected readonly services: LangiumServices) {}

    getCodeActions(document: LangiumDocument, params: CodeActionParams): MaybePromise<Array<Command | CodeAction> | undefined> {
        const actions: CodeAction[] = [];
        for (const diagnostic of params.context.diagnostics) {
            const code = diagnosticCode(diagnostic);
            if (code === IssueCodes.UnresolvedReference || code === IssueCodes.UnknownOp || code === IssueCodes.BadArgument) {
                actions.push(...this.didYouMean(document, diagnostic));
            }
            if (code === IssueCodes.UnresolvedReference || code === IssueCodes.UnknownOp) {
                const create = this.createModel(document, diagnostic);
                if (create) actions.push(create);
            }
            if (code === IssueCodes.KeywordName) {
                const output = this.letOutputToOutput(document, diagnostic);
                if (output) actions.push(output);
            }
            if (code === IssueCodes.ScheduleHint) {
                const fix = scheduleFix(document, diagnostic);
                if (fix) actions.push(fix);
            }
        }
        return actions;
    }

    /** Replacements for the misspelt name at the diagnostic, best first. */
    protected didYouMean(document: LangiumDocument, diagnostic: Diagnostic): CodeAction[] {
        const site = this.nameAt(document, diagnostic);
        if (!site) return [];
        const given = (diagnostic.data as { suggestions?: unknown } | undefined)?.suggestions;
        const candidates = Array.isArray(given) && given.every(s => typeof s === 'string')
            ? given as string[]
            : closest(site.text, this.candidates(site.node, site.feature));
        return candidates.map((name, i): CodeAction => ({
            title: `Change to '${name}'`,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: i === 0,
            edit: { changes: { [document.uri.toString()]: [{ range: site.range, newText: name }] } },
        }));
    }

    /** The name token a diagnostic is about: its AST node, the grammar feature and its range. */
    protected nameAt(document: LangiumDocument, diagnostic: Diagnostic) {
        const root = document.parseResult.value.$cstNode;
        if (!root) return undefined;
        const leaf = CstUtils.findLeafNodeAtOffset(root, document.textDocument.offsetAt(diagnostic.range.start));
        if (!leaf || !/^[A-Za-z_]\w*$/.test(leaf.text)) return undefined;
        const feature = GrammarUtils.findAssignment(leaf)?.feature;
        if (!feature) return undefined;
        return { node: leaf.astNode, feature, text: leaf.text, range: leaf.range };
    }

    /** Every name that could stand where `node.feature` is. */
    protected candidates(node: AstNode, feature: string): string[] {
        if (isCall(node) && feature === 'callee') {
            const inTenant = AstUtils.getContainerOfType(node, isTenant) !== undefined;
            const models = this.scopeNames({ reference: node.callee, container: node, property: 'callee' });
            return inTenant ? models : [...operators.map(o => o.name), ...models];
        }
        if (isNameRef(node) && feature === 'ref') {
            return this.scopeNames({ reference: node.ref, container: node, property: 'ref' });
        }
        if (isArg(node) && feature === 'name') {
            const target = callTarget(node.$container);
            if (!target) return [];
            return target.kind === 'operator' ? target.op.params.map(p => p.name) : target.model.params.map(p => p.name);
        }
        if (isNamedArg(node) && feature === 'name') {
            const owner = node.$container;
            const ctx: WordContext | undefined = isArrivalProp(owner) ? 'arrival' : isScheduleDecl(owner) ? 'schedule' : isDeviceDecl(owner) ? 'device' : undefined;
            const word = isArrivalProp(owner) || isDeviceDecl(owner) ? owner.kind : isScheduleDecl(owner) ? owner.policy : undefined;
            const args = ctx && workloadWords[ctx].find(w => w.word === word)?.args;
            return (args ?? []).map(a => a.name);
        }
        const ctx: WordContext | undefined = isArrivalProp(node) && feature === 'kind' ? 'arrival'
            : isScheduleDecl(node) && feature === 'policy' ? 'schedule'
                : isSloProp(node) && feature === 'percentile' ? 'percentile'
                    : isPriorityProp(node) && feature === 'level' ? 'priority'
                        : isDeviceDecl(node) && feature === 'kind' ? 'device'
                            : isBenchmarkSetting(node) && feature === 'key' ? 'benchmark' : undefined;
        return ctx ? workloadWords[ctx].map(w => w.word) : [];
    }

    private scopeNames(info: Parameters<LangiumServices['references']['ScopeProvider']['getScope']>[0]): string[] {
        return [...new Set(this.services.references.ScopeProvider.getScope(info).getAllElements().map(d => d.name))];
    }

    /**
     * `output = dense(h, 10)` binds a tensor named output; when nothing reads it, the author meant
     * an output statement: `output out = dense(h, 10)`.
     */
    protected letOutputToOutput(document: LangiumDocument, diagnostic: Diagnostic): CodeAction | undefined {
        const site = this.nameAt(document, diagnostic);
        if (!site || !isLet(site.node) || site.text !== 'output') return undefined;
        const let_ = site.node;
        if (this.services.references.References.findReferences(let_, { includeDeclaration: false }).head()) return undefined;
        const taken = new Set(bindingTable(let_.$container).entries.map(e => e.name));
        let name = 'out';
        for (let i = 2; taken.has(name); i++) name = `out${i}`;
        return {
            title: `Make it an output statement: 'output ${name} = …'`,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: true,
            edit: { changes: { [document.uri.toString()]: [{ range: site.range, newText: `output ${name}` }] } },
        };
    }

    /** `Create model 'name'` for a call of an unknown model: a skeleton with the call's arguments. */
    protected createModel(document: LangiumDocument, diagnostic: Diagnostic): CodeAction | undefined {
        const site = this.nameAt(document, diagnostic);
        if (!site || !isCall(site.node) || site.feature !== 'callee') return undefined;
        const call = site.node;
        if (call.callee.ref || findOperator(site.text)) return undefined;
        const root = document.parseResult.value;
        if (!isDocument(root)) return undefined;
        const top = AstUtils.getContainerOfType(call, (n): n is AstNode => isModel(n) || isWorkload(n));
        const analyzer = (this.services as TenancyServices).analysis.Analyzer;
        const text = modelSkeleton(site.text, call, arg => {
            const value = analyzer.expression(arg)?.value;
            return value?.kind === 'tensor' ? { dtype: value.tensor.dtype, rank: value.tensor.shape.length } : undefined;
        });
        const tdoc = document.textDocument;
        const edit = top && isModel(top)
            ? { range: rangeAt(tdoc, top.$cstNode!.end), newText: `\n\n${text}` }
            : top ? { range: rangeAt(tdoc, top.$cstNode!.offset), newText: `${text}\n\n` }
                : { range: rangeAt(tdoc, tdoc.getText().length), newText: `\n${text}\n` };
        return {
            title: `Create model '${site.text}'`,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            edit: { changes: { [document.uri.toString()]: [edit] } },
        };
    }
}

function rangeAt(doc: LangiumDocument['textDocument'], offset: number) {
    const p = doc.positionAt(offset);
    return { start: p, end: p };
}

/**
 * `model name(batch = 8) { input x: f32[…] output relu(x) }`: named arguments become parameters
 * (an integer value becomes the default), positional ones inputs named after the tensors passed.
 */
export function modelSkeleton(name: string, call: Call, tensorOf: (arg: Expression) => { dtype: string; rank: number } | undefined = () => undefined): string {
    const params = call.args.filter(a => a.name !== undefined).map(a => {
        const v = a.value;
        return v.$type === 'IntLit' ? `${a.name} = ${(v as { value: number }).value}` : a.name!;
    });
    const used = new Set<string>(call.args.filter(a => a.name !== undefined).map(a => a.name!));
    const inputs = call.args.filter(a => a.name === undefined).map((a, i) => {
        let base = isNameRef(a.value) ? a.value.ref.$refText : `x${i}`;
        while (used.has(base)) base = `${base}_`;
        used.add(base);
        // Dim variables of the passed tensor's rank (2 when the analysis does not know it).
        const tensor = tensorOf(a.value);
        const dims = Array.from({ length: tensor?.rank ?? 2 }, (_, k) => (k === 0 ? `n${i}` : `d${i}${tensor && tensor.rank > 2 ? `_${k}` : ''}`));
        return { name: base, dtype: tensor?.dtype ?? 'f32', dims };
    });
    const batch = call.args.find(a => a.name === 'batch') ? 'batch' : '1';
    const lines = [`model ${name}(${params.join(', ')}) {`];
    if (inputs.length === 0) {
        lines.push(`  input x: f32[${batch}, 16]`, '  output relu(x)');
    } else {
        // The inputs' dims are dim variables: they bind to the caller's tensors by unification.
        for (const input of inputs) lines.push(`  input ${input.name}: ${input.dtype}[${input.dims.join(', ')}]`);
        lines.push(`  output relu(${inputs[0]!.name})`);
    }
    lines.push('}');
    return lines.join('\n');
}

function diagnosticCode(d: Diagnostic): string | undefined {
    const fromData = (d.data as { code?: unknown } | undefined)?.code;
    return typeof fromData === 'string' ? fromData : typeof d.code === 'string' ? d.code : undefined;
}
