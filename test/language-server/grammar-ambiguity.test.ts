import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

// The generated module runs the parser in production mode (validations off), because the one
// known ambiguity — a lone name as a whole input dim, DimVar or DimValue — is resolved as
// intended (DimVar) and chevrotain would log it on every parse. This test builds the parser in
// development mode and asserts that no other ambiguity has crept into the grammar.
describe('grammar ambiguities', () => {
    afterEach(() => vi.restoreAllMocks());

    test('only the known InputDim ambiguity exists', async () => {
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
        expect(ambiguities.filter(m => !m.includes('InputDim'))).toEqual([]);
    });
});
