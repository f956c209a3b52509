import { afterEach, describe, expect, test } from 'vitest';
import { webGpuDefaultLimits } from '../../src/language-server/validation/device-limits.js';
import { check, errors, rangeText, services, summary, withCode } from './helpers.js';

/** `code@range text` of the diagnostics with a code. */
async function fired(text: string, code: string, uri?: string): Promise<string[]> {
    const doc = await check(text, uri);
    return withCode(doc, code).map(d => rangeText(doc, d));
}

const block = `model blk(c) {
  input x: f32[n, c, h, w]
  output relu(conv2d(x, c, kernel: 3, padding: 1))
}
`;

describe('diagnostic codes', () => {
    test('every diagnostic carries its code as the LSP code and as data.code', async () => {
        const doc = await check(`model m( { }
model k(batch = 1) { input x: f32[batch, 4] output rleu(q) }`);
        expect(doc.diagnostics!.length).toBeGreaterThan(2);
        for (const d of doc.diagnostics!) {
            expect(typeof d.code).toBe('string');
            expect((d.data as { code: string }).code).toBe(d.code);
        }
    });

    test('syntax', async () => {
        expect(await fired('model m(batch = 1) { input x f32[batch] output relu(x) }', 'syntax')).toEqual(['f32']);
        expect(await fired('model m(batch = 1) { input x: f32[batch, 2] output relu(x) }', 'syntax')).toEqual([]);
    });

    test('duplicate-name: models, parameters, inputs, tenants, operator names', async () => {
        expect(await fired(`model a(c) { input x: f32[c] output relu(x) }
model a(c) { input x: f32[c] output relu(x) }`, 'duplicate-name')).toEqual(['a']);
        expect(await fired('model p(c, c) { input x: f32[c] output relu(x) }', 'duplicate-name')).toEqual(['c']);
        expect(await fired('model q(c) { input c: f32[4] output relu(c) }', 'duplicate-name')).toEqual(['c']);
        expect(await fired('model r(c) { input x: f32[c] input x: f32[c] output add(x, x) }', 'duplicate-name')).toEqual(['x']);
        expect(await fired('model s(c) { input x: f32[c] c = relu(x) output relu(c) }', 'duplicate-name')).toEqual(['c']);
        expect(await fired('model relu(c) { input x: f32[c] output tanh(x) }', 'duplicate-name')).toEqual(['relu']);
        expect(await fired('workload w { tenant t { model mlp() } tenant t { model mlp() } }', 'duplicate-name')).toEqual(['t']);
        expect(await fired(`model ok(c) { input x: f32[c] x = relu(x) output y = relu(x) }
workload w { tenant t { model mlp() } tenant u { model mlp() } }`, 'duplicate-name')).toEqual([]);
    });

    test('unknown-op and bad-argument on operator calls point at the argument', async () => {
        expect(await fired('model m(b = 1) { input x: f32[b, 4] output sofmax(x) }', 'unknown-op')).toEqual(['sofmax']);
        expect(await fired('model m(b = 1) { input x: f32[b, 4] output softmax(x, axs: 1) }', 'bad-argument')).toEqual(['axs']);
        expect(await fired('model m(b = 1) { input x: f32[b, 4] output softmax(x, axis: 1) }', 'bad-argument')).toEqual([]);
    });

    test("a tenant's unknown model is unresolved-reference (docs/language.md#tenants), an operator's name there too", async () => {
        const doc = await check('workload w {\n  tenant a { model resnt18() }\n  tenant b { model gelu() }\n}\n');
        // (Other tests of this workspace define models, so the did-you-mean of the second may name one.)
        expect(summary(doc).filter(s => !s.startsWith('slo-') && !s.startsWith('overloaded'))).toEqual([
            "unresolved-reference@resnt18: unknown model 'resnt18'. Did you mean 'resnet18'?",
            expect.stringMatching(/^unresolved-reference@gelu: 'gelu' is an operator, not a model; a tenant runs a model \(yours, an imported one or the zoo's\)\./),
        ]);
    });

    test('bad-argument on model calls: positional tensors, named parameters', async () => {
        const base = `${block}model top(batch = 1) {\n  input x: f32[batch, 4, 8, 8]\n`;
        expect(await fired(`${base}  output blk(x, d: 4)\n}`, 'bad-argument')).toEqual(['d']);
        expect(await fired(`${base}  output blk(x)\n}`, 'bad-argument')).toEqual(['blk']);
        expect(await fired(`${base}  output blk(x, x, c: 4)\n}`, 'bad-argument')).toEqual(['blk']);
        expect(await fired(`${base}  output blk(x, c: 4)\n}`, 'bad-argument')).toEqual([]);
    });

    test('shape-mismatch at a block call names expected and found', async () => {
        const doc = await check(`${block}model top(batch = 1) {\n  input x: f32[batch, 4, 8, 8]\n  output blk(x, c: 3)\n}`);
        const [d] = withCode(doc, 'shape-mismatch');
        expect(rangeText(doc, d)).toBe('x');
        expect(d.message).toBe('blk expects x: f32[n, c, h, w], found f32[batch, 4, 8, 8] (dim 1: c = 3, found 4)');
    });

    test('repeat-shape', async () => {
        const down = `model down(c) {\n  input x: f32[n, c, h, w]\n  output relu(conv2d(x, c, kernel: 3, stride: 2))\n}\n`;
        expect(await fired(`${down}model top(batch = 1) {\n  input x: f32[batch, 4, 16, 16]\n  output repeat 2 down(x, c: 4)\n}`, 'repeat-shape')).toEqual(['down']);
        expect(await fired(`${block}model top(batch = 1) {\n  input x: f32[batch, 4, 16, 16]\n  output repeat 2 blk(x, c: 4)\n}`, 'repeat-shape')).toEqual([]);
    });

    test('unbound-dim on the tenant\'s model line', async () => {
        expect(await fired(`${block}workload w { tenant t { model blk(c: 4) } }`, 'unbound-dim')).toEqual(['blk']);
        expect(await fired('model ok(b = 1) { input x: f32[b, 4] output relu(x) }\nworkload w { tenant t { model ok() } }', 'unbound-dim')).toEqual([]);
    });

    test('recursion, direct and through another model', async () => {
        expect(await fired('model r(b = 1) { input x: f32[b, 4] output r(x) }', 'recursion')).toEqual(['r']);
        const doc = await check(`model p(c) { input x: f32[c] output q(x, c: c) }
model q(c) { input x: f32[c] output p(x, c: c) }`);
        expect(withCode(doc, 'recursion').map(d => rangeText(doc, d))).toEqual(['q', 'p']);
        expect(await fired(`${block}model top(b = 1) { input x: f32[b, 2, 4, 4] output blk(x, c: 2) }`, 'recursion')).toEqual([]);
    });

    test('errors that only a tenant\'s arguments cause are reported on its model line', async () => {
        const doc = await check(`model small(res = 32) {
  input x: f32[1, 3, res, res]
  output conv2d(x, 8, kernel: 7)
}
workload w { tenant t { model small(res: 4) } tenant u { model small() } }`);
        expect(withCode(doc, 'shape-mismatch').map(d => rangeText(doc, d))).toEqual(['small']);
        expect(withCode(doc, 'shape-mismatch')[0].message).toMatch(/^with small\(res: 4\): conv2d: output would be -2×-2/);
    });

    test('tenant model arguments: by name, known, positive', async () => {
        expect(await fired('workload w { tenant t { model mlp(batch: 0) } }', 'bad-argument')).toEqual(['0']);
        expect(await fired('workload w { tenant t { model mlp(bach: 2) } }', 'bad-argument')).toEqual(['bach']);
        expect(await fired('workload w { tenant t { model mlp(2) } }', 'bad-argument')).toEqual(['2']);
        expect(await fired(`${block}workload w { tenant t { model blk() } }`, 'bad-argument')).toEqual(['blk']);
        expect(await fired('workload w { tenant t { model mlp(batch: 2 * 4) } }', 'bad-argument')).toEqual([]);
    });

    describe('buffer-too-large and out-of-memory', () => {
        // Not file: URIs — for those the prediction side installs the workspace profile's limits.
        let n = 0;
        const uri = () => `inmemory:///limits${n++}.tenancy`;
        afterEach(() => services.validation.DeviceLimits.set(webGpuDefaultLimits));

        test('buffer-too-large uses WebGPU\'s default 128 MiB binding, or the injected limit', async () => {
            const text = 'workload w { tenant t { model vgg16() } }';
            const doc = await check(text, uri());
            const [d] = withCode(doc, 'buffer-too-large');
            expect(rangeText(doc, d)).toBe('vgg16');
            expect(d.message).toContain('dense weight f32[25088, 4096]');
            expect(d.message).toContain('392 MiB');
            expect(await fired('workload w { tenant t { model vgg16(res: 32) } }', 'buffer-too-large')).toEqual([]);
            services.validation.DeviceLimits.set({ maxStorageBufferBindingSize: 2 ** 30, source: 'test profile' });
            expect(await fired(text, 'buffer-too-large', uri())).toEqual([]);
        });

        test('out-of-memory against device(memory: …) or the device\'s memory', async () => {
            const doc = await check('workload w { device auto(memory: 10MiB) tenant a { model resnet18() } tenant b { model mlp() } }');
            const [d] = withCode(doc, 'out-of-memory');
            expect(rangeText(doc, d)).toBe('device auto(memory: 10MiB)');
            expect(d.message).toMatch(/^the tenants' peak memory .* \(a .*, b .*\) exceeds the 10 MiB of device\(memory: …\)$/);
            expect(await fired('workload w { device auto(memory: 1GiB) tenant a { model resnet18() } }', 'out-of-memory')).toEqual([]);
            services.validation.DeviceLimits.set({ maxStorageBufferBindingSize: 2 ** 30, memoryBytes: 2 ** 20, source: 'test profile' });
            expect(await fired('workload w { tenant a { model resnet18() } }', 'out-of-memory', uri())).toEqual(['w']);
        });
    });

    test('hints: unused model and tensor, keyword-name', async () => {
        const doc = await check(`model lonely(b = 1) {
  input x: f32[b, 4]
  input spare: f32[b, 4]
  t = relu(x)
  output = relu(x)
  output out = relu(output)
}`);
        expect(withCode(doc, 'unused').map(d => rangeText(doc, d))).toEqual(['lonely', 'spare', 't']);
        expect(withCode(doc, 'keyword-name').map(d => rangeText(doc, d))).toEqual(['output']);
        expect(withCode(doc, 'keyword-name')[0].message).toContain('not an output statement');
        expect(withCode(doc, 'unused').every(d => d.severity === 4)).toBe(true);
        const used = await check('model used(b = 1) { input x: f32[b, 4] y = relu(x) output relu(y) }\nworkload w { tenant t { model used() } }');
        expect(withCode(used, 'unused')).toEqual([]);
        expect(withCode(used, 'keyword-name')).toEqual([]);
    });
});

describe('workload checks', () => {
    test('at least one tenant; a one-tenant workload is valid', async () => {
        expect(await fired('workload empty { schedule auto }', 'bad-argument')).toEqual(['empty']);
        expect(errors(await check('workload solo { tenant t { model mlp() } }'))).toEqual([]);
    });

    test('a tenant has exactly one model line; arrival and priority at most once; one slo per percentile', async () => {
        expect(await fired('workload w { tenant t { arrival closed(clients: 1) } }', 'bad-argument')).toEqual(['t']);
        expect(await fired('workload w { tenant t { model mlp() model mlp() } }', 'bad-argument')).toEqual(['model mlp()']);
        expect(await fired('workload w { tenant t { model mlp() arrival closed(clients: 1) arrival poisson(rate: 2/s) } }', 'bad-argument')).toEqual(['arrival poisson(rate: 2/s)']);
        expect(await fired('workload w { tenant t { model mlp() priority high priority low } }', 'bad-argument')).toEqual(['priority low']);
        expect(await fired('workload w { tenant t { model mlp() slo p99 <= 5ms slo p99 <= 6ms slo p50 <= 1ms } }', 'bad-argument')).toEqual(['p99']);
    });

    test('words, kinds and values are bad-argument, never syntax', async () => {
        const doc = await check(`workload w {
  device fast(memory: 20ms)
  tenant t {
    model mlp()
    arrival poisson(rate: 20ms, burst: 2)
    slo p98 <= 5ms
    slo p99 <= 20/s
    priority urgent
  }
  tenant u { model mlp() arrival closed(think: 1ms) }
  tenant v { model mlp() arrival periodic(every: 0ms) }
  schedule layer_block(size: -1)
  benchmark { duration 5 warmup 1s seed 1.5 laps 3 requests 10 requests 11 }
}`);
        expect(withCode(doc, 'syntax')).toEqual([]);
        expect(withCode(doc, 'bad-argument').map(d => rangeText(doc, d))).toEqual([
            'fast', '20ms', '20ms', 'burst', 'p98', '20/s', 'urgent', 'closed', '0ms', '-1', '5', '1.5', 'laps', 'requests',
        ]);
        const messages = withCode(doc, 'bad-argument').map(d => d.message);
        expect(messages[2]).toBe("arrival poisson: 'rate' must be a rate (e.g. 20/s), found time 20ms");
        expect(messages[7]).toBe("arrival closed needs argument 'clients: a positive integer'");
        expect(messages[8]).toBe("arrival periodic: 'every' must be more than 0, found 0ms");
    });

    test('a think time and a warm-up may be 0; other times must be more than 0', async () => {
        const ok = await check(`workload w { tenant t { model mlp() arrival closed(clients: 2, think: 0ms) } benchmark { warmup 0ms } }`);
        expect(withCode(ok, 'bad-argument')).toEqual([]);
        const zero = await check(`workload w { tenant t { model mlp() } benchmark { duration 0s } }`);
        expect(withCode(zero, 'bad-argument').map(d => d.message)).toEqual(['benchmark duration must be more than 0, found 0s']);
    });

    test('every policy with valid arguments; schedule and benchmark at most once', async () => {
        for (const schedule of ['sequential', 'concurrent', 'auto', 'layer_block(size: 4)', 'layer_block(size: auto)', 'regulated(split: 2, sync: auto)', 'co_tuned(variants: 3)']) {
            const doc = await check(`workload w { tenant t { model mlp() } schedule ${schedule} benchmark { duration 2s warmup 0 seed 7 repetitions 2 } }`);
            expect(errors(doc), `${schedule}: ${summary(doc).join('; ')}`).toEqual([]);
        }
        expect(await fired('workload w { tenant t { model mlp() } schedule co_tuned }', 'bad-argument')).toEqual(['co_tuned']);
        expect(await fired('workload w { tenant t { model mlp() } schedule teleport }', 'bad-argument')).toEqual(['teleport']);
        expect(await fired('workload w { tenant t { model mlp() } benchmark { seed 1 } benchmark { seed 2 } }', 'bad-argument')).toEqual(['benchmark { seed 2 }']);
        expect(await fired('workload w { tenant t { model mlp() } device auto device low_power }', 'bad-argument')).toEqual(['device low_power']);
    });
});
