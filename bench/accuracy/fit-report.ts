/**
 * How well the model fits the calibration's own points, per family (a check of the model's
 * form, not of its accuracy: the evaluation set is run.ts). Prints each point's measured and
 * modelled time and the family's fit.
 *
 * --loo: leave-one-out instead, on calibration data alone: each point predicted by the model
 * calibrated on the family's other points (the fit and its local correction both without it), so
 * the error says how well the calibration's coverage predicts a shape it did not measure. A
 * model change can be judged by it without looking at the evaluation set.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/fit-report.ts [--family NAME] [--loo]
 */
import { fitWaves, launchTiming } from '../../src/runtime/predict/latency.js';
import type { DeviceProfile, FamilyProfile } from '../../src/runtime/predict/profile.js';
import { locateProfile } from '../../src/runtime/predict/profile-store.js';

const args = process.argv.slice(2);
const only = args.includes('--family') ? args[args.indexOf('--family') + 1] : undefined;
const loo = args.includes('--loo');
const profile = locateProfile(process.cwd()).profile;
console.log(`profile ${profile.createdAt}; floor ${profile.kernelFloorMs.toFixed(3)} ms; host mean factor ${JSON.stringify(profile.hostMeanFactor)}`);

type Point = FamilyProfile['points'][number];
/** The model's time for a calibration point on a profile (the family's curve as `launchTiming` reads it). */
const modelMs = (p: DeviceProfile, family: string, point: Point) =>
    launchTiming(p, { name: point.shape, family, flops: point.flops, bytes: point.bytes, workgroups: point.workgroups, effectiveFlops: point.effectiveFlops ?? point.flops, strideAlignment: point.strideAlignment, scalarLoads: point.scalarLoads }).ms;

const all: { inSample: number; out: number }[] = [];
for (const [name, fam] of Object.entries(profile.families)) {
    if (only && name !== only) continue;
    const fit = fitWaves(fam, profile.kernelFloorMs);
    console.log(`\n${name} (${fam.basis}) ${fit ? `C=${fit.concurrency} perWave=${fit.perWave.toExponential(2)} perWork=${fit.perWork.toExponential(2)} rms(log)=${fit.rmsLogError.toFixed(2)}` : 'no fit'}`);
    const errors: { inSample: number; out: number }[] = [];
    fam.points.forEach((p, i) => {
        const t = modelMs(profile, name, p);
        let line = `  ${p.shape.slice(0, 70).padEnd(70)} W=${String(p.workgroups).padStart(5)} x=${(fam.basis === 'flops' ? (p.effectiveFlops ?? p.flops) : p.bytes).toExponential(2)} meas ${p.ms.toFixed(3).padStart(7)} model ${t.toFixed(3).padStart(7)} ${(100 * (t - p.ms) / p.ms).toFixed(0).padStart(5)}%`;
        // A family needs two points for its fit: leave-one-out from three on.
        if (loo && fam.points.length >= 3) {
            const without: DeviceProfile = { ...profile, families: { ...profile.families, [name]: { ...fam, points: fam.points.filter((_, j) => j !== i) } } };
            const out = modelMs(without, name, p);
            line += `   left out: model ${out.toFixed(3).padStart(7)} ${(100 * (out - p.ms) / p.ms).toFixed(0).padStart(5)}%`;
            errors.push({ inSample: Math.abs(t / p.ms - 1), out: Math.abs(out / p.ms - 1) });
        }
        console.log(line);
    });
    if (errors.length > 0) {
        const mean = (k: 'inSample' | 'out') => (100 * errors.reduce((s, e) => s + e[k], 0) / errors.length).toFixed(1);
        console.log(`  MAPE in sample ${mean('inSample')}%, left out ${mean('out')}% (${errors.length} points)`);
        all.push(...errors);
    }
}
if (all.length > 0) {
    const mean = (k: 'inSample' | 'out') => (100 * all.reduce((s, e) => s + e[k], 0) / all.length).toFixed(1);
    console.log(`\nall families: MAPE in sample ${mean('inSample')}%, left out ${mean('out')}% (${all.length} points)`);
}
