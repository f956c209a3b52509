/**
 * The prediction cache across edits: a workload's prediction is kept while what it was computed
 * from is unchanged (its node, the models its tenants reach, the profile), recomputed when a
 * model it reaches is edited in another document, and op hovers / inlay hints predict only the
 * workloads whose ops can come from the document asked about.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EmptyFileSystem, TextDocument, URI, type LangiumDocument } from 'langium';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkload, type Document, type Workload } from '../../../src/language-server/generated/ast.js';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { declaredEvaluation, type ScheduleEvaluation } from '../../../src/runtime/predict/schedules.js';

let dir: string;
let savedCache: string | undefined;
let created: ReturnType<typeof createTenancyServices>;

beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenancy-prediction-cache-'));
    // The user cache of this machine must not leak into the tests.
    savedCache = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(dir, 'cache');
    created = createTenancyServices(EmptyFileSystem);
});
afterEach(() => {
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
    rmSync(dir, { recursive: true, force: true });
});

const modelText = (width: number) => `model m(batch = 1) {
  input x: f32[batch, 256]
  h = relu(dense(x, ${width}))
  output dense(h, 64)
}
`;

async function openAll(files: Record<string, string>): Promise<Record<string, LangiumDocument>> {
    const { shared } = created;
    const docs: Record<string, LangiumDocument> = {};
    for (const [name, text] of Object.entries(files)) {
        const doc = shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse(`file:///cache-test/${name}`));
        shared.workspace.LangiumDocuments.addDocument(doc);
        docs[name] = doc;
    }
    await shared.workspace.DocumentBuilder.build(Object.values(docs), { validation: true });
    return docs;
}

/** Changes a document's text as the editor does (didChange) and runs the builder's update. */
async function edit(doc: LangiumDocument, text: string): Promise<void> {
    const { shared } = created;
    shared.workspace.TextDocuments!.set(TextDocument.create(doc.uri.toString(), 'tenancy', 2, text));
    await shared.workspace.DocumentBuilder.update([doc.uri], []);
}

function workload(doc: LangiumDocument): Workload {
    return (doc.parseResult.value as Document).elements.find(isWorkload)!;
}

const errors = (d: LangiumDocument) => (d.diagnostics ?? []).filter(x => x.severity === 1).map(x => x.message);

describe('prediction cache across edits', () => {
    it('keeps a workload prediction when another document changes, recomputes the edited one', async () => {
        const docs = await openAll({
            'a.tenancy': `${modelText(512)}workload wa { tenant t { model m(batch: 8) } }\n`,
            'b.tenancy': `model n(batch = 1) {\n  input x: f32[batch, 64]\n  output relu(dense(x, 32))\n}\nworkload wb { tenant t { model n(batch: 2) } }\n`,
        });
        expect(errors(docs['a.tenancy'])).toEqual([]);
        const predictions = created.Tenancy.prediction.Predictions;
        const a1 = predictions.forWorkload(workload(docs['a.tenancy']))!;
        const b1 = predictions.forWorkload(workload(docs['b.tenancy']))!;
        expect(a1).toBeDefined();
        await edit(docs['b.tenancy'], docs['b.tenancy'].textDocument.getText().replace('dense(x, 32)', 'dense(x, 48)'));
        expect(errors(docs['b.tenancy'])).toEqual([]);
        // The unrelated workload: the very same view, not recomputed.
        expect(predictions.forWorkload(workload(docs['a.tenancy']))).toBe(a1);
        // The edited one: a new node and a new prediction with the new width.
        const b2 = predictions.forWorkload(workload(docs['b.tenancy']))!;
        expect(b2).not.toBe(b1);
        expect(b2.prediction.tenants[0].ops.reduce((s, o) => s + o.flops, 0)).toBeGreaterThan(b1.prediction.tenants[0].ops.reduce((s, o) => s + o.flops, 0));
    });

    it('recomputes a workload whose model, in another document, is edited', async () => {
        const docs = await openAll({
            'models.tenancy': modelText(512),
            'mix.tenancy': 'workload w { tenant t { model m(batch: 8) } }\n',
        });
        expect(errors(docs['mix.tenancy'])).toEqual([]);
        const predictions = created.Tenancy.prediction.Predictions;
        const w = workload(docs['mix.tenancy']);
        const before = predictions.forWorkload(w)!;
        await edit(docs['models.tenancy'], modelText(2048));
        // mix.tenancy was not reparsed: the same workload node, now linked to the edited model.
        expect(workload(docs['mix.tenancy'])).toBe(w);
        const after = predictions.forWorkload(w)!;
        expect(after).not.toBe(before);
        expect(after.prediction.tenants[0].gpuMs).toBeGreaterThan(before.prediction.tenants[0].gpuMs);
    });

    it('predicts for a document only the workloads whose ops can come from it', async () => {
        const docs = await openAll({
            'models.tenancy': modelText(512),
            'uses-m.tenancy': 'workload wm { tenant t { model m(batch: 8) } }\n',
            'uses-zoo.tenancy': 'workload wz { tenant t { model mlp(batch: 1) } }\n',
        });
        const predictions = created.Tenancy.prediction.Predictions;
        const all = created.shared.workspace.LangiumDocuments.all;
        const names = (uri: URI) => predictions.viewsTouching(uri.toString(), all).map(v => v.workload.name).sort();
        expect(names(docs['models.tenancy'].uri)).toEqual(['wm']);
        expect(names(docs['uses-m.tenancy'].uri)).toEqual(['wm']);
        expect(names(docs['uses-zoo.tenancy'].uri)).toEqual(['wz']);
        // A zoo document's ops belong to every workload that runs one of its models.
        const zooDoc = all.find(d => d.parseResult.value.$type === 'Document' && (d.parseResult.value as Document).elements.some(e => 'name' in e && e.name === 'mlp'))!;
        expect(names(zooDoc.uri)).toEqual(['wz']);
    });

    it('keeps co-run figures once simulated when the simulation is no longer at hand (evicted from the hints\' cache): not back to the solo ones', async () => {
        const { Tenancy } = created;
        Tenancy.prediction.ScheduleHints.enabled = false; // this test hands the simulation over itself
        const docs = await openAll({ 'w.tenancy': `${modelText(128)}workload w {
  tenant a { model m() arrival poisson(rate: 20/s) slo p99 <= 50ms }
  tenant b { model m(batch: 8) arrival closed(clients: 1) }
  schedule regulated(split: auto, sync: auto)
}
` });
        const w = workload(docs['w.tenancy']);
        const predictions = Tenancy.prediction.Predictions;
        const view = predictions.forWorkload(w)!;
        expect(view.prediction.corunPending).toBe(true);
        const evaluation = declaredEvaluation(view.ir, view.profile.profile);
        let simulation: ScheduleEvaluation | 'pending' = 'pending';
        predictions.configure({ schedules: () => simulation });
        simulation = evaluation;
        const simulated = predictions.forWorkload(w)!.prediction;
        expect(simulated.corunPending).toBe(false);
        expect(simulated.corunSchedule).toBe(evaluation.resolved.name);
        simulation = 'pending';
        expect(predictions.forWorkload(w)!.prediction).toBe(simulated);
    });
});
