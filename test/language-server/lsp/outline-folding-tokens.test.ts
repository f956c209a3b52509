import { readFileSync } from 'node:fs';
import { EmptyFileSystem, isOperationCancelled, setInterruptionPeriod } from 'langium';
import { AllSemanticTokenModifiers } from 'langium/lsp';
import { clearDocuments, highlightHelper, parseDocument } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import { CancellationTokenSource, SemanticTokenModifiers, SemanticTokenTypes, SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { lineLengths, semanticTokenProblems } from '../../fuzz/checks.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const example = readFileSync('examples/vision-and-nlp.tenancy', 'utf8');
const params = (uri: string) => ({ textDocument: { uri } });

describe('outline', () => {
    afterEach(() => clearDocuments(services));

    test('models with inputs and outputs, workloads with tenants', async () => {
        const doc = await parseDocument(services, example);
        const symbols = await services.lsp.DocumentSymbolProvider!.getSymbols(doc, params(doc.uri.toString()));
        const kindName = (k: number) => Object.entries(SymbolKind).find(([, v]) => v === k)?.[0];
        const tree = (s: DocumentSymbol): unknown => ({ [`${s.name} ${kindName(s.kind)}`]: (s.children ?? []).map(c => `${c.name}: ${c.detail}`) });
        expect(symbols.map(tree)).toEqual([
            { 'mlp_small Class': ['x: input f32[batch, 784]', 'logits: output'] },
            { 'basic_block Class': ['x: input f32[n, channels, h, w]', 'output: output'] },
            { 'tiny_resnet Class': ['image: input f32[batch, 3, 64, 64]', 'output: output'] },
            { 'vision_and_nlp Namespace': ['vision: model tiny_resnet(batch: 8)', 'nlp: model bert_base(batch: 1, seq: 128, layers: 2)'] },
        ]);
        // The selection is the name; the range the whole block.
        const first = symbols[0]!;
        expect(doc.textDocument.getText(first.selectionRange)).toBe('mlp_small');
        expect(doc.textDocument.getText(first.range)).toMatch(/^model mlp_small[\s\S]*\}$/);
    });
});

describe('folding', () => {
    afterEach(() => clearDocuments(services));

    test('blocks and /// doc blocks of two or more lines', async () => {
        const text = '/// One.\n/// Two.\nmodel m() {\n  input x: f32[1, 4]\n  output relu(x)\n}\n/// Single line: no fold.\nworkload w {\n  tenant t {\n    model m()\n  }\n  benchmark {\n    seed 1\n  }\n}\n';
        const doc = await parseDocument(services, text);
        const ranges = await services.lsp.FoldingRangeProvider!.getFoldingRanges(doc, params(doc.uri.toString()));
        const shown = ranges.map(r => `${r.startLine}-${r.endLine}${r.kind ? ` ${r.kind}` : ''}`).sort();
        expect(shown).toEqual(['0-1 comment', '11-12', '2-4', '7-13', '8-9'].sort());
    });
});

describe('semantic tokens', () => {
    afterEach(() => clearDocuments(services));

    test('operators, models, tensors, parameters, dim variables, closed words and units', async () => {
        const highlight = highlightHelper(services);
        const text = `model <|blk|>(<|c|>) {
  input <|x|>: f32[<|n|>, c]
  <|output|> = <|relu|>(<|x|>)
  output <|add|>(output, x)
}
model top(batch = 1) {
  input image: f32[<|batch|>, 4]
  output <|blk|>(image, <|c|>: 4)
}
workload w {
  tenant t {
    model <|resnet18|>()
    arrival <|poisson|>(<|rate|>: <|20|><|/s|>)
    slo <|p99|> <= 40ms
  }
  device <|auto|>
}`;
        const tokens = await highlight(text);
        const at = (i: number) => {
            const [start, end] = tokens.ranges[i]!;
            const found = tokens.tokens.filter(t => t.offset === start && t.offset + t.text.length === end);
            return found.map(t => {
                const modifiers = Object.entries(AllSemanticTokenModifiers).filter(([, bit]) => (t.tokenModifiers & bit) !== 0).map(([name]) => name);
                return `${t.tokenType}${modifiers.length ? ' ' + modifiers.join(',') : ''}`;
            });
        };
        const decl = SemanticTokenModifiers.declaration;
        const lib = SemanticTokenModifiers.defaultLibrary;
        expect(at(0)).toEqual([`${SemanticTokenTypes.class} ${decl}`]);
        expect(at(1)).toEqual([`${SemanticTokenTypes.parameter} ${decl}`]);
        expect(at(2)).toEqual([`${SemanticTokenTypes.variable} ${decl}`]);
        expect(at(3)).toEqual([`${SemanticTokenTypes.typeParameter} ${decl}`]);
        // A tensor named like a keyword is a tensor.
        expect(at(4)).toEqual([`${SemanticTokenTypes.variable} ${decl}`]);
        expect(at(5)).toEqual([`${SemanticTokenTypes.function} ${lib}`]);
        expect(at(6)).toEqual([SemanticTokenTypes.variable]);
        expect(at(7)).toEqual([`${SemanticTokenTypes.function} ${lib}`]);
        // A lone name in an input's dims that names a parameter is a use of the parameter.
        expect(at(8)).toEqual([SemanticTokenTypes.parameter]);
        expect(at(9)).toEqual([SemanticTokenTypes.class]);
        expect(at(10)).toEqual([SemanticTokenTypes.property]);
        expect(at(11)).toEqual([`${SemanticTokenTypes.class} ${lib}`]);
        expect(at(12)).toEqual([SemanticTokenTypes.enumMember]);
        expect(at(13)).toEqual([SemanticTokenTypes.property]);
        expect(at(14)).toEqual([SemanticTokenTypes.number]);
        expect(at(15)).toEqual([SemanticTokenTypes.enumMember]);
        expect(at(16)).toEqual([SemanticTokenTypes.enumMember]);
        expect(at(17)).toEqual([SemanticTokenTypes.enumMember]);
    });
});

describe('semantic tokens under concurrent requests', () => {
    afterEach(() => {
        setInterruptionPeriod(10);
        clearDocuments(services);
    });

    test('a full and two range requests at once give each the tokens it would get alone', async () => {
        const doc = await parseDocument(services, example);
        const provider = services.lsp.SemanticTokenProvider!;
        const textDocument = { uri: doc.uri.toString() };
        const whole = { start: { line: 0, character: 0 }, end: doc.textDocument.positionAt(example.length) };
        const part = { start: { line: 10, character: 0 }, end: { line: 30, character: 0 } };
        const alone = [
            (await provider.semanticHighlight(doc, { textDocument })).data,
            (await provider.semanticHighlightRange(doc, { textDocument, range: whole })).data,
            (await provider.semanticHighlightRange(doc, { textDocument, range: part })).data,
        ];
        // Yield at every node (as a long document does every 10 ms), with a token that can be cancelled.
        setInterruptionPeriod(0);
        const token = new CancellationTokenSource().token;
        const together = await Promise.all([
            provider.semanticHighlight(doc, { textDocument }, token),
            provider.semanticHighlightRange(doc, { textDocument, range: whole }, token),
            provider.semanticHighlightRange(doc, { textDocument, range: part }, token),
        ]);
        expect(together.map(t => t.data)).toEqual(alone);
        for (const t of together) expect(semanticTokenProblems(t.data, lineLengths(example), 'tokens')).toEqual([]);
        expect(alone[2]!.length).toBeGreaterThan(0);
        expect(alone[2]!.length).toBeLessThan(alone[0]!.length);
    });

    test('a request cancelled part-way leaves nothing behind: the next one has its own tokens only (found by the fuzzer)', async () => {
        const text = Array.from({ length: 40 }, (_, i) => `model m${i}(batch = 1) {\n  input x: f32[batch, 4]\n  output relu(dense(x, 8))\n}\n`).join('');
        const doc = await parseDocument(services, text);
        const provider = services.lsp.SemanticTokenProvider!;
        const textDocument = { uri: doc.uri.toString() };
        const alone = (await provider.semanticHighlight(doc, { textDocument })).data;
        // Cancelled at its first look at the token, after the walk has highlighted a few hundred nodes.
        const cancelled = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose: () => {} }) };
        const outcome = await Promise.resolve(provider.semanticHighlight(doc, { textDocument }, cancelled)).then(r => r, (e: unknown) => e);
        expect(isOperationCancelled(outcome)).toBe(true);
        const next = (await provider.semanticHighlight(doc, { textDocument }, new CancellationTokenSource().token)).data;
        expect(semanticTokenProblems(next, lineLengths(text), 'tokens')).toEqual([]);
        expect(next).toEqual(alone);
    });
});
