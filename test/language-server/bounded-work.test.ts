/**
 * Work bounded by the text, not by what it denotes: repeat counts, parameters and chains of model
 * calls are handled symbolically (a block analysed once, a repeat counted, not unrolled), and an
 * instance too large to lower is refused with `too-large` on its tenant line before anything
 * lowers it (analysis/evaluate.ts, analysis/limits.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runIr } from '../../src/cli/commands/ir.js';
import { analyseModel, BlockMemo, CallGraph, Dim, formatTensor, maxCallDepth, maxUnrolledSteps } from '../../src/language-server/analysis/index.js';
import { isModel, type Document, type Model } from '../../src/language-server/generated/ast.js';
import { LoweringError, lowerWorkload } from '../../src/language-server/lower.js';
import { check, errors, model, rangeText, services, summary, workload, zooModel } from './helpers.js';

const analyzer = services.analysis.Analyzer;
const block = 'model blk {\n  input x: f32[1, 64]\n  output relu(x)\n}\n';
const tenant = (name: string, args = '') => `workload w {\n  tenant t { model ${name}(${args}) }\n}\n`;

/** The one error of a document, with its code and the text it covers. */
function onlyError(doc: Awaited<ReturnType<typeof check>>) {
    const found = errors(doc);
    expect(found.map(d => `${d.code}@${rangeText(doc, d)}`), summary(doc).join('\n')).toHaveLength(1);
    return { code: found[0].code, text: rangeText(doc, found[0]), message: String(found[0].message) };
}

describe('repeat counts handled symbolically', () => {
    test('repeat 10^9: the cost is 10^9 × the block, computed once; too-large on the tenant line; lowering refuses with the same message', async () => {
        const doc = await check(`${block}model big {\n  input x: f32[1, 64]\n  output repeat 1000000000 blk(x)\n}\n${tenant('big')}`);
        const error = onlyError(doc);
        expect(error).toMatchObject({ code: 'too-large', text: 'big' });
        expect(error.message).toContain('unrolls to 1,000,000,000 ops');
        expect(error.message).toContain(`${maxUnrolledSteps.toLocaleString('en-US')} steps`);
        const one = analyzer.standalone(model(doc, 'blk')).totals;
        const big = analyzer.standalone(model(doc, 'big'));
        expect(big.totals.flops.value).toBe(1e9 * one.flops.value!);
        expect(big.totals.bytesRead.value).toBe(1e9 * one.bytesRead.value!);
        expect(big.totals.opCount).toBe(1e9);
        expect(big.size).toEqual({ ops: 1e9, steps: 2e9 });
        expect(big.ops).toBeUndefined();
        expect(() => lowerWorkload(workload(doc, 'w'), analyzer)).toThrow(LoweringError);
        expect(() => lowerWorkload(workload(doc, 'w'), analyzer)).toThrow(error.message);
    });

    test('the largest tensor of an instance too large to unroll comes from the summary (buffer-too-large still reported)', async () => {
        const doc = await check(`model wide(c) {
  input x: f32[1, c]
  output dense(x, c)
}
model big {
  input x: f32[1, 8192]
  output repeat 1000000000 wide(x, c: 8192)
}
${tenant('big')}`);
        expect(summary(doc).map(s => s.split(':')[0]).sort()).toEqual(['buffer-too-large@big', 'too-large@big']);
        expect(summary(doc).find(s => s.startsWith('buffer-too-large'))).toMatch(/^buffer-too-large@big: dense weight f32\[8192, 8192\] of wide\.0\/dense\.0 needs 256 MiB/);
    });

    test('repeats of repeats, 1,000 × 1,000: counted, not unrolled', async () => {
        const doc = await check(`${block}model inner {\n  input x: f32[1, 64]\n  output repeat 1000 blk(x)\n}\nmodel outer {\n  input x: f32[1, 64]\n  output repeat 1000 inner(x)\n}\n${tenant('outer')}`);
        const error = onlyError(doc);
        expect(error).toMatchObject({ code: 'too-large', text: 'outer' });
        expect(error.message).toContain('1,000,000 ops');
        const tenantInstance = analyzer.tenant(workload(doc, 'w').members[0] as never)!;
        expect(tenantInstance.totals.opCount).toBe(1e6);
        expect(tenantInstance.totals.flops.value).toBe(1e6 * analyzer.standalone(model(doc, 'blk')).totals.flops.value!);
        // Hover on the repeat line reads the same summary.
        const outer = model(doc, 'outer');
        const repeat = (outer.statements[1] as { value: object }).value;
        expect(analyzer.expression(repeat as never)?.cost?.flops.value).toBe(tenantInstance.totals.flops.value);
    });

    test('the limit: an instance of exactly maxUnrolledSteps steps lowers op by op, one repeat more is too-large', async () => {
        // Each iteration is one block call and one op: two steps.
        const n = maxUnrolledSteps / 2;
        const at = await check(`${block}model m {\n  input x: f32[1, 64]\n  output repeat ${n} blk(x)\n}\n${tenant('m')}`);
        expect(errors(at), summary(at).join('\n')).toEqual([]);
        const ir = lowerWorkload(workload(at, 'w'), analyzer);
        expect(ir.tenants[0].graph.ops).toHaveLength(n);
        expect(ir.tenants[0].graph.ops.at(-1)!.path).toBe(`t/m/blk.${n - 1}/relu.0`);
        const over = await check(`${block}model m {\n  input x: f32[1, 64]\n  output repeat ${n + 1} blk(x)\n}\n${tenant('m')}`);
        expect(onlyError(over)).toMatchObject({ code: 'too-large', text: 'm' });
    });

    test('counts from parameters: symbolic in the model, a tenant argument of 10^9 is too-large; the workload total is bounded too', async () => {
        const doc = await check(`model layer(width = 16) {
  input x: f32[b, width]
  output relu(dense(x, width))
}
model stack(batch = 2, depth = 3) {
  input x: f32[batch, 16]
  output o = repeat depth layer(x, width: 16)
}
workload huge { tenant t { model stack(depth: 1000000000) } }
workload together {
  tenant a { model stack(depth: 3000) }
  tenant b { model stack(depth: 3000) }
  tenant c { model stack(depth: 3000) }
}`);
        expect(analyzer.standalone(model(doc, 'stack')).totals.params.toString()).toBe('272*depth');
        // Each iteration: the block call, dense and relu.
        expect(analyzer.standalone(model(doc, 'stack')).sizeFormula.toString()).toBe('3*depth');
        expect(summary(doc).filter(s => s.startsWith('too-large'))).toEqual([
            expect.stringMatching(/^too-large@stack: tenant t: stack\(batch: 2, depth: 1000000000\) unrolls to 2,000,000,000 ops/),
            expect.stringMatching(/^too-large@together: workload together: its tenants unroll to 27,000 steps together \(a 9,000, b 9,000, c 9,000\)/),
        ]);
    });

    test('an LSTM of 10^9 layers or a 10^6-step sequence: costs by formula, too-large (the runtime runs a kernel per layer and time step)', async () => {
        const doc = await check(`model deep(layers = 1) {
  input x: f32[1, 8, 16]
  output lstm(x, 32, layers: layers)
}
model long {
  input x: f32[1, 1000000, 16]
  output lstm(x, 32)
}
workload w {
  tenant layered { model deep(layers: 1000000000) }
  tenant sequenced { model long() }
}`);
        expect(summary(doc).filter(s => s.startsWith('too-large')).map(s => s.split(':')[0])).toEqual(['too-large@deep', 'too-large@long']);
        const layered = analyzer.tenant(workload(doc, 'w').members[0] as never)!;
        const one = analyzer.instance(model(doc, 'deep'), new Map([['layers', 1]])).totals;
        const two = analyzer.instance(model(doc, 'deep'), new Map([['layers', 2]])).totals;
        const perLayer = two.params.value! - one.params.value!;
        expect(layered.totals.params.value).toBe(one.params.value! + (1e9 - 1) * perLayer);
        expect(layered.totals.bytesRead.value).toBe(one.bytesRead.value! + (1e9 - 1) * (two.bytesRead.value! - one.bytesRead.value!));
    });
});

describe('blocks analysed once, chains linear', () => {
    test('a block is analysed once per parameter values and input types, whatever its callers call their symbols', async () => {
        const models = ['model m0 {\n  input x: f32[b0, 64]\n  output relu(x)\n}'];
        for (let i = 1; i < 50; i++) models.push(`model m${i}(k${i} = 2) {\n  input x: f32[b${i}, 64]\n  output relu(m${i - 1}(dense(x, 64)))\n}`);
        const doc = await check(models.join('\n'));
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
        // Shapes read back in each caller's own symbols.
        expect(formatTensor(analyzer.standalone(model(doc, 'm49')).outputs[0])).toBe('f32[b49, 64]');
        // One analysis per model: the 49 block calls of the whole chain, all standalone analyses included.
        const memo = new BlockMemo();
        const calls = new CallGraph();
        for (let i = 0; i < 50; i++) analyseModel(model(doc, `m${i}`), { blocks: memo, calls, summarise: true });
        expect(memo.size).toBe(49);
    });

    test('a model calling its block twice, 40 levels deep (2^40 op copies), is analysed in 40 steps', async () => {
        const models = ['model d0 {\n  input x: f32[1, 8]\n  output relu(x)\n}'];
        for (let i = 1; i <= 40; i++) models.push(`model d${i} {\n  input x: f32[1, 8]\n  y = d${i - 1}(x)\n  output d${i - 1}(y)\n}`);
        const doc = await check(`${models.join('\n')}\n${tenant('d40')}`);
        const error = onlyError(doc);
        expect(error).toMatchObject({ code: 'too-large', text: 'd40' });
        expect(error.message).toContain(`${(2 ** 40).toLocaleString('en-US')} ops`);
        const instance = analyzer.tenant(workload(doc, 'w').members[0] as never)!;
        expect(instance.totals.flops.value).toBe(2 ** 40 * analyzer.standalone(model(doc, 'd0')).totals.flops.value!);
    });

    test(`a chain of 2,000 models: too-large where calls nest deeper than ${maxCallDepth}, no stack overflow, the models below it fine`, async () => {
        const models = ['model m0 {\n  input x: f32[b0, 64]\n  output relu(x)\n}'];
        for (let i = 1; i < 2000; i++) models.push(`model m${i} {\n  input x: f32[b${i}, 64]\n  output relu(m${i - 1}(x))\n}`);
        const doc = await check(`${models.join('\n')}\nmodel top(batch = 1) {\n  input x: f32[batch, 64]\n  output m1999(x)\n}\n${tenant('top')}`);
        const tooLarge = (doc.diagnostics ?? []).filter(d => d.code === 'too-large');
        // The first call that nests too deep is m65's (m64 calls 64 models below it), then every model above it.
        expect(rangeText(doc, tooLarge[0])).toBe('m64');
        expect(String(tooLarge[0].message)).toMatch(/^m64 nests model calls 65 deep \(m64 → m63 → m62 → m61 → …\); the analysis inlines at most 64 nested model calls/);
        expect(tooLarge).toHaveLength(2000 - 64);
        expect(errors(doc).filter(d => d.code !== 'too-large')).toEqual([]);
        expect(formatTensor(analyzer.standalone(model(doc, 'm64')).outputs[0])).toBe('f32[b64, 64]');
    });
});

describe('summarised and unrolled analyses agree', () => {
    test('on every zoo model and example: outputs, costs, op counts and issues', async () => {
        const zooNames = ['mlp', 'resnet18', 'resnet50', 'vgg16', 'mobilenet_v2', 'bert_base', 'gpt2_small', 'lstm_lm', 'dlrm'];
        const models: Model[] = zooNames.map(zooModel);
        for (const file of ['examples/vision-and-nlp.tenancy', 'examples/zoo-mix.tenancy', 'examples/schedules.tenancy']) {
            const { readFileSync } = await import('node:fs');
            const doc = await check(readFileSync(file, 'utf8'));
            models.push(...(doc.parseResult.value as Document).elements.filter(isModel));
        }
        for (const m of models) {
            for (const args of [new Map<string, number>(), new Map(m.params.filter(p => p.default !== undefined).map(p => [p.name, p.default!]))]) {
                const unrolled = analyseModel(m, { args });
                const summarised = analyseModel(m, { args, summarise: true });
                const view = (a: typeof unrolled) => ({
                    outputs: a.outputs.map(formatTensor),
                    flops: a.totals.flops.toString(), macs: a.totals.macs.toString(), params: a.totals.params.toString(),
                    bytesRead: a.totals.bytesRead.toString(), bytesWritten: a.totals.bytesWritten.toString(),
                    weightBytes: a.totals.weightBytes.toString(), activationBytes: a.totals.activationBytes.toString(),
                    opCount: a.totals.opCount, size: a.size, issues: a.issues.map(i => `${i.code}: ${i.message}`),
                    largest: a.memory.largestTensor?.what, peak: a.memory.peakBytes,
                });
                expect(view(summarised), `${m.name} ${[...args].join(' ')}`).toEqual(view(unrolled));
                // The model's own size formula gives an instance's size before it is evaluated.
                const values = new Map([...args].map(([k, v]) => [k, Dim.of(v)]));
                const estimate = analyzer.standalone(m).sizeFormula.substitute(values);
                if (estimate.isConstant) expect(estimate.value, m.name).toBe(unrolled.size.steps);
            }
        }
    });

    test('errors inside a block show at the call in the caller\'s own symbols', async () => {
        const doc = await check(`model blk(c) {
  input x: f32[n, c, h, w]
  output add(x, conv2d(x, 8, kernel: 1))
}
model top(width = 4) {
  input image: f32[width, 3, 10, 12]
  output blk(image, c: 3)
}`);
        expect(summary(doc).filter(s => s.startsWith('shape-mismatch'))).toEqual([
            'shape-mismatch@blk: in blk: add: shapes do not broadcast: a f32[width, 3, 10, 12], b f32[width, 8, 10, 12] (axis 1: 3 vs 8) (line 3 of blk)',
        ]);
    });
});

describe('the CLI refuses what validation reports, with the same message', () => {
    let dir: string;
    // Inside the checkout (an ignored folder), so the bundle finds the packages it leaves out (webgpu).
    beforeAll(() => {
        mkdirSync('.test-results', { recursive: true });
        dir = mkdtempSync(join('.test-results', 'bounded-work-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test('tenancy ir and tenancy run: exit code 1 and the too-large diagnostic', async () => {
        const file = join(dir, 'big.tenancy');
        writeFileSync(file, `${block}model big {\n  input x: f32[1, 64]\n  output repeat 1000000000 blk(x)\n}\n${tenant('big')}`);
        const err: string[] = [];
        expect(await runIr(file, {}, () => undefined, line => err.push(line))).toBe(1);
        expect(err.join('\n')).toMatch(/big\.tenancy:10:20 error too-large tenant t: big\(\) unrolls to 1,000,000,000 ops/);
        const bundle = join(dir, 'cli.mjs');
        await esbuild.build({
            entryPoints: ['src/cli/main.ts'], outfile: bundle, bundle: true, platform: 'node', target: 'node22', format: 'esm',
            external: ['webgpu'], logLevel: 'silent',
            banner: { js: "import { createRequire as __tenancyRequire } from 'node:module'; const require = __tenancyRequire(import.meta.url);" },
        });
        const run = spawnSync('node_modules/.bin/node', [bundle, 'run', file], { encoding: 'utf8', timeout: 60_000 });
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/error too-large tenant t: big\(\) unrolls to 1,000,000,000 ops/);
    }, 120_000);
});

describe('numbers past the doubles\' range (found by the fuzzer)', () => {
    test('a dim whose coefficients overflow writes ∞, never Infinity', () => {
        const huge = Dim.symbol('c').mul(Dim.symbol('n')).scale(1e300).scale(1e10).add(Dim.symbol('h').scale(3e94));
        const text = huge.toString();
        expect(text).toContain('∞*c*n');
        expect(text).not.toMatch(/Infinity|NaN/);
        expect(Dim.of(Number.POSITIVE_INFINITY).toString()).toBe('∞');
    });
});
