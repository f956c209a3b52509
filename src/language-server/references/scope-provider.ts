/**
 * Scoping. A name in a model (`NameRef`) sees the model's bindings made by earlier text, the
 * latest first (see ./bindings.ts). A callee sees models: this document's first, then those it
 * imports (transitively), then the rest of the workspace, then the built-in zoo — so a user
 * model shadows a zoo model of the same name.
 */
import {
    AstUtils, DefaultScopeProvider, EMPTY_SCOPE, StreamScope, stream, WorkspaceCache,
    type AstNodeDescription, type LangiumCoreServices, type LangiumDocuments, type ReferenceInfo, type Scope,
} from 'langium';
import { isCall, isModel, isNameRef, Model } from '../generated/ast.js';
import { importClosure } from '../workspace/imports.js';
import { isZooUri } from '../workspace/zoo-library.js';
import { offset, visibleBindings } from './bindings.js';

export class TenancyScopeProvider extends DefaultScopeProvider {
    private readonly documents: () => LangiumDocuments;
    private readonly modelScopes: WorkspaceCache<string, Scope>;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.documents = () => services.shared.workspace.LangiumDocuments;
        this.modelScopes = new WorkspaceCache(services.shared);
    }

    override getScope(context: ReferenceInfo): Scope {
        if (isNameRef(context.container) && context.property === 'ref') {
            const model = AstUtils.getContainerOfType(context.container, isModel);
            if (!model) return EMPTY_SCOPE;
            return this.createScopeForNodes(visibleBindings(model, offset(context.container)).map(e => e.node));
        }
        if (isCall(context.container) && context.property === 'callee') {
            const document = AstUtils.getDocument(context.container);
            const key = document.uri.toString();
            return this.modelScopes.get(key, () => this.modelScope(key, importClosure(document, this.documents())));
        }
        return super.getScope(context);
    }

    /** Models in priority order: same document, imported, workspace, zoo. */
    private modelScope(self: string, imported: Set<string>): Scope {
        const rank = (d: AstNodeDescription): number => {
            const uri = d.documentUri.toString();
            if (uri === self) return 0;
            if (imported.has(uri)) return 1;
            return isZooUri(d.documentUri) ? 3 : 2;
        };
        const all = this.indexManager.allElements(Model.$type).toArray();
        all.sort((a, b) => rank(a) - rank(b));
        return new StreamScope(stream(all));
    }
}
