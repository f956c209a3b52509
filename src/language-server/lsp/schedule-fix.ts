/**
 * The quick fix of a `schedule-hint`: the workload's `schedule` line rewritten with the suggested
 * schedule (the diagnostic's `data.schedule`), or inserted where the formatter would leave it — its
 * own line at the members' indentation, before the `benchmark` block (as LANGUAGE.md's example
 * orders them) or after the last member, with the blank-line spacing of the lines around it.
 */
import { AstUtils, CstUtils, type LangiumDocument } from 'langium';
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import { isBenchmarkDecl, isScheduleDecl, isWorkload, type Workload } from '../generated/ast.js';

/** The fix for a `schedule-hint` diagnostic, or undefined when the diagnostic carries no schedule or its workload is gone. */
export function scheduleFix(document: LangiumDocument, diagnostic: Diagnostic): CodeAction | undefined {
    const schedule = (diagnostic.data as { schedule?: unknown } | undefined)?.schedule;
    const root = document.parseResult.value.$cstNode;
    if (typeof schedule !== 'string' || !root) return undefined;
    const leaf = CstUtils.findLeafNodeAtOffset(root, document.textDocument.offsetAt(diagnostic.range.start));
    const workload = leaf && AstUtils.getContainerOfType(leaf.astNode, isWorkload);
    if (!workload?.$cstNode) return undefined;
    const line = `schedule ${schedule}`;
    const decl = workload.members.find(isScheduleDecl);
    const edit = decl?.$cstNode ? { range: decl.$cstNode.range, newText: line } : insertion(document, workload, line);
    if (!edit) return undefined;
    return {
        title: `${decl ? 'Change to' : 'Add'} '${line}'`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { changes: { [document.uri.toString()]: [edit] } },
    };
}

/** Where a new schedule line goes in a workload without one, and its text with line breaks and indentation. */
function insertion(document: LangiumDocument, workload: Workload, line: string) {
    const text = document.textDocument.getText();
    const members = workload.members.filter(m => m.$cstNode);
    if (members.length === 0) return undefined;
    const benchmark = members.find(isBenchmarkDecl);
    const anchor = benchmark ?? members[members.length - 1];
    const anchorStart = anchor.$cstNode!.offset;
    const lineStart = text.lastIndexOf('\n', anchorStart - 1) + 1;
    const indent = text.slice(lineStart, anchorStart);
    const at = (offset: number) => ({ start: document.textDocument.positionAt(offset), end: document.textDocument.positionAt(offset) });
    // A one-line workload (`workload w { tenant a {…} tenant b {…} }`): keep its style.
    if (indent.trim() !== '') return { range: at(members[members.length - 1].$cstNode!.end), newText: ` ${line}` };
    // The blank line (or none) the author left before the anchor, kept on the new line's side.
    const before = members.indexOf(anchor) > 0 ? text.slice(members[members.indexOf(anchor) - 1].$cstNode!.end, lineStart) : '\n';
    const blank = (before.match(/\n/g) ?? []).length > 1 ? '\n' : '';
    return benchmark
        ? { range: at(anchorStart), newText: `${line}\n${blank}${indent}` }
        : { range: at(anchor.$cstNode!.end), newText: `\n${blank}${indent}${line}` };
}
