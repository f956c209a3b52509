/**
 * Gives every diagnostic a stable code (LANGUAGE.md "Diagnostics"), sent both as the LSP
 * diagnostic `code` and as `data: { code }`: parser and lexer errors become `syntax`; linking
 * errors become `unknown-op` (a callee that is neither an operator nor a model) or
 * `unresolved-reference` (a name), with a did-you-mean from what is in scope.
 */
import { AstUtils, DefaultDocumentValidator, type LangiumCoreServices, type LangiumDocument, type ParseResult, type ValidationOptions } from 'langium';
import type { Diagnostic } from 'vscode-languageserver-types';
import { operators } from '../analysis/operators.js';
import { isCall, isModel, isNameRef, Model } from '../generated/ast.js';
import { offset, visibleBindings } from '../references/bindings.js';
import { IssueCodes } from './issue-codes.js';
import { didYouMean } from './suggest.js';

export class TenancyDocumentValidator extends DefaultDocumentValidator {
    private readonly services: LangiumCoreServices;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.services = services;
    }

    protected override processLexingErrors(parseResult: ParseResult, diagnostics: Diagnostic[], options: ValidationOptions): void {
        const own: Diagnostic[] = [];
        super.processLexingErrors(parseResult, own, options);
        diagnostics.push(...own.map(d => withCode(d, IssueCodes.Syntax)));
    }

    protected override processParsingErrors(parseResult: ParseResult, diagnostics: Diagnostic[], options: ValidationOptions): void {
        const own: Diagnostic[] = [];
        super.processParsingErrors(parseResult, own, options);
        diagnostics.push(...own.map(d => withCode(d, IssueCodes.Syntax)));
    }

    protected override processLinkingErrors(document: LangiumDocument, diagnostics: Diagnostic[], options: ValidationOptions): void {
        const own: Diagnostic[] = [];
        super.processLinkingErrors(document, own, options);
        for (const reference of document.references) {
            const error = reference.error;
            if (!error || !reference.$refNode) continue;
            const container = error.info.container;
            const name = reference.$refText;
            const range = reference.$refNode.range;
            const index = own.findIndex(d => d.range.start.line === range.start.line && d.range.start.character === range.start.character);
            if (index < 0) continue;
            let code: string = IssueCodes.UnresolvedReference;
            let message = own[index].message;
            if (isCall(container)) {
                code = IssueCodes.UnknownOp;
                const models = this.services.shared.workspace.IndexManager.allElements(Model.$type).map(d => d.name);
                message = `unknown operator or model '${name}'.${didYouMean(name, [...operators.map(o => o.name), ...models])}`;
            } else if (isNameRef(container)) {
                const model = AstUtils.getContainerOfType(container, isModel);
                const visible = model ? visibleBindings(model, offset(container)).map(e => e.name) : [];
                const later = model?.statements.some(s => 'name' in s && s.name === name && offset(s) > offset(container));
                message = `unknown name '${name}'${later ? ' (it is bound later; a name is visible only after its statement)' : ''}.${didYouMean(name, visible)}`;
            }
            own[index] = withCode({ ...own[index], message }, code);
        }
        diagnostics.push(...own);
    }
}

function withCode(d: Diagnostic, code: string): Diagnostic {
    return { ...d, code, data: { ...(typeof d.data === 'object' ? d.data : {}), code } };
}
