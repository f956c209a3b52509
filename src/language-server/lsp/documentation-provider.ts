import type { AstNode, DocumentationProvider } from 'langium';
import { isModel, isTenant, isWorkload } from '../generated/ast.js';

/**
 * `///` documentation (docs/language.md#lexical-rules): consecutive `///` lines directly above a
 * model, tenant or workload are its markdown docs; a blank line (or any other line) ends the block.
 * The comments are hidden tokens, so they are read from the text above the node's first token.
 */
export class TenancyDocumentationProvider implements DocumentationProvider {

    /** The markdown docs of `node`, or undefined when it has none. */
    getDocumentation(node: AstNode): string | undefined {
        if (!isModel(node) && !isTenant(node) && !isWorkload(node)) return undefined;
        const cst = node.$cstNode;
        if (!cst) return undefined;
        return docCommentAbove(cst.root.fullText, cst.offset);
    }
}

/** The `///` block directly above `offset` in `text`, stripped of the markers, or undefined. */
export function docCommentAbove(text: string, offset: number): string | undefined {
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    // Only whitespace may precede the declaration on its own line.
    if (text.slice(lineStart, offset).trim() !== '') return undefined;
    const lines: string[] = [];
    let end = lineStart - 1; // index of the '\n' ending the previous line
    while (end >= 0) {
        const start = text.lastIndexOf('\n', end - 1) + 1;
        const line = text.slice(start, end).replace(/\r$/, '').trim();
        if (!line.startsWith('///')) break;
        lines.unshift(line.slice(3).replace(/^ /, ''));
        end = start - 1;
    }
    return lines.length > 0 ? lines.join('\n') : undefined;
}

/** Ranges (offsets) of the `///` blocks in `text`: each covers two or more consecutive doc lines. */
export function docCommentBlocks(text: string): Array<{ start: number; end: number; lines: number }> {
    const blocks: Array<{ start: number; end: number; lines: number }> = [];
    const re = /^[ \t]*\/\/\/.*$/gm;
    let current: { start: number; end: number; lines: number } | undefined;
    for (let m = re.exec(text); m; m = re.exec(text)) {
        const start = m.index;
        const end = m.index + m[0].length;
        if (current && /^(\r\n|\r|\n)$/.test(text.slice(current.end, start))) {
            current.end = end;
            current.lines++;
        } else {
            if (current) blocks.push(current);
            current = { start, end, lines: 1 };
        }
    }
    if (current) blocks.push(current);
    return blocks;
}
