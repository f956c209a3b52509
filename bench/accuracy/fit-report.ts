/**
 * How well the model fits the calibration's own points, per family (a check of the model's
 * form, not of its accuracy: the evaluation set is run.ts). Prints each point's measured and
 * modelled time and the family's fit.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/fit-report.ts [--family NAME]
 */
import { fitWaves, launchTiming } from '../../src/runtime/predict/latency.js';
import { locateProfile } from '../../src/runtime/predict/profile-store.js';

const args = process.argv.slice(2);
const only = args.includes('--family') ? args[args.indexOf('--family') + 1] : undefined;
const profile = locateProfile(process.cwd()).profile;
console.log(`profile ${profile.createdAt}; floor ${profile.kernelFloorMs.toFixed(3)} ms; host mean factor ${JSON.stringify(profile.hostMeanFactor)}`);
for (const [name, fam] of Object.entries(profile.families)) {
    if (only && name !== only) continue;
    const fit = fitWaves(fam, profile.kernelFloorMs);
    console.log(`\n${name} (${fam.basis}) ${fit ? `C=${fit.concurrency} perWave=${fit.perWave.toExponential(2)} perWork=${fit.perWork.toExponential(2)} rms(log)=${fit.rmsLogError.toFixed(2)}` : 'no fit'}`);
    for (const p of fam.points) {
        const t = launchTiming(profile, { name: p.shape, family: name, flops: p.flops, bytes: p.bytes, workgroups: p.workgroups, effectiveFlops: p.effectiveFlops ?? p.flops });
        console.log(`  ${p.shape.slice(0, 70).padEnd(70)} W=${String(p.workgroups).padStart(5)} x=${(fam.basis === 'flops' ? (p.effectiveFlops ?? p.flops) : p.bytes).toExponential(2)} meas ${p.ms.toFixed(3).padStart(7)} model ${t.ms.toFixed(3).padStart(7)} ${(100 * (t.ms - p.ms) / p.ms).toFixed(0).padStart(5)}%`);
    }
}
