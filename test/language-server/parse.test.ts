import { readFileSync } from 'node:fs';
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, test } from 'vitest';
import type { Document } from '../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const parse = parseHelper<Document>(services);

describe('grammar', () => {
    test('parses the example of LANGUAGE.md without syntax errors', async () => {
        const doc = await parse(readFileSync('examples/vision-and-nlp.tenancy', 'utf8'));
        expect(doc.parseResult.lexerErrors).toEqual([]);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
        expect(doc.parseResult.value.elements.map(e => e.name)).toEqual(['mlp_small', 'basic_block', 'tiny_resnet', 'vision_and_nlp']);
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

    test('quantities are single tokens and 64 / s is a division', async () => {
        const doc = await parse(`model m(s = 2) { input x: f32[64 / s, 250] output relu(x) }
workload w { tenant t { model m() slo p99 <= 0.5s arrival poisson(rate: 20/s) } device auto(memory: 2GiB) }`);
        expect(doc.parseResult.lexerErrors).toEqual([]);
        expect(doc.parseResult.parserErrors.map(e => e.message)).toEqual([]);
    });
});
