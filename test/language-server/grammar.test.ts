import { readFileSync } from 'node:fs';
import { AstUtils, CstUtils, EmptyFileSystem, GrammarAST } from 'langium';
import { parseHelper } from 'langium/test';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { quantityUnits } from '../../src/language-server/analysis/quantities.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

// The generated module runs the parser in production mode (validations off), because the one
// known ambiguity — a lone name as a whole input dim, DimVar or DimValue (the alternatives of
// `dims+=` in the Input rule) — is resolved as intended (DimVar) and chevrotain would log it on
// every parse. This test builds the parser in
// development mode and asserts that no other ambiguity has crept into the grammar.
describe('grammar ambiguities', () => {
    afterEach(() => vi.restoreAllMocks());

    test('only the known input-dim ambiguity exists', async () => {
        const logged: string[] = [];
        vi.spyOn(console, 'log').mockImplementation((message: unknown) => { logged.push(String(message)); });
        const services = createTenancyServices(EmptyFileSystem).Tenancy;
        (services.LanguageMetaData as { mode: string }).mode = 'development';
        const parse = parseHelper(services);
        await parse(`model m(c = 2) {
  input x: f32[n, c, n * 2]
  y = repeat 2 blk(x)
  output relu(add(y, (1, 2)))
}
workload w { tenant t { model m(c: 2) arrival closed(clients: 1) slo p99 <= 5ms priority high } schedule auto benchmark { seed 1 } }`);
        const ambiguities = logged.filter(m => m.includes('Ambiguous'));
        expect(ambiguities.length).toBeGreaterThan(0);
        expect(ambiguities.filter(m => !m.includes('inside <Input'))).toEqual([]);
    });
});

describe('grammar structure', () => {
    // Expression and Multiplicative list the primaries inline (fewer rule levels per operand),
    // Expression's first operand with the literals and names built in place by actions; every
    // such list must produce exactly Primary's node types, so a primary added to one is added
    // to all.
    test('the inline primary lists of Expression and Multiplicative are the Primary rule', () => {
        const grammar = createTenancyServices(EmptyFileSystem).Tenancy.Grammar;
        const rule = (name: string) => grammar.rules.find(r => r.name === name) as GrammarAST.ParserRule;
        // The node type an alternative produces: its rule's name, or the type its action infers.
        const produces = (e: GrammarAST.AbstractElement): string | undefined => GrammarAST.isRuleCall(e) ? e.rule.ref?.name
            : GrammarAST.isGroup(e) && GrammarAST.isAction(e.elements[0]) ? e.elements[0].inferredType?.name : undefined;
        const types = (alternatives: GrammarAST.Alternatives) => [...new Set(alternatives.elements.map(produces))].sort();
        const primaries = types(rule('Primary').definition as GrammarAST.Alternatives);
        expect(primaries).toContain('NameRef');
        const inline = ['Expression', 'Multiplicative'].flatMap(r => AstUtils.streamAllContents(rule(r).definition)
            .filter(GrammarAST.isAlternatives)
            .filter(a => a.elements.length > 2 && a.elements.every(e => produces(e) !== undefined))
            .map(types)
            .toArray());
        expect(inline).toHaveLength(4);
        for (const list of inline) expect(list).toEqual(primaries);
    });
});

describe('the Langium patch (patches/README.md)', () => {
    afterEach(() => vi.restoreAllMocks());

    // patches/langium+4.4.0.patch builds each choice's alternatives once, not on every call; an
    // install that skipped it (npm install --ignore-scripts) parses the same, only slower.
    test('parsing a text again builds new alternatives for the entry rule only', () => {
        const parser = createTenancyServices(EmptyFileSystem).Tenancy.parser.LangiumParser;
        const original = parser.alternatives.bind(parser);
        let seen = new Set<unknown>();
        vi.spyOn(parser, 'alternatives').mockImplementation((idx, choices) => {
            seen.add(choices);
            original(idx, choices);
        });
        const text = 'model m(a = 1) {\n  input x: f32[a, 4]\n  y = relu(dense(x, a * 2 + 1))\n  output add(y, y)\n}';
        expect(parser.parse(text).parserErrors).toEqual([]);
        const first = seen;
        seen = new Set();
        expect(parser.parse(text).parserErrors).toEqual([]);
        expect(seen.size).toBeGreaterThan(0);
        // Only the entry rule's one choice (Model | Workload) is new: Langium calls the entry rule
        // with a new argument object per parse. Unpatched, every choice is new.
        expect([...seen].filter(choices => !first.has(choices))).toHaveLength(1);
    });

    test('repetitions and options reuse their options object across parses', () => {
        const parser = createTenancyServices(EmptyFileSystem).Tenancy.parser.LangiumParser;
        const seen: unknown[] = [];
        for (const method of ['many', 'optional'] as const) {
            const original = parser[method].bind(parser);
            vi.spyOn(parser, method).mockImplementation((idx, options) => {
                seen.push(options);
                original(idx, options);
            });
        }
        const text = 'model m(a = 1, b = 2) {\n  input x: f32[a, 4]\n  y = relu(dense(x, a * 2 + 1, bias: false))\n  output add(y, y)\n}';
        expect(parser.parse(text).parserErrors).toEqual([]);
        const first = new Set(seen);
        seen.length = 0;
        expect(parser.parse(text).parserErrors).toEqual([]);
        expect(seen.length).toBeGreaterThan(10);
        // Only the entry rule's repetitions (its list of elements, and of imports) are new: Langium
        // calls the entry rule with a new argument object per parse. Unpatched, every one is new.
        expect(seen.filter(options => !first.has(options)).length).toBeLessThanOrEqual(2);
    });

    test('only tokens with comments before them add hidden nodes to the CST', () => {
        const parser = createTenancyServices(EmptyFileSystem).Tenancy.parser.LangiumParser;
        const builder = (parser as unknown as { nodeBuilder: { addHiddenNodes(tokens: unknown[]): void } }).nodeBuilder;
        const original = builder.addHiddenNodes.bind(builder);
        const calls: number[] = [];
        vi.spyOn(builder, 'addHiddenNodes').mockImplementation(tokens => {
            calls.push(tokens.length);
            original(tokens);
        });
        const result = parser.parse('// one comment\nmodel m(a = 1) {\n  input x: f32[a, 4]\n  output relu(x)\n}');
        expect(result.parserErrors).toEqual([]);
        // The comment before `model`, then the parse's own call with the (now empty) rest. Unpatched,
        // every consumed token called it, most with no tokens.
        expect(calls).toEqual([1, 0]);
        const comment = [...CstUtils.streamCst(result.value.$cstNode!)].find(n => n.hidden);
        expect(comment?.text).toBe('// one comment');
    });
});

describe('quantity units', () => {
    test("the grammar's QUANTITY terminal spells the units of quantities.ts", () => {
        const grammar = readFileSync(new URL('../../src/language-server/tenancy.langium', import.meta.url), 'utf8');
        const terminal = /terminal QUANTITY: \/\\d\+\(\\\.\\d\+\)\?\(([^)]*)\)/.exec(grammar);
        expect(terminal, 'QUANTITY terminal').not.toBeNull();
        const spelled = terminal![1]!.split('|').map(u => u.replace('\\/', '/'));
        expect([...spelled].sort()).toEqual(quantityUnits.map(u => u.unit).sort());
    });
});
