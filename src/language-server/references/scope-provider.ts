/**
 * Scoping. A name in a model (`NameRef`) sees the model's bindings made by earlier text, the
 * latest first (see ./bindings.ts). A callee sees models: this document's first, then those it
 * imports (transitively), then the rest of the workspace, then the built-in zoo — so a user
 * model shadows a zoo model of the same name. Both scopes answer `getElement` by direct lookup
 * (linking is hot); `getAllElements` (completion) lists everything visible.
 */
import {
    AstUtils, DefaultScopeProvider, EMPTY_SCOPE, stream, WorkspaceCache,
    type AstNode, type AstNodeDescription, type LangiumCoreServices, type LangiumDocuments, type ReferenceInfo, type Scope, type Stream,
} from 'langium';
import { isCall, isModel, isNameRef, Model } from '../generated/ast.js';
import { importClosure } from '../workspace/imports.js';
import { isZooUri } from '../workspace/zoo-library.js';
import { lookupBinding, offset, visibleBindings } from './bindings.js';

/** A scope over a name → description map plus a lazy list of everything (for completion). */
class LookupScope implements Scope {
    constructor(private readonly lookup: (name: string) => AstNodeDescription | undefined, private readonly all: () => AstNodeDescription[]) {}

    getElement(name: string): AstNodeDescription | undefined {
        return this.lookup(name);
    }

    getElements(name: string): Stream<AstNodeDescription> {
        const found = this.lookup(name);
        return stream(found ? [found] : []);
    }

    getAllElements(): Stream<AstNodeDescription> {
        return stream(this.all());
    }
}

export class TenancyScopeProvider extends DefaultScopeProvider {
    private readonly documents: () => LangiumDocuments;
    private readonly modelScopes: WorkspaceCache<string, Scope>;
    private readonly bindingDescriptions = new WeakMap<AstNode, AstNodeDescription>();
    /** Every model of the workspace (index order) and by name, once per workspace state. */
    private readonly modelIndex: WorkspaceCache<'models', { all: AstNodeDescription[]; byName: Map<string, AstNodeDescription[]> }>;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.documents = () => services.shared.workspace.LangiumDocuments;
        this.modelScopes = new WorkspaceCache(services.shared);
        this.modelIndex = new WorkspaceCache(services.shared);
    }

    override getScope(context: ReferenceInfo): Scope {
        if (isNameRef(context.container) && context.property === 'ref') {
            const model = AstUtils.getContainerOfType(context.container, isModel);
            if (!model) return EMPTY_SCOPE;
            const at = offset(context.container);
            return new LookupScope(
                name => {
                    const node = lookupBinding(model, name, at);
                    return node && this.bindingDescription(node, name);
                },
                () => visibleBindings(model, at).map(e => this.descriptions.createDescription(e.node, e.name)),
            );
        }
        if (isCall(context.container) && context.property === 'callee') {
            const document = AstUtils.getDocument(context.container);
            const key = document.uri.toString();
            return this.modelScopes.get(key, () => this.modelScope(key, importClosure(document, this.documents())));
        }
        return super.getScope(context);
    }

    /** A binding's description, made once per binding node (a tensor is referenced many times; the node's name never changes). */
    private bindingDescription(node: AstNode, name: string): AstNodeDescription {
        let description = this.bindingDescriptions.get(node);
        if (!description) this.bindingDescriptions.set(node, description = this.descriptions.createDescription(node, name));
        return description;
    }

    /**
     * Models in priority order: same document, imported, workspace, zoo (in index order within a
     * rank). The workspace's models by name are listed once per workspace state and shared by
     * every document's scope; a name with several models takes its best-ranked one here. The
     * sorted list is built only when asked for (completion).
     */
    private modelScope(self: string, imported: Set<string>): Scope {
        const index = this.modelIndex.get('models', () => {
            const all = this.indexManager.allElements(Model.$type).toArray();
            const byName = new Map<string, AstNodeDescription[]>();
            for (const d of all) {
                const same = byName.get(d.name);
                if (same) same.push(d);
                else byName.set(d.name, [d]);
            }
            return { all, byName };
        });
        const rank = (d: AstNodeDescription): number => {
            const uri = d.documentUri.toString();
            if (uri === self) return 0;
            if (imported.has(uri)) return 1;
            return isZooUri(uri) ? 3 : 2;
        };
        const lookup = (name: string): AstNodeDescription | undefined => {
            const candidates = index.byName.get(name);
            if (!candidates || candidates.length === 1) return candidates?.[0];
            let best = candidates[0], bestRank = rank(best);
            for (let i = 1; i < candidates.length; i++) {
                const r = rank(candidates[i]);
                if (r < bestRank) [best, bestRank] = [candidates[i], r];
            }
            return best;
        };
        let sorted: AstNodeDescription[] | undefined;
        return new LookupScope(lookup, () => (sorted ??= index.all.map(d => ({ d, rank: rank(d) })).sort((a, b) => a.rank - b.rank).map(e => e.d)));
    }
}
