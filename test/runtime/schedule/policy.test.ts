import { describe, expect, it } from 'vitest';
import type { IrSchedule } from '../../../src/runtime/ir/types.js';
import { concurrentPolicy, policyFor, scheduleName, sequentialPolicy, type TenantView } from '../../../src/runtime/schedule/policy.js';
import { cutChunks, regulatedPolicy } from '../../../src/runtime/schedule/regulated.js';

const tenant = (index: number, priority: TenantView['priority'], arrivals: number[], busy = false): TenantView => ({
    index, name: `t${index}`, priority, opCount: 5, busy, waiting: arrivals.map((arrivalMs, id) => ({ id, arrivalMs, nextOp: 0 })),
});

describe('schedule policies', () => {
    it('sequential: one request at a time, priority first, then FIFO by arrival', () => {
        expect(sequentialPolicy.decide({ nowMs: 0, tenants: [tenant(0, 'normal', [5]), tenant(1, 'normal', [3])] })).toEqual([{ tenant: 1, opEnd: 5 }]);
        expect(sequentialPolicy.decide({ nowMs: 0, tenants: [tenant(0, 'high', [5]), tenant(1, 'normal', [3])] })).toEqual([{ tenant: 0, opEnd: 5 }]);
        expect(sequentialPolicy.decide({ nowMs: 0, tenants: [tenant(0, 'low', [1]), tenant(1, 'normal', [3], true)] })).toEqual([]);
        expect(sequentialPolicy.decide({ nowMs: 0, tenants: [tenant(0, 'normal', []), tenant(1, 'normal', [])] })).toEqual([]);
    });

    it('concurrent: every idle tenant with work submits', () => {
        expect(concurrentPolicy.decide({ nowMs: 0, tenants: [tenant(0, 'low', [1]), tenant(1, 'normal', [3], true), tenant(2, 'high', [])] }))
            .toEqual([{ tenant: 0, opEnd: 5 }]);
    });

    it('unimplemented policies are a clear error, not a fallback; auto arguments must be resolved first', () => {
        expect(() => policyFor({ policy: 'bogus' } as unknown as IrSchedule)).toThrow('schedule bogus is not implemented yet; use sequential, concurrent, layer_block, regulated, co_tuned, auto');
        expect(() => policyFor({ policy: 'co_tuned', variants: 5 })).toThrow(/co_tuned\(variants: 5\) must be resolved/);
        expect(() => policyFor({ policy: 'regulated', split: 2, sync: 'auto' })).toThrow(/regulated\(split: 2, sync: auto\) must be resolved/);
        expect(() => policyFor({ policy: 'auto' })).toThrow(/schedule auto must be resolved/);
        expect(policyFor({ policy: 'regulated', split: 4, sync: 'none' }).name).toBe('regulated(split: 4, sync: none)');
        expect(policyFor({ policy: 'layer_block', size: 4 }).name).toBe('layer_block(size: 4)');
        expect(policyFor({ policy: 'layer_block', size: 'auto' }).name).toBe('layer_block(size: auto)');
        expect(policyFor({ policy: 'sequential' }).name).toBe('sequential');
        expect(scheduleName({ policy: 'regulated', split: 'auto', sync: 'none' })).toBe('regulated(split: auto, sync: none)');
    });
});

describe('regulated', () => {
    const ops = (ms: number[]) => ms.map(predictedMs => ({ flops: predictedMs, launches: 1, predictedMs }));
    const view = (index: number, name: string, opMs: number[], arrivals: number[], busy = false, priority: TenantView['priority'] = 'normal'): TenantView => ({
        index, name, priority, opCount: opMs.length, busy, waiting: arrivals.map((arrivalMs, id) => ({ id, arrivalMs, nextOp: 0 })), ops: ops(opMs),
    });

    it('cuts each request into its split of chunks of about equal predicted time', () => {
        expect(cutChunks(8, ops([1, 1, 1, 1, 1, 1, 1, 1]), 4).starts).toEqual([0, 2, 4, 6]);
        expect(cutChunks(3, ops([5, 1, 1]), 2).starts).toEqual([0, 1]);
        expect(cutChunks(3, ops([1, 1, 1]), 1).starts).toEqual([0]);
    });

    it('never starts two tenants\' exclusive chunks at once; light chunks co-run', () => {
        const policy = regulatedPolicy({ splits: { a: 2, b: 2 }, defaultSplit: 2, heavyMs: 5 });
        // Both tenants' first chunks are heavy (10 ms): only the earlier arrival's starts.
        expect(policy.decide({ nowMs: 0, tenants: [view(0, 'a', [10, 1], [0]), view(1, 'b', [10, 1], [1])] })).toEqual([{ tenant: 0, opEnd: 1 }]);
        // While a's heavy chunk runs, b's heavy chunk waits.
        expect(policy.decide({ nowMs: 1, tenants: [view(0, 'a', [10, 1], [0], true), view(1, 'b', [10, 1], [1])] })).toEqual([]);
        // Light chunks (1 ms) co-run with anything.
        const light = regulatedPolicy({ splits: {}, defaultSplit: 1, heavyMs: 5 });
        expect(light.decide({ nowMs: 0, tenants: [view(0, 'a', [1, 1], [0]), view(1, 'b', [1, 1], [0])] })).toEqual([{ tenant: 0, opEnd: 2 }, { tenant: 1, opEnd: 2 }]);
        // A higher priority with work holds a lower priority's exclusive chunk back, not its light ones.
        const byPriority = regulatedPolicy({ splits: {}, defaultSplit: 2, heavyMs: 5 });
        expect(byPriority.decide({ nowMs: 0, tenants: [view(0, 'a', [1, 1], [0], true, 'high'), view(1, 'b', [10, 1], [0], false, 'low')] })).toEqual([]);
        expect(byPriority.decide({ nowMs: 0, tenants: [view(0, 'a', [1, 1], [], false, 'high'), view(1, 'b', [10, 1], [0], false, 'low')] })).toEqual([{ tenant: 1, opEnd: 1 }]);
        // sync: none: heavy chunks co-run too.
        const none = regulatedPolicy({ splits: {}, defaultSplit: 2, heavyMs: Infinity });
        expect(none.decide({ nowMs: 0, tenants: [view(0, 'a', [10, 1], [0]), view(1, 'b', [10, 1], [1])] })).toHaveLength(2);
    });
});
