import { readFileSync } from 'node:fs';
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, test } from 'vitest';
import type { Document, Expression, Let, Model, Workload } from '../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const parse = parseHelper<Document>(services);

describe('grammar', () => {
    test('parses examples/vision-and-nlp.tenancy without syntax errors', async () => {
        const doc = await parse(readFileSync('examples/vision-and-nlp.tenancy', 'utf8'));
        expect(doc.parseResult.lexerErrors).toEqual([]);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
        expect(doc.parseResult.value.elements.map(e => ('name' in e ? e.name : e.$type))).toEqual(['mlp_small', 'basic_block', 'tiny_resnet', 'vision_and_nlp']);
    });

    test('keywords are soft: tensors may be called input, output, model', async () => {
        const doc = await parse(`model m(batch = 1) {
  input input: f32[batch, 4]
  model = relu(input)
  output = relu(model)
  output out = add(output, (3, 4))
}`);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
    });

    test('every word keyword but true and false is a name where a name is expected', async () => {
        const words = ['input', 'output', 'model', 'import', 'workload', 'tenant', 'device', 'arrival', 'slo', 'priority', 'schedule', 'benchmark', 'repeat', 'f32', 'f16', 'i32'];
        const lets = words.map((w, i) => `  ${w} = relu(${i === 0 ? 'x' : words[i - 1]})`).join('\n');
        const doc = await parse(`model model(input = 1) {
  input x: f32[input, 4]
${lets}
  output tenant = add(i32, x)
}
workload workload { tenant tenant { model model(input: 2) } schedule repeat }`);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
        const model = doc.parseResult.value.elements[0] as Model;
        expect(model.name).toBe('model');
        expect(model.params[0].name).toBe('input');
        expect(model.statements.map(s => s.name)).toEqual(['x', ...words, 'tenant']);
        const workload = doc.parseResult.value.elements[1] as Workload;
        expect(workload.name).toBe('workload');
        expect(workload.members.map(m => (m as { name?: string; policy?: string }).name ?? (m as { policy?: string }).policy)).toEqual(['tenant', 'repeat']);
    });

    test('true and false stay values, not names', async () => {
        const doc = await parse(`model m { input x: f32[4] true = relu(x) output x }`);
        expect(doc.parseResult.parserErrors.length).toBeGreaterThan(0);
    });

    test('quantities are single tokens and 64 / s is a division', async () => {
        const doc = await parse(`model m(s = 2) { input x: f32[64 / s, 250] output relu(x) }
workload w { tenant t { model m() slo p99 <= 0.5s arrival poisson(rate: 20/s) } device auto(memory: 2GiB) }`);
        expect(doc.parseResult.lexerErrors).toEqual([]);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
    });
});

describe('expressions: precedence and associativity', () => {
    // The parse tree written with every binary operation in parentheses.
    function shape(e: Expression): string {
        switch (e.$type) {
            case 'BinaryExpr': return `(${shape(e.left)} ${e.operator} ${shape(e.right)})`;
            case 'Negation': return `-${shape(e.operand)}`;
            case 'NameRef': return e.ref.$refText;
            case 'IntLit': return String(e.value);
            case 'Tuple': return `[${e.elements.map(shape).join(', ')}]`;
            case 'Call': return `${e.callee.$refText}(${e.args.map(a => shape(a.value)).join(', ')})`;
            default: return e.$type;
        }
    }
    const cases: [string, string][] = [
        ['a + b * c', '(a + (b * c))'],
        ['a * b + c', '((a * b) + c)'],
        ['a - b - c', '((a - b) - c)'],
        ['a / b / c', '((a / b) / c)'],
        ['a * b / c * d', '(((a * b) / c) * d)'],
        ['a * b + c * d - e', '(((a * b) + (c * d)) - e)'],
        ['a + b * c - d / e * f', '((a + (b * c)) - ((d / e) * f))'],
        ['-a * b', '(-a * b)'],
        ['-(a + b) * 2', '(-(a + b) * 2)'],
        ['(a + b) * c', '((a + b) * c)'],
        ['a * (b - c) + f(a * b, c + 1) / 2', '((a * (b - c)) + (f((a * b), (c + 1)) / 2))'],
    ];
    test.each(cases)('%s parses as %s', async (text, expected) => {
        const doc = await parse(`model m(a = 1, b = 2, c = 3, d = 4, e = 5, f = 6) {\n  input x: f32[4]\n  y = ${text}\n  output x\n}`);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
        const model = doc.parseResult.value.elements[0] as Model;
        const value = (model.statements[1] as Let).value;
        expect(shape(value)).toBe(expected);
        // The node's range is its own text, operands included.
        expect(value.$cstNode?.text).toBe(text);
    });
});
