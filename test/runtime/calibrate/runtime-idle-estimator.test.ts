import { describe, expect, it } from 'vitest';
import { foundIdle, idlePenaltyFromRuntimeTrials, type RuntimeIdleTrial } from '../../../src/runtime/calibrate/estimators.js';
import { firstPassTwins } from '../../../src/runtime/calibrate/runtime-idle.js';
import { idleProbeTenant } from '../../../src/runtime/calibrate/synthetic.js';
import { planGraph } from '../../../src/runtime/plan/plan.js';

/** A trial whose open-loop mean exceeds the closed-loop mean by `extra` ms. */
const trial = (passes: number, closedMeanMs: number, extra: number, gpuExtra = 0): RuntimeIdleTrial => ({
    passes, closedMeanMs, openMeanMs: closedMeanMs + extra, closedGpuMs: closedMeanMs * 0.8, openGpuMs: closedMeanMs * 0.8 + gpuExtra,
});

describe('runtime-path idle penalty', () => {
    it('splits the extra over two request lengths into a fixed part and a part per pass', () => {
        // extra = 1.5 + 0.25·passes: 2.25 ms at 3 passes, 4.25 ms at 11, at different closed-loop levels per trial (drift).
        const trials = [1, 3, 2, 5].flatMap(level => [trial(3, level, 2.25, 0.1), trial(11, 4 * level, 4.25, 0.3)]);
        const e = idlePenaltyFromRuntimeTrials(trials);
        expect(e.wallMs).toBeCloseTo(1.5, 9);
        expect(e.gpuMsPerPass).toBeCloseTo(0.25, 9);
        expect(e.lengths.map(l => l.passes)).toEqual([3, 11]);
        expect(e.lengths[0].extraMs).toBeCloseTo(2.25, 9);
        expect(e.lengths[1].extraGpuMs).toBeCloseTo(0.3, 9);
        expect(e.lengths[1].trialsMs).toHaveLength(4);
    });

    it('takes the median over trials, so a minority of stalled trials cannot carry it', () => {
        const trials = [trial(3, 1, 2), trial(3, 1, 2), trial(3, 1, 60), trial(3, 1, 2), trial(3, 1, 55)];
        const e = idlePenaltyFromRuntimeTrials(trials);
        // One length: all of the extra is fixed.
        expect(e.wallMs).toBeCloseTo(2, 9);
        expect(e.gpuMsPerPass).toBe(0);
    });

    it('never goes below zero: a negative slope keeps the mean extra as the fixed part', () => {
        const e = idlePenaltyFromRuntimeTrials([trial(3, 1, 3), trial(11, 4, 1)]);
        expect(e.gpuMsPerPass).toBe(0);
        expect(e.wallMs).toBeCloseTo(2, 9);
        // A line through zero before the shortest request: all per pass, none fixed.
        const steep = idlePenaltyFromRuntimeTrials([trial(3, 1, 0.5), trial(11, 4, 10)]);
        expect(steep.wallMs).toBe(0);
        expect(steep.gpuMsPerPass).toBeGreaterThan(0);
        expect(steep.gpuMsPerPass).toBeCloseTo((3 * 0.5 + 11 * 10) / (9 + 121), 9);
        // Open faster than closed (noise) is no penalty.
        const none = idlePenaltyFromRuntimeTrials([trial(3, 2, -0.5), trial(11, 5, -1)]);
        expect(none.wallMs).toBe(0);
        expect(none.gpuMsPerPass).toBe(0);
    });

    it('takes what a first pass costs as the median over the trials that timed it, at least 0', () => {
        const first = (busyMs: number, idleMs: number): RuntimeIdleTrial => ({ ...trial(11, 2, 1), firstPass: { busyMs, idleMs } });
        const e = idlePenaltyFromRuntimeTrials([first(0.04, 0.3), trial(3, 1, 1), first(0.06, 0.25), first(-0.02, 5), first(0.05, 0.28)]);
        // The trial without twins does not count; a stalled one cannot carry it.
        expect(e.firstPass?.busy).toBeCloseTo(0.045, 12);
        expect(e.firstPass?.idle).toBeCloseTo(0.29, 12);
        expect(idlePenaltyFromRuntimeTrials([first(-0.01, -0.02)]).firstPass).toEqual({ busy: 0, idle: 0 });
        // No trial timed it (a probe whose first pass has no twin): absent, not 0.
        expect(idlePenaltyFromRuntimeTrials([trial(3, 1, 1)]).firstPass).toBeUndefined();
    });

    it('finds the later passes that run the idle probe\'s first kernel', () => {
        const long = firstPassTwins(planGraph(idleProbeTenant(8).graph));
        expect(long.first).toBe(0);
        // The pointwise stem and the eight pointwise blocks run one kernel: eight twins, in order.
        expect(long.twins).toHaveLength(8);
        expect(long.twins).toEqual([...long.twins].sort((a, b) => a - b));
        // The short probe has no block: nothing to set its first pass against.
        expect(firstPassTwins(planGraph(idleProbeTenant(0).graph)).twins).toEqual([]);
        const pass = (name: string, workgroups: number) => ({ launches: [{ name, flops: 10, bytes: 20, workgroups, family: 'f', effectiveFlops: 10 }] });
        expect(firstPassTwins([{ launches: [] }, pass('a', 4), pass('a', 8), pass('b', 4), pass('a', 4)])).toEqual({ first: 1, twins: [4] });
        expect(firstPassTwins([{ launches: [] }])).toEqual({ first: -1, twins: [] });
    });

    it('rejects no trials with a clear error', () => {
        expect(() => idlePenaltyFromRuntimeTrials([])).toThrow(/no runtime-path trials/);
    });

    it('marks which requests found the device idle (arrived after the previous one completed)', () => {
        expect(foundIdle([])).toEqual([]);
        expect(foundIdle([
            { arrivalMs: 10, doneMs: 13 }, { arrivalMs: 12, doneMs: 16 }, { arrivalMs: 16, doneMs: 18 }, { arrivalMs: 30, doneMs: 33 },
        ])).toEqual([true, false, true, true]);
    });
});
