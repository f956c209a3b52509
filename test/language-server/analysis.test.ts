import { describe, expect, test } from 'vitest';
import { Dim, formatTensor } from '../../src/language-server/analysis/index.js';
import { check, errors, model, rangeText, services, summary } from './helpers.js';

/** Infers the output `o` of `expr` in a model with the given inputs; returns its type and the errors (code@range text). */
async function infer(inputs: string, expr: string, params = 'batch = 2'): Promise<{ standalone?: string; defaults?: string; errors: string[] }> {
    const doc = await check(`model m(${params}) {\n${inputs}\n  output o = ${expr}\n}`);
    const m = model(doc, 'm');
    const standalone = services.analysis.Analyzer.standalone(m).outputs[0];
    const defaults = services.analysis.Analyzer.atDefaults(m).outputs[0];
    return {
        standalone: standalone && formatTensor(standalone),
        defaults: defaults && formatTensor(defaults),
        errors: errors(doc).map(d => `${d.code}@${rangeText(doc, d)}`),
    };
}

const img = '  input x: f32[batch, 3, 32, 32]';

describe('Dim polynomials', () => {
    test('arithmetic, printing and comparison', () => {
        const b = Dim.symbol('batch');
        const s = Dim.symbol('seq');
        expect(b.mul(s).scale(2).add(3).toString()).toBe('2*batch*seq + 3');
        expect(b.mul(784).divExact(4)?.toString()).toBe('196*batch');
        expect(Dim.of(7).divExact(2)).toBeUndefined();
        expect(b.divExact(3)?.toString()).toBe('(batch)/3');
        expect(b.mul(s).divExact(s)?.toString()).toBe('batch');
        expect(b.add(2).compare(b)).toBe('different');
        expect(b.compare(s)).toBe('unknown');
        expect(b.sub(1).add(1).compare(b)).toBe('equal');
        expect(Dim.of(9).floorDiv(2).value).toBe(4);
        expect(b.substitute(new Map([['batch', Dim.of(8)]])).value).toBe(8);
    });
});

describe('operator shape rules', () => {
    const cases: [string, string, string, string][] = [
        // [name, inputs, expression, expected standalone type]
        ['dense', '  input x: f32[batch, 784]', 'dense(x, 512)', 'f32[batch, 512]'],
        ['dense on leading dims', '  input x: f32[batch, 7, 16]', 'dense(x, 4, bias: false)', 'f32[batch, 7, 4]'],
        ['matmul with broadcast', '  input a: f32[batch, 4, 8]\n  input b: f32[8, 3]', 'matmul(a, b)', 'f32[batch, 4, 3]'],
        ['conv2d', img, 'conv2d(x, 16, kernel: 3, stride: 2, padding: 1)', 'f32[batch, 16, 16, 16]'],
        ['conv2d pairs and dilation', img, 'conv2d(x, 8, kernel: (3, 5), padding: (1, 2), dilation: 2)', 'f32[batch, 8, 30, 28]'],
        ['conv2d same padding', img, 'conv2d(x, 8, kernel: 3, stride: 2, padding: "same")', 'f32[batch, 8, 16, 16]'],
        ['conv2d groups', '  input x: f32[batch, 8, 10, 10]', 'conv2d(x, 4, kernel: 1, groups: 4)', 'f32[batch, 4, 10, 10]'],
        ['depthwise_conv2d', '  input x: f32[batch, 8, 16, 16]', 'depthwise_conv2d(x, kernel: 3, padding: 1, multiplier: 2)', 'f32[batch, 16, 16, 16]'],
        ['max_pool2d default stride', img, 'max_pool2d(x, kernel: 2)', 'f32[batch, 3, 16, 16]'],
        ['avg_pool2d', img, 'avg_pool2d(x, 3, stride: 1, padding: 1)', 'f32[batch, 3, 32, 32]'],
        ['global_avg_pool', img, 'global_avg_pool(x)', 'f32[batch, 3, 1, 1]'],
        ['batch_norm', img, 'batch_norm(x)', 'f32[batch, 3, 32, 32]'],
        ['layer_norm', '  input x: f32[batch, 5]', 'layer_norm(x)', 'f32[batch, 5]'],
        ['relu', '  input x: f32[batch, 5]', 'relu(x)', 'f32[batch, 5]'],
        ['relu6', '  input x: f32[batch, 5]', 'relu6(x)', 'f32[batch, 5]'],
        ['gelu', '  input x: f32[batch, 5]', 'gelu(x)', 'f32[batch, 5]'],
        ['sigmoid', '  input x: f16[batch, 5]', 'sigmoid(x)', 'f16[batch, 5]'],
        ['tanh', '  input x: f32[batch, 5]', 'tanh(x)', 'f32[batch, 5]'],
        ['silu', '  input x: f32[batch, 5]', 'silu(x)', 'f32[batch, 5]'],
        ['add broadcasts', '  input a: f32[batch, 8, 1]\n  input b: f32[8, 5]', 'add(a, b)', 'f32[batch, 8, 5]'],
        ['mul', '  input a: f32[batch, 4]\n  input b: f32[1]', 'mul(a, b)', 'f32[batch, 4]'],
        ['softmax', '  input x: f32[batch, 5]', 'softmax(x, axis: -1)', 'f32[batch, 5]'],
        ['reshape', '  input x: f32[batch, 28, 28]', 'reshape(x, (batch, 784))', 'f32[batch, 784]'],
        ['reshape with -1', '  input x: f32[batch, 28, 28]', 'reshape(x, (batch, -1, 4))', 'f32[batch, 196, 4]'],
        ['transpose', '  input x: f32[batch, 3, 7]', 'transpose(x, (0, 2, 1))', 'f32[batch, 7, 3]'],
        ['flatten', '  input x: f32[batch, 3, 4, 5]', 'flatten(x)', 'f32[batch, 60]'],
        ['concat', '  input a: f32[batch, 3]\n  input b: f32[batch, 5]', 'concat(a, b, a, axis: 1)', 'f32[batch, 11]'],
        ['embedding', '  input ids: i32[batch, 16]', 'embedding(ids, 1000, 64)', 'f32[batch, 16, 64]'],
        ['attention', '  input x: f32[batch, 16, 64]', 'attention(x, 8, causal: true)', 'f32[batch, 16, 64]'],
        ['lstm', '  input x: f32[batch, 10, 32]', 'lstm(x, 64, layers: 2)', 'f32[batch, 10, 64]'],
    ];
    test.each(cases)('%s', async (_name, inputs, expr, expected) => {
        const r = await infer(inputs, expr);
        expect(r.errors).toEqual([]);
        expect(r.standalone).toBe(expected);
        expect(r.defaults).toBe(expected.replace('batch', '2'));
    });

    const failures: [string, string, string, string][] = [
        // [name, inputs, expression, expected code@offending text]
        ['dense units must be positive', '  input x: f32[batch, 4]', 'dense(x, 0)', 'bad-argument@0'],
        ['dense needs a tensor', '  input x: f32[batch, 4]', 'dense(3, 4)', 'bad-argument@3'],
        ['dense missing units', '  input x: f32[batch, 4]', 'dense(x)', 'bad-argument@dense'],
        ['unknown argument name', '  input x: f32[batch, 4]', 'dense(x, 4, foo: 1)', 'bad-argument@foo'],
        ['too many arguments', '  input x: f32[batch, 4]', 'relu(x, x)', 'bad-argument@x'],
        ['positional after named', '  input x: f32[batch, 4]', 'dense(x, units: 4, true)', 'bad-argument@true'],
        ['matmul inner dims', '  input a: f32[batch, 4, 8]\n  input b: f32[7, 3]', 'matmul(a, b)', 'shape-mismatch@b'],
        ['conv2d on a matrix', '  input x: f32[batch, 4]', 'conv2d(x, 8, kernel: 3)', 'shape-mismatch@x'],
        ['conv2d groups must divide channels', img, 'conv2d(x, 16, kernel: 3, groups: 2)', 'shape-mismatch@2'],
        ['conv2d output would be empty', img, 'conv2d(x, 16, kernel: 33)', 'shape-mismatch@x'],
        ['conv2d bad padding word', img, 'conv2d(x, 16, kernel: 3, padding: "valid")', 'bad-argument@"valid"'],
        ['conv2d kernel must be int or pair', img, 'conv2d(x, 16, kernel: true)', 'bad-argument@true'],
        ['depthwise on a matrix', '  input x: f32[batch, 4]', 'depthwise_conv2d(x, kernel: 3)', 'shape-mismatch@x'],
        ['pool larger than input', '  input x: f32[batch, 3, 4, 4]', 'max_pool2d(x, kernel: 5)', 'shape-mismatch@x'],
        ['avg_pool needs a kernel', img, 'avg_pool2d(x)', 'bad-argument@avg_pool2d'],
        ['global_avg_pool rank', '  input x: f32[batch, 3, 4]', 'global_avg_pool(x)', 'shape-mismatch@x'],
        ['batch_norm rank', '  input x: f32[4]', 'batch_norm(x)', 'shape-mismatch@x'],
        ['layer_norm needs a tensor', '  input x: f32[4]', 'layer_norm(2)', 'bad-argument@2'],
        ['relu of an integer tensor', '  input x: i32[4]', 'relu(x)', 'bad-argument@x'],
        ['add does not broadcast', '  input a: f32[batch, 4]\n  input b: f32[batch, 5]', 'add(a, b)', 'shape-mismatch@b'],
        ['mul dtypes differ', '  input a: f32[4]\n  input b: f16[4]', 'mul(a, b)', 'shape-mismatch@b'],
        ['softmax axis out of range', '  input x: f32[batch, 5]', 'softmax(x, axis: 2)', 'bad-argument@2'],
        ['reshape changes the count', '  input x: f32[batch, 28, 28]', 'reshape(x, (batch, 700))', 'shape-mismatch@(batch, 700)'],
        ['reshape with two -1', '  input x: f32[batch, 28, 28]', 'reshape(x, (-1, -1))', 'bad-argument@(-1, -1)'],
        ['transpose not a permutation', '  input x: f32[batch, 3, 7]', 'transpose(x, (0, 0, 1))', 'bad-argument@(0, 0, 1)'],
        ['flatten rank', '  input x: f32[4]', 'flatten(x)', 'shape-mismatch@x'],
        ['concat disagree off axis', '  input a: f32[batch, 3]\n  input b: f32[4, 5]', 'concat(a, b, axis: 1)', 'shape-mismatch@b'],
        ['concat of one tensor', '  input a: f32[batch, 3]', 'concat(a, axis: 1)', 'bad-argument@concat'],
        ['embedding ids must be i32', '  input ids: f32[batch, 16]', 'embedding(ids, 100, 8)', 'bad-argument@ids'],
        ['attention heads must divide d', '  input x: f32[batch, 16, 64]', 'attention(x, 5)', 'shape-mismatch@5'],
        ['attention rank', '  input x: f32[batch, 64]', 'attention(x, 4)', 'shape-mismatch@x'],
        ['lstm rank', '  input x: f32[batch, 64]', 'lstm(x, 8)', 'shape-mismatch@x'],
    ];
    test.each(failures)('%s', async (_name, inputs, expr, expected) => {
        const r = await infer(inputs, expr);
        expect(r.errors).toEqual([expected]);
    });

    test('a shape error that only appears with the defaults names them', async () => {
        const doc = await check(`model m(res = 4) {
  input x: f32[1, 3, res, res]
  output o = conv2d(x, 8, kernel: 7)
}`);
        expect(summary(doc).filter(s => s.startsWith('shape-mismatch'))).toEqual([
            expect.stringMatching(/^shape-mismatch@x: .*\(with the defaults res = 4\)$/),
        ]);
    });
});

describe('dims, parameters and blocks', () => {
    test('dim arithmetic: * and / bind tighter, / must divide exactly', async () => {
        expect((await infer('  input x: f32[batch * 2 + 1, 64 / 4 - 2]', 'relu(x)')).standalone).toBe('f32[2*batch + 1, 14]');
        expect((await infer('  input x: f32[batch, 64 / 5]', 'relu(x)')).errors).toEqual(['shape-mismatch@64 / 5']);
        expect((await infer('  input x: f32[batch, hidden * 4]', 'dense(x, hidden / 2)', 'batch = 2, hidden = 8')).standalone).toBe('f32[batch, (hidden)/2]');
        expect((await infer('  input x: f32[batch, hidden * 4]', 'dense(x, hidden / 2)', 'batch = 2, hidden = 8')).defaults).toBe('f32[2, 4]');
    });

    test('a zero dim is an error', async () => {
        expect((await infer('  input x: f32[batch, 2 - 2]', 'relu(x)')).errors).toEqual(['bad-argument@2 - 2']);
    });

    test('dim variables bind by unification at a block call; symbolic inside the block', async () => {
        const doc = await check(`model blk(c) {
  input x: f32[n, c, h, w]
  output y = conv2d(x, c * 2, kernel: 3, padding: 1)
}
model top(batch = 4) {
  input x: f32[batch, 8, 10, 12]
  output o = blk(x, c: 8)
}`);
        expect(errors(doc)).toEqual([]);
        expect(formatTensor(services.analysis.Analyzer.standalone(model(doc, 'blk')).outputs[0])).toBe('f32[n, 2*c, h, w]');
        expect(formatTensor(services.analysis.Analyzer.standalone(model(doc, 'top')).outputs[0])).toBe('f32[batch, 16, 10, 12]');
        const bad = await check(`model blk(c) {
  input x: f32[n, c, h, w]
  output relu(x)
}
model top(batch = 4) {
  input x: f32[batch, 8, 10, 12]
  output o = blk(x, c: 3)
}`);
        expect(summary(bad).filter(s => s.startsWith('shape-mismatch'))).toEqual([
            'shape-mismatch@x: blk expects x: f32[n, c, h, w], found f32[batch, 8, 10, 12] (dim 1: c = 3, found 8)',
        ]);
    });

    test('repeat chains a block and keeps costs per iteration; symbolic counts scale the cost', async () => {
        const doc = await check(`model layer(width = 16) {
  input x: f32[b, width]
  output relu(dense(x, width))
}
model stack(batch = 2, depth = 3) {
  input x: f32[batch, 16]
  output o = repeat depth layer(x, width: 16)
}`);
        expect(errors(doc)).toEqual([]);
        const standalone = services.analysis.Analyzer.standalone(model(doc, 'stack'));
        expect(standalone.totals.params.toString()).toBe('272*depth');
        const concrete = services.analysis.Analyzer.atDefaults(model(doc, 'stack'));
        expect(concrete.totals.params.value).toBe(3 * (16 * 16 + 16));
        expect(concrete.ops!.map(o => o.path.join('/'))).toEqual([
            'layer.0/dense.0', 'layer.0/relu.0', 'layer.1/dense.0', 'layer.1/relu.0', 'layer.2/dense.0', 'layer.2/relu.0',
        ]);
        expect(concrete.totals.flops.value).toBe(3 * (2 * 2 * 16 * 16 + 2 * 16 + 2 * 16));
    });

    test('costs per op: FLOPs count a multiply-add as 2; bytes are inputs + weights + output', async () => {
        const doc = await check(`model m(batch = 8) {
  input x: f32[batch, 100]
  output o = dense(x, 10)
}`);
        const a = services.analysis.Analyzer.atDefaults(model(doc, 'm'));
        const op = a.ops![0];
        expect(op.cost.flops.value).toBe(2 * 8 * 100 * 10 + 8 * 10);
        expect(op.cost.macs.value).toBe(8 * 100 * 10);
        expect(op.cost.bytesRead.value).toBe(4 * (8 * 100 + 100 * 10 + 10));
        expect(op.cost.bytesWritten.value).toBe(4 * 8 * 10);
        expect(op.cost.params.value).toBe(1010);
        expect(a.totals.peakBytes).toBe(4 * 1010 + 4 * (8 * 100 + 8 * 10));
        const standalone = services.analysis.Analyzer.standalone(model(doc, 'm'));
        expect(standalone.totals.flops.toString()).toBe('2010*batch');
        expect(standalone.totals.peakBytes).toBeUndefined();
    });

    test('per-expression info for hover: the shape of every sub-expression and binding', async () => {
        const doc = await check(`model m(batch = 32, hidden = 512) {
  input x: f32[batch, 784]
  h = relu(dense(x, hidden))
  output logits = dense(h, 10)
}`);
        const m = model(doc, 'm');
        const let_ = m.statements[1];
        const value = services.analysis.Analyzer.binding(let_ as never);
        expect(value?.kind === 'tensor' && formatTensor(value.tensor)).toBe('f32[batch, hidden]');
        const dense = (let_ as { value: { args: { value: unknown }[] } }).value.args[0].value;
        const info = services.analysis.Analyzer.expression(dense as never);
        expect(info?.value.kind === 'tensor' && formatTensor(info.value.tensor)).toBe('f32[batch, hidden]');
        expect(info?.cost?.params.toString()).toBe('785*hidden');
    });
});
