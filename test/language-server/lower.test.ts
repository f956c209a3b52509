import { describe, expect, test } from 'vitest';
import { lowerWorkload, LoweringError } from '../../src/language-server/lower.js';
import { validateWorkloadIr } from '../../src/runtime/ir/validate.js';
import { check, errors, services, summary, workload } from './helpers.js';

describe('lowering to Workload IR', () => {
    test('a zoo model at small resolution lowers to valid IR with stable paths (snapshot)', async () => {
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
        // Without source ranges (URIs differ per run) the IR is stable: snapshot it.
        const stripped = JSON.parse(JSON.stringify(ir, (key, value) => (key === 'source' || key === 'sourceUri' ? undefined : value)));
        expect(stripped).toMatchSnapshot();
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
        expect(ir.benchmark).toEqual({ durationMs: 10000, warmupMs: 500, seed: 42, requests: 100, repetitions: 3 });
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
