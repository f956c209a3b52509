/** Hand-built Workload IR for the prediction tests (no language server needed). */
import type { IrArrival, IrGraph, IrOp, IrSchedule, IrSlo, IrTenant, WorkloadIR } from '../../../src/runtime/ir/types.js';

/** An MLP graph: dense(in→hidden) + relu + dense(hidden→out), f32. */
export function mlpGraph(prefix: string, batch: number, input: number, hidden: number, out: number): IrGraph {
    const t = (id: string, shape: number[]) => ({ id, dtype: 'f32' as const, shape });
    const dense = (path: string, x: string, y: string, k: number, n: number): IrOp => ({
        path, kind: 'dense', inputs: [x], output: y, attrs: { units: n, bias: true },
        weights: [{ name: 'weight', shape: [k, n], dtype: 'f32' }, { name: 'bias', shape: [n], dtype: 'f32' }],
        flops: 2 * batch * k * n, bytes: 4 * (batch * k + k * n + n + batch * n),
        source: { uri: 'file:///w/a.tenancy', start: { line: 3, character: 2 }, end: { line: 3, character: 30 } },
    });
    return {
        model: 'mlp', args: { batch },
        tensors: { x: t('x', [batch, input]), h0: t('h0', [batch, hidden]), h: t('h', [batch, hidden]), y: t('y', [batch, out]) },
        inputs: ['x'], outputs: ['y'],
        ops: [
            dense(`${prefix}/mlp/fc1`, 'x', 'h0', input, hidden),
            { path: `${prefix}/mlp/relu`, kind: 'relu', inputs: ['h0'], output: 'h', attrs: {}, weights: [], flops: batch * hidden, bytes: 8 * batch * hidden },
            dense(`${prefix}/mlp/fc2`, 'h', 'y', hidden, out),
        ],
    };
}

/** A tenant running an MLP. */
export function mlpTenant(name: string, arrival: IrArrival, slos: IrSlo[] = [], size = { batch: 32, input: 256, hidden: 256, out: 64 }): IrTenant {
    return { name, graph: mlpGraph(name, size.batch, size.input, size.hidden, size.out), arrival, slos, priority: 'normal' };
}

/** A workload of the given tenants. */
export function workload(tenants: IrTenant[], schedule: IrSchedule = { policy: 'concurrent' }): WorkloadIR {
    return {
        irVersion: 2, workload: 'w', sourceUri: 'file:///w/a.tenancy', device: { preference: 'auto' },
        tenants, schedule, benchmark: { durationMs: 5000, warmupMs: 1000, seed: 0 },
    };
}
