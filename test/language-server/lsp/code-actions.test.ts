import { EmptyFileSystem, TextDocument } from 'langium';
import { clearDocuments, validationHelper } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import { CodeAction } from 'vscode-languageserver';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { IssueCodes } from '../../../src/language-server/validation/issue-codes.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const validate = validationHelper(services);
const codeOf = (d: { data?: unknown }) => (d.data as { code?: string } | undefined)?.code;

/** Validates `text`, asks for the actions on the one diagnostic with `code`, returns titles and an applier. */
async function actionsFor(text: string, code: string) {
    const result = await validate(text);
    const diagnostics = result.diagnostics.filter(d => codeOf(d) === code);
    expect(diagnostics, `one ${code} diagnostic in ${JSON.stringify(result.diagnostics.map(d => [codeOf(d), d.message]))}`).toHaveLength(1);
    const actions = ((await services.lsp.CodeActionProvider!.getCodeActions(result.document, {
        textDocument: { uri: result.document.uri.toString() }, range: diagnostics[0]!.range, context: { diagnostics, triggerKind: 1 },
    })) ?? []).filter(CodeAction.is);
    return {
        titles: actions.map(a => a.title),
        preferred: actions.find(a => a.isPreferred)?.title,
        /** The text after applying the action titled `title`. */
        apply(title: string): string {
            const action = actions.find(a => a.title === title);
            expect(action, `action '${title}' among ${JSON.stringify(actions.map(a => a.title))}`).toBeDefined();
            return TextDocument.applyEdits(result.document.textDocument, action!.edit!.changes![result.document.uri.toString()]!);
        },
    };
}

/** Codes of the diagnostics of `text` (errors only). */
async function errorCodes(text: string): Promise<string[]> {
    return (await validate(text)).diagnostics.filter(d => d.severity === 1).map(d => codeOf(d) ?? '?');
}

const model = (line: string) => `model m(batch = 1, hidden = 8) {\n  input x: f32[batch, 4]\n  ${line}\n}\n`;

describe('quick fixes', () => {
    afterEach(() => clearDocuments(services));

    test('unknown operator: did you mean, and the fix removes the error', async () => {
        const text = model('output rleu(x)');
        const { titles, preferred, apply } = await actionsFor(text, IssueCodes.UnknownOp);
        expect(preferred).toBe("Change to 'relu'");
        expect(titles).toContain("Create model 'rleu'");
        const fixed = apply("Change to 'relu'");
        expect(fixed).toBe(model('output relu(x)'));
        expect(await errorCodes(fixed)).toEqual([]);
    });
    test('unresolved tensor: the closest names in scope', async () => {
        const { preferred, apply } = await actionsFor(model('output relu(hiden)'), IssueCodes.UnresolvedReference);
        expect(preferred).toBe("Change to 'hidden'");
        expect(apply("Change to 'hidden'")).toBe(model('output relu(hidden)'));
    });
    test('bad argument name of an operator', async () => {
        const { preferred, apply } = await actionsFor(model('output dense(x, 4, bais: false)'), IssueCodes.BadArgument);
        expect(preferred).toBe("Change to 'bias'");
        expect(await errorCodes(apply("Change to 'bias'"))).toEqual([]);
    });
    test('bad argument name of a tenant model and a misspelt workload word', async () => {
        const wl = (body: string) => model('output relu(x)') + `workload w {\n  tenant t {\n    model m(${body})\n  }\n}\n`;
        const { apply } = await actionsFor(wl('bacth: 2'), IssueCodes.BadArgument);
        expect(apply("Change to 'batch'")).toBe(wl('batch: 2'));
        const arrival = (kind: string) => model('output relu(x)') + `workload w {\n  tenant t {\n    model m()\n    arrival ${kind}(rate: 20/s)\n  }\n}\n`;
        const words = await actionsFor(arrival('poison'), IssueCodes.BadArgument);
        expect(words.apply("Change to 'poisson'")).toBe(arrival('poisson'));
    });
    test('create missing model: named arguments become parameters, tensors inputs', async () => {
        const text = model('y = relu(x)\n  output encoder(y, layers: 2, width: hidden)');
        // An unknown callee is `unknown-op` ("unknown operator or model"); `unresolved-reference` gets the same fixes.
        const { apply } = await actionsFor(text, IssueCodes.UnknownOp);
        const fixed = apply("Create model 'encoder'");
        expect(fixed).toBe(text.trimEnd() + '\n\nmodel encoder(layers = 2, width) {\n  input y: f32[n0, d0]\n  output relu(y)\n}\n');
        expect(await errorCodes(fixed)).toEqual([]);
        const images = 'model m() {\n  input image: f32[1, 3, 8, 8]\n  output stem(image)\n}\n';
        const fixedImages = (await actionsFor(images, IssueCodes.UnknownOp)).apply("Create model 'stem'");
        expect(fixedImages).toContain('model stem() {\n  input image: f32[n0, d0_1, d0_2, d0_3]\n  output relu(image)\n}');
        expect(await errorCodes(fixedImages)).toEqual([]);
    });
    test('create missing model from a tenant: inserted before the workload, valid as a tenant model', async () => {
        const text = 'workload w {\n  tenant t {\n    model detector(batch: 4)\n  }\n}\n';
        const { titles, apply } = await actionsFor(text, IssueCodes.UnresolvedReference);
        expect(titles.some(t => t.startsWith('Change to'))).toBe(false);
        const fixed = apply("Create model 'detector'");
        expect(fixed).toBe('model detector(batch = 4) {\n  input x: f32[batch, 16]\n  output relu(x)\n}\n\n' + text);
        expect(await errorCodes(fixed)).toEqual([]);
    });
    test("'output = …' becomes an output statement when nothing reads the tensor", async () => {
        const text = model('h = relu(x)\n  output = dense(h, 10)');
        const { preferred, apply } = await actionsFor(text, IssueCodes.KeywordName);
        expect(preferred).toBe("Make it an output statement: 'output out = …'");
        const fixed = apply(preferred!);
        expect(fixed).toBe(model('h = relu(x)\n  output out = dense(h, 10)'));
        expect((await validate(fixed)).diagnostics.filter(d => codeOf(d) === IssueCodes.KeywordName)).toEqual([]);
        const used = await actionsFor(model('output = relu(x)\n  output y = relu(output)'), IssueCodes.KeywordName);
        expect(used.titles).toEqual([]);
    });
    test('the fixes offer the names the message suggests (one did-you-mean logic)', async () => {
        const result = await validate(model('output rleu(x)'));
        const message = result.diagnostics.find(d => codeOf(d) === IssueCodes.UnknownOp)!.message;
        const { titles } = await actionsFor(model('output rleu(x)'), IssueCodes.UnknownOp);
        const offered = titles.filter(t => t.startsWith('Change to')).map(t => /'(.*)'/.exec(t)![1]);
        expect(offered.length).toBeGreaterThan(0);
        for (const name of offered) expect(message).toContain(`'${name}'`);
    });
});
