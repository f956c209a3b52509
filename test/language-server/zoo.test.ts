import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AstUtils, DocumentState, EmptyFileSystem, TextDocument, URI } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { describe, expect, test } from 'vitest';
import { formatTensor } from '../../src/language-server/analysis/index.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { zooSources } from '../../src/language-server/zoo/sources.generated.js';
import { check, errors, services, shared, summary, zooModel } from './helpers.js';

const zooFolder = 'src/language-server/zoo';

/** Published figures at the default arguments (parameters; multiply-adds of conv/dense/attention). */
const published: [string, number, number | undefined][] = [
    ['resnet18', 11.7e6, 1.8e9],
    ['resnet50', 25.6e6, 4.1e9],
    ['vgg16', 138e6, 15.5e9],
    ['mobilenet_v2', 3.5e6, 0.3e9],
    ['bert_base', 110e6, undefined],
    ['gpt2_small', 124e6, undefined],
];

describe('model zoo', () => {
    test('the embedded text is up to date with the .tenancy files (run zoo/embed.mjs after editing)', () => {
        const files = readdirSync(zooFolder).filter(f => f.endsWith('.tenancy')).sort();
        expect(zooSources.map(s => s.file)).toEqual(files);
        for (const s of zooSources) expect(s.text, s.file).toBe(readFileSync(join(zooFolder, s.file), 'utf8'));
    });

    test('every zoo file is free of errors and warnings (every check, as builds skip them for the zoo)', async () => {
        await check('model x(b = 1) { input a: f32[b, 2] output relu(a) }');
        const zooDocs = shared.workspace.LangiumDocuments.all.filter(d => d.uri.scheme === 'tenancy-zoo').toArray();
        expect(zooDocs.length).toBe(zooSources.length);
        for (const doc of zooDocs) {
            const all = await services.validation.DocumentValidator.validateDocument(doc);
            expect(all.filter(d => d.severity! <= 2).map(d => d.message), doc.uri.toString()).toEqual([]);
        }
    });

    test('a build gives zoo documents the built-in diagnostics only, and counts them validated', async () => {
        const s = createTenancyServices(EmptyFileSystem);
        const doc = s.shared.workspace.LangiumDocumentFactory.fromString('workload w { tenant t { model mlp() } }', URI.parse('file:///zoo-skip/w.tenancy'));
        s.shared.workspace.LangiumDocuments.addDocument(doc);
        // checkModel analyses every model it checks: only the zoo model a tenant uses may be analysed.
        const analyzer = s.Tenancy.analysis.Analyzer;
        const original = analyzer.standalone.bind(analyzer);
        const analysed = new Set<string>();
        analyzer.standalone = model => {
            if (AstUtils.getDocument(model).uri.scheme === 'tenancy-zoo') analysed.add(model.name);
            return original(model);
        };
        await s.shared.workspace.DocumentBuilder.build([doc], { validation: true });
        const zooDocs = s.shared.workspace.LangiumDocuments.all.filter(d => d.uri.scheme === 'tenancy-zoo').toArray();
        expect(zooDocs.length).toBe(zooSources.length);
        for (const z of zooDocs) expect(z.state, z.uri.toString()).toBe(DocumentState.Validated);
        expect([...analysed]).toEqual(['mlp']);
        // The user's document is fully checked (a wrong argument of the zoo model is reported).
        expect(doc.state).toBe(DocumentState.Validated);
        expect(doc.diagnostics).toEqual([]);
        // A later build (an edit) does not come back to validate the zoo.
        s.shared.workspace.TextDocuments!.set(TextDocument.create(doc.uri.toString(), 'tenancy', 2, 'workload w { tenant t { model mlp(batch: 0) } }'));
        await s.shared.workspace.DocumentBuilder.update([doc.uri], []);
        expect(doc.diagnostics?.map(d => d.message).join('\n')).toMatch(/batch/);
        expect([...analysed]).toEqual(['mlp']);
        for (const z of zooDocs) expect(z.state, z.uri.toString()).toBe(DocumentState.Validated);
    });

    test.each(published)('%s matches the published figures within 2%%', (name, params, macs) => {
        const a = services.analysis.Analyzer.atDefaults(zooModel(name));
        expect(a.issues).toEqual([]);
        expect(Math.abs(a.totals.params.value! / params - 1)).toBeLessThan(0.02);
        if (macs !== undefined) expect(Math.abs(a.totals.macs.value! / macs - 1)).toBeLessThan(0.02);
        // FLOPs: two per multiply-add plus the elementwise work, never less.
        expect(a.totals.flops.value!).toBeGreaterThanOrEqual(2 * a.totals.macs.value!);
    });

    test('transformer and LSTM figures: BERT-base 11.2 G multiply-adds at seq 128; the others are counted', () => {
        const bert = services.analysis.Analyzer.atDefaults(zooModel('bert_base'));
        // 12 layers × (4·d² + 2·s·d + 2·d·ffn) per token × 128 tokens (Devlin et al.; ~11.2 GMACs).
        expect(bert.totals.macs.value).toBe(12 * 128 * (4 * 768 * 768 + 2 * 128 * 768 + 2 * 768 * 3072));
        expect(services.analysis.Analyzer.atDefaults(zooModel('lstm_lm')).totals.params.value).toBe(
            10000 * 650 + 2 * (4 * 650 * 1300 + 8 * 650) + 650 * 10000 + 10000);
        const mlp = services.analysis.Analyzer.atDefaults(zooModel('mlp'));
        expect(mlp.totals.params.value).toBe(784 * 512 + 512 + 512 * 10 + 10);
        const dlrm = services.analysis.Analyzer.atDefaults(zooModel('dlrm'));
        expect(formatTensor(dlrm.outputs[0])).toBe('f32[128, 1]');
    });

    test('zoo models are symbolic in their parameters on their own', () => {
        const shapes = Object.fromEntries(['mlp', 'resnet18', 'resnet50', 'vgg16', 'mobilenet_v2', 'bert_base', 'gpt2_small', 'lstm_lm', 'dlrm']
            .map(name => [name, services.analysis.Analyzer.standalone(zooModel(name)).outputs.map(formatTensor).join(', ')]));
        expect(shapes).toEqual({
            mlp: 'f32[batch, out]',
            resnet18: 'f32[batch, 1000]',
            resnet50: 'f32[batch, 1000]',
            vgg16: 'f32[batch, 1000]',
            mobilenet_v2: 'f32[batch, 1000]',
            bert_base: 'f32[batch, seq, 768]',
            gpt2_small: 'f32[batch, seq, 768]',
            lstm_lm: 'f32[batch, seq, vocab]',
            dlrm: 'f32[batch, 1]',
        });
    });

    test('small resolutions and short sequences work for tenants (software-adapter sized)', async () => {
        const doc = await check(`workload small {
  tenant a { model resnet50(res: 64) }
  tenant b { model bert_base(seq: 16, layers: 2) }
  tenant c { model mobilenet_v2(res: 96) }
  tenant d { model gpt2_small(seq: 8, layers: 1, vocab: 32000) }
  tenant e { model vgg16(res: 32) }
  tenant f { model lstm_lm(seq: 8, vocab: 1000, hidden: 64) }
  tenant g { model dlrm(batch: 4) }
}`);
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
    });

    test('on a real file system the zoo loads from its files (go-to-definition opens them)', () => {
        const node = createTenancyServices(NodeFileSystem);
        const docs = node.shared.workspace.ZooLibrary.ensureLoaded();
        expect(docs.map(d => d.uri.scheme)).toEqual(zooSources.map(() => 'file'));
        expect(docs[0].uri.fsPath.endsWith(join(zooFolder, zooSources[0].file))).toBe(true);
    });
});
