/**
 * Gives every diagnostic a stable code (docs/language.md#diagnostics), sent both as the LSP
 * diagnostic `code` and as `data: { code }`: parser and lexer errors become `syntax`; linking
 * errors become `unknown-op` (a callee in a model that is neither an operator nor a model) or
 * `unresolved-reference` (a name, or a tenant's model), with a did-you-mean from what is in scope.
 */
import {
    AstUtils, DefaultDocumentValidator, interruptAndCheck, type AstNode, type LangiumCoreServices, type LangiumDocument, type ParseResult,
    type ValidateSingleNodeOptions, type ValidationAcceptor, type ValidationOptions,
} from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import { CancellationToken, type Diagnostic } from 'vscode-languageserver';
import { findOperator, operators } from '../analysis/operators.js';
import { Document, Import, isCall, isModel, isModelProp, isNameRef, isTenant, isWorkload, Model, Tenant, Workload } from '../generated/ast.js';
import { offset, visibleBindings } from '../references/bindings.js';
import { IssueCodes } from './issue-codes.js';
import { didYouMean } from './suggest.js';

/** Node types that only ever sit at the top of a document: Document, its elements and imports, a workload's tenants. */
const outerTypes = new Set<string>([Document.$type, Model.$type, Workload.$type, Import.$type, Tenant.$type]);

export class TenancyDocumentValidator extends DefaultDocumentValidator {
    private readonly services: LangiumCoreServices;
    /** Whether the checks of the current pass are all on outer types (then model bodies and tenant lines need no walk). */
    private outerChecksOnly = false;
    /**
     * How long one document's checks may run in the language server before the rest of the
     * document is left unchecked (a `time-limit` diagnostic says where): the server stays
     * responsive and other documents are still checked. No limit where there is no editor
     * waiting (the CLI, tests): `tenancy check` checks everything.
     */
    timeBudgetMs: number;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.services = services;
        this.timeBudgetMs = (services.shared as Partial<LangiumSharedServices>).lsp?.Connection ? 3000 : Infinity;
    }

    // The registered checks are all on documents, models, workloads and tenants (the registry is
    // asked, so a check on any other type turns this off): walking every expression of every
    // model only to find no checks was a sizeable part of validation. The walk is Langium's
    // (without its profiler), with the time budget: between nodes it yields to the event loop and
    // honours cancellation, as Langium's does.
    protected override async validateAstNodes(rootNode: AstNode, options: ValidationOptions, acceptor: ValidationAcceptor, cancelToken = CancellationToken.None): Promise<void> {
        this.outerChecksOnly = this.services.shared.AstReflection.getAllTypes()
            .every(type => outerTypes.has(type) || this.validationRegistry.getChecks(type, options.categories).head() === undefined);
        const started = performance.now();
        const nodes = AstUtils.streamAst(rootNode).iterator();
        for (const node of nodes) {
            await interruptAndCheck(cancelToken);
            const elapsed = performance.now() - started;
            if (elapsed > this.timeBudgetMs) {
                const what = isModel(node) || isWorkload(node) || isTenant(node) ? `${node.$type.toLowerCase()} ${node.name ?? ''}`.trim() : 'here';
                const code = IssueCodes.TimeLimit;
                acceptor('warning', `checking this file stopped at ${what} after ${(elapsed / 1000).toFixed(1)} s, its time limit in the editor: it and the rest of the file are not checked. Split the file, or run tenancy check on it.`,
                    { node, ...(isModel(node) || isWorkload(node) || isTenant(node) ? { property: 'name' } : {}), code, data: { code } } as never);
                return;
            }
            const nodeOptions = this.validateSingleNodeOptions(node, options);
            if (nodeOptions.validateNode) {
                for (const check of this.validationRegistry.getChecks(node.$type, options.categories)) await check(node, acceptor, cancelToken);
            }
            if (!nodeOptions.validateChildren) nodes.prune();
        }
    }

    protected override validateSingleNodeOptions(node: AstNode, options: ValidationOptions): ValidateSingleNodeOptions {
        if (this.outerChecksOnly && node.$type !== Document.$type && node.$type !== Workload.$type) return { validateNode: true, validateChildren: false };
        return super.validateSingleNodeOptions(node, options);
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
            if (isCall(container) && isModelProp(container.$container)) {
                // A tenant runs a model: an unknown name there is an unresolved model (docs/language.md#tenants), even an operator's.
                const models = this.services.shared.workspace.IndexManager.allElements(Model.$type).map(d => d.name);
                message = findOperator(name)
                    ? `'${name}' is an operator, not a model; a tenant runs a model (yours, an imported one or the zoo's).${didYouMean(name, models)}`
                    : `unknown model '${name}'.${didYouMean(name, models)}`;
            } else if (isCall(container)) {
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
