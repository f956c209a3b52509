/**
 * Half-typed and damaged text, as users type it all day and as the fuzzer found it: every LSP
 * feature (validation, outline, folding, semantic tokens, hover and completion at every token,
 * signature help, definition, inlay hints, code lenses, code actions, formatting) answers
 * without throwing, with ranges inside the document and no `undefined`, `NaN` or `Infinity` in
 * what the user reads. Each named case is one construct the issue or the fuzzer found.
 */
import { EmptyFileSystem, type LangiumDocument } from 'langium';
import { CancellationTokenSource } from 'vscode-languageserver';
import { clearDocuments, parseDocument } from 'langium/test';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import {
    allRangeProblems, badWordProblems, completionProblems, foldingProblems, lineLengths, semanticTokenProblems, symbolProblems,
} from '../../fuzz/checks.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;

/** Every feature on `text`: the problems found, as sentences. */
export async function exerciseEveryFeature(text: string): Promise<string[]> {
    const problems: string[] = [];
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => { logged.push(args.map(String).join(' ').slice(0, 300)); });
    try {
        const doc: LangiumDocument = await parseDocument(services, text, { validation: true });
        const uri = doc.uri.toString();
        const lines = lineLengths(text);
        const textDocument = { uri };
        const token = new CancellationTokenSource().token;
        const run = async (what: string, f: () => unknown, check?: (r: unknown) => string[]) => {
            try {
                const result = await f();
                problems.push(...(check?.(result) ?? []), ...allRangeProblems(result, uri, lines, what), ...(what.startsWith('formatting') ? [] : badWordProblems(result, text, what)));
            } catch (error) {
                problems.push(`${what} threw: ${error instanceof Error ? error.message : String(error)}`);
            }
        };
        const diagnostics = doc.diagnostics ?? [];
        problems.push(...allRangeProblems(diagnostics, uri, lines, 'diagnostics'), ...badWordProblems(diagnostics, text, 'diagnostics'));
        for (const d of diagnostics) {
            if (typeof d.code !== 'string') problems.push(`diagnostic without a code: ${d.message}`);
            if (d.code === 'internal-error') problems.push(`internal error: ${d.message}`);
        }
        const lsp = services.lsp;
        const whole = { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines[lines.length - 1]! } };
        await run('documentSymbol', () => lsp.DocumentSymbolProvider!.getSymbols(doc, { textDocument }), r => symbolProblems(r, lines, 'documentSymbol'));
        await run('foldingRange', () => lsp.FoldingRangeProvider!.getFoldingRanges(doc, { textDocument }), r => foldingProblems(r, lines, 'foldingRange'));
        await run('semanticTokens', async () => (await lsp.SemanticTokenProvider!.semanticHighlight(doc, { textDocument }, token)).data, r => semanticTokenProblems(r, lines, 'semanticTokens'));
        await run('inlayHint', () => lsp.InlayHintProvider!.getInlayHints(doc, { textDocument, range: whole }));
        await run('codeLens', () => lsp.CodeLensProvider!.provideCodeLens(doc, { textDocument }));
        await run('codeAction', () => lsp.CodeActionProvider!.getCodeActions(doc, { textDocument, range: whole, context: { diagnostics } }));
        await run('formatting', () => lsp.Formatter!.formatDocument(doc, { textDocument, options: { tabSize: 2, insertSpaces: true } }));
        // Every token start, and the end of the text (where typing happens).
        const offsets = [...new Set([...[...text.matchAll(/\S+/g)].map(m => m.index!), text.length])];
        for (const offset of offsets) {
            const position = doc.textDocument.positionAt(offset);
            const at = `${position.line}:${position.character}`;
            await run(`hover ${at}`, () => lsp.HoverProvider!.getHoverContent(doc, { textDocument, position }));
            await run(`completion ${at}`, () => lsp.CompletionProvider!.getCompletion(doc, { textDocument, position }), r => completionProblems(r, position, lines, `completion ${at}`));
            await run(`signatureHelp ${at}`, () => lsp.SignatureHelp!.provideSignatureHelp(doc, { textDocument, position }));
            await run(`definition ${at}`, () => lsp.DefinitionProvider!.getDefinition(doc, { textDocument, position }));
        }
        problems.push(...logged.map(l => `logged: ${l}`));
    } finally {
        spy.mockRestore();
    }
    return [...new Set(problems)];
}

/** The constructs: each a document as it is while being typed or after a slip. */
export const halfTyped: Record<string, string> = {
    'tenant t { model }': 'model m(batch = 1) { input x: f32[batch, 4] output relu(x) }\nworkload w {\n  tenant t { model }\n}\n',
    'tenant t { model ( } (a call without its name; found by the fuzzer)': 'workload{tenant{model(',
    'tenant t { model m( }': 'model m(batch = 1) { input x: f32[batch, 4] output relu(x) }\nworkload w {\n  tenant t { model m( }\n}\n',
    'tenant without a name': 'workload w {\n  tenant { model mlp() }\n}\n',
    'workload without a name': 'workload {\n  tenant t { model mlp() }\n}\n',
    'model without a name': 'model (batch = 1) {\n  input x: f32[batch, 4]\n  output relu(x)\n}\nmodel {\n}\n',
    'two models without names': 'model {\n}\nmodel {\n}\nworkload w { tenant t { model mlp() } }\n',
    'input without a type': 'model m(batch = 1) {\n  input x:\n  output relu(x)\n}\nmodel top(batch = 1) {\n  input y: f32[batch, 4]\n  output m(y)\n}\nworkload w { tenant t { model top() } }\n',
    'input without dims': 'model m(batch = 1) {\n  input x: f32\n  output dense(x, 4)\n}\n',
    'input with an unfinished dim list': 'model m(batch = 1) {\n  input x: f32[batch,\n  output dense(x, 4)\n}\n',
    'parameter without a name': 'model m(= 1) {\n  input x: f32[4]\n  output relu(x)\n}\n',
    'parameter hover in a nameless model': 'model (output) {\n  input x: f32[output]\n  output relu(x)\n}\n',
    'call without arguments': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output dense()\n}\n',
    'call with a trailing comma': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output dense(x, )\n}\n',
    'unclosed call': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output dense(x, 4\n}\n',
    'repeat without a count': 'model blk(c) { input x: f32[n, c] output relu(x) }\nmodel m(batch = 1) {\n  input x: f32[batch, 4]\n  output repeat blk(x, c: 4)\n}\n',
    'repeat without a call': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output repeat 3\n}\n',
    'let without a value': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  y =\n  output relu(x)\n}\n',
    'output without a value': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output\n}\n',
    'arrival without arguments': 'workload w {\n  tenant t { model mlp() arrival poisson( }\n}\n',
    'slo without a percentile': 'workload w {\n  tenant t { model mlp() slo <= 20ms }\n}\n',
    'arrival, priority, device, schedule and benchmark words missing': 'workload w {\n  device (memory: 1GiB)\n  tenant t { model mlp() arrival (rate: 1/s) priority }\n  schedule\n  benchmark { 5s }\n}\n',
    'slo without a value': 'workload w {\n  tenant t { model mlp() slo p99 <= }\n}\n',
    'schedule without arguments': 'workload w {\n  tenant t { model mlp() }\n  schedule layer_block(size: )\n}\n',
    'benchmark setting without a value': 'workload w {\n  tenant t { model mlp() }\n  benchmark { duration }\n}\n',
    'device with an unfinished argument': 'workload w {\n  device auto(memory: )\n  tenant t { model mlp() }\n}\n',
    'zero rate and zero slo': 'workload w {\n  tenant t { model mlp() arrival poisson(rate: 0/s) slo p99 <= 0ms }\n}\n',
    'huge numbers': 'model m(batch = 99999999999999999999) {\n  input x: f32[batch, 99999999999999999999]\n  output dense(x, 99999999999999999999)\n}\nworkload w {\n  device auto(memory: 99999999999GiB)\n  tenant t { model m(batch: 4294967297) arrival poisson(rate: 99999999999/s) }\n}\n',
    'huge dims in a block': 'model blk(c) {\n  input x: f32[n, c, h, w]\n  output conv2d(x, 1000000000000000000000000000000000000, kernel: 1000000000000000000000)\n}\n',
    'numbers too large to represent': `model m(batch = ${'9'.repeat(400)}) {\n  input x: f32[batch, ${'9'.repeat(320)}.5]\n  output dense(x, 4)\n}\nworkload w { tenant t { model m(batch: 2) arrival periodic(every: ${'9'.repeat(310)}ms) } }\n`,
    'nothing but an import keyword': 'import',
    'an import of an empty path': 'import ""\nmodel m(batch = 1) { input x: f32[batch, 4] output relu(x) }\n',
    'CR line endings': 'model m(batch = 1) {\r  input x: f32[batch, 4]\r  output relu(x)\r}\rworkload w { tenant t { model m() } }\r',
    'CRLF line endings': 'model m(batch = 1) {\r\n  input x: f32[batch, 4]\r\n  output relu(x)\r\n}\r\nworkload w { tenant t { model m() } }\r\n',
    'lone surrogates and NUL': 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output \ud800 relu(x) \u0000\n}\n',
};

describe('half-typed constructs: every feature answers cleanly', () => {
    afterEach(() => clearDocuments(services));

    test.each(Object.entries(halfTyped))('%s', async (_name, text) => {
        expect(await exerciseEveryFeature(text)).toEqual([]);
    });
});
