/** Calibration's progress by time: steps weighted by their seconds, a cold shader pass projected, never backwards. */
import { describe, expect, it } from 'vitest';
import { CALIBRATION_STEPS, CalibrationProgress, STEP_SECONDS } from '../../../src/runtime/calibrate/progress.js';

function recorder(quick = false) {
    const seen: { fraction: number; message: string }[] = [];
    const progress = new CalibrationProgress((fraction, message) => seen.push({ fraction, message }), quick);
    return { seen, progress, last: () => seen[seen.length - 1].fraction };
}

const total = (quick: boolean) => CALIBRATION_STEPS.reduce((s, step) => s + STEP_SECONDS[quick ? 'quick' : 'full'][step], 0);

describe('CalibrationProgress', () => {
    it('places a step by the seconds of the steps before it and the part of it done', () => {
        const { progress, last } = recorder();
        const full = STEP_SECONDS.full;
        progress.at('curves', 0, 'curves: round 1 of 5');
        expect(last()).toBeCloseTo((full.shaders + full.ladders) / total(false), 10);
        progress.at('curves', 0.6, 'curves: round 4 of 5');
        expect(last()).toBeCloseTo((full.shaders + full.ladders + 0.6 * full.curves) / total(false), 10);
        // The steps after the rounds (idle arrivals, interference, the co-run probe) hold a large share of the time.
        progress.at('idle', 0, 'idle arrivals');
        expect(last()).toBeLessThan(0.6);
        progress.at('corunProbe', 0.5, 'co-run probe: 1 of 2 rounds done');
        expect(last()).toBeLessThan(1);
        progress.finish('co-run model');
        expect(last()).toBe(1);
    });

    it('says a message where it is, without moving', () => {
        const { progress, seen } = recorder();
        progress.at('interference', 0.5, 'interference compute × memory');
        progress.say('memory bandwidth');
        expect(seen.map(s => s.message)).toEqual(['interference compute × memory', 'memory bandwidth']);
        expect(seen[1].fraction).toBe(seen[0].fraction);
    });

    it('grows a step projected to take longer (a cold shader pass), and never goes back', () => {
        const { progress, seen, last } = recorder();
        // A cold pass: a tenth of the cases in 6 s projects 60 s, so the shaders are most of the calibration so far.
        progress.project('shaders', 60);
        progress.at('shaders', 0.1, 'shaders: compiling, 15 of 151 cases (6 s)');
        const early = last();
        expect(early).toBeCloseTo((0.1 * (STEP_SECONDS.full.shaders + 60)) / (total(false) + 60), 10);
        // The projection shrinks (the cases after compile faster): the fraction stays where it was rather than go back.
        progress.project('shaders', 10);
        progress.at('shaders', 0.1, 'shaders: compiling, 16 of 151 cases (12 s)');
        expect(last()).toBe(early);
        progress.at('shaders', 1, 'shaders compiled: 151 cases on 2 devices in 64.0 s');
        progress.project('shaders', 64);
        progress.at('ladders', 0, 'kernel floor 0.060 ms');
        expect(last()).toBeCloseTo((STEP_SECONDS.full.shaders + 64) / (total(false) + 64), 10);
        for (let i = 1; i < seen.length; i++) expect(seen[i].fraction).toBeGreaterThanOrEqual(seen[i - 1].fraction);
        // The projected part's share of its step: where the step's own work begins (the refinement's rounds after its pass).
        expect(progress.projectedShare('shaders')).toBeCloseTo(64 / (STEP_SECONDS.full.shaders + 64), 12);
        expect(progress.projectedShare('curves')).toBe(0);
    });

    it('weighs a quick calibration by its own steps', () => {
        const { progress, last } = recorder(true);
        progress.at('idle', 0, 'idle arrivals');
        const q = STEP_SECONDS.quick;
        expect(last()).toBeCloseTo((q.shaders + q.ladders + q.curves + q.refine) / total(true), 10);
    });
});
