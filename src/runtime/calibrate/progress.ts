/**
 * Calibration's progress as a fraction of its time, for the terminal's line and the editor's
 * notification: its steps in order, each weighted by the seconds it takes, and the part of the
 * current step done. Counted in steps instead (one per ladder case), the fraction sat at 1–2 %
 * through the first half of a calibration and reached 95 % with 40 s still to go, since every
 * case's figure is known only once the rounds are over. Pure.
 */

/** Calibration's steps, in the order they run (calibrate.ts). */
export const CALIBRATION_STEPS = ['shaders', 'ladders', 'curves', 'refine', 'idle', 'interference', 'corunTail', 'corunProbe'] as const;
export type CalibrationStep = typeof CALIBRATION_STEPS[number];

/**
 * Seconds each step took in a calibration on the reference adapter (lavapipe, 2 cores, Mesa's
 * shader cache warm; `tenancy calibrate` timed line by line, 2026-12-07: 78 s in all), and in a
 * quick one (`--quick`, 22 s after its shaders). The shaders' step is what a warm cache costs; a
 * cold one compiles for a minute or more, which the pass projects from its own rate as it goes
 * (CalibrationProgress.project).
 */
export const STEP_SECONDS: Record<'full' | 'quick', Record<CalibrationStep, number>> = {
    full: { shaders: 1, ladders: 8.5, curves: 20, refine: 3, idle: 16, interference: 15, corunTail: 3, corunProbe: 9 },
    quick: { shaders: 1, ladders: 4.5, curves: 4, refine: 1.5, idle: 4.5, interference: 4.5, corunTail: 0.6, corunProbe: 6 },
};

export class CalibrationProgress {
    private readonly seconds: Record<CalibrationStep, number>;
    private readonly extra = new Map<CalibrationStep, number>();
    private reported = 0;
    private step: CalibrationStep = CALIBRATION_STEPS[0];
    private part = 0;

    constructor(private readonly report: (fraction: number, message: string) => void, quick: boolean) {
        this.seconds = { ...STEP_SECONDS[quick ? 'quick' : 'full'] };
    }

    /** `step` with `part` of it (0…1) done, saying what it is doing or found. The fraction never goes back. */
    at(step: CalibrationStep, part: number, message: string): void {
        this.step = step;
        this.part = Math.min(1, Math.max(0, part));
        this.say(message);
    }

    /** A message at the current place. */
    say(message: string): void {
        this.reported = Math.max(this.reported, this.fraction());
        this.report(this.reported, message);
    }

    /**
     * A step found to take `seconds` more than its usual time (a shader pass on a cold cache, as
     * projected from its rate so far): the fraction's scale grows with it.
     */
    project(step: CalibrationStep, seconds: number): void {
        this.extra.set(step, Math.max(0, seconds));
    }

    /** Seconds a step is expected to take now. */
    secondsOf(step: CalibrationStep): number {
        return this.seconds[step] + (this.extra.get(step) ?? 0);
    }

    /** The share of a step's expected time its projected part takes (project): where the rest of the step begins. */
    projectedShare(step: CalibrationStep): number {
        return (this.extra.get(step) ?? 0) / this.secondsOf(step);
    }

    /** The end: every step done. */
    finish(message: string): void {
        this.reported = 1;
        this.report(1, message);
    }

    private fraction(): number {
        let before = 0, total = 0;
        const at = CALIBRATION_STEPS.indexOf(this.step);
        CALIBRATION_STEPS.forEach((s, i) => {
            const w = this.secondsOf(s);
            total += w;
            if (i < at) before += w;
        });
        return Math.min(1, (before + this.secondsOf(this.step) * this.part) / total);
    }
}
