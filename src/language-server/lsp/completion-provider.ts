import { AstUtils, GrammarAST, type LangiumDocument, type MaybePromise } from 'langium';
import {
    DefaultCompletionProvider, type CompletionAcceptor, type CompletionContext, type CompletionProviderOptions,
    type LangiumServices, type NextFeature,
} from 'langium/lsp';
import {
    CompletionItemKind, CompletionList, InsertTextFormat, type CompletionItem, type CompletionParams,
} from 'vscode-languageserver';
import { stream, TextDocument, URI, type AstNodeDescription, type ReferenceInfo, type Stream } from 'langium';
import { formatSignature, operators, type OperatorParam, type OperatorSignature } from '../analysis/operators.js';
import { isDocument, isLet, isModel, isNameRef, isOutput, isSweepSetting, isTenant, type SweepSetting } from '../generated/ast.js';
import { visibleBindings } from '../references/bindings.js';
import { findCallContext, unmatchedOpener } from './call-context.js';
import { callTargetByName, modelSignature } from './call-target.js';
import { benchmarkExamples, sweepExamples, sweepListValues, unitsByKind, workloadWords, wordSignature, wordSnippet, type Word, type WordContext } from './workload-words.js';

/**
 * Where a closed word list applies: the grammar property being completed, with the keyword
 * before it (the follow-element computation reports the property but, inside the `Name` data
 * type rule, not the rule that owns it: `kind` is both an arrival's and a device's).
 */
const wordFeatures: Readonly<Record<string, WordContext>> = {
    'arrival kind': 'arrival',
    'schedule policy': 'schedule',
    'slo percentile': 'percentile',
    'priority level': 'priority',
    'device kind': 'device',
};

/**
 * Completion: operators with signature snippets, models (user, imported, zoo) with their docs,
 * tensors in scope, named arguments not yet given, the closed words of workloads in context,
 * and units after a number where a quantity is expected.
 */
export class TenancyCompletionProvider extends DefaultCompletionProvider {
    override readonly completionOptions: CompletionProviderOptions = { triggerCharacters: ['(', ','] };

    constructor(protected readonly services: LangiumServices) {
        super(services);
    }

    override async getCompletion(document: LangiumDocument, params: CompletionParams): Promise<CompletionList | undefined> {
        const units = this.unitCompletion(document, params);
        if (units) return units;
        return super.getCompletion(document, params);
    }

    /**
     * Lists allow a trailing comma, so after `f(x, ` the parser takes the comma as the trailing one
     * and only `)` would follow; what may follow is what may follow the opening bracket.
     */
    protected override findFeaturesAt(document: TextDocument, offset: number): NextFeature[] {
        const text = document.getText();
        if (/,\s*$/.test(text.slice(Math.max(0, offset - 200), offset))) {
            const opener = unmatchedOpener(text, offset);
            if (opener && opener.ch !== '{') return this.featuresFromElement(document, opener.at + 1);
        }
        return this.featuresFromElement(document, offset);
    }

    /**
     * Langium parses the text from its start to the cursor for every completion (a second on a
     * 20,000-line file). What may follow the cursor depends only on the top-level model or
     * workload it is in, so the parse starts there.
     */
    private featuresFromElement(document: TextDocument, offset: number): NextFeature[] {
        const root = this.services.shared.workspace.LangiumDocuments.getDocument(URI.parse(document.uri))?.parseResult.value;
        let start = 0;
        if (isDocument(root)) {
            for (const element of root.elements) {
                const at = element.$cstNode?.offset;
                if (at === undefined || at > offset) break;
                start = at;
            }
        }
        if (start === 0) return super.findFeaturesAt(document, offset);
        const element = TextDocument.create(document.uri, document.languageId, document.version, document.getText().slice(start, offset));
        return super.findFeaturesAt(element, offset - start);
    }

    protected override completionFor(context: CompletionContext, next: NextFeature, acceptor: CompletionAcceptor): MaybePromise<void> {
        // A name (the ID terminal, which soft keywords' tokens also match) rather than a keyword or a reference.
        const typingName = GrammarAST.isRuleCall(next.feature) && next.feature.rule.ref?.name === 'ID';
        // Inside a tenant's `model m(…)` the values are integers: only the parameter names to propose.
        if (this.inTenant(context) && findCallContext(context.textDocument.getText(), context.offset)) {
            return typingName && next.property === 'name' ? this.completeArgumentNames(context, acceptor) : undefined;
        }
        // A value of a sweep block's setting (a word, a number, a quantity or a string): what its key takes.
        if (next.type === 'SweepValue') return this.completeSweepValues(context, acceptor);
        if (typingName) {
            // A name is being typed: soft keywords are not keywords here.
            // Only the closed word lists and argument names have something to propose.
            if (next.property === 'key') return this.completeWords(context, next.type === 'SweepSetting' ? 'sweep' : 'benchmark', acceptor);
            const words = wordFeatures[`${this.keywordBefore(context)} ${next.property}`];
            if (words) return this.completeWords(context, words, acceptor);
            if (next.property === 'name') return this.completeArgumentNames(context, acceptor);
            return;
        }
        const assignment = AstUtils.getContainerOfType(next.feature, GrammarAST.isAssignment);
        if (GrammarAST.isCrossReference(next.feature) && assignment?.feature === 'callee' && !this.inTenant(context)) {
            this.completeOperators(context, acceptor);
        }
        return super.completionFor(context, next, acceptor);
    }

    protected override getReferenceCandidates(refInfo: ReferenceInfo, context: CompletionContext): Stream<AstNodeDescription> {
        if (refInfo.property === 'callee') {
            // The scope lists models by precedence (this file, imports, workspace, zoo): the first
            // of a name is the one a call links to, so a user model hides the zoo model it shadows.
            return super.getReferenceCandidates(refInfo, context).filter(d => d.type === 'Model').distinct(d => d.name);
        }
        if (isNameRef(refInfo.container) && refInfo.property === 'ref') {
            // The reference being completed does not exist in the text yet: ask what a reference at
            // the cursor would see (bindings made by earlier text, the latest of each name).
            const model = context.node && AstUtils.getContainerOfType(context.node, isModel);
            if (!model) return stream([]);
            // A statement still being typed (`y = |`) parses as a binding without a value: not yet one.
            return stream(visibleBindings(model, context.tokenOffset))
                .filter(e => !((isLet(e.node) || isOutput(e.node)) && !e.node.value?.$cstNode))
                .map(e => this.services.workspace.AstNodeDescriptionProvider.createDescription(e.node, e.name));
        }
        return super.getReferenceCandidates(refInfo, context);
    }

    protected override createReferenceCompletionItem(description: AstNodeDescription, refInfo: ReferenceInfo, context: CompletionContext) {
        const item = super.createReferenceCompletionItem(description, refInfo, context);
        const node = description.node;
        if (node && isModel(node)) item.detail = modelSignature(node);
        return item;
    }

    /** The word before the token being completed (`arrival` in `arrival po|`). */
    private keywordBefore(context: CompletionContext): string | undefined {
        const before = context.textDocument.getText().slice(Math.max(0, context.tokenOffset - 100), context.tokenOffset);
        return /([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(before)?.[1];
    }

    /**
     * The values a sweep setting's list may take next (`schedules concurrent, |`, `loads 0.5, |`,
     * `sbatch "--qos=high", |`): schedules, as after `schedule`; common load factors and sbatch
     * options. What the list already has is left out, except a schedule with arguments (one may
     * list `layer_block(size: 2), layer_block(size: 4)`). Settings that take one value get nothing.
     */
    private completeSweepValues(context: CompletionContext, acceptor: CompletionAcceptor): void {
        const setting = this.sweepSettingAt(context);
        if (!setting) return;
        // The values before and after the cursor, not the one being typed.
        const others = setting.values.filter(v => v.$cstNode && !(v.$cstNode.offset <= context.tokenOffset && context.tokenOffset <= v.$cstNode.end));
        if (setting.key === 'schedules') {
            const listed = new Set(others.filter(v => v.args.length === 0 && !v.$cstNode?.text.includes('(')).map(v => v.word));
            return this.completeWords(context, 'schedule', acceptor, w => !(listed.has(w.word) && !w.args));
        }
        if (setting.key !== 'loads' && setting.key !== 'sbatch') return;
        const given = setting.key === 'loads'
            ? new Set(others.map(v => v.number).filter(n => n !== undefined).map(String))
            : new Set(others.map(v => v.text?.split(/[=\s]/)[0]).filter(n => n !== undefined));
        for (const item of sweepListValues[setting.key]) {
            const key = setting.key === 'loads' ? item.value : item.value.slice(1).split('=')[0];
            if (given.has(key)) continue;
            acceptor(context, {
                label: item.value,
                kind: CompletionItemKind.Value,
                detail: `sweep ${setting.key}`,
                documentation: { kind: 'markdown', value: item.doc },
                insertText: item.snippet,
                insertTextFormat: item.snippet === item.value ? InsertTextFormat.PlainText : InsertTextFormat.Snippet,
                sortText: '0',
            });
        }
    }

    /**
     * The sweep setting whose list the cursor is in: from the tree (a list may span lines), else —
     * where the half-typed text did not parse into one — the setting the cursor's line starts with.
     */
    private sweepSettingAt(context: CompletionContext): Pick<SweepSetting, 'key' | 'values'> | undefined {
        const fromTree = context.node && AstUtils.getContainerOfType(context.node, isSweepSetting);
        if (fromTree) return fromTree;
        const text = context.textDocument.getText();
        const line = text.slice(text.lastIndexOf('\n', context.tokenOffset - 1) + 1, context.tokenOffset);
        const key = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(line)?.[1];
        return key ? { key, values: [] } : undefined;
    }

    private inTenant(context: CompletionContext): boolean {
        return context.node !== undefined && AstUtils.getContainerOfType(context.node, isTenant) !== undefined;
    }

    protected completeWords(context: CompletionContext, words: WordContext, acceptor: CompletionAcceptor, offered: (w: Word) => boolean = () => true): void {
        const nextChar = context.textDocument.getText().charAt(context.tokenEndOffset);
        for (const w of workloadWords[words].filter(offered)) {
            const snippet = words === 'benchmark' ? `${w.word} \${1:${benchmarkExamples[w.word] ?? ''}}`
                : words === 'sweep' ? `${w.word} \${1:${sweepExamples[w.word] ?? ''}}`
                : nextChar === '(' ? w.word : wordSnippet(w, words === 'schedule');
            acceptor(context, {
                label: w.word,
                kind: CompletionItemKind.EnumMember,
                detail: wordSignature(w),
                documentation: { kind: 'markdown', value: w.doc },
                insertText: snippet,
                insertTextFormat: snippet === w.word ? InsertTextFormat.PlainText : InsertTextFormat.Snippet,
                sortText: '0',
            });
        }
    }

    protected completeOperators(context: CompletionContext, acceptor: CompletionAcceptor): void {
        const nextChar = context.textDocument.getText().charAt(context.tokenEndOffset);
        for (const op of operators) {
            const snippet = nextChar === '(' ? op.name : operatorSnippet(op);
            acceptor(context, {
                label: op.name,
                kind: CompletionItemKind.Function,
                detail: formatSignature(op),
                documentation: { kind: 'markdown', value: `${op.doc}\n\n**Output:** ${op.shapeRule}` },
                insertText: snippet,
                insertTextFormat: InsertTextFormat.Snippet,
                sortText: '1',
            });
        }
    }

    /** Named arguments of the called operator, model or workload word that are not given yet. */
    protected completeArgumentNames(context: CompletionContext, acceptor: CompletionAcceptor): void {
        const text = context.textDocument.getText();
        const call = findCallContext(text, context.offset);
        if (!call || !call.atArgStart) return;
        // `model m(|` declares parameters outside a tenant; inside one it is a call.
        if (call.preceding === 'model' && !this.inTenant(context)) return;
        const available = this.argumentsOf(context.document, call.callee, call.preceding)
            .filter(a => !call.givenNames.includes(a.name) && !(a.position !== undefined && a.position < call.positionalBefore));
        for (const a of available) {
            acceptor(context, {
                label: `${a.name}:`,
                filterText: a.name,
                kind: CompletionItemKind.Property,
                detail: a.detail,
                documentation: a.doc,
                insertText: `${a.name}: `,
                sortText: '0',
            });
        }
    }

    /** The named arguments a call may take; `position` is set where the argument may also be positional. */
    private argumentsOf(document: LangiumDocument, callee: string, preceding: string | undefined): Array<{ name: string; detail: string; doc: string; position?: number }> {
        const words: WordContext | undefined = preceding === 'arrival' ? 'arrival' : preceding === 'schedule' ? 'schedule' : preceding === 'device' ? 'device' : undefined;
        if (words) {
            const w = workloadWords[words].find(x => x.word === callee);
            return (w?.args ?? []).map(a => ({ name: a.name, detail: a.default === undefined ? 'required' : `default ${a.default}`, doc: a.doc }));
        }
        const target = callTargetByName(this.services, document, callee);
        if (!target) return [];
        if (target.kind === 'operator') {
            return target.op.params.map((p, position) => ({ name: p.name, detail: paramDetail(p), doc: p.doc, position }))
                .filter((_, i) => target.op.params[i]!.kind !== 'tensors');
        }
        return target.model.params.map(p => ({
            name: p.name,
            detail: p.default === undefined ? 'required' : `default ${p.default}`,
            doc: `integer parameter of \`${target.model.name}\``,
        }));
    }

    /** After `slo p99 <= 40`, `rate: 20`, `memory: 2`, `duration 10`: the units of that quantity. */
    protected unitCompletion(document: LangiumDocument, params: CompletionParams): CompletionList | undefined {
        const offset = document.textDocument.offsetAt(params.position);
        const text = document.textDocument.getText();
        const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        const line = text.slice(lineStart, offset);
        const m = /(?:(<=)|\b(rate|every|think|memory)\s*:|\b(duration|warmup))\s*(\d+(?:\.\d+)?)$/.exec(line);
        if (!m) return undefined;
        const kind = m[2] === 'rate' ? 'rate' : m[2] === 'memory' ? 'memory' : 'time';
        const number = m[4]!;
        const start = document.textDocument.positionAt(offset - number.length);
        const items: CompletionItem[] = unitsByKind[kind].map((unit, i) => ({
            label: `${number}${unit}`,
            kind: CompletionItemKind.Unit,
            detail: `${kind} unit`,
            filterText: `${number}${unit}`,
            sortText: String(i),
            textEdit: { range: { start, end: params.position }, newText: `${number}${unit}` },
        }));
        return CompletionList.create(items, false);
    }
}

function paramDetail(p: OperatorParam): string {
    return p.default === undefined ? `required (${p.kind})` : `default ${p.default}`;
}

/** `conv2d(${1:x}, ${2:filters}, kernel: ${3:3})`: tensors and the first required value positional, other required ones named. */
export function operatorSnippet(op: OperatorSignature): string {
    const required = op.params.filter(p => p.default === undefined);
    let n = 0;
    let positionalValue = false;
    const parts: string[] = [];
    for (const p of required) {
        if (p.kind === 'tensors') {
            parts.push(`\${${++n}:a}`, `\${${++n}:b}`);
        } else if (p.kind === 'tensor') {
            parts.push(`\${${++n}:${p.name}}`);
        } else if (!positionalValue) {
            positionalValue = true;
            parts.push(`\${${++n}:${p.kind === 'int-tuple' ? '(1, -1)' : p.kind === 'int-or-pair' ? '3' : p.name}}`);
        } else {
            parts.push(`${p.name}: \${${++n}:${p.kind === 'int-or-pair' ? '3' : p.kind === 'int-tuple' ? '(1, -1)' : p.name}}`);
        }
    }
    return `${op.name}(${parts.join(', ')})`;
}
