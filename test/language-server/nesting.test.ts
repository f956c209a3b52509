/**
 * Nesting is bounded before parsing (src/language-server/parser/lexer.ts): text nested deeper
 * than the limit gets one error where the limit is reached, the rest of the document is read,
 * and nothing downstream (parser, completion, CST, analysis, LSP requests) recurses past it.
 */
import { describe, expect, test } from 'vitest';
import { maxNesting } from '../../src/language-server/parser/lexer.js';
import { check, errors, rangeText, services, summary } from './helpers.js';

const nestingErrors = (doc: Awaited<ReturnType<typeof check>>) =>
    (doc.diagnostics ?? []).filter(d => d.code === 'syntax' && /nesting deeper than/.test(String(d.message)));

const tail = `
model after {
  input x: f32[1, 64]
  output relu(x)
}
workload w {
  tenant t { model after() }
}
`;

/** A model whose output is `relu(` nested `depth` deep around `x` (its body's brace is one level). */
const nested = (depth: number, open = 'relu(', close = ')') => `model deep {
  input x: f32[1, 64]
  output ${open.repeat(depth)}x${close.repeat(depth)}
}
`;

describe('nesting bound', () => {
    test('the limit itself is accepted; one level more is an error at the bracket that goes past it', async () => {
        // The model's `{` is level 1: `relu(` nested limit − 1 deep reaches the limit exactly.
        const atLimit = await check(nested(maxNesting - 1) + tail);
        expect(summary(atLimit).filter(s => s.startsWith('syntax'))).toEqual([]);
        expect(errors(atLimit)).toEqual([]);
        const over = await check(nested(maxNesting) + tail);
        const found = nestingErrors(over);
        expect(found).toHaveLength(1);
        expect(rangeText(over, found[0])).toBe('(');
        const text = over.textDocument.getText();
        expect(over.textDocument.offsetAt(found[0].range.start)).toBe(text.indexOf('relu(') + (maxNesting - 1) * 'relu('.length + 'relu'.length);
        expect(found[0].message).toContain(`nesting deeper than ${maxNesting} levels`);
    });

    // Unclosed brackets leave the rest of the file out (the part past the limit never closes).
    test.each([
        ['nested calls', nested(10_000), true],
        ['nested parentheses', nested(10_000, '(', ')'), true],
        ['unary minus', `model deep {\n  input x: f32[1, 64]\n  output dense(x, ${'-'.repeat(100_000)}1)\n}\n`, true],
        ['a chain of additions', `model deep(c = 1) {\n  input x: f32[1, 64]\n  output dense(x, ${Array(100_000).fill('c').join(' + ')})\n}\n`, true],
        ['unclosed calls', `model deep {\n  input x: f32[1, 64]\n  y = ${'relu('.repeat(10_000)}x\n}\n`, false],
        ['unclosed brackets of every kind', `model deep {\n  input x: f32[${'[({'.repeat(5_000)}\n}\n`, false],
    ])('%s, 10,000 deep and more: one nesting error, no stack overflow', async (_what, text, readsAfter) => {
        const doc = await check(text + tail);
        expect(nestingErrors(doc)).toHaveLength(1);
        const names = doc.parseResult.value.elements.map(e => ('name' in e ? e.name : e.$type));
        if (readsAfter) expect(names).toContain('after');
        // Every LSP request a client sends on open answers (none recurses past the bound).
        const textDocument = { uri: doc.uri.toString() };
        const end = doc.textDocument.positionAt(text.length - 3);
        await services.lsp.CompletionProvider!.getCompletion(doc, { textDocument, position: end });
        await services.lsp.HoverProvider!.getHoverContent(doc, { textDocument, position: doc.textDocument.positionAt(text.indexOf('deep') + 1) });
        await services.lsp.SemanticTokenProvider!.semanticHighlight(doc, { textDocument });
        await services.lsp.FoldingRangeProvider!.getFoldingRanges(doc, { textDocument });
        await services.lsp.DocumentSymbolProvider!.getSymbols(doc, { textDocument });
    });

    test('a closed part past the limit is left out to its closing bracket, and the text after it is read', async () => {
        const doc = await check(`model deep(c = 1) {
  input x: f32[1, 64]
  y = ${'relu('.repeat(100)}x${')'.repeat(100)}
  output dense(y, c + 1)
}
${tail}`);
        expect(nestingErrors(doc)).toHaveLength(1);
        const model = doc.parseResult.value.elements[0];
        expect(model.$type).toBe('Model');
        // `output dense(y, c + 1)` after the deep let is still a statement of the model.
        expect((model as { statements: { $type: string }[] }).statements.map(s => s.$type)).toEqual(['Input', 'Let', 'Output']);
    });

    test('an operator chain past the limit is left out to the end of its expression (the comma or bracket after it is kept)', async () => {
        const terms = Array(200).fill('c').join(' + ');
        const doc = await check(`model deep(c = 1) {\n  input x: f32[1, 64]\n  output conv2d(x, ${terms}, kernel: 1)\n}\n`);
        expect(nestingErrors(doc)).toHaveLength(1);
        // The call keeps its last argument: no syntax error besides the nesting one.
        expect(summary(doc).filter(s => s.startsWith('syntax'))).toHaveLength(1);
    });

    test('a 1 MB line of garbage gets errors, not an exception', async () => {
        const words = ['model', 'x', '(', ')', '{', '}', '[', ']', ',', ':', '=', '1', 'relu', 'repeat', '+', '-', 'input', 'output', 'tenant'];
        let seed = 7;
        const next = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
        const parts: string[] = [];
        for (let size = 0; size < 1 << 20;) {
            const w = words[Math.floor(next() * words.length)];
            parts.push(w);
            size += w.length + 1;
        }
        const doc = await check(parts.join(' '));
        expect(nestingErrors(doc).length).toBeGreaterThan(0);
    }, 60_000);
});
