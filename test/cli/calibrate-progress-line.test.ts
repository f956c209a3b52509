/** `tenancy calibrate`'s progress lines: what the CLI writes, the extension reads back into its notification's bar. */
import { describe, expect, it } from 'vitest';
import { calibrateProgressLine, parseCalibrateProgressLine } from '../../src/protocol/progress.js';

describe('calibrate progress lines', () => {
    it('round-trip the percent and the message', () => {
        expect(calibrateProgressLine(0.354, 'curves: round 2 of 5 through 25 ladders')).toBe('calibrate [ 35%] curves: round 2 of 5 through 25 ladders');
        expect(calibrateProgressLine(1, 'co-run model')).toBe('calibrate [100%] co-run model');
        expect(parseCalibrateProgressLine(calibrateProgressLine(0.07, 'kernel floor 0.060 ms'))).toEqual({ percent: 7, message: 'kernel floor 0.060 ms' });
        expect(parseCalibrateProgressLine(calibrateProgressLine(1, 'done'))).toEqual({ percent: 100, message: 'done' });
        // Out of range fractions are clamped, so the parser's range always holds.
        expect(calibrateProgressLine(1.2, 'x')).toBe('calibrate [100%] x');
    });

    it('reads no percent from other lines', () => {
        expect(parseCalibrateProgressLine('tenancy calibrate: warning: the host was busy')).toBeUndefined();
        expect(parseCalibrateProgressLine('Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced')).toBeUndefined();
        expect(parseCalibrateProgressLine('calibrate [250%] x')).toBeUndefined();
    });
});
