/**
 * Checker = runtime: what `tenancy check` accepts, the runtime can plan (kernels for every op,
 * buffers within the limits), and what the runtime cannot run the checker rejects. Planning is
 * the runtime's own (plan/tenant-plan.ts with the kernel generators), without a GPU.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadWorkspace } from '../src/cli/load-workspace.js';
import { isDocument, isWorkload } from '../src/language-server/generated/ast.js';
import { lowerWorkload } from '../src/language-server/lower.js';
import { planTenant, type TenantPlanOptions } from '../src/runtime/plan/tenant-plan.js';
import { DEFAULT_CAPS, kernelsFor } from '../src/runtime/kernels/index.js';

/** WebGPU's default limits, which the checker's buffer-too-large also assumes without a device profile. */
const options: TenantPlanOptions = { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits: { maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 256 * 2 ** 20 } };

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'tenancy-runnable-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
};

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
});
