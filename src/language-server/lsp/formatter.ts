import {
    CstUtils, GrammarAST, interruptAndCheck, isAstNode, isCompositeCstNode, isLeafCstNode, OperationCancelled,
    type AstNode, type CompositeCstNode, type CstNode, type LangiumDocument,
} from 'langium';
import { AbstractFormatter, Formatting, type FormattingAction, type FormattingCollector, type FormattingContext, type FormattingRegion, type NodeFormatter } from 'langium/lsp';
import { CancellationToken, type DocumentFormattingParams, type DocumentRangeFormattingParams, type FormattingOptions, type Range, type TextEdit } from 'vscode-languageserver';
import * as ast from '../generated/ast.js';
import { propertyNodes } from '../parser/property-nodes.js';

const { fit, indent, newLine, newLines, noSpace, oneSpace } = Formatting;
/** A line break that keeps one blank line where the author left one. */
const lineKeepingBlank = fit(newLine(), newLines(2));
/** The same, one level deeper (the members of a block). */
const indentKeepingBlank: FormattingAction = { options: {}, moves: [{ tabs: 1, lines: 1 }, { tabs: 1, lines: 2 }] };
/** Nodes between two looks at the clock and the cancellation token. */
const stepNodes = 256;

/**
 * The formatter: 2-space indents (from the editor's options), one statement per line, one space
 * after commas and colons and around `=`, `<=` and dim arithmetic, none inside brackets. Blank
 * lines between statements and blocks are kept (at most one); comments stay where they are.
 * Only whitespace changes, so the meaning never does; `64 / s` keeps its spaces (`64/s` would
 * be a rate).
 *
 * A whole document is formatted in steps: every few hundred nodes it yields to the event loop
 * (when it has run for Langium's interruption period) and honours cancellation, so a long file
 * (20,000 lines) neither blocks other requests nor outlives the editor's interest in it. A
 * cancelled request, or one whose document was re-parsed meanwhile (its edits would be for the
 * old text), ends with OperationCancelled and no edits.
 */
export class TenancyFormatter extends AbstractFormatter {

    override async formatDocument(document: LangiumDocument, params: DocumentFormattingParams, cancelToken = CancellationToken.None): Promise<TextEdit[]> {
        const pr = document.parseResult;
        // A text with syntax errors is not formatted (Langium's rule: its tree may not match the text).
        if (pr.lexerErrors.length > 0 || pr.parserErrors.length > 0) return [];
        return this.formatInSteps(document, params.options, undefined, cancelToken);
    }

    override async formatDocumentRange(document: LangiumDocument, params: DocumentRangeFormattingParams, cancelToken = CancellationToken.None): Promise<TextEdit[]> {
        if (!this.isFormatRangeErrorFree(document, params.range)) return [];
        return this.formatInSteps(document, params.options, params.range, cancelToken);
    }

    /**
     * Langium's doDocumentFormat, in steps: the formatting each AST node asks for is collected
     * (`format`, in Langium's order: pre-order, properties in key order), then a walk of the CST
     * turns it into edits (Langium's iterateCstFormatting: the indentation goes back to what it
     * was at a node's start once its children are done). Both walks keep their own stack rather
     * than Langium's streams (an iterator object per node).
     */
    private async formatInSteps(document: LangiumDocument, options: FormattingOptions, range: Range | undefined, cancelToken: CancellationToken): Promise<TextEdit[]> {
        const parsed = document.parseResult;
        const textDocument = document.textDocument;
        const pause = async () => {
            await interruptAndCheck(cancelToken);
            if (document.parseResult !== parsed) throw OperationCancelled;
        };
        let count = 0;
        const table = new FormattingTable();
        const collect: FormattingCollector = (node, mode, formatting) => table.add(node, mode, formatting);
        const root = parsed.value;
        this.collector = collect;
        this.format(root);
        const nodes: AstNode[] = [];
        pushChildren(root, nodes);
        while (nodes.length > 0) {
            if (++count % stepNodes === 0) {
                await pause();
                // Another request may have formatted meanwhile: format() reports to this.collector.
                this.collector = collect;
            }
            const node = nodes.pop()!;
            if (node.$cstNode && !this.insideRange(node.$cstNode.range, range)) continue;
            this.format(node);
            pushChildren(node, nodes);
        }

        const context: FormattingContext = { indentation: 0, options, document: textDocument };
        const edits: TextEdit[] = [];
        const keep = (found: TextEdit[]) => {
            for (const edit of found) if (edit && this.insideRange(edit.range, range)) edits.push(edit);
        };
        const rootCst = root.$cstNode;
        const frames: Array<{ node: CompositeCstNode; next: number; indentation: number }> = rootCst && isCompositeCstNode(rootCst) ? [{ node: rootCst, next: 0, indentation: 0 }] : [];
        let last: CstNode | undefined;
        while (frames.length > 0) {
            const frame = frames[frames.length - 1]!;
            if (frame.next >= frame.node.content.length) {
                context.indentation = frame.indentation;
                frames.pop();
                continue;
            }
            if (++count % stepNodes === 0) await pause();
            const node = frame.node.content[frame.next++]!;
            if (isCompositeCstNode(node)) frames.push({ node, next: 0, indentation: context.indentation });
            // A composite node's offset and end are found by walking down to its first and last text.
            const offset = node.offset;
            const prepend = table.take(node, offset, 'prepend');
            if (prepend) keep(this.createTextEdit(last, node, prepend, context));
            const append = table.take(node, offset, 'append');
            if (append) {
                const following = CstUtils.getNextNode(node);
                if (following) keep(this.createTextEdit(node, following, append, context));
            }
            if (!prepend && node.hidden) keep(this.createHiddenTextEdits(last, node, undefined, context));
            if (isLeafCstNode(node)) last = node;
        }
        await pause();
        return this.avoidOverlappingEdits(textDocument, edits);
    }

    protected format(node: AstNode): void {
        const f = this.getNodeFormatter(node);
        // The node's keywords, found in one walk of its text (f.keyword walks it once per keyword asked for).
        const k = new OwnKeywords(node, f);
        // By the node's type: every type here is concrete (none has subtypes), and a switch costs
        // less than a reflection check (ast.isX) per type and node.
        switch (node.$type) {
            case ast.Document.$type: {
                const d = node as ast.Document;
                const [, ...rest] = [...d.imports, ...d.elements];
                if (rest.length > 0) f.nodes(...rest).prepend(lineKeepingBlank);
                break;
            }
            case ast.Import.$type:
                k.first('import').append(oneSpace());
                break;
            case ast.Model.$type:
                k.first('model').append(oneSpace());
                this.list(k, '(', ')');
                this.block(f, k, (node as ast.Model).statements);
                break;
            case ast.Param.$type:
            case ast.Let.$type:
                k.first('=').surround(oneSpace());
                break;
            case ast.Input.$type:
                k.first('input').append(oneSpace());
                k.first(':').prepend(noSpace()).append(oneSpace());
                k.first('[').prepend(noSpace()).append(noSpace());
                k.first(']').prepend(noSpace());
                k.all(',').prepend(noSpace()).append(oneSpace());
                break;
            case ast.Output.$type:
                k.first('output').append(oneSpace());
                k.first('=').surround(oneSpace());
                break;
            case ast.Call.$type:
                this.callList(node as ast.Call, f, k);
                break;
            case ast.Arg.$type:
            case ast.NamedArg.$type:
                k.first(':').prepend(noSpace()).append(oneSpace());
                break;
            case ast.BinaryExpr.$type:
                property(f, node, 'operator').surround(oneSpace());
                break;
            case ast.Negation.$type:
                k.first('-').append(noSpace());
                break;
            case ast.Tuple.$type:
            case ast.SweepValue.$type:
                this.list(k, '(', ')');
                break;
            case ast.Repeat.$type:
                k.first('repeat').append(oneSpace());
                property(f, node, 'count').append(oneSpace());
                break;
            case ast.Workload.$type:
                k.first('workload').append(oneSpace());
                this.block(f, k, (node as ast.Workload).members);
                break;
            case ast.DeviceDecl.$type:
                k.first('device').append(oneSpace());
                this.list(k, '(', ')');
                break;
            case ast.Tenant.$type:
                k.first('tenant').append(oneSpace());
                this.block(f, k, (node as ast.Tenant).props);
                break;
            case ast.ModelProp.$type:
                k.first('model').append(oneSpace());
                break;
            case ast.ArrivalProp.$type:
                k.first('arrival').append(oneSpace());
                this.list(k, '(', ')');
                break;
            case ast.SloProp.$type:
                k.first('slo').append(oneSpace());
                k.first('<=').surround(oneSpace());
                break;
            case ast.PriorityProp.$type:
                k.first('priority').append(oneSpace());
                break;
            case ast.ScheduleDecl.$type:
                k.first('schedule').append(oneSpace());
                this.list(k, '(', ')');
                break;
            case ast.BenchmarkDecl.$type:
                this.block(f, k, (node as ast.BenchmarkDecl).settings);
                break;
            case ast.BenchmarkSetting.$type:
                property(f, node, 'key').append(oneSpace());
                break;
            case ast.SweepDecl.$type:
                k.first('sweep').append(oneSpace());
                this.block(f, k, (node as ast.SweepDecl).settings);
                break;
            case ast.SweepSetting.$type:
                property(f, node, 'key').append(oneSpace());
                k.all(',').prepend(noSpace()).append(oneSpace());
                break;
        }
        if (expressionTypes.has(node.$type)) this.wrappingParens(node, f, k);
    }

    /**
     * `(a + b)`: a parenthesised expression is not a node of its own; its brackets belong to the
     * inner expression's node. Tighten their insides (the outside follows the context).
     */
    private wrappingParens(node: AstNode, f: NodeFormatter<AstNode>, k: OwnKeywords): void {
        const opens = k.nodes('(');
        const closes = k.nodes(')');
        if (opens.length === 0 && closes.length === 0) return;
        const own = ast.isCall(node) ? callParens(node, k) : ast.isTuple(node) ? [opens[0], closes.at(-1)] : [];
        const wrapping = (n: CstNode) => !own.includes(n);
        if (opens.some(wrapping)) f.cst(opens.filter(wrapping)).append(noSpace());
        if (closes.some(wrapping)) f.cst(closes.filter(wrapping)).prepend(noSpace());
    }

    /** A call's own brackets: the `(` right after the callee and the first `)` after it. */
    private callList(node: ast.Call, f: NodeFormatter<AstNode>, k: OwnKeywords): void {
        const [open, close] = callParens(node, k);
        if (open) f.cst([open]).prepend(noSpace()).append(noSpace());
        if (close) f.cst([close]).prepend(noSpace());
        k.all(',').prepend(noSpace()).append(oneSpace());
    }

    /** `name(a, b: 1)`: no space around the brackets' insides, one after each comma. */
    private list(k: OwnKeywords, open: string, close: string): void {
        k.first(open).prepend(noSpace()).append(noSpace());
        k.first(close).prepend(noSpace());
        k.all(',').prepend(noSpace()).append(oneSpace());
    }

    /** `{ … }`: the brace after one space, each member on its own indented line, `}` on its own line. */
    private block(f: NodeFormatter<AstNode>, k: OwnKeywords, members: readonly AstNode[]): void {
        const open = k.first('{');
        const close = k.first('}');
        open.prepend(oneSpace());
        f.interior(open, close).prepend(indent());
        // The first member right after the brace; later ones keep a blank line before them.
        if (members.length > 0) f.node(members[0]!).prepend(indent());
        if (members.length > 1) f.nodes(...members.slice(1)).prepend(indentKeepingBlank);
        close.prepend(newLine());
    }
}

/**
 * The keyword leaves of a node's own text (not of the nodes inside it), in text order, by
 * keyword: what Langium's `findNodesForKeyword` finds, from one walk per node.
 */
class OwnKeywords {
    private readonly byKeyword = new Map<string, CstNode[]>();

    constructor(node: AstNode, private readonly f: NodeFormatter<AstNode>) {
        const root = node.$cstNode;
        if (!root) return;
        const stack: CstNode[] = [root];
        while (stack.length > 0) {
            const cst = stack.pop()!;
            if (cst !== root && cst.astNode !== node) continue; // a node inside this one
            if (isCompositeCstNode(cst)) {
                for (let i = cst.content.length - 1; i >= 0; i--) stack.push(cst.content[i]!);
            } else if (GrammarAST.isKeyword(cst.grammarSource)) {
                const value = cst.grammarSource.value;
                const same = this.byKeyword.get(value);
                if (same) same.push(cst);
                else this.byKeyword.set(value, [cst]);
            }
        }
    }

    /** Every occurrence of a keyword. */
    nodes(keyword: string): CstNode[] {
        return this.byKeyword.get(keyword) ?? [];
    }

    /** The first occurrence of a keyword, as a region (`f.keyword`). */
    first(keyword: string): FormattingRegion {
        return this.f.cst(this.nodes(keyword).slice(0, 1));
    }

    /** Every occurrence of a keyword, as a region (`f.keywords`). */
    all(keyword: string): FormattingRegion {
        return this.f.cst(this.nodes(keyword));
    }
}

/** The expression types (concrete: Expression's subtypes), whose brackets may wrap them. */
const expressionTypes = new Set<string>([
    ast.BinaryExpr.$type, ast.Negation.$type, ast.Call.$type, ast.NameRef.$type, ast.IntLit.$type, ast.DecimalLit.$type,
    ast.QuantityLit.$type, ast.StringLit.$type, ast.BoolLit.$type, ast.Tuple.$type, ast.Repeat.$type,
]);

/** A node's first text node of a property, as a region (`f.property`, with the grammar lookup cached: parser/property-nodes.ts). */
function property(f: NodeFormatter<AstNode>, node: AstNode, name: string): FormattingRegion {
    return f.cst(propertyNodes(node, name).slice(0, 1));
}

/** The `(` after a call's callee and the first `)` after it (the call's own brackets). */
function callParens(node: ast.Call, k: OwnKeywords): Array<CstNode | undefined> {
    const callee = propertyNodes(node, 'callee')[0];
    if (!callee) return [undefined, undefined];
    const open = k.nodes('(').find(n => n.offset >= callee.end);
    const close = open && k.nodes(')').find(n => n.offset > open.offset);
    return [open, close];
}

/** Pushes a node's child nodes onto a stack so that they pop in property order (Langium's streamContents order). */
function pushChildren(node: AstNode, stack: AstNode[]): void {
    const first = stack.length;
    // for…in visits own keys in Object.keys order (AST nodes are plain objects).
    for (const property in node) {
        if (property.charCodeAt(0) === 36) continue; // `$type`, `$container`, `$cstNode`, …
        const value = (node as unknown as Record<string, unknown>)[property];
        if (Array.isArray(value)) {
            for (const element of value) if (isAstNode(element)) stack.push(element);
        } else if (isAstNode(value)) stack.push(value);
    }
    for (let i = first, j = stack.length - 1; i < j; i++, j--) [stack[i], stack[j]] = [stack[j]!, stack[i]!];
}

/**
 * The formatting asked for per CST node side, keyed as Langium keys it — by the node's offset
 * and end, so a node and its only child share one entry and it is applied once — but without a
 * string (Langium's `${offset}:${end}:${mode}`, made and hashed twice per CST node) or a number
 * too large to be a small integer: by offset and side, then the few ends that start there.
 */
class FormattingTable {
    private readonly byStart = new Map<number, Array<{ end: number; action: FormattingAction }>>();

    /** Keeps the action unless one of higher priority is kept for the same node and side (Langium's rule). */
    add(node: CstNode, mode: 'prepend' | 'append', action: FormattingAction): void {
        const key = node.offset * 2 + (mode === 'append' ? 1 : 0);
        const end = node.end;
        const entries = this.byStart.get(key);
        if (!entries) {
            this.byStart.set(key, [{ end, action }]);
            return;
        }
        const existing = entries.find(e => e.end === end);
        if (!existing) entries.push({ end, action });
        else if ((existing.action.options.priority ?? 0) <= (action.options.priority ?? 0)) existing.action = action;
    }

    /** The action for the node and side, removed (the CST walk applies each once). */
    take(node: CstNode, offset: number, mode: 'prepend' | 'append'): FormattingAction | undefined {
        const entries = this.byStart.get(offset * 2 + (mode === 'append' ? 1 : 0));
        if (!entries || entries.length === 0) return undefined;
        const end = node.end;
        for (let i = 0; i < entries.length; i++) {
            if (entries[i]!.end !== end) continue;
            const { action } = entries[i]!;
            entries.splice(i, 1);
            return action;
        }
        return undefined;
    }
}
