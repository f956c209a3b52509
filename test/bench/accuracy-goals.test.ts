/** The accuracy benchmark's goals (issue 20), each set against a noise floor measured in the same run. */
import { describe, expect, it } from 'vitest';
import { goalPercent, goalText } from '../../bench/accuracy/goals.js';

describe('accuracy goals against a floor', () => {
    it('an op class: max(10 %, 1.5 × floor), judged only with 3 ops or more', () => {
        expect(goalPercent('op', 61, 4.1)).toBe(10);
        expect(goalPercent('op', 61, 12.9)).toBeCloseTo(19.35, 12);
        expect(goalPercent('op', 2, 12.9)).toBeUndefined();
        expect(goalText('op')).toBe('≤ max(10 %, 1.5 × floor), n ≥ 3');
    });
    it('tenant mean: max(10 %, 1.25 × floor); co-run p99: max(15 %, 1.25 × floor)', () => {
        expect(goalPercent('tenantMean', 21, 11.4)).toBeCloseTo(14.25, 12);
        expect(goalPercent('tenantMean', 21, 6)).toBe(10);
        expect(goalPercent('corunP99', 14, 10)).toBe(15);
        expect(goalPercent('corunP99', 14, 40.6)).toBeCloseTo(50.75, 12);
        expect(goalText('corunP99')).toBe('≤ max(15 %, 1.25 × floor)');
    });
    it('no floor measured (one run, one pass): no goal', () => {
        expect(goalPercent('op', 107, undefined)).toBeUndefined();
        expect(goalPercent('tenantMean', 21, NaN)).toBeUndefined();
    });
});
