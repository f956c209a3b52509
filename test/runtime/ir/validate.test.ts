import { describe, expect, it } from 'vitest';
import { IrValidationError, parseWorkloadIr, validateWorkloadIr } from '../../../src/runtime/ir/validate.js';
import { IR_VERSION } from '../../../src/runtime/ir/types.js';
import { cnnTenant, mlpTenant, transformerTenant, workloadOf } from '../../fixtures/ir/builders.js';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const messages = (value: unknown) => {
    const r = validateWorkloadIr(value);
    return r.ok ? [] : r.issues.map(i => `${i.where}: ${i.message}`);
};

describe('IR validation', () => {
    it('accepts the fixture workloads (round-tripped through JSON)', () => {
        const ir = workloadOf('w', [mlpTenant('a'), cnnTenant('b'), transformerTenant('c')]);
        expect(messages(clone(ir))).toEqual([]);
        expect(parseWorkloadIr(clone(ir)).tenants.map(t => t.name)).toEqual(['a', 'b', 'c']);
    });

    it('names the tenant, op path and field for a bad attribute', () => {
        const ir = clone(workloadOf('w', [cnnTenant('vision')]));
        ir.tenants[0].graph.ops[0].attrs.stride = 2;
        expect(messages(ir)).toContain('tenant vision, op vision/small_cnn/stem/conv: attrs.stride must be [number, number], found 2');
    });

    it('reports a wrong IR version with what to do', () => {
        const ir = { ...clone(workloadOf('w', [mlpTenant('a')])), irVersion: IR_VERSION + 1 };
        const [m] = messages(ir);
        expect(m).toMatch(new RegExp(`reads IR version ${IR_VERSION}, found ${IR_VERSION + 1}.*regenerate`));
    });

    it('reports unknown tensors, order and duplicate names', () => {
        const ir = clone(workloadOf('w', [mlpTenant('a'), mlpTenant('a')]));
        const ops = ir.tenants[0].graph.ops;
        ops[0].inputs = ['nope'];
        [ops[1], ops[2]] = [ops[2], ops[1]]; // fc2 now reads relu1's output before it exists
        const m = messages(ir);
        expect(m).toContain('tenant a, op a/mlp/fc1: inputs[0] names tensor "nope", which is not in graph.tensors');
        expect(m.some(x => x.startsWith('tenant a, op a/mlp/fc2: inputs[0]') && x.includes('used before it is produced'))).toBe(true);
        expect(m).toContain('tenant a: duplicate tenant name "a"');
        expect(m.some(x => x.includes('duplicate op path "a/mlp/fc1"'))).toBe(true);
    });

    it('checks shapes against the op kind with expected vs found', () => {
        const ir = clone(workloadOf('w', [mlpTenant('a', { hidden: 32 })]));
        const out = ir.tenants[0].graph.ops[0].output;
        ir.tenants[0].graph.tensors[out].shape = [8, 33];
        expect(messages(ir)).toContain('tenant a, op a/mlp/fc1: output shape must be [8, 32] for dense of [8, 64], found [8, 33]');
    });

    it('reports structural errors with paths outside tenants', () => {
        const ir = clone(workloadOf('w', [mlpTenant('a')])) as unknown as Record<string, any>;
        ir.benchmark.durationMs = -1;
        ir.tenants[0].arrival = { kind: 'poisson', ratePerSecond: 'fast' };
        const m = messages(ir);
        expect(m).toContain('benchmark: durationMs must be a positive number, found -1');
        expect(m).toContain('tenant a: arrival.ratePerSecond must be a number, found "fast"');
    });

    it('rejects unknown op kinds and attributes', () => {
        const ir = clone(workloadOf('w', [mlpTenant('a')])) as unknown as Record<string, any>;
        ir.tenants[0].graph.ops[0].kind = 'densee';
        expect(messages(ir).some(x => x.startsWith('tenant a, op a/mlp/fc1: kind must be one of dense, matmul'))).toBe(true);
        const ir2 = clone(workloadOf('w', [mlpTenant('a')])) as unknown as Record<string, any>;
        ir2.tenants[0].graph.ops[2].attrs.unit = 3;
        expect(messages(ir2)).toEqual(['tenant a, op a/mlp/fc2: attrs has unknown key unit']);
    });

    it('parseWorkloadIr throws an error listing the issues', () => {
        expect(() => parseWorkloadIr({})).toThrow(IrValidationError);
        expect(() => parseWorkloadIr(null)).toThrow(/invalid workload IR/);
    });
});
