import { AstUtils, CstUtils, GrammarUtils, type AstNodeLocator, type CstNode, type LangiumDocument, type LangiumDocuments } from 'langium';
import { DefaultRenameProvider, type LangiumServices } from 'langium/lsp';
import { ResponseError, LSPErrorCodes, TextEdit, type Range, type RenameParams, type TextDocumentPositionParams, type WorkspaceEdit } from 'vscode-languageserver';
import { findOperator } from '../analysis/operators.js';
import { isCall, isParam } from '../generated/ast.js';
import { isZooUri } from './zoo-uri.js';

const validName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Langium's rename over all references, refusing what cannot change: a zoo model (its text is
 * built in), a built-in operator, and a new name that is not an identifier — each with a message
 * the editor shows instead of silently doing nothing.
 */
export class TenancyRenameProvider extends DefaultRenameProvider {
    protected readonly documents: LangiumDocuments;
    protected readonly locator: AstNodeLocator;

    constructor(services: LangiumServices) {
        super(services);
        this.documents = services.shared.workspace.LangiumDocuments;
        this.locator = services.workspace.AstNodeLocator;
    }

    override async rename(document: LangiumDocument, params: RenameParams): Promise<WorkspaceEdit | undefined> {
        this.checkRenamable(document, params);
        if (!validName.test(params.newName)) {
            throw new ResponseError(LSPErrorCodes.RequestFailed,
                `'${params.newName}' is not a valid name: expected a letter or '_' followed by letters, digits or '_'.`);
        }
        const edit = await super.rename(document, params);
        if (edit) this.renameNamedArguments(document, params, edit);
        return edit;
    }

    /** A model parameter is also written as `name:` at every call of the model: rename those too. */
    protected renameNamedArguments(document: LangiumDocument, params: RenameParams, edit: WorkspaceEdit): void {
        const root = document.parseResult.value.$cstNode;
        const leaf = root && CstUtils.findDeclarationNodeAtOffset(root, document.textDocument.offsetAt(params.position), this.grammarConfig.nameRegexp);
        if (!leaf) return;
        const param = isParam(leaf.astNode) ? leaf.astNode : this.references.findDeclarations(leaf).find(isParam);
        if (!param) return;
        const model = param.$container;
        for (const ref of this.references.findReferences(model, { includeDeclaration: false })) {
            const doc = this.documents.getDocument(ref.sourceUri);
            const call = doc && this.locator.getAstNode(doc.parseResult.value, ref.sourcePath);
            if (!call || !isCall(call)) continue;
            for (const arg of call.args) {
                const nameNode = arg.name === param.name && arg.$cstNode ? GrammarUtils.findNodeForProperty(arg.$cstNode, 'name') : undefined;
                if (!nameNode) continue;
                const changes = (edit.changes ??= {});
                (changes[ref.sourceUri.toString()] ??= []).push(TextEdit.replace(nameNode.range, params.newName));
            }
        }
    }

    override prepareRename(document: LangiumDocument, params: TextDocumentPositionParams): Range | undefined {
        this.checkRenamable(document, params);
        return super.prepareRename(document, params) as Range | undefined;
    }

    /** Throws a ResponseError saying why the name at the position cannot be renamed. */
    protected checkRenamable(document: LangiumDocument, params: TextDocumentPositionParams): void {
        const root = document.parseResult.value.$cstNode;
        if (!root) return;
        const leaf = CstUtils.findDeclarationNodeAtOffset(root, document.textDocument.offsetAt(params.position), this.grammarConfig.nameRegexp);
        if (!leaf) return;
        if (isZooUri(document.uri)) {
            throw new ResponseError(LSPErrorCodes.RequestFailed, 'The built-in model zoo is read-only: its models cannot be renamed.');
        }
        for (const target of this.references.findDeclarations(leaf)) {
            const uri = AstUtils.findRootNode(target).$document?.uri;
            if (uri && isZooUri(uri)) {
                const name = (target as { name?: string }).name ?? leaf.text;
                throw new ResponseError(LSPErrorCodes.RequestFailed,
                    `'${name}' is a model of the built-in zoo and cannot be renamed; to change it, copy it into this file under a new name.`);
            }
        }
        if (isOperatorCallee(leaf)) {
            throw new ResponseError(LSPErrorCodes.RequestFailed, `'${leaf.text}' is a built-in operator and cannot be renamed.`);
        }
    }
}

function isOperatorCallee(leaf: CstNode): boolean {
    const node = leaf.astNode;
    return isCall(node) && GrammarUtils.findAssignment(leaf)?.feature === 'callee'
        && node.callee.ref === undefined && findOperator(node.callee.$refText) !== undefined;
}
