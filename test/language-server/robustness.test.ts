import { readFileSync } from 'node:fs';
import { EmptyFileSystem } from 'langium';
import { parseHelper } from 'langium/test';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';

// Own services: each prefix document is removed again, so the workspace stays small.
const { shared, Tenancy } = createTenancyServices(EmptyFileSystem);
const parse = parseHelper(Tenancy);

describe('robustness while typing', () => {
    afterEach(() => vi.restoreAllMocks());

    test('every prefix of the examples validates without an exception in a check', async () => {
        const logged: string[] = [];
        vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => { logged.push(args.map(String).join(' ')); });
        const texts = ['examples/vision-and-nlp.tenancy', 'examples/imports/main.tenancy', 'src/language-server/zoo/resnet.tenancy']
            .map(f => readFileSync(f, 'utf8'));
        let documents = 0;
        for (const text of texts) {
            for (let end = 1; end <= text.length; end += 11) {
                const doc = await parse(text.slice(0, end), { validation: true, documentUri: `inmemory:///prefix${documents}.tenancy` });
                documents++;
                const crashes = (doc.diagnostics ?? []).filter(d => /error occurred/i.test(String(d.message)));
                expect(crashes.map(d => String(d.message)), `prefix of ${end} characters`).toEqual([]);
                shared.workspace.LangiumDocuments.deleteDocument(doc.uri);
            }
        }
        expect(documents).toBeGreaterThan(300);
        expect(logged.filter(l => /error occurred/i.test(l))).toEqual([]);
    });
});
