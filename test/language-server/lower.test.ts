import { describe, expect, test } from 'vitest';
import { lowerWorkload, LoweringError } from '../../src/language-server/lower.js';
import { validateWorkloadIr } from '../../src/runtime/ir/validate.js';
import { check, errors, services, summary, workload } from './helpers.js';

describe('lowering to Workload IR', () => {
    test('a zoo model at small resolution lowers to valid IR with stable paths, the architecture\'s layers and its known parameter count', async () => {
        const doc = await check(`workload small {
  tenant cls {
    model resnet18(batch: 1, res: 32)
    arrival poisson(rate: 5/s)
    slo p99 <= 200ms
  }
  tenant lm { model mlp(batch: 2) }
}`);
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
        const ir = lowerWorkload(workload(doc, 'small'), services.analysis.Analyzer);
        const validation = validateWorkloadIr(JSON.parse(JSON.stringify(ir)));
        expect(validation.ok ? [] : validation.issues).toEqual([]);
        const cls = ir.tenants[0];
        expect(cls.graph.ops.length).toBe(69);
        expect(cls.graph.ops.slice(0, 4).map(o => o.path)).toEqual([
            'cls/resnet18/conv2d.0', 'cls/resnet18/batch_norm.0', 'cls/resnet18/x', 'cls/resnet18/x.1',
        ]);
        expect(cls.graph.ops.map(o => o.path)).toContain('cls/resnet18/resnet_basic_block.1/y.1');
        expect(cls.graph.ops.map(o => o.path)).toContain('cls/resnet18/resnet_basic_down.0/shortcut');
        expect(cls.graph.outputs).toEqual(['cls/resnet18/logits']);
        expect(cls.arrival).toEqual({ kind: 'poisson', ratePerSecond: 5 });
        expect(cls.slos).toEqual([{ percentile: 'p99', ms: 200 }]);
        expect(ir.tenants[1].arrival).toEqual({ kind: 'closed', clients: 1, thinkMs: 0 });
        expect(ir.tenants[1].priority).toBe('normal');
        expect(ir.schedule).toEqual({ policy: 'concurrent' });
        expect(ir.benchmark).toEqual({ durationMs: 5000, warmupMs: 1000, seed: 0 });
        // ResNet-18's layers: 20 convolutions (17 in the blocks and stem, 3 projection shortcuts), each with its
        // batch norm; 8 residual adds; one max pool, global pool, flatten and classifier.
        const kinds: Record<string, number> = {};
        for (const o of cls.graph.ops) kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
        expect(kinds).toEqual({ conv2d: 20, batch_norm: 20, relu: 17, max_pool2d: 1, add: 8, global_avg_pool: 1, flatten: 1, dense: 1 });
        const shape = (id: string) => cls.graph.tensors[id].shape;
        const [stem, , , pool] = cls.graph.ops;
        expect(stem.attrs).toEqual({ filters: 64, kernel: [7, 7], stride: [2, 2], padding: [3, 3, 3, 3], dilation: [1, 1], groups: 1, bias: false });
        expect([shape(cls.graph.inputs[0]), shape(stem.output), shape(pool.output)]).toEqual([[1, 3, 32, 32], [1, 64, 16, 16], [1, 64, 8, 8]]);
        expect(shape(cls.graph.ops.find(o => o.kind === 'global_avg_pool')!.inputs[0])).toEqual([1, 512, 1, 1]);
        expect(shape(cls.graph.outputs[0])).toEqual([1, 1000]);
        // torchvision's resnet18 has 11,689,512 parameters; the IR also carries the batch norms' running mean and variance (2 × 4,800).
        const params = cls.graph.ops.reduce((a, o) => a + o.weights.reduce((b, w) => b + w.shape.reduce((x, y) => x * y, 1), 0), 0);
        expect(params).toBe(11_689_512 + 9_600);
        // 1.82 GMACs at 224² scale by (32/224)² in the convolutions: about 75 MFLOP at 32².
        expect(cls.graph.ops.reduce((a, o) => a + o.flops, 0)).toBe(75_249_128);
        const lm = ir.tenants[1].graph;
        expect(lm.ops.map(o => [o.kind, lm.tensors[o.output].shape])).toEqual([
            ['dense', [2, 512]], ['relu', [2, 512]], ['dense', [2, 10]],
        ]);
    });

    test('attributes are fully resolved: "same" padding, default stride, negative axis', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, 4, 9, 9]
  a = conv2d(x, 8, kernel: 3, stride: 2, padding: "same")
  b = max_pool2d(a, kernel: 2)
  output s = softmax(flatten(b), axis: -1)
}
workload w { tenant t { model m() } }`);
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
        const ir = lowerWorkload(workload(doc, 'w'), services.analysis.Analyzer);
        const [conv, pool, flatten, softmax] = ir.tenants[0].graph.ops;
        expect(conv.attrs).toEqual({ filters: 8, kernel: [3, 3], stride: [2, 2], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1, bias: true });
        expect(ir.tenants[0].graph.tensors[conv.output].shape).toEqual([1, 8, 5, 5]);
        expect(pool.attrs).toEqual({ kernel: [2, 2], stride: [2, 2], padding: [0, 0, 0, 0] });
        expect(flatten.kind).toBe('flatten');
        expect(softmax.attrs).toEqual({ axis: 1 });
        expect(conv.weights).toEqual([{ name: 'weight', shape: [8, 4, 3, 3], dtype: 'f32' }, { name: 'bias', shape: [8], dtype: 'f32' }]);
        expect(conv.flops).toBe(2 * 8 * 5 * 5 * 4 * 9 + 8 * 5 * 5);
        expect(conv.bytes).toBe(4 * (4 * 81 + 8 * 4 * 9 + 8) + 4 * 8 * 25);
        expect(conv.source?.start).toEqual({ line: 2, character: 6 });
    });

    test('workload settings lower with their values', async () => {
        const doc = await check(`workload w {
  device low_power(memory: 2GiB)
  tenant t { model mlp() arrival closed(clients: 3, think: 5ms) priority high slo mean <= 1s slo p50 <= 250us }
  tenant u { model mlp() arrival periodic(every: 20ms) }
  schedule regulated(split: 4, sync: none)
  benchmark { duration 10s warmup 0.5s seed 42 requests 100 repetitions 3 }
}`);
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
        const ir = lowerWorkload(workload(doc, 'w'), services.analysis.Analyzer);
        expect(ir.device).toEqual({ preference: 'low_power', memoryBytes: 2 * 2 ** 30 });
        expect(ir.tenants[0].arrival).toEqual({ kind: 'closed', clients: 3, thinkMs: 5 });
        expect(ir.tenants[0].priority).toBe('high');
        expect(ir.tenants[0].slos).toEqual([{ percentile: 'mean', ms: 1000 }, { percentile: 'p50', ms: 0.25 }]);
        expect(ir.tenants[1].arrival).toEqual({ kind: 'periodic', everyMs: 20 });
        expect(ir.schedule).toEqual({ policy: 'regulated', split: 4, sync: 'none' });
        expect(ir.benchmark).toEqual({ durationMs: 10000, warmupMs: 500, seed: 42, requests: 100, rounds: 3 });
    });

    test('a let that rebinds an input\'s name makes a new tensor, in the model and in an inlined block', async () => {
        const doc = await check(`model blk(c) {
  input x: f32[n, c]
  x = relu(x)
  output add(x, x)
}

model m(b = 2) {
  input x: f32[b, 4]
  x = relu(x)
  x = blk(x, c: 4)
  output dense(x, 3)
}

workload w {
  tenant t { model m() }
}`);
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
        const ir = lowerWorkload(workload(doc, 'w'), services.analysis.Analyzer);
        const validation = validateWorkloadIr(JSON.parse(JSON.stringify(ir)));
        expect(validation.ok ? [] : validation.issues).toEqual([]);
        const graph = ir.tenants[0].graph;
        expect(graph.inputs).toEqual(['t/m/x']);
        expect(graph.ops.map(o => [o.kind, o.inputs, o.output])).toEqual([
            ['relu', ['t/m/x'], 't/m/x.1'],
            ['relu', ['t/m/x.1'], 't/m/blk.0/x.1'],
            ['add', ['t/m/blk.0/x.1', 't/m/blk.0/x.1'], 't/m/blk.0/add.0'],
            ['dense', ['t/m/blk.0/add.0'], 't/m/dense.0'],
        ]);
    });

    test('a workload with errors does not lower', async () => {
        const doc = await check(`model blk(c) { input x: f32[n, c] output relu(x) }
workload w { tenant t { model blk(c: 2) } }`);
        expect(() => lowerWorkload(workload(doc, 'w'), services.analysis.Analyzer)).toThrow(LoweringError);
    });
});
