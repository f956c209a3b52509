import { GrammarUtils, type AstNode, type CstNode } from 'langium';
import { AbstractFormatter, Formatting, type FormattingAction, type NodeFormatter } from 'langium/lsp';
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

    protected format(node: AstNode): void {
        const f = this.getNodeFormatter(node);
        if (ast.isDocument(node)) {
            const [, ...rest] = [...node.imports, ...node.elements];
            if (rest.length > 0) f.nodes(...rest).prepend(lineKeepingBlank);
        } else if (ast.isImport(node)) {
            f.keyword('import').append(oneSpace());
        } else if (ast.isModel(node)) {
            f.keyword('model').append(oneSpace());
            this.list(f, '(', ')');
            this.block(f, node.statements);
        } else if (ast.isParam(node)) {
            f.keyword('=').surround(oneSpace());
        } else if (ast.isInput(node)) {
            f.keyword('input').append(oneSpace());
            f.keyword(':').prepend(noSpace()).append(oneSpace());
            f.keyword('[').prepend(noSpace()).append(noSpace());
            f.keyword(']').prepend(noSpace());
            f.keywords(',').prepend(noSpace()).append(oneSpace());
        } else if (ast.isLet(node)) {
            f.keyword('=').surround(oneSpace());
        } else if (ast.isOutput(node)) {
            f.keyword('output').append(oneSpace());
            f.keyword('=').surround(oneSpace());
        } else if (ast.isCall(node)) {
            this.callList(node, f);
        } else if (ast.isArg(node) || ast.isNamedArg(node)) {
            f.keyword(':').prepend(noSpace()).append(oneSpace());
        } else if (ast.isBinaryExpr(node)) {
            f.property('operator').surround(oneSpace());
        } else if (ast.isNegation(node)) {
            f.keyword('-').append(noSpace());
        } else if (ast.isTuple(node)) {
            this.list(f, '(', ')');
        } else if (ast.isRepeat(node)) {
            f.keyword('repeat').append(oneSpace());
            f.property('count').append(oneSpace());
        } else if (ast.isWorkload(node)) {
            f.keyword('workload').append(oneSpace());
            this.block(f, node.members);
        } else if (ast.isDeviceDecl(node)) {
            f.keyword('device').append(oneSpace());
            this.list(f, '(', ')');
        } else if (ast.isTenant(node)) {
            f.keyword('tenant').append(oneSpace());
            this.block(f, node.props);
        } else if (ast.isModelProp(node)) {
            f.keyword('model').append(oneSpace());
        } else if (ast.isArrivalProp(node)) {
            f.keyword('arrival').append(oneSpace());
            this.list(f, '(', ')');
        } else if (ast.isSloProp(node)) {
            f.keyword('slo').append(oneSpace());
            f.keyword('<=').surround(oneSpace());
        } else if (ast.isPriorityProp(node)) {
            f.keyword('priority').append(oneSpace());
        } else if (ast.isScheduleDecl(node)) {
            f.keyword('schedule').append(oneSpace());
            this.list(f, '(', ')');
        } else if (ast.isBenchmarkDecl(node)) {
            this.block(f, node.settings);
        } else if (ast.isBenchmarkSetting(node)) {
            f.property('key').append(oneSpace());
        } else if (ast.isSweepDecl(node)) {
            f.keyword('sweep').append(oneSpace());
            this.block(f, node.settings);
        } else if (ast.isSweepSetting(node)) {
            f.property('key').append(oneSpace());
            f.keywords(',').prepend(noSpace()).append(oneSpace());
        } else if (ast.isSweepValue(node)) {
            this.list(f, '(', ')');
        }
        if (isExpression(node)) this.wrappingParens(node, f);
    }

    /**
     * `(a + b)`: a parenthesised expression is not a node of its own; its brackets belong to the
     * inner expression's node. Tighten their insides (the outside follows the context).
     */
    private wrappingParens(node: AstNode, f: NodeFormatter<AstNode>): void {
        const cst = node.$cstNode;
        if (!cst) return;
        const own = ast.isCall(node) ? callParens(node) : ast.isTuple(node) ? [firstKeyword(cst, '('), lastKeyword(cst, ')')] : [];
        const opens = GrammarUtils.findNodesForKeyword(cst, '(').filter(n => !own.includes(n));
        const closes = GrammarUtils.findNodesForKeyword(cst, ')').filter(n => !own.includes(n));
        if (opens.length > 0) f.cst(opens).append(noSpace());
        if (closes.length > 0) f.cst(closes).prepend(noSpace());
    }

    /** A call's own brackets: the `(` right after the callee and the first `)` after it. */
    private callList(node: ast.Call, f: NodeFormatter<AstNode>): void {
        const [open, close] = callParens(node);
        if (open) f.cst([open]).prepend(noSpace()).append(noSpace());
        if (close) f.cst([close]).prepend(noSpace());
        f.keywords(',').prepend(noSpace()).append(oneSpace());
    }

    /** `name(a, b: 1)`: no space around the brackets' insides, one after each comma. */
    private list(f: NodeFormatter<AstNode>, open: string, close: string): void {
        f.keyword(open).prepend(noSpace()).append(noSpace());
        f.keyword(close).prepend(noSpace());
        f.keywords(',').prepend(noSpace()).append(oneSpace());
    }

    /** `{ … }`: the brace after one space, each member on its own indented line, `}` on its own line. */
    private block(f: NodeFormatter<AstNode>, members: readonly AstNode[]): void {
        const open = f.keyword('{');
        const close = f.keyword('}');
        open.prepend(oneSpace());
        f.interior(open, close).prepend(indent());
        // The first member right after the brace; later ones keep a blank line before them.
        if (members.length > 0) f.node(members[0]!).prepend(indent());
        if (members.length > 1) f.nodes(...members.slice(1)).prepend(indentKeepingBlank);
        close.prepend(newLine());
    }
}

function isExpression(node: AstNode): boolean {
    return ast.isBinaryExpr(node) || ast.isNegation(node) || ast.isCall(node) || ast.isNameRef(node) || ast.isIntLit(node)
        || ast.isDecimalLit(node) || ast.isQuantityLit(node) || ast.isStringLit(node) || ast.isBoolLit(node)
        || ast.isTuple(node) || ast.isRepeat(node);
}

function firstKeyword(cst: CstNode, keyword: string): CstNode | undefined {
    return GrammarUtils.findNodesForKeyword(cst, keyword)[0];
}

function lastKeyword(cst: CstNode, keyword: string): CstNode | undefined {
    return GrammarUtils.findNodesForKeyword(cst, keyword).at(-1);
}

/** The `(` after a call's callee and the first `)` after it (the call's own brackets). */
function callParens(node: ast.Call): Array<CstNode | undefined> {
    const cst = node.$cstNode;
    const callee = cst && GrammarUtils.findNodeForProperty(cst, 'callee');
    if (!cst || !callee) return [undefined, undefined];
    const open = GrammarUtils.findNodesForKeyword(cst, '(').find(n => n.offset >= callee.end);
    const close = open && GrammarUtils.findNodesForKeyword(cst, ')').find(n => n.offset > open.offset);
    return [open, close];
}
