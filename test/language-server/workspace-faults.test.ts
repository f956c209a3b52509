/**
 * The workspace on a real file system as an editor drives it: imports of things that are not
 * `.tenancy` files, imports typed in an edit, imported files that disappear, files too large to
 * check, and a fault in one document's build. No exception may escape a build, and every
 * document ends built (requests waiting for it are answered).
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentState, TextDocument, URI, type LangiumDocument } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver';
import { isDocument, isModel } from '../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { maxDocumentCharacters } from '../../src/language-server/workspace/document-factory.js';

let dir: string;
beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-workspace-'));
    mkdirSync(join(dir, 'folder.tenancy'));
    writeFileSync(join(dir, 'notes.txt'), 'model not_tenancy {}\n');
    writeFileSync(join(dir, 'lib.tenancy'), 'model lib_block(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Services on the real file system, with an "editor" that opens and edits documents. */
function editor() {
    const { shared, Tenancy } = createTenancyServices(NodeFileSystem);
    const versions = new Map<string, number>();
    /** Opens or edits a document and runs the build an edit runs. */
    const edit = async (name: string, text: string): Promise<LangiumDocument> => {
        const uri = URI.file(join(dir, name));
        const version = (versions.get(uri.toString()) ?? 0) + 1;
        versions.set(uri.toString(), version);
        shared.workspace.TextDocuments!.set(TextDocument.create(uri.toString(), 'tenancy', version, text));
        await shared.workspace.DocumentBuilder.update([uri], []);
        return shared.workspace.LangiumDocuments.getDocument(uri)!;
    };
    return { shared, Tenancy, edit };
}

const body = '\nmodel top(batch = 1) {\n  input x: f32[batch, 4]\n  output lib_block(x, c: 4)\n}\nworkload w { tenant t { model top() } }\n';
const codes = (doc: LangiumDocument) => (doc.diagnostics ?? []).map(d => `${d.code}: ${d.message}`);
const errorsOf = (doc: LangiumDocument) => (doc.diagnostics ?? []).filter(d => d.severity === 1);

describe('imports resolve only to regular .tenancy files', () => {
    test.each([
        ['./folder.tenancy', 'is a folder'],
        ['./', 'is a folder'],
        ['.', 'is a folder'],
        ['./notes.txt', 'is not a .tenancy file'],
        ['./missing.tenancy', 'does not exist'],
        ['./lib.tenancy/x.tenancy', 'does not exist'],
    ])('import "%s": unresolved-reference (%s), and the build finishes', async (path, why) => {
        const { edit } = editor();
        const doc = await edit('importer.tenancy', `import "${path}"${body}`);
        expect(doc.state).toBe(DocumentState.Validated);
        const unresolved = (doc.diagnostics ?? []).filter(d => d.code === 'unresolved-reference' && d.range.start.line === 0);
        expect(unresolved.map(d => d.message)).toEqual([expect.stringContaining(why)]);
        expect(codes(doc).filter(c => c.startsWith('internal-error'))).toEqual([]);
    });

    test('an empty import path is unresolved-reference, not silence', async () => {
        const { edit } = editor();
        const doc = await edit('empty.tenancy', `import ""${body}`);
        expect(errorsOf(doc).filter(d => d.range.start.line === 0).map(d => d.code)).toEqual(['unresolved-reference']);
    });

    test('an import typed keystroke by keystroke never throws, and the finished one loads in the same build', async () => {
        const { edit } = editor();
        const target = './lib.tenancy';
        let doc!: LangiumDocument;
        for (let i = 0; i <= target.length; i++) {
            doc = await edit('typing.tenancy', `import "${target.slice(0, i)}"${body}`);
            expect(doc.state).toBe(DocumentState.Validated);
            expect(codes(doc).filter(c => c.startsWith('internal-error'))).toEqual([]);
        }
        // The edit that completed the path resolved it: lib_block is linked, no error left.
        expect(errorsOf(doc).map(d => `${d.code}: ${d.message}`)).toEqual([]);
        const root = doc.parseResult.value;
        const top = isDocument(root) ? root.elements.find(isModel) : undefined;
        expect(top?.name).toBe('top');
    });

    test('an imported file that disappears: the importer gets unresolved-reference; when it comes back, the import resolves again', async () => {
        const { shared, edit } = editor();
        const lib = join(dir, 'vanishing.tenancy');
        writeFileSync(lib, 'model lib_block(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\n');
        const doc = await edit('uses-vanishing.tenancy', `import "./vanishing.tenancy"${body}`);
        expect(errorsOf(doc)).toEqual([]);
        unlinkSync(lib);
        // Some clients report a deleted file as changed: reading it again must not throw.
        await shared.workspace.DocumentBuilder.update([URI.file(lib)], []);
        expect(doc.state).toBe(DocumentState.Validated);
        expect(errorsOf(doc).map(d => d.message)).toEqual(expect.arrayContaining([expect.stringContaining('does not exist')]));
        writeFileSync(lib, 'model lib_block(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\n');
        const again = await edit('uses-vanishing.tenancy', `import "./vanishing.tenancy"${body} `);
        expect(errorsOf(again)).toEqual([]);
    });

    test('a deleted file the importer does not use is still reported on the import line', async () => {
        const { shared, edit } = editor();
        const lib = join(dir, 'unused-lib.tenancy');
        writeFileSync(lib, 'model unused_block(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\n');
        const doc = await edit('imports-unused.tenancy', `import "./unused-lib.tenancy"${body.replace('lib_block(x, c: 4)', 'relu(x)')}`);
        expect(errorsOf(doc)).toEqual([]);
        unlinkSync(lib);
        await shared.workspace.DocumentBuilder.update([], [URI.file(lib)]);
        expect(errorsOf(doc).map(d => d.code)).toEqual(['unresolved-reference']);
    });
});

describe('files too large to check', () => {
    test('an imported file over the size limit is not parsed; the file and its importer say why', async () => {
        const { shared, edit } = editor();
        const line = 'model big_block(c) { input x: f32[n, c] output relu(x) }\n';
        writeFileSync(join(dir, 'huge.tenancy'), line.repeat(Math.ceil(maxDocumentCharacters / line.length) + 1));
        const doc = await edit('uses-huge.tenancy', `import "./huge.tenancy"${body}`);
        const importLine = errorsOf(doc).filter(d => d.range.start.line === 0);
        expect(importLine.map(d => d.code)).toEqual(['unresolved-reference']);
        expect(importLine[0]!.message).toMatch(/not loaded: it has 2\.\d M characters, more than the 2\.1 M characters/);
        const huge = shared.workspace.LangiumDocuments.getDocument(URI.file(join(dir, 'huge.tenancy')))!;
        expect(isDocument(huge.parseResult.value) && huge.parseResult.value.elements).toEqual([]);
        expect((huge.diagnostics ?? []).map(d => d.code)).toEqual(['file-too-large']);
    });

    test('an open document over the limit gets one diagnostic at its start', async () => {
        const { edit } = editor();
        const doc = await edit('pasted.tenancy', 'x'.repeat(maxDocumentCharacters + 1));
        expect((doc.diagnostics ?? []).map(d => [d.code, d.range.start.line, d.range.start.character])).toEqual([['file-too-large', 0, 0]]);
    });
});

describe('a fault in one document does not stop the build', () => {
    test('an exception while linking one document: its internal-error diagnostic; the other document is fully checked', async () => {
        const { Tenancy, edit } = editor();
        const errors: unknown[] = [];
        vi.spyOn(console, 'error').mockImplementation((...args) => { errors.push(args); });
        const linker = Tenancy.references.Linker;
        const link = linker.link.bind(linker);
        vi.spyOn(linker, 'link').mockImplementation(async (document, token) => {
            if (document.uri.path.endsWith('faulty.tenancy')) throw new TypeError("Cannot read properties of undefined (reading 'ref')");
            return link(document, token);
        });
        const faulty = await edit('faulty.tenancy', 'model m(batch = 1) { input x: f32[batch, 4] output relu(x) }\n');
        expect(faulty.state).toBe(DocumentState.Validated);
        const internal: Diagnostic[] = (faulty.diagnostics ?? []).filter(d => d.code === 'internal-error');
        expect(internal.map(d => d.message)).toEqual([expect.stringMatching(/^Tenancy could not link this file \(Cannot read properties of undefined \(reading 'ref'\)\).*This is a bug in Tenancy/)]);
        expect(errors.length).toBeGreaterThan(0);
        const healthy = await edit('healthy.tenancy', 'model h(batch = 1) { input x: f32[batch, 4] output sofmax(x) }\nworkload w { tenant t { model h() } }\n');
        expect((healthy.diagnostics ?? []).map(d => d.code)).toContain('unknown-op');
    });

    test('a check that throws gives internal-error with the cause, and the other checks still run', async () => {
        const { Tenancy, edit } = editor();
        vi.spyOn(console, 'error').mockImplementation(() => {});
        const analyzer = Tenancy.analysis.Analyzer;
        vi.spyOn(analyzer, 'standalone').mockImplementation(() => { throw new RangeError('Maximum call stack size exceeded'); });
        const doc = await edit('check-throws.tenancy', 'model m(batch = 1) { input x: f32[batch, 4] output relu(x) }\nmodel m(batch = 1) { input x: f32[batch, 4] output relu(x) }\n');
        const internal = (doc.diagnostics ?? []).filter(d => d.code === 'internal-error');
        expect(internal.length).toBeGreaterThan(0);
        expect(internal[0]!.message).toMatch(/^Tenancy could not check this model \(Maximum call stack size exceeded\); other checks ran/);
        expect((doc.diagnostics ?? []).map(d => d.code)).toContain('duplicate-name');
    });
});

describe('a document that cannot be checked in its time budget', () => {
    test('the checks stop at the limit with a time-limit warning where they stopped; the next document is checked in full', async () => {
        const { Tenancy, edit } = editor();
        const validator = Tenancy.validation.DocumentValidator as unknown as { timeBudgetMs: number };
        expect(validator.timeBudgetMs).toBe(Infinity); // no editor connection: tenancy check checks everything
        validator.timeBudgetMs = 100;
        const analyzer = Tenancy.analysis.Analyzer;
        const standalone = analyzer.standalone.bind(analyzer);
        vi.spyOn(analyzer, 'standalone').mockImplementation(model => {
            if (model.name.startsWith('slow')) { const until = performance.now() + 40; while (performance.now() < until) { /* a slow check */ } }
            return standalone(model);
        });
        const models = Array.from({ length: 8 }, (_, i) => `model slow${i}(batch = 1) {\n  input x: f32[batch, 4]\n  spare = relu(x)\n  output sofmax(x)\n}\n`).join('');
        const doc = await edit('slow.tenancy', models);
        const limit = (doc.diagnostics ?? []).filter(d => d.code === 'time-limit');
        expect(limit).toHaveLength(1);
        expect(limit[0]!.severity).toBe(2);
        expect(limit[0]!.message).toMatch(/^checking this file stopped at model slow\d after 0\.\d s, its time limit in the editor: it and the rest of the file are not checked/);
        const stoppedAt = limit[0]!.range.start.line;
        expect(stoppedAt).toBeGreaterThan(0);
        expect(stoppedAt).toBeLessThan(7 * 5);
        // Model checks ran before the limit and none after it (linking errors, like sofmax, are reported everywhere).
        const checked = (doc.diagnostics ?? []).filter(d => d.code === 'unused' && String(d.message).startsWith("tensor 'spare'")).map(d => d.range.start.line);
        expect(checked.length).toBeGreaterThan(0);
        expect(checked.every(line => line < stoppedAt)).toBe(true);
        expect((doc.diagnostics ?? []).filter(d => d.code === 'unknown-op')).toHaveLength(8);
        const fast = await edit('fast.tenancy', 'model quick(batch = 1) {\n  input x: f32[batch, 4]\n  output relu(x)\n}\n');
        expect((fast.diagnostics ?? []).map(d => d.code)).toEqual(['unused']);
    });
});

describe('a parse that throws inside a rule', () => {
    test('leaves the parser usable: the next documents parse and are checked as written', async () => {
        const { Tenancy, edit } = editor();
        vi.spyOn(console, 'error').mockImplementation(() => {});
        await edit('first.tenancy', 'model first(batch = 1) {\n  input x: f32[batch, 4]\n  output relu(x)\n}\n'); // loads the zoo
        // A stack overflow deep in a rule, as very deep nesting causes: thrown by the 12th CST node of the parse.
        const builder = (Tenancy.parser.LangiumParser as unknown as { nodeBuilder: { buildCompositeNode: (...args: unknown[]) => unknown } }).nodeBuilder;
        const build = builder.buildCompositeNode.bind(builder);
        let calls = 0;
        const spy = vi.spyOn(builder, 'buildCompositeNode').mockImplementation((...args: unknown[]) => {
            if (++calls === 12) throw new RangeError('Maximum call stack size exceeded');
            return build(...args);
        });
        const deep = await edit('overflow.tenancy', 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output relu(relu(relu(relu(relu(relu(x))))))\n}\n');
        expect((deep.diagnostics ?? []).map(d => d.message)).toEqual([expect.stringMatching(/^Tenancy could not parse this file \(Maximum call stack size exceeded\)/)]);
        spy.mockRestore();
        const next = await edit('after-overflow.tenancy', 'model ok(batch = 1) {\n  input x: f32[batch, 4]\n  output sofmax(x)\n}\n');
        const root = next.parseResult.value;
        expect(isDocument(root) && root.elements.map(e => e.name)).toEqual(['ok']);
        expect((next.diagnostics ?? []).map(d => d.code)).toEqual(expect.arrayContaining(['unknown-op']));
    });
});
