import { EmptyFileSystem, type LangiumDocument } from 'langium';
import { clearDocuments, parseDocument } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import type { Location, LocationLink, Range } from 'vscode-languageserver';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { isZooUri } from '../../../src/language-server/lsp/zoo-uri.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const lsp = services.lsp;

/** Parses `text` as `file:///ws/<name>`; `|` marks are removed and returned as offsets. */
async function open(name: string, text: string): Promise<{ doc: LangiumDocument; marks: number[] }> {
    const marks: number[] = [];
    let clean = '';
    for (const ch of text) {
        if (ch === '|') marks.push(clean.length); else clean += ch;
    }
    const doc = await parseDocument(services, clean, { documentUri: `file:///ws/${name}` });
    return { doc, marks };
}
const pos = (doc: LangiumDocument, offset: number) => ({ textDocument: { uri: doc.uri.toString() }, position: doc.textDocument.positionAt(offset) });
const textOf = (doc: LangiumDocument, r: Range) => doc.textDocument.getText(r);
const lineOf = (doc: LangiumDocument, r: Range) => doc.textDocument.getText({ start: { line: r.start.line, character: 0 }, end: { line: r.start.line, character: 200 } }).split('\n')[0]!.trim();

async function definition(doc: LangiumDocument, offset: number): Promise<LocationLink[]> {
    return (await lsp.DefinitionProvider!.getDefinition(doc, pos(doc, offset))) ?? [];
}

const main = `model enc(batch = 2, hidden = 8) {
  input x: f32[batch, 4]
  x = relu(|x)
  x = dense(|x, |hidden)
  output y = add(|x, x)
}
model blk(c) {
  input t: f32[n, c]
  output dense(t, |n * c)
}
workload w {
  tenant |vision { model |enc(batch: 1) }
  tenant nlp { model |bert_base(batch: 1) }
}`;

describe('go to definition', () => {
    afterEach(() => clearDocuments(services));

    test('tensors follow rebinding: each use sees the latest earlier binding', async () => {
        const { doc, marks } = await open('a.tenancy', main);
        const [first] = await definition(doc, marks[0]!);
        expect(lineOf(doc, first!.targetSelectionRange)).toBe('input x: f32[batch, 4]');
        const [second] = await definition(doc, marks[1]!);
        expect(lineOf(doc, second!.targetSelectionRange)).toBe('x = relu(x)');
        const [third] = await definition(doc, marks[3]!);
        expect(lineOf(doc, third!.targetSelectionRange)).toBe('x = dense(x, hidden)');
    });
    test('parameters and dim variables', async () => {
        const { doc, marks } = await open('a.tenancy', main);
        const [param] = await definition(doc, marks[2]!);
        expect(textOf(doc, param!.targetSelectionRange)).toBe('hidden');
        expect(param!.targetSelectionRange.start.line).toBe(0);
        const [dim] = await definition(doc, marks[4]!);
        expect(lineOf(doc, dim!.targetSelectionRange)).toBe('input t: f32[n, c]');
        expect(textOf(doc, dim!.targetSelectionRange)).toBe('n');
    });
    test('models: in the same file, in an imported file, in the zoo', async () => {
        const { doc, marks } = await open('a.tenancy', main);
        const [local] = await definition(doc, marks[6]!);
        expect(local!.targetUri).toBe(doc.uri.toString());
        expect(textOf(doc, local!.targetSelectionRange)).toBe('enc');
        const [zoo] = await definition(doc, marks[7]!);
        expect(isZooUri(services.shared.workspace.LangiumDocuments.getDocument(
            (await import('langium')).URI.parse(zoo!.targetUri))!.uri)).toBe(true);

        const lib = await open('lib.tenancy', 'model widen(k = 2) {\n  input x: f32[1, 4]\n  output dense(x, 4 * k)\n}');
        const user = await open('user.tenancy', 'import "lib.tenancy"\nmodel m() {\n  input x: f32[1, 4]\n  output |widen(x, k: 3)\n}');
        const [imported] = await definition(user.doc, user.marks[0]!);
        expect(imported!.targetUri).toBe(lib.doc.uri.toString());
    });
});

describe('find references', () => {
    afterEach(() => clearDocuments(services));

    test('a model across files, with its declaration', async () => {
        const lib = await open('lib.tenancy', 'model |widen(k = 2) {\n  input x: f32[1, 4]\n  output dense(x, 4 * k)\n}');
        const user = await open('user.tenancy', 'import "lib.tenancy"\nmodel m() {\n  input x: f32[1, 4]\n  y = widen(x)\n  output widen(y, k: 3)\n}\nworkload w { tenant t { model widen() } }');
        const refs: Location[] = (await lsp.ReferencesProvider!.findReferences(lib.doc, { ...pos(lib.doc, lib.marks[0]!), context: { includeDeclaration: true } })) ?? [];
        expect(refs.filter(r => r.uri === user.doc.uri.toString())).toHaveLength(3);
        expect(refs.filter(r => r.uri === lib.doc.uri.toString())).toHaveLength(1);
    });
    test('a rebound tensor: only the uses of that binding', async () => {
        const { doc, marks } = await open('a.tenancy', 'model m() {\n  input x: f32[1, 4]\n  |x = relu(x)\n  y = add(x, x)\n  x = relu(y)\n  output x\n}');
        const refs = (await lsp.ReferencesProvider!.findReferences(doc, { ...pos(doc, marks[0]!), context: { includeDeclaration: false } })) ?? [];
        expect(refs.map(r => lineOf(doc, r.range))).toEqual(['y = add(x, x)', 'y = add(x, x)']);
    });
});

describe('rename', () => {
    afterEach(() => clearDocuments(services));

    test('a model: declaration and every call, across files', async () => {
        const lib = await open('lib.tenancy', 'model |widen(k = 2) {\n  input x: f32[1, 4]\n  output dense(x, 4 * k)\n}');
        const user = await open('user.tenancy', 'import "lib.tenancy"\nworkload w { tenant t { model widen(k: 1) } }');
        const edit = await lsp.RenameProvider!.rename(lib.doc, { ...pos(lib.doc, lib.marks[0]!), newName: 'wider' });
        expect(edit?.changes?.[lib.doc.uri.toString()]?.map(e => e.newText)).toEqual(['wider']);
        expect(edit?.changes?.[user.doc.uri.toString()]?.map(e => e.newText)).toEqual(['wider']);
    });
    test('a parameter: declaration, uses, and the named arguments of calls of its model', async () => {
        const { doc, marks } = await open('a.tenancy', 'model m(|hidden = 8) {\n  input x: f32[1, 4]\n  output dense(x, hidden * 2)\n}\nmodel top() {\n  input x: f32[1, 4]\n  y = m(x, hidden: 4)\n  output dense(y, hidden: 3)\n}');
        const edit = await lsp.RenameProvider!.rename(doc, { ...pos(doc, marks[0]!), newName: 'width' });
        const edits = edit?.changes?.[doc.uri.toString()] ?? [];
        // `dense(y, hidden: 3)` names an operator's argument, not the parameter: left alone.
        expect(edits.map(e => lineOf(doc, e.range))).toEqual(['model m(hidden = 8) {', 'output dense(x, hidden * 2)', 'y = m(x, hidden: 4)']);
    });
    test('a tenant renames its declaration', async () => {
        const { doc, marks } = await open('a.tenancy', main);
        expect(await lsp.RenameProvider!.prepareRename(doc, pos(doc, marks[5]!))).toMatchObject({ start: { line: 11 } });
        const edit = await lsp.RenameProvider!.rename(doc, { ...pos(doc, marks[5]!), newName: 'camera' });
        expect(edit?.changes?.[doc.uri.toString()]?.map(e => textOf(doc, e.range))).toEqual(['vision']);
    });
    test('refuses a zoo model, a built-in operator and an invalid name, saying why', async () => {
        const { doc, marks } = await open('a.tenancy', main);
        expect(() => lsp.RenameProvider!.prepareRename(doc, pos(doc, marks[7]!))).toThrow(/'bert_base' is a model of the built-in zoo and cannot be renamed/);
        await expect(Promise.resolve().then(() => lsp.RenameProvider!.prepareRename(doc, pos(doc, marks[7]!)))).rejects.toThrow(/'bert_base' is a model of the built-in zoo and cannot be renamed/);
        await expect(lsp.RenameProvider!.rename(doc, { ...pos(doc, marks[7]!), newName: 'bert' })).rejects.toThrow(/built-in zoo/);
        const ops = await open('b.tenancy', 'model m() {\n  input x: f32[1, 4]\n  output re|lu(x)\n}');
        expect(() => lsp.RenameProvider!.prepareRename(ops.doc, pos(ops.doc, ops.marks[0]!))).toThrow(/'relu' is a built-in operator/);
        await expect(lsp.RenameProvider!.rename(doc, { ...pos(doc, marks[6]!), newName: '2fast' })).rejects.toThrow(/'2fast' is not a valid name/);
    });
});
