import { EmptyFileSystem } from 'langium';
import { clearDocuments, parseDocument } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import type { SignatureHelp } from 'vscode-languageserver';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;

/** Signature help at the `|` in `text`. */
async function helpAt(text: string): Promise<SignatureHelp | undefined> {
    const offset = text.indexOf('|');
    const doc = await parseDocument(services, text.replace('|', ''));
    return services.lsp.SignatureHelp!.provideSignatureHelp(doc, {
        textDocument: { uri: doc.uri.toString() }, position: doc.textDocument.positionAt(offset),
    });
}
/** The label of the active parameter. */
function active(help: SignatureHelp | undefined): string | undefined {
    const sig = help?.signatures[0];
    const i = help?.activeParameter;
    if (!sig || i === undefined || i === null) return undefined;
    const label = sig.parameters![i]!.label;
    return typeof label === 'string' ? label : sig.label.slice(label[0], label[1]);
}

const model = (line: string) => `/// A block.
model blk(c = 4) {
  input x: f32[n, c]
  output relu(x)
}
model m(batch = 1) {
  input x: f32[batch, 4]
  ${line}
}`;

describe('signature help', () => {
    afterEach(() => clearDocuments(services));

    test('operator call: the label is the signature, the active parameter follows the position', async () => {
        const help = await helpAt(model('y = conv2d(x, |'));
        expect(help?.signatures[0]!.label).toBe('conv2d(x, filters, kernel, stride: 1, padding: 0, dilation: 1, groups: 1, bias: true)');
        expect(active(help)).toBe('filters');
        expect(active(await helpAt(model('y = conv2d(|x, 3)')))).toBe('x');
        expect(active(await helpAt(model('y = conv2d(x, 3, 3, |)')))).toBe('stride: 1');
    });
    test('a named argument selects its parameter', async () => {
        expect(active(await helpAt(model('y = conv2d(x, 3, kernel: 3, padding: |)')))).toBe('padding: 0');
        expect(active(await helpAt(model('y = conv2d(x, 3, groups|: 2)')))).toBe('groups: 1');
    });
    test('the innermost call wins, and nested parentheses are skipped', async () => {
        expect((await helpAt(model('y = relu(conv2d(x, 3, kernel: (3, 3), |))')))?.signatures[0]!.label).toMatch(/^conv2d/);
        expect(active(await helpAt(model('y = relu(conv2d(x, 3, kernel: (3, |')))).toBe(undefined);
        expect((await helpAt(model('y = relu(conv2d(x, 3), |')))?.signatures[0]!.label).toBe('relu(x)');
    });
    test('model call: inputs, then parameters by name, with the model docs', async () => {
        const help = await helpAt(model('y = blk(x, |)'));
        expect(help?.signatures[0]!.label).toBe('blk(x, c: 4)');
        expect(help?.signatures[0]!.documentation).toEqual({ kind: 'markdown', value: 'A block.' });
        expect(active(help)).toBe('c: 4');
    });
    test('workload words: arrival kinds and policies', async () => {
        const help = await helpAt('workload w { tenant t { arrival closed(clients: 1, |) } }');
        expect(help?.signatures[0]!.label).toBe('closed(clients:, think: 0)');
        expect(active(help)).toBe('think: 0');
        expect((await helpAt('workload w { schedule regulated(|) }'))?.signatures[0]!.label).toBe('regulated(split: auto, sync: auto)');
    });
    test('nothing outside a call or on an unknown callee', async () => {
        expect(await helpAt(model('y = |relu(x)'))).toBeUndefined();
        expect(await helpAt(model('y = nosuch(|'))).toBeUndefined();
    });
});
