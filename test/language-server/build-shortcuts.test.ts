/**
 * The build's shortcuts give Langium's answers: the reference index built from the linker's list
 * equals the default provider's walk (less the references to bindings, which are found by walking
 * their model, with the same results as the default index), the validator's shallow walk still reaches a check
 * registered on an inner node type, and the linker's walk links what Langium's walk links.
 */
import { AstUtils, DefaultAstNodeDescriptionProvider, DefaultReferenceDescriptionProvider, EmptyFileSystem, URI, type AstNode, type AstNodeDescription, type LangiumDocument, type ReferenceInfo } from 'langium';
import { describe, expect, it, vi } from 'vitest';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { forEachReference } from '../../src/language-server/references/linker.js';
import { isBinding } from '../../src/language-server/generated/ast.js';

const models = `/// A block.
model blk(c) {
  input x: f32[n, c]
  y = relu(dense(x, c))
  output add(x, y)
}
model net(batch = 2) {
  input x: f32[batch, 64]
  h = repeat 2 blk(x, c: 64)
  output dense(h, 10)
}
model spare() {
  input q: f32[1, 4]
  t = relu(q)
  output relu(q)
}
`;
const workload = `workload w {
  tenant a { model net(batch: 4) arrival poisson(rate: 5/s) slo p99 <= 0.001ms }
  tenant b { model resnet18(res: 32) }
  schedule layer_block(size: auto)
}
workload w2 { tenant c { model net(batch: 0) } }
`;

async function build(services = createTenancyServices(EmptyFileSystem)): Promise<{ services: ReturnType<typeof createTenancyServices>; docs: LangiumDocument[] }> {
    const docs = [models, workload].map((text, i) => {
        const doc = services.shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse(`file:///shortcuts/f${i}.tenancy`));
        services.shared.workspace.LangiumDocuments.addDocument(doc);
        return doc;
    });
    await services.shared.workspace.DocumentBuilder.build(docs, { validation: true });
    return { services, docs };
}

describe('build shortcuts', () => {
    it('indexes the same reference descriptions as Langium’s default provider, less those to bindings, for user and zoo documents', async () => {
        const { services } = await build();
        const fallback = new DefaultReferenceDescriptionProvider(services.Tenancy);
        let compared = 0;
        let bindingRefs = 0;
        for (const doc of services.shared.workspace.LangiumDocuments.all) {
            const ours = await services.Tenancy.workspace.ReferenceDescriptionProvider.createDescriptions(doc);
            const all = await fallback.createDescriptions(doc);
            // References from a NameRef (to a binding) are answered by walking the model instead.
            const fromNameRefs = all.filter(d => services.Tenancy.workspace.AstNodeLocator.getAstNode(doc.parseResult.value, d.sourcePath)?.$type === 'NameRef');
            expect(JSON.stringify(ours)).toBe(JSON.stringify(all.filter(d => !fromNameRefs.includes(d))));
            compared += ours.length;
            bindingRefs += fromNameRefs.length;
        }
        expect(compared).toBeGreaterThan(20);
        expect(bindingRefs).toBeGreaterThan(20);
    });

    it('finds the references to every binding that Langium’s default index holds, in the same order, for user and zoo documents', async () => {
        const { services } = await build();
        const fallback = new DefaultReferenceDescriptionProvider(services.Tenancy);
        const locator = services.Tenancy.workspace.AstNodeLocator;
        let bindings = 0;
        let found = 0;
        for (const doc of services.shared.workspace.LangiumDocuments.all) {
            const indexed = await fallback.createDescriptions(doc);
            for (const node of AstUtils.streamAst(doc.parseResult.value)) {
                if (!isBinding(node)) continue;
                bindings++;
                const path = locator.getAstNodePath(node);
                const expected = indexed.filter(d => d.targetPath === path && d.targetUri.toString() === doc.uri.toString())
                    .map(d => ({ sourcePath: d.sourcePath, segment: d.segment, local: d.local }));
                const ours = services.Tenancy.references.References.findReferences(node, { includeDeclaration: false })
                    .map(d => ({ sourcePath: d.sourcePath, segment: d.segment, local: d.local })).toArray();
                expect(ours).toEqual(expected);
                found += ours.length;
                // With the declaration: one more, the binding's own name, first (an unnamed output has none).
                const withDeclaration = services.Tenancy.references.References.findReferences(node, { includeDeclaration: true }).toArray();
                const named = (node as { name?: string }).name !== undefined;
                expect(withDeclaration).toHaveLength(ours.length + (named ? 1 : 0));
                if (named) expect(withDeclaration[0]!.sourcePath).toBe(path);
            }
        }
        expect(bindings).toBeGreaterThan(100);
        expect(found).toBeGreaterThan(100);
    });

    it('describes every named node as Langium’s default provider does (path and segments computed when read)', async () => {
        const { services } = await build();
        const ours = services.Tenancy.workspace.AstNodeDescriptionProvider;
        const fallback = new DefaultAstNodeDescriptionProvider(services.Tenancy);
        let described = 0;
        for (const doc of services.shared.workspace.LangiumDocuments.all) {
            for (const node of AstUtils.streamAst(doc.parseResult.value)) {
                const name = services.Tenancy.references.NameProvider.getName(node);
                if (!name) continue;
                const a = ours.createDescription(node, name, doc);
                const b = fallback.createDescription(node, name, doc);
                // Every field of the AstNodeDescription interface (ours are class getters, not own properties).
                const fields = (d: AstNodeDescription) => ({
                    node: d.node, name: d.name, type: d.type, documentUri: d.documentUri.toString(), path: d.path,
                    nameSegment: d.nameSegment, selectionSegment: d.selectionSegment,
                });
                expect(fields(a)).toEqual(fields(b));
                expect(Object.keys(b).sort()).toEqual(['documentUri', 'name', 'nameSegment', 'node', 'path', 'selectionSegment', 'type']);
                described++;
            }
        }
        expect(described).toBeGreaterThan(100);
    });

    it('visits the same references, in the same order, as Langium’s AST stream', async () => {
        const { docs } = await build();
        let total = 0;
        for (const doc of docs) {
            const ours: string[] = [];
            forEachReference(doc.parseResult.value, r => ours.push(`${r.container.$type}.${r.property}:${r.reference.$refText}@${r.reference.$refNode?.offset}`));
            const langium: string[] = [];
            for (const node of AstUtils.streamAst(doc.parseResult.value)) {
                AstUtils.streamReferences(node).forEach(r => langium.push(`${r.container.$type}.${r.property}:${r.reference.$refText}@${r.reference.$refNode?.offset}`));
            }
            expect(ours).toEqual(langium);
            total += ours.length;
        }
        expect(total).toBeGreaterThan(10);
    });

    it('links the references the parser built: those in the AST, in Langium’s stream order, also where the parser recovered from errors', async () => {
        // The linker links the list the parser built, not a walk (references/linker.ts). Every
        // single-token deletion, duplication and stray `)` of a text, so error recovery's partial
        // nodes are covered too.
        const text = models + workload;
        const tokens = text.split(/(\s+|[(),:[\]{}=*+])/).filter(t => t !== '');
        const variants = [text];
        for (let i = 0; i < tokens.length; i += 2) {
            for (const edit of [(t: string[]) => t.splice(i, 1), (t: string[]) => t.splice(i, 0, t[i]!), (t: string[]) => t.splice(i, 0, ' ) ')]) {
                const t = [...tokens];
                edit(t);
                variants.push(t.join(''));
            }
        }
        const services = createTenancyServices(EmptyFileSystem);
        const linker = services.Tenancy.references.Linker as unknown as {
            doLink(refInfo: ReferenceInfo, document: LangiumDocument): void;
            linkByWalk(document: LangiumDocument): Promise<void>;
        };
        const walk = vi.spyOn(linker, 'linkByWalk'); // the fallback, for documents this linker did not see parsed
        const linked: string[] = [];
        let current: LangiumDocument | undefined;
        const doLink = linker.doLink.bind(linker);
        vi.spyOn(linker, 'doLink').mockImplementation((refInfo, document) => {
            if (document === current) linked.push(describe(refInfo)); // not the zoo's, built with the first variant
            doLink(refInfo, document);
        });
        let withErrors = 0;
        for (const [i, variant] of variants.entries()) {
            const doc = services.shared.workspace.LangiumDocumentFactory.fromString(variant, URI.parse(`file:///recovery/v${i}.tenancy`));
            services.shared.workspace.LangiumDocuments.addDocument(doc);
            current = doc;
            linked.length = 0;
            await services.shared.workspace.DocumentBuilder.build([doc], { validation: false });
            const expected = AstUtils.streamAst(doc.parseResult.value).flatMap(node => AstUtils.streamReferences(node)).map(describe).toArray();
            expect(linked, variant).toEqual(expected);
            if (doc.parseResult.parserErrors.length > 0) withErrors++;
        }
        expect(withErrors).toBeGreaterThan(100);
        expect(walk).not.toHaveBeenCalled();

        function describe(r: ReferenceInfo): string {
            return `${r.container.$type}.${r.property}:${r.reference.$refText}@${r.reference.$refNode?.offset}`;
        }
    });

    it('still runs a check registered on an inner node type (the shallow validation walk turns itself off)', async () => {
        const services = createTenancyServices(EmptyFileSystem);
        const seen: AstNode[] = [];
        services.Tenancy.validation.ValidationRegistry.register({ Call: (call: AstNode) => { seen.push(call); } });
        const { docs } = await build(services);
        const calls = docs.flatMap(d => AstUtils.streamAst(d.parseResult.value).filter(n => n.$type === 'Call').toArray());
        expect(calls.length).toBeGreaterThan(5);
        for (const call of calls) expect(seen).toContain(call);
    });

    it('finds the same diagnostics with the shallow walk as with the full one', async () => {
        const { docs } = await build();
        const shallow = docs.map(d => (d.diagnostics ?? []).map(x => `${x.code}@${x.range.start.line}:${x.range.start.character}`).sort());
        // A catch-all check on every node forces the full walk; it adds no diagnostics itself.
        const services = createTenancyServices(EmptyFileSystem);
        services.Tenancy.validation.ValidationRegistry.register({ AstNode: () => { /* forces the full walk */ } } as never);
        const full = (await build(services)).docs.map(d => (d.diagnostics ?? []).map(x => `${x.code}@${x.range.start.line}:${x.range.start.character}`).sort());
        expect(shallow).toEqual(full);
        // unused model and tensor hints (document and model checks), slo-infeasible (a prediction check on the workload)
        expect(shallow.flat().filter(d => d.startsWith('unused@')).length).toBe(2);
        expect(shallow.flat().some(d => d.startsWith('slo-infeasible@'))).toBe(true);
        expect(shallow.flat().some(d => d.startsWith('bad-argument@'))).toBe(true); // a tenant check
    });
});
