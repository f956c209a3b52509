/**
 * The reference index of a document from the linker's own list of its references (every one
 * the linker resolved, in text order) instead of a second walk over the whole AST. References to
 * bindings (a model's parameters, inputs, lets, outputs, dim variables) are not indexed: they
 * never leave their model, and TenancyReferences finds them by walking it (references.ts).
 */
import { DefaultReferenceDescriptionProvider, isReference, type LangiumDocument, type ReferenceDescription } from 'langium';
import { isNameRef } from '../generated/ast.js';

export class TenancyReferenceDescriptionProvider extends DefaultReferenceDescriptionProvider {
    override async createDescriptions(document: LangiumDocument): Promise<ReferenceDescription[]> {
        const descriptions: ReferenceDescription[] = [];
        // Linking order is text order except for references resolved lazily before the linker ran.
        const references = [...document.references].sort((a, b) => (a.$refNode?.offset ?? 0) - (b.$refNode?.offset ?? 0));
        for (const reference of references) {
            if (!isReference(reference) || reference.error) continue;
            // Langium's reference objects keep their container and property; another implementation: the default walk.
            const { node, property } = reference as unknown as { node?: ReferenceInfoContainer; property?: string };
            if (!node || property === undefined) return super.createDescriptions(document);
            if (isNameRef(node)) continue; // a binding: model-local, see above
            descriptions.push(...this.createInfoDescriptions({ reference, container: node, property }));
        }
        return descriptions;
    }
}

type ReferenceInfoContainer = Parameters<DefaultReferenceDescriptionProvider['createInfoDescriptions']>[0]['container'];
