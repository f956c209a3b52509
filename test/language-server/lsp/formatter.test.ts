import { readFileSync } from 'node:fs';
import { EmptyFileSystem, isOperationCancelled, TextDocument, type LangiumDocument, type Mutable } from 'langium';
import { clearDocuments, parseDocument } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import { CancellationTokenSource } from 'vscode-languageserver';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { zooSources } from '../../../src/language-server/zoo/sources.generated.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
let n = 0;

/** The formatted text of `text` (2-space indents). */
async function format(text: string): Promise<string> {
    const doc = await parseDocument(services, text, { documentUri: `file:///fmt/${n++}.tenancy` });
    const edits = await services.lsp.Formatter!.formatDocument(doc, { textDocument: { uri: doc.uri.toString() }, options: { tabSize: 2, insertSpaces: true } });
    return TextDocument.applyEdits(doc.textDocument, edits);
}

/** The tokens of `text` (the lexer's), without whitespace and comments: formatting must keep them. */
async function tokens(text: string): Promise<string[]> {
    return services.parser.Lexer.tokenize(text).tokens.map(t => `${t.tokenType.name}:${t.image}`);
}

async function parseErrors(text: string): Promise<string[]> {
    const doc: LangiumDocument = await parseDocument(services, text, { documentUri: `file:///fmt/${n++}.tenancy` });
    return [...doc.parseResult.lexerErrors.map(e => e.message), ...doc.parseResult.parserErrors.map(e => e.message)];
}

describe('formatter', () => {
    afterEach(() => clearDocuments(services));

    test('indents, one statement per line, spaces after commas and colons, around = and <=', async () => {
        const messy = `model   m( batch=32 ,hidden = 512 ){ input x :f32 [ batch ,784 ]
h=relu( dense( x ,hidden ) )  output logits =dense(h,10, bias:false)
    y = reshape(x, ( -1 ,4 ))
}
workload w{device auto( memory:2GiB ) tenant t{model m( batch:8 ) arrival poisson( rate:20/s )
slo p99<=40ms priority high}
schedule layer_block(size:4)
benchmark{duration 10s warmup 2s}}
`;
        expect(await format(messy)).toBe(`model m(batch = 32, hidden = 512) {
  input x: f32[batch, 784]
  h = relu(dense(x, hidden))
  output logits = dense(h, 10, bias: false)
  y = reshape(x, (-1, 4))
}
workload w {
  device auto(memory: 2GiB)
  tenant t {
    model m(batch: 8)
    arrival poisson(rate: 20/s)
    slo p99 <= 40ms
    priority high
  }
  schedule layer_block(size: 4)
  benchmark {
    duration 10s
    warmup 2s
  }
}
`);
    });

    test('dim arithmetic keeps spaces around operators: 64 / s stays a division', async () => {
        const out = await format('model m(s = 2) {\n  input x: f32[64 / s, (8+s)*2]\n  output dense(x, s*4)\n}\n');
        expect(out).toBe('model m(s = 2) {\n  input x: f32[64 / s, (8 + s) * 2]\n  output dense(x, s * 4)\n}\n');
        expect(await parseErrors(out)).toEqual([]);
    });

    test('keeps doc comments, trailing comments and single blank lines', async () => {
        const text = '/// Docs.\n/// More.\nmodel m() {\n  input x: f32[1, 4]   // the input\n\n\n\n  output relu(x)\n}\n\n\n\nworkload w { tenant t { model m() } }\n';
        const out = await format(text);
        expect(out).toBe('/// Docs.\n/// More.\nmodel m() {\n  input x: f32[1, 4]   // the input\n\n  output relu(x)\n}\n\nworkload w {\n  tenant t {\n    model m()\n  }\n}\n');
    });

    test('is idempotent, and keeps the tokens of the example and of every zoo file', async () => {
        const sources = [readFileSync('examples/vision-and-nlp.tenancy', 'utf8'), ...zooSources.map(s => s.text)];
        for (const source of sources) {
            const once = await format(source);
            expect(await format(once)).toBe(once);
            expect(await tokens(once)).toEqual(await tokens(source));
            expect(await parseErrors(once)).toEqual([]);
        }
    });

    test('formats a long file in steps: the event loop runs meanwhile, and a cancellation or a new parse ends it at once, without edits', async () => {
        const text = Array.from({ length: 1500 }, (_, i) => `model m${i}(batch=1){ input x: f32[batch,64]\n h=relu(dense(x,64))\n output y=dense(h,10)}\n`).join('');
        const doc = await parseDocument(services, text, { documentUri: `file:///fmt/${n++}.tenancy` });
        const params = { textDocument: { uri: doc.uri.toString() }, options: { tabSize: 2, insertSpaces: true } };
        const formatter = services.lsp.Formatter!;

        let ticks = 0;
        const ticker = setInterval(() => ticks++, 1);
        const started = performance.now();
        const edits = await formatter.formatDocument(doc, params, new CancellationTokenSource().token);
        const whole = performance.now() - started;
        clearInterval(ticker);
        expect(edits.length).toBeGreaterThan(1500 * 6);
        expect(ticks, `timers that ran during ${whole.toFixed(0)} ms of formatting`).toBeGreaterThan(0);
        expect(TextDocument.applyEdits(doc.textDocument, edits).split('\n')[1]).toBe('  input x: f32[batch, 64]');

        // Cancelled by the first timer that runs: the request ends right after, with no edit list.
        const source = new CancellationTokenSource();
        let cancelledAt = 0;
        setTimeout(() => { cancelledAt = performance.now(); source.cancel(); }, 0);
        const cancelled = await Promise.resolve(formatter.formatDocument(doc, params, source.token)).then(r => r, (e: unknown) => e);
        const after = performance.now() - cancelledAt;
        expect(isOperationCancelled(cancelled), `formatting was not cancelled: ${Array.isArray(cancelled) ? `${cancelled.length} edits` : String(cancelled)}`).toBe(true);
        expect(after, `ms from the cancellation to the end (the whole format took ${whole.toFixed(0)} ms)`).toBeLessThan(Math.max(100, whole / 4));

        // The document re-parsed meanwhile (an edit): its edits would be for the old text.
        setTimeout(() => { (doc as Mutable<LangiumDocument>).parseResult = services.parser.LangiumParser.parse(text); }, 0);
        const stale = await Promise.resolve(formatter.formatDocument(doc, params, new CancellationTokenSource().token)).then(r => r, (e: unknown) => e);
        expect(isOperationCancelled(stale)).toBe(true);
    });

    test('leaves the example as it is (it is already formatted)', async () => {
        const example = readFileSync('examples/vision-and-nlp.tenancy', 'utf8');
        expect(await format(example)).toBe(example);
    });
});
