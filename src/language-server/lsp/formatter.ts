import { GrammarAST, GrammarUtils, isCompositeCstNode, type AstNode, type CstNode } from 'langium';
import { AbstractFormatter, Formatting, type FormattingAction, type FormattingRegion, type NodeFormatter } from 'langium/lsp';
import * as ast from '../generated/ast.js';

const { fit, indent, newLine, newLines, noSpace, oneSpace } = Formatting;
/** A line break that keeps one blank line where the author left one. */
const lineKeepingBlank = fit(newLine(), newLines(2));
/** The same, one level deeper (the members of a block). */
const indentKeepingBlank: FormattingAction = { options: {}, moves: [{ tabs: 1, lines: 1 }, { tabs: 1, lines: 2 }] };

/**
 * The formatter: 2-space indents (from the editor's options), one statement per line, one space
 * after commas and colons and around `=`, `<=` and dim arithmetic, none inside brackets. Blank
 * lines between statements and blocks are kept (at most one); comments stay where they are.
 * Only whitespace changes, so the meaning never does; `64 / s` keeps its spaces (`64/s` would
 * be a rate).
 */
export class TenancyFormatter extends AbstractFormatter {

    // Langium keys the formatting of each CST node by the string `${offset}:${end}:${mode}`,
    // made, hashed and looked up twice per CST node of the document: most of the time of
    // formatting a long file (10 s for 20,000 lines on a loaded host). A number packs the same
    // three parts (offsets stay below 2^22: document-factory.ts caps a document at 2 Mi
    // characters) and is looked up several times faster; it is used only as a Map key.
    protected override nodeModeToKey(node: CstNode, mode: 'prepend' | 'append'): string {
        return ((node.offset * 2 ** 22 + node.end) * 2 + (mode === 'append' ? 1 : 0)) as unknown as string;
    }

    protected format(node: AstNode): void {
        const f = this.getNodeFormatter(node);
        // The node's keywords, found in one walk of its text (f.keyword walks it once per keyword asked for).
        const k = new OwnKeywords(node, f);
        if (ast.isDocument(node)) {
            const [, ...rest] = [...node.imports, ...node.elements];
            if (rest.length > 0) f.nodes(...rest).prepend(lineKeepingBlank);
        } else if (ast.isImport(node)) {
            k.first('import').append(oneSpace());
        } else if (ast.isModel(node)) {
            k.first('model').append(oneSpace());
            this.list(k, '(', ')');
            this.block(f, k, node.statements);
        } else if (ast.isParam(node)) {
            k.first('=').surround(oneSpace());
        } else if (ast.isInput(node)) {
            k.first('input').append(oneSpace());
            k.first(':').prepend(noSpace()).append(oneSpace());
            k.first('[').prepend(noSpace()).append(noSpace());
            k.first(']').prepend(noSpace());
            k.all(',').prepend(noSpace()).append(oneSpace());
        } else if (ast.isLet(node)) {
            k.first('=').surround(oneSpace());
        } else if (ast.isOutput(node)) {
            k.first('output').append(oneSpace());
            k.first('=').surround(oneSpace());
        } else if (ast.isCall(node)) {
            this.callList(node, f, k);
        } else if (ast.isArg(node) || ast.isNamedArg(node)) {
            k.first(':').prepend(noSpace()).append(oneSpace());
        } else if (ast.isBinaryExpr(node)) {
            f.property('operator').surround(oneSpace());
        } else if (ast.isNegation(node)) {
            k.first('-').append(noSpace());
        } else if (ast.isTuple(node)) {
            this.list(k, '(', ')');
        } else if (ast.isRepeat(node)) {
            k.first('repeat').append(oneSpace());
            f.property('count').append(oneSpace());
        } else if (ast.isWorkload(node)) {
            k.first('workload').append(oneSpace());
            this.block(f, k, node.members);
        } else if (ast.isDeviceDecl(node)) {
            k.first('device').append(oneSpace());
            this.list(k, '(', ')');
        } else if (ast.isTenant(node)) {
            k.first('tenant').append(oneSpace());
            this.block(f, k, node.props);
        } else if (ast.isModelProp(node)) {
            k.first('model').append(oneSpace());
        } else if (ast.isArrivalProp(node)) {
            k.first('arrival').append(oneSpace());
            this.list(k, '(', ')');
        } else if (ast.isSloProp(node)) {
            k.first('slo').append(oneSpace());
            k.first('<=').surround(oneSpace());
        } else if (ast.isPriorityProp(node)) {
            k.first('priority').append(oneSpace());
        } else if (ast.isScheduleDecl(node)) {
            k.first('schedule').append(oneSpace());
            this.list(k, '(', ')');
        } else if (ast.isBenchmarkDecl(node)) {
            this.block(f, k, node.settings);
        } else if (ast.isBenchmarkSetting(node)) {
            f.property('key').append(oneSpace());
        } else if (ast.isSweepDecl(node)) {
            k.first('sweep').append(oneSpace());
            this.block(f, k, node.settings);
        } else if (ast.isSweepSetting(node)) {
            f.property('key').append(oneSpace());
            k.all(',').prepend(noSpace()).append(oneSpace());
        } else if (ast.isSweepValue(node)) {
            this.list(k, '(', ')');
        }
        if (isExpression(node)) this.wrappingParens(node, f, k);
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

function isExpression(node: AstNode): boolean {
    return ast.isBinaryExpr(node) || ast.isNegation(node) || ast.isCall(node) || ast.isNameRef(node) || ast.isIntLit(node)
        || ast.isDecimalLit(node) || ast.isQuantityLit(node) || ast.isStringLit(node) || ast.isBoolLit(node)
        || ast.isTuple(node) || ast.isRepeat(node);
}

/** The `(` after a call's callee and the first `)` after it (the call's own brackets). */
function callParens(node: ast.Call, k: OwnKeywords): Array<CstNode | undefined> {
    const cst = node.$cstNode;
    const callee = cst && GrammarUtils.findNodeForProperty(cst, 'callee');
    if (!cst || !callee) return [undefined, undefined];
    const open = k.nodes('(').find(n => n.offset >= callee.end);
    const close = open && k.nodes(')').find(n => n.offset > open.offset);
    return [open, close];
}
