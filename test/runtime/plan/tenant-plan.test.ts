import { describe, expect, it } from 'vitest';
import { planTenant, CompileError } from '../../../src/runtime/plan/tenant-plan.js';
import { MemoryLimitError } from '../../../src/runtime/plan/memory.js';
import { kernelsFor, DEFAULT_CAPS } from '../../../src/runtime/kernels/index.js';
import type { IrTenant } from '../../../src/runtime/ir/types.js';
import { GraphBuilder, cnnTenant } from '../../fixtures/ir/builders.js';

const limits = { maxStorageBufferBindingSize: DEFAULT_CAPS.maxStorageBufferBindingSize, maxBufferSize: DEFAULT_CAPS.maxBufferSize };

function hugeTenant(): IrTenant {
    const b = new GraphBuilder('big', 'huge');
    const x = b.input('x', [4096, 1024]);
    b.output(b.dense('fc', x, 16384)); // [4096, 16384] f32 = 256 MiB
    return { name: 'big', graph: b.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
}

describe('planning on shapes (no GPU)', () => {
    it('rejects a tensor larger than the binding limit, naming op and sizes', () => {
        expect(() => planTenant(hugeTenant(), { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits }))
            .toThrow(/tenant big, op big\/huge\/fc: tensor t0_fc f32\[4096, 16384\] needs 256 MiB \(268435456 bytes\), more than the device's maxStorageBufferBindingSize of 128 MiB/);
    });

    it('rejects a plan over the workload memory budget', () => {
        expect(() => planTenant(cnnTenant('v'), { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits: { ...limits, budgetBytes: 10_000 } }))
            .toThrow(MemoryLimitError);
    });

    it('names the op when no kernel can be generated', () => {
        const kernels = { kernelsFor: () => { throw new Error('conv2d is not implemented'); } };
        expect(() => planTenant(cnnTenant('v'), { kernels, caps: DEFAULT_CAPS, limits }))
            .toThrow(CompileError);
        expect(() => planTenant(cnnTenant('v'), { kernels, caps: DEFAULT_CAPS, limits })).toThrow('tenant v, op v/small_cnn/stem/conv: conv2d is not implemented');
    });

    it('plans activations with reuse (less than one buffer per tensor)', () => {
        const plan = planTenant(cnnTenant('v'), { kernels: { kernelsFor }, caps: DEFAULT_CAPS, limits });
        expect(plan.memory.totalBytes).toBeLessThan(plan.memory.unplannedBytes);
        expect(plan.ops).toHaveLength(6);
    });
});
