/**
 * Checker = runtime: what `tenancy check` accepts, the runtime can plan (kernels for every op,
 * buffers within the limits), and what the runtime cannot run the checker rejects. Planning is
 * the runtime's own (test/fixtures/runtime-accepts.ts: IR validation, the schedule, the tenant
 * plans with the kernel generators), without a GPU. The documents: every example, every zoo
 * model run alone, the benchmark's zoo workloads, every .tenancy text in the language server's
 * tests, and seeded random models (test/fixtures/generate-models.ts); the docs' blocks are held
 * to the same rule by docs.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadWorkspace, WorkspaceInputError } from '../src/cli/load-workspace.js';
import { isDocument, isWorkload } from '../src/language-server/generated/ast.js';
import { lowerWorkload } from '../src/language-server/lower.js';
import { zooSources } from '../src/language-server/zoo/sources.generated.js';
import { createRandom } from '../src/runtime/plan/random.js';
import { planTenant, type TenantPlanOptions } from '../src/runtime/plan/tenant-plan.js';
import { DEFAULT_CAPS, kernelsFor } from '../src/runtime/kernels/index.js';
import { loadSeeds } from './fuzz/corpus.js';
import { generatedDocument } from './fixtures/generate-models.js';
import { DEFAULT_LIMITS, runtimeRefusal } from './fixtures/runtime-accepts.js';

const options: TenantPlanOptions = { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits: DEFAULT_LIMITS };

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'tenancy-runnable-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
};

/**
 * Checks every workload of the document: the checker refuses it (an error in it or in a model it
 * runs), or it lowers and the runtime would run it. Returns the workloads accepted, and each gap
 * as `<workload>: <what failed>`.
 */
async function holdToRuntime(path: string): Promise<{ accepted: string[]; gaps: string[] }> {
    const name = path.split('/').pop();
    const workspace = await loadWorkspace([path]);
    const accepted: string[] = [], gaps: string[] = [];
    for (const w of workspace.workloads(path)) {
        let ir;
        try {
            ir = workspace.lower(w.name, path);
        } catch (error) {
            if (error instanceof WorkspaceInputError) continue; // the checker refused it
            gaps.push(`${name} ${w.name}: accepted by the checker, refused by lowering: ${(error as Error).message}`);
            continue;
        }
        accepted.push(w.name);
        const refusal = runtimeRefusal(ir);
        if (refusal) gaps.push(`${name} ${w.name}: accepted by the checker, refused by the runtime: ${refusal}`);
    }
    return { accepted, gaps };
}

describe('every document the checker accepts, the runtime plans', () => {
    const seeds = loadSeeds(process.cwd()).filter(s => /\bworkload\s+\w+/.test(s.text));

    test('the examples and the language server tests\' documents', async () => {
        expect(seeds.length).toBeGreaterThan(20);
        let accepted = 0;
        const gaps: string[] = [];
        for (const [i, seed] of seeds.entries()) {
            // Imports resolve next to the file: the examples are checked where they are.
            const result = await holdToRuntime(seed.name.startsWith('examples/') ? seed.name : file(`seed${i}.tenancy`, seed.text));
            accepted += result.accepted.length;
            gaps.push(...result.gaps.map(g => `${seed.name}: ${g}`));
        }
        expect(gaps).toEqual([]);
        expect(accepted).toBeGreaterThan(20);
    });

    test('every zoo model run alone with its defaults, and the benchmark\'s zoo workloads', async () => {
        const models = zooSources.flatMap(s => s.models);
        const zoo = await holdToRuntime(file('zoo.tenancy', models.map(m => `workload run_${m} { tenant t { model ${m}() } }`).join('\n')));
        expect(zoo.gaps).toEqual([]);
        // The full models (every parameter defaulted) are accepted; blocks need arguments or leave dims unbound.
        expect(zoo.accepted).toEqual(expect.arrayContaining(['run_mlp', 'run_resnet18', 'run_resnet50', 'run_mobilenet_v2', 'run_bert_base', 'run_lstm_lm', 'run_dlrm']));
        const bench = await holdToRuntime('bench/interference/zoo-models.tenancy');
        expect(bench.gaps).toEqual([]);
        expect(bench.accepted.length).toBeGreaterThan(0);
    });

    test('seeded random models: every operator, argument ranges past the valid ones, every schedule', async () => {
        const random = createRandom(17, 'runnable');
        let accepted = 0;
        const gaps: string[] = [];
        for (let d = 0; d < 3; d++) {
            const result = await holdToRuntime(file(`generated${d}.tenancy`, generatedDocument(random.fork(`doc${d}`), 40)));
            accepted += result.accepted.length;
            gaps.push(...result.gaps);
        }
        expect(gaps).toEqual([]);
        // Most draws are valid: the check is not vacuous.
        expect(accepted).toBeGreaterThan(60);
    });
});

describe('checker = runtime', () => {
    test.each(['examples/quick-start.tenancy', 'examples/schedules.tenancy', 'examples/vision-and-nlp.tenancy', 'examples/zoo-mix.tenancy', 'examples/imports/main.tenancy'])(
        'every workload %s accepts plans with the runtime\'s kernels', async path => {
            const workspace = await loadWorkspace([path]);
            expect(workspace.diagnostics.filter(d => d.severity === 'error')).toEqual([]);
            const workloads = workspace.workloads(path);
            expect(workloads.length).toBeGreaterThan(0);
            for (const w of workloads) {
                for (const tenant of workspace.lower(w.name, path).tenants) expect(() => planTenant(tenant, options), `${w.name}/${tenant.name}`).not.toThrow();
            }
        });

    test('i32 ids into an embedding, and every dtype the kernels compute: accepted and planned', async () => {
        const path = file('ids.tenancy', `model lm(batch = 2, seq = 8) {
  input ids: i32[batch, seq]
  h = embedding(ids, vocab: 100, dim: 16)
  output dense(layer_norm(h), 100)
}
workload w { tenant t { model lm() } }
`);
        const workspace = await loadWorkspace([path]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error')).toEqual([]);
        for (const tenant of workspace.lower('w', path).tenants) expect(() => planTenant(tenant, options)).not.toThrow();
    });

    test('an f16 input: the runtime refuses to plan it, and the checker says so first (unsupported, on the tenant line)', async () => {
        const path = file('half.tenancy', `model half(batch = 1) {
  input x: f16[batch, 16]
  output dense(x, 4)
}
workload w { tenant t { model half() } }
`);
        const workspace = await loadWorkspace([path]);
        const errors = workspace.diagnostics.filter(d => d.severity === 'error');
        expect(errors.map(d => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
            "5:31 unsupported half takes an f16 input (x on line 2); the runtime's kernels compute in f32, so it cannot run it — declare the input f32",
        ]);
        // The same workload lowered without the checker: the planner fails on it.
        const root = workspace.documents[0]!.parseResult.value;
        const node = isDocument(root) ? root.elements.find(isWorkload) : undefined;
        const ir = lowerWorkload(node!, workspace.services.analysis.Analyzer);
        expect(() => planTenant(ir.tenants[0]!, options)).toThrow(/f16; these kernels implement f32 only/);
        expect(() => workspace.lower('w', path)).toThrow(/workload w has 1 error/);
    });

    test('a model without outputs: an error in the model, which stops its tenants\' runs', async () => {
        const path = file('empty.tenancy', `model nothing(batch = 1) {
  input x: f32[batch, 16]
}
workload w { tenant t { model nothing() } }
`);
        const workspace = await loadWorkspace([path]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error').map(d => `${d.line}:${d.column} ${d.code} ${d.message}`))
            .toEqual(['1:7 syntax model nothing has no output; a model needs at least one: output name = …']);
        expect(() => workspace.lower('w', path)).toThrow(/workload w has 1 error/);
    });

    test('an output that is an input unchanged: unsupported on the tenant line (lowering has no op to run); fine in a block', async () => {
        const path = file('identity.tenancy', `model same(batch = 1) {
  input x: f32[batch, 16]
  output y = x
}
model pass(batch = 1) {
  input x: f32[batch, 16]
  output same(x)
}
model uses(batch = 1) {
  input x: f32[batch, 16]
  output relu(same(x))
}
workload direct { tenant t { model same() } }
workload through_block { tenant t { model pass() } }
workload as_block { tenant t { model uses() } }
`);
        const workspace = await loadWorkspace([path]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error').map(d => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
            "13:36 unsupported same's output y (line 3) is its input x unchanged; the runtime runs a model's operators and none computes it — compute the output (output y = relu(x), …), or call same as a block inside another model",
            "14:43 unsupported pass's output (line 7) is its input x unchanged; the runtime runs a model's operators and none computes it — compute the output (output y = relu(x), …), or call pass as a block inside another model",
        ]);
        expect(() => workspace.lower('direct', path)).toThrow(/workload direct has 1 error/);
        expect(runtimeRefusal(workspace.lower('as_block', path))).toBeUndefined();
        // Without the checker, lowering refuses it.
        const root = workspace.documents[0]!.parseResult.value;
        const node = isDocument(root) ? root.elements.filter(isWorkload).find(w => w.name === 'direct') : undefined;
        expect(() => lowerWorkload(node!, workspace.services.analysis.Analyzer)).toThrow(/output x is an input unchanged/);
    });

    test('every schedule the language names runs: co_tuned checks clean and lowers', async () => {
        const path = file('co-tuned.tenancy', `workload w {
  tenant a { model mlp(batch: 2) }
  schedule co_tuned(variants: 2)
}
`);
        const workspace = await loadWorkspace([path]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error')).toEqual([]);
        expect(runtimeRefusal(workspace.lower('w', path))).toBeUndefined();
    });

    test('a pool whose padding reaches the kernel size: bad-argument, as the kernel refuses it', async () => {
        const path = file('pool.tenancy', `model p(batch = 1) {
  input x: f32[batch, 2, 8, 8]
  output max_pool2d(x, 1, stride: 2, padding: 1)
}
model q(batch = 1) {
  input x: f32[batch, 2, 8, 8]
  output avg_pool2d(x, 3, stride: 2, padding: 1)
}
workload w { tenant a { model p() } }
workload ok { tenant a { model q() } }
`);
        const workspace = await loadWorkspace([path]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error').map(d => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
            '3:47 bad-argument max_pool2d: padding 1, 1, 1, 1 must be smaller than the kernel 1×1 on each side (else a window can lie wholly in the padding)',
        ]);
        expect(runtimeRefusal(workspace.lower('ok', path))).toBeUndefined();
    });
});
