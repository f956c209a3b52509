/**
 * Linking with two kinds of names that are not references: a callee that names a built-in
 * operator (operators are not AST nodes; the validator checks them against the operator
 * table), and words in workload and sweep arguments (`size: auto`, `sync: none`), which the
 * workload and sweep checks read as words.
 *
 * The references to link are the ones the parser built, in the order it built them (text order,
 * which is also Langium's streamAst order here: every property is assigned in text order), kept
 * per parse by `buildReference` — no walk over the whole AST. A reference whose node error
 * recovery dropped from the tree (it never got a container) would be skipped: a guard, none
 * was seen in the ~400 broken texts of build-shortcuts.test.ts. A document whose parse
 * this linker did not see (none today) is walked instead: a plain recursion, the same order.
 */
import {
    AstUtils, DefaultLinker, interruptAndCheck, isAstNode, isReference, type AstNode, type CstNode, type DefaultReference, type LangiumDocument, type Reference,
    type ReferenceInfo,
} from 'langium';
import { CancellationToken } from 'vscode-languageserver';
import { findOperator } from '../analysis/operators.js';
import { isCall, isModelProp, isNameRef, isSweepDecl, isWorkload } from '../generated/ast.js';

/** Whether a cross-reference is meant to be linked (false for operator callees and workload words; a tenant's model line always names a model). */
export function isLinkableReference(refInfo: ReferenceInfo): boolean {
    const { container, property, reference } = refInfo;
    if (isCall(container) && property === 'callee' && findOperator(reference.$refText) && !isModelProp(container.$container)) return false;
    if (isNameRef(container) && AstUtils.getContainerOfType(container, c => isWorkload(c) || isSweepDecl(c))) return false;
    return true;
}

/** Visits a node's own cross-references and returns its child nodes, both in property order. */
function ownReferences(node: AstNode, visit: (refInfo: ReferenceInfo) => void): AstNode[] {
    const children: AstNode[] = [];
    // for…in visits own keys in Object.keys order (AST nodes are plain objects) without allocating the key array.
    for (const property in node) {
        if (property.charCodeAt(0) === 36) continue; // `$type`, `$container`, `$cstNode`, …
        const value = (node as unknown as Record<string, unknown>)[property];
        if (typeof value !== 'object' || value === null) continue;
        if (Array.isArray(value)) {
            for (let index = 0; index < value.length; index++) {
                const element: unknown = value[index];
                if (isReference(element)) visit({ reference: element, container: node, property, index });
                else if (isAstNode(element)) children.push(element);
            }
        } else if (isReference(value)) {
            visit({ reference: value, container: node, property });
        } else if (isAstNode(value)) {
            children.push(value);
        }
    }
    return children;
}

/** Calls `visit` on every cross-reference under `node` (itself included) in Langium's streamAst order. */
export function forEachReference(node: AstNode, visit: (refInfo: ReferenceInfo) => void): void {
    for (const child of ownReferences(node, visit)) forEachReference(child, visit);
}

/** A reference the parser built, with the node and property it was built for. */
type BuiltReference = Reference & { node: AstNode; property: string };

export class TenancyLinker extends DefaultLinker {
    // Per parse (keyed by its CST root), the references it built, in order.
    private readonly built = new WeakMap<CstNode, BuiltReference[]>();
    private lastRoot: CstNode | undefined;
    private lastBuilt: BuiltReference[] = [];

    override buildReference(node: AstNode, property: string, refNode: CstNode | undefined, refText: string): Reference {
        const reference = super.buildReference(node, property, refNode, refText);
        if (refNode) {
            let root = refNode;
            while (root.container) root = root.container;
            if (root !== this.lastRoot) {
                this.lastRoot = root;
                let list = this.built.get(root);
                if (!list) this.built.set(root, list = []);
                this.lastBuilt = list;
            }
            this.lastBuilt.push(reference as BuiltReference);
        }
        return reference;
    }

    override async link(document: LangiumDocument, cancelToken = CancellationToken.None): Promise<void> {
        const root = document.parseResult.value;
        const references = root.$cstNode ? this.built.get(root.$cstNode.root) : undefined;
        if (!references) return this.linkByWalk(document, cancelToken);
        for (let i = 0; i < references.length; i++) {
            if (i % 1000 === 0) await interruptAndCheck(cancelToken);
            const reference = references[i];
            const node = reference.node;
            if (node.$container === undefined && node !== root) continue; // dropped by error recovery
            this.doLink({ reference, container: node, property: reference.property }, document);
        }
    }

    private async linkByWalk(document: LangiumDocument, cancelToken: CancellationToken): Promise<void> {
        const link = (refInfo: ReferenceInfo) => this.doLink(refInfo, document);
        for (const element of ownReferences(document.parseResult.value, link)) {
            await interruptAndCheck(cancelToken);
            forEachReference(element, link);
        }
    }

    protected override doLink(refInfo: ReferenceInfo, document: LangiumDocument): void {
        if (isLinkableReference(refInfo)) super.doLink(refInfo, document);
        else markNotLinkable(refInfo.reference as DefaultReference);
    }

    // Lazy `.ref` access (hover, analysis) must not resolve these either: an unresolved lazy
    // access would record a linking error on the document.
    protected override resolveReference(reference: DefaultReference, node: AstNode, property: string): AstNode | undefined {
        // Every `.ref` read comes here: a linked reference (the common case) or one already marked
        // not linkable answers at once, without walking up to the workload again.
        const state = (reference as unknown as { _ref: unknown })._ref;
        if (state === null) return undefined;
        if (isAstNode(state)) return state;
        if (!isLinkableReference({ reference, container: node, property })) {
            markNotLinkable(reference);
            return undefined;
        }
        return super.resolveReference(reference, node, property);
    }
}

/** `null`: neither unlinked (undefined, which the linker would resolve) nor an error. */
function markNotLinkable(reference: DefaultReference): void {
    (reference as unknown as { _ref: null })._ref = null;
}
