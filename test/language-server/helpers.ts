/** Shared helpers of the language-core tests: services on EmptyFileSystem, parse + validate, diagnostics by code. */
import { EmptyFileSystem, type LangiumDocument } from 'langium';
import { parseHelper } from 'langium/test';
import type { Diagnostic } from 'vscode-languageserver';
import { isModel, isWorkload, type Document, type Model, type Workload } from '../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

export const { shared, Tenancy: services } = createTenancyServices(EmptyFileSystem);
const parseDocument = parseHelper<Document>(services);
let counter = 0;

/** Parses and validates `text` as a new document (optionally at `uri`). */
export async function check(text: string, uri?: string): Promise<LangiumDocument<Document>> {
    return parseDocument(text, { validation: true, documentUri: uri ?? `file:///test/doc${counter++}.tenancy` });
}

/** Diagnostics with a given code. */
export function withCode(doc: LangiumDocument, code: string): Diagnostic[] {
    return (doc.diagnostics ?? []).filter(d => d.code === code);
}

/** The source text a diagnostic's range covers. */
export function rangeText(doc: LangiumDocument, d: Diagnostic): string {
    const text = doc.textDocument.getText();
    return text.slice(doc.textDocument.offsetAt(d.range.start), doc.textDocument.offsetAt(d.range.end));
}

/** Diagnostics of severity error. */
export function errors(doc: LangiumDocument): Diagnostic[] {
    return (doc.diagnostics ?? []).filter(d => d.severity === 1);
}

/** `code@text: message` lines, for readable assertion failures. */
export function summary(doc: LangiumDocument): string[] {
    return (doc.diagnostics ?? []).map(d => `${d.code}@${rangeText(doc, d)}: ${d.message}`);
}

/** A model of the document by name. */
export function model(doc: LangiumDocument<Document>, name: string): Model {
    const m = doc.parseResult.value.elements.find((e): e is Model => isModel(e) && e.name === name);
    if (!m) throw new Error(`no model ${name}`);
    return m;
}

/** A workload of the document by name. */
export function workload(doc: LangiumDocument<Document>, name: string): Workload {
    const w = doc.parseResult.value.elements.find((e): e is Workload => isWorkload(e) && e.name === name);
    if (!w) throw new Error(`no workload ${name}`);
    return w;
}

/** A zoo model by name. */
export function zooModel(name: string): Model {
    for (const doc of shared.workspace.LangiumDocuments.all) {
        if (!doc.uri.toString().startsWith('tenancy-zoo:')) continue;
        const m = (doc.parseResult.value as Document).elements.find((e): e is Model => isModel(e) && e.name === name);
        if (m) return m;
    }
    throw new Error(`no zoo model ${name}`);
}

