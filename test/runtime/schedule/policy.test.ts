import { describe, expect, it } from 'vitest';
import { concurrentPolicy, policyFor, scheduleName, sequentialPolicy, type TenantView } from '../../../src/runtime/schedule/policy.js';

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

    it('unimplemented policies are a clear error, not a fallback', () => {
        expect(() => policyFor({ policy: 'regulated', split: 2, sync: 'auto' })).toThrow('schedule regulated is not implemented yet; use sequential, concurrent or layer_block');
        expect(() => policyFor({ policy: 'co_tuned', variants: 5 })).toThrow(/schedule co_tuned is not implemented yet/);
        expect(() => policyFor({ policy: 'auto' })).toThrow(/schedule auto is not implemented yet/);
        expect(policyFor({ policy: 'layer_block', size: 4 }).name).toBe('layer_block(size: 4)');
        expect(policyFor({ policy: 'layer_block', size: 'auto' }).name).toBe('layer_block(size: auto)');
        expect(policyFor({ policy: 'sequential' }).name).toBe('sequential');
        expect(scheduleName({ policy: 'regulated', split: 'auto', sync: 'none' })).toBe('regulated(split: auto, sync: none)');
    });
});
