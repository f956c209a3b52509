import type { AstNode, LangiumDocument } from 'langium';
import { DefaultFoldingRangeProvider, type FoldingRangeAcceptor } from 'langium/lsp';
import { FoldingRangeKind } from 'vscode-languageserver';
import { isBenchmarkDecl, isCall, isModel, isSweepDecl, isTenant, isWorkload } from '../generated/ast.js';
import { docCommentBlocks } from './documentation-provider.js';

/** Folds blocks (models, workloads, tenants, benchmark settings, sweep blocks), multi-line calls and `///` doc blocks. */
export class TenancyFoldingRangeProvider extends DefaultFoldingRangeProvider {

    protected override collectFolding(document: LangiumDocument, acceptor: FoldingRangeAcceptor): void {
        super.collectFolding(document, acceptor);
        const text = document.textDocument.getText();
        for (const block of docCommentBlocks(text)) {
            if (block.lines < 2) continue;
            const start = document.textDocument.positionAt(block.start);
            const end = document.textDocument.positionAt(block.end);
            acceptor({ startLine: start.line, endLine: end.line, kind: FoldingRangeKind.Comment });
        }
    }

    protected override shouldProcess(node: AstNode): boolean {
        return isModel(node) || isWorkload(node) || isTenant(node) || isBenchmarkDecl(node) || isSweepDecl(node) || isCall(node);
    }

    // A node on one line holds nothing that folds: its expressions are not walked (most of a document's nodes).
    protected override shouldProcessContent(node: AstNode): boolean {
        const cst = node.$cstNode;
        return cst === undefined || cst.range.start.line !== cst.range.end.line;
    }

    // Langium looks at every token of the document for block comments (`/* … */`); a text without `/*` has none.
    protected override collectCommentFolding(document: LangiumDocument, node: AstNode, acceptor: FoldingRangeAcceptor): void {
        if (document.textDocument.getText().includes('/*')) super.collectCommentFolding(document, node, acceptor);
    }
}
