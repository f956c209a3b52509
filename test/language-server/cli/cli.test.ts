import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCli } from '../../fixtures/bundle-cli.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCheck } from '../../../src/cli/commands/check.js';
import { runIr } from '../../../src/cli/commands/ir.js';
import { loadWorkloadIr, loadWorkspace } from '../../../src/cli/load-workspace.js';
import { validateWorkloadIr } from '../../../src/runtime/ir/validate.js';

let dir: string;
const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path; // outside the working directory: printed as an absolute path
};

// Prediction diagnostics (another feature, depending on the device profile) are not asserted here.
const predictionCodes = /^\S+ (warning|info) (slo-infeasible|overloaded|slo-at-risk|schedule-hint|slo-violated) /;
const own = (lines: string[]) => lines.filter(l => !predictionCodes.test(l.replace(/^.*?:\d+:\d+ /, 'x ')));

async function capture(run: (out: (s: string) => void, err: (s: string) => void) => Promise<number>): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(s => out.push(s), s => err.push(s));
    return { code, out, err };
}

const broken = `model m(batch = 1) {
  input x: f32[batch, 4]
  output sofmax(x)
}
workload w { tenant t { model m() arrival poisson(rate: 2ms) } }
`;

const twoWorkloads = `model m(batch = 1) {
  input x: f32[batch, 4]
  output dense(x, 2)
}
workload first { tenant t { model m() } }
workload second { tenant t { model m(batch: 2) } tenant u { model mlp(batch: 1) } }
`;

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenancy-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tenancy check', () => {
    test('a clean file: exit 0, hints printed as file:line:col severity code message', async () => {
        const r = await capture((o, e) => runCheck(['examples/vision-and-nlp.tenancy'], {}, o, e));
        expect(r.code).toBe(0);
        expect(own(r.out)).toEqual([`examples/vision-and-nlp.tenancy:2:7 hint unused model 'mlp_small' is not used by any tenant or model`]);
        expect(r.err[0]).toMatch(/^1 file checked: 0 errors, \d+ warnings?, \d+ hints?$/);
    });

    test('errors: exit 1, 1-based positions of the offending token', async () => {
        const path = file('broken.tenancy', broken);
        const r = await capture((o, e) => runCheck([path], {}, o, e));
        expect(r.code).toBe(1);
        expect(own(r.out)).toEqual([
            `${path}:3:10 error unknown-op unknown operator or model 'sofmax'. Did you mean 'softmax'?`,
            `${path}:5:57 error bad-argument arrival poisson: 'rate' must be a rate (e.g. 20/s), found time 2ms`,
        ]);
    });

    test('--json prints diagnostics and a summary', async () => {
        const path = file('broken2.tenancy', broken);
        const r = await capture((o, e) => runCheck([path], { json: true }, o, e));
        expect(r.code).toBe(1);
        const report = JSON.parse(r.out.join('\n'));
        expect(report.summary).toMatchObject({ files: 1, errors: 2 });
        expect(report.diagnostics[0]).toMatchObject({ file: path, line: 3, column: 10, endLine: 3, endColumn: 16, severity: 'error', code: 'unknown-op' });
    });

    test('a missing file is an error naming it', async () => {
        const r = await capture((o, e) => runCheck(['nowhere/missing.tenancy'], {}, o, e));
        expect(r.code).toBe(1);
        expect(r.err).toEqual(['tenancy check: nowhere/missing.tenancy: no such file']);
    });

    test('imported files load from disk and report their own diagnostics', async () => {
        mkdirSync(join(dir, 'lib'), { recursive: true });
        file('lib/blocks.tenancy', 'model blk(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\n');
        const main = file('uses-import.tenancy', 'import "lib/blocks.tenancy"\nmodel top(batch = 1) {\n  input x: f32[batch, 4]\n  output blk(x, c: 4)\n}\nworkload w { tenant t { model top() } }\n');
        const workspace = await loadWorkspace([main]);
        expect(workspace.errorCount).toBe(0);
        const ir = workspace.lower();
        expect(ir.tenants[0].graph.ops.map(o => o.path)).toEqual(['t/top/blk.0/relu.0']);
        expect(ir.tenants[0].graph.ops[0].source?.uri).toMatch(/lib\/blocks\.tenancy$/);
    });
});

describe('one bad file or workload does not hide the others', () => {
    test('tenancy check over a batch with a bad import prints every file\'s diagnostics and exits 1 (not 70)', async () => {
        mkdirSync(join(dir, 'a-folder.tenancy'), { recursive: true });
        file('notes.txt', 'not a tenancy file\n');
        const bad = file('batch-bad.tenancy', 'import "a-folder.tenancy"\nimport "notes.txt"\nmodel m(batch = 1) { input x: f32[batch, 4] output relu(x) }\n');
        const typo = file('batch-typo.tenancy', broken);
        const clean = file('batch-clean.tenancy', 'model lonely(batch = 1) { input x: f32[batch, 4] output relu(x) }\n');
        const r = await capture((o, e) => runCheck([bad, typo, clean], {}, o, e));
        expect(r.code).toBe(1);
        expect(own(r.out)).toEqual(expect.arrayContaining([
            `${bad}:1:8 error unresolved-reference cannot import "a-folder.tenancy": ${join(dir, 'a-folder.tenancy')} is a folder; an import names a .tenancy file, relative to this file`,
            `${bad}:2:8 error unresolved-reference cannot import "notes.txt": ${join(dir, 'notes.txt')} is not a .tenancy file; an import names a .tenancy file, relative to this file`,
            `${typo}:3:10 error unknown-op unknown operator or model 'sofmax'. Did you mean 'softmax'?`,
            `${clean}:1:7 hint unused model 'lonely' is not used by any tenant or model`,
        ]));
        expect(r.err.at(-1)).toMatch(/^3 files checked: 4 errors/);
    });

    const twoOfThem = `model m(batch = 1) {
  input x: f32[batch, 4]
  output dense(x, 2)
}
model broken_model(batch = 1) {
  input x: f32[batch, 4]
  output sofmax(x)
}
workload good { tenant t { model m() } }
workload bad { tenant t { model m() arrival poisson(rate: 2ms) } tenant u { model broken_model() } }
workload uses_missing { tenant t { model nowhere() } }
`;

    test('tenancy ir of a sound workload works while another workload of the file, and a model only it uses, are broken', async () => {
        const path = file('two-of-them.tenancy', twoOfThem);
        const good = await capture((o, e) => runIr(path, { workload: 'good' }, o, e));
        expect(good.err).toEqual([]);
        expect(good.code).toBe(0);
        expect(JSON.parse(good.out.join('\n')).tenants.map((t: { name: string }) => t.name)).toEqual(['t']);
        const bad = await capture((o, e) => runIr(path, { workload: 'bad' }, o, e));
        expect(bad.code).toBe(1);
        expect(bad.err.join('\n')).toContain('workload bad has 2 errors in its tenants or the models they run');
        expect(bad.err.join('\n')).toContain(`${path}:7:10 error unknown-op`);
        expect(bad.err.join('\n')).toContain(`${path}:10:59 error bad-argument`);
        expect(bad.err.join('\n')).not.toContain('nowhere');
        const missing = await capture((o, e) => runIr(path, { workload: 'uses_missing' }, o, e));
        expect(missing.code).toBe(1);
        expect(missing.err.join('\n')).toContain(`${path}:11:42 error unresolved-reference unknown model 'nowhere'`);
    });

    test('tenancy run reads the same: the sound workload lowers (loadWorkloadIr, what run calls before the GPU)', async () => {
        const path = file('two-of-them-run.tenancy', twoOfThem);
        const ir = await loadWorkloadIr(path, 'good');
        expect(ir.workload).toBe('good');
        await expect(loadWorkloadIr(path, 'bad')).rejects.toThrow(/workload bad has 2 errors/);
    });
});

describe('tenancy ir', () => {
    test('prints valid IR for the only workload', async () => {
        const r = await capture((o, e) => runIr('examples/vision-and-nlp.tenancy', {}, o, e));
        expect(r.code).toBe(0);
        const ir = JSON.parse(r.out.join('\n'));
        const v = validateWorkloadIr(ir);
        expect(v.ok ? [] : v.issues).toEqual([]);
        expect(ir.workload).toBe('vision_and_nlp');
        expect(ir.tenants.map((t: { name: string }) => t.name)).toEqual(['vision', 'nlp']);
        expect(ir.schedule).toEqual({ policy: 'layer_block', size: 4 });
        expect(ir.benchmark).toEqual({ durationMs: 10000, warmupMs: 2000, seed: 42 });
    });

    test('several workloads: --workload chooses, otherwise an error lists them', async () => {
        const path = file('two.tenancy', twoWorkloads);
        const ambiguous = await capture((o, e) => runIr(path, {}, o, e));
        expect(ambiguous.code).toBe(1);
        expect(ambiguous.err.join('\n')).toContain(`more than one workload; choose one with --workload: first (${path}), second (${path})`);
        const missing = await capture((o, e) => runIr(path, { workload: 'third' }, o, e));
        expect(missing.code).toBe(1);
        expect(missing.err.join('\n')).toContain("no workload named 'third'; workloads: first");
        const chosen = await capture((o, e) => runIr(path, { workload: 'second' }, o, e));
        expect(chosen.code).toBe(0);
        expect(JSON.parse(chosen.out.join('\n')).tenants.length).toBe(2);
    });

    test('a file with errors prints them and exits 1', async () => {
        const path = file('broken3.tenancy', broken);
        const r = await capture((o, e) => runIr(path, {}, o, e));
        expect(r.code).toBe(1);
        expect(r.out).toEqual([]);
        expect(r.err.join('\n')).toContain(`${path}:3:10 error unknown-op`);
    });
});

describe('the bundled CLI', () => {
    // Bundled inside node_modules so the external `webgpu` import resolves, as from out/cli.
    const bundle = join('node_modules', '.cache', 'tenancy-test', 'cli.mjs');
    beforeAll(async () => {
        await bundleCli(bundle, process.cwd());
    }, 120_000);

    test('check exits 1 with diagnostics on stdout; 0 on a clean file', () => {
        const path = file('broken4.tenancy', broken);
        const bad = spawnSync('node_modules/.bin/node', [bundle, 'check', path], { encoding: 'utf8' });
        expect(bad.status).toBe(1);
        expect(bad.stdout.trim().split('\n')[0]).toBe(`${path}:3:10 error unknown-op unknown operator or model 'sofmax'. Did you mean 'softmax'?`);
        const good = spawnSync('node_modules/.bin/node', [bundle, 'check', 'examples/vision-and-nlp.tenancy'], { encoding: 'utf8' });
        expect(good.status).toBe(0);
    });
});
