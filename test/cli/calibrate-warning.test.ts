/** `tenancy calibrate`: its warning when it ran at an unusual speed of the host against this adapter's earlier calibrations here, and its summary's co-run and tails lines. */
import { describe, expect, it } from 'vitest';
import { corunSummary, tailsSummary, unusualHostWarning } from '../../src/cli/commands/calibrate.js';

const history = [1.85, 1.68, 1.95, 2.15, 1.9].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));

describe('calibrate: a calibration at an unusual moment of the host', () => {
    it('says how much slower than usual, what predictions do with it and what to do', () => {
        // Median of the five: 1.90 ms; 2.92 ms is 1.54× it (a calibration of 2026-12-06 that read every figure 32 % high).
        expect(unusualHostWarning({ hostSpeedProbeMs: 2.92, hostSpeedHistory: history })).toBe(
            'the reference request took 2.92 ms, 1.54× slower than the median of 5 earlier calibrations of this adapter here (1.90 ms): ' +
            'the host ran slower than usual. Predictions scale this calibration\'s times to the host\'s usual speed, but a busy host moves some kernels more than others. ' +
            'Re-run tenancy calibrate when the machine is quieter.');
    });
    it('says so of a faster one too', () => {
        expect(unusualHostWarning({ hostSpeedProbeMs: 1.2, hostSpeedHistory: history })).toMatch(/1\.58× faster .* a faster host moves some kernels more than others\. Re-run tenancy calibrate to check\./);
    });
    it('told by the curves where three earlier calibrations carry their level', () => {
        // Earlier calibrations' curves at 0.6, 0.7, 0.75 and 0.8 of this one's: the median 0.725, so this one ran 1.38× slower.
        const levels = [0.6, 0.7, 0.75, 0.8].map((curveLevel, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs: 2, curveLevel }));
        expect(unusualHostWarning({ hostSpeedProbeMs: 2, hostSpeedHistory: levels })).toBe(
            'its curves ran 1.38× slower than the median of 4 earlier calibrations of this adapter here: the host ran slower than usual. ' +
            'Predictions scale this calibration\'s times to the host\'s usual speed, but a busy host moves some kernels more than others. ' +
            'Re-run tenancy calibrate when the machine is quieter.');
    });
    it('says nothing within 1.3× either way, nor without three earlier calibrations', () => {
        expect(unusualHostWarning({ hostSpeedProbeMs: 2.4, hostSpeedHistory: history })).toBeUndefined();
        expect(unusualHostWarning({ hostSpeedProbeMs: 1.5, hostSpeedHistory: history })).toBeUndefined();
        expect(unusualHostWarning({ hostSpeedProbeMs: 2.92, hostSpeedHistory: history.slice(0, 2) })).toBeUndefined();
    });
});

describe('calibrate: the summary\'s co-run line', () => {
    it('the kernels\' turn, the co-run bands\' model error and ops\' co-run noise, each where the profile has it', () => {
        expect(corunSummary({ corunQuantumMs: 0.5, corunModelError: { excessP90: 0.074, points: 30 }, corunOpNoise: { p90: 0.11, points: 33 } })).toBe(
            "kernels take turns of 0.5 ms; co-run bands +7.4% for the model's error (30 figures); ops' co-run times move ±11% between rounds (33 op medians; their bands add it)");
        expect(corunSummary({})).toBe('kernels take whole turns');
    });
});

describe('calibrate: the summary\'s tails line', () => {
    const tail = (p99: number) => ({ p90: p99 / 4, p95: p99 / 2, p99 });
    it('this calibration\'s tails, and how many earlier ones kept theirs while predictions cannot take their median yet', () => {
        const profile = { serviceTailMs: tail(0.8), corunTailMs: tail(10.61), hostSpeedHistory: [{ createdAt: '2026-12-01T00:00:00.000Z', probeMs: 2, corunTailMs: tail(4) }, { createdAt: '2026-12-02T00:00:00.000Z', probeMs: 2 }] };
        expect(tailsSummary(profile, profile)).toBe('at p99, 0.80 ms alone, 10.61 ms beside a co-runner (1 earlier calibration here kept theirs; from 3, predictions take the median)');
        expect(tailsSummary({}, {})).toBe('at p99, none alone, none beside a co-runner (0 earlier calibrations here kept theirs; from 3, predictions take the median)');
    });
    it('what predictions take once they can: the median, at the usual speed, and how far the calibrations behind it disagree', () => {
        expect(tailsSummary({ serviceTailMs: tail(2.41), corunTailMs: tail(10.69) }, { corunTailMs: tail(9.9), usualTails: { calibrations: 4 } })).toBe(
            'at p99, 2.41 ms alone, 10.69 ms beside a co-runner; predictions take the median of 4 calibrations here: 9.90 ms beside a co-runner at the usual speed');
        const history = [4, 16.3, 17.51].map((p99, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs: 2, corunTailMs: tail(p99) }));
        expect(tailsSummary({ serviceTailMs: tail(2.41), corunTailMs: tail(10.69), hostSpeedHistory: history }, { corunTailMs: tail(9.9), usualTails: { calibrations: 4 } })).toBe(
            'at p99, 2.41 ms alone, 10.69 ms beside a co-runner; predictions take the median of 4 calibrations here (theirs 4.00–17.51 ms as each measured): 9.90 ms beside a co-runner at the usual speed');
    });
});
