import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { describe, expect, test } from 'vitest';
import { modelCallsIn } from '../../src/language-server/analysis/calls.js';
import type { Document, Model } from '../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

const parse = parseHelper<Document>(createTenancyServices(EmptyFileSystem).Tenancy);

describe('model calls of a model', () => {
    test('finds calls to models in every kind of expression, in source order, and skips operators', async () => {
        const doc = await parse(`model m(k = 2) {
  input x: f32[n, 4]
  a = relu(first(x))
  b = repeat k second(a)
  t = (third(a), -fourth(b) * 2)
  output add(fifth(a), dense(sixth(b), 4))
}`);
        const model = doc.parseResult.value.elements[0] as Model;
        expect(modelCallsIn(model).map(c => c.callee.$refText)).toEqual(['first', 'second', 'third', 'fourth', 'fifth', 'sixth']);
        // Kept per node: the same list on every call.
        expect(modelCallsIn(model)).toBe(modelCallsIn(model));
    });
});
