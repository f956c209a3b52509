/** Error bands: the leave-one-out evidence, the band of a family, its propagation to ops and tenants, and the SLO verdicts it decides. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BAND, Z90, bandRange, combineBands, familyBand, insideBand } from '../../../src/runtime/predict/band.js';
import { defaultProfile, parseProfile, type DeviceProfile, type FamilyProfile } from '../../../src/runtime/predict/profile.js';
import { predictWorkload, sloPrediction } from '../../../src/runtime/predict/workload.js';
import { familyErrorEvidence, leaveOneOutErrors } from '../../../src/runtime/calibrate/leave-one-out.js';
import type { LatencyFigures } from '../../../src/runtime/predict/queueing.js';
import { mlpTenant, workload } from './fixtures.js';

const point = (bytes: number, ms: number, workgroups = 1) => ({ flops: 0, bytes, workgroups, ms, shape: `${bytes} B` });

describe('leave-one-out error of a family', () => {
    it('two points: each predicted from the other alone (linear scaling of one point), by hand', () => {
        // Held out 1000 B: from (2000 B, 3 ms) alone, 3 · 1000/2000 = 1.5 ms → (1.5 − 1)/1 = +0.5.
        // Held out 2000 B: from (1000 B, 1 ms) alone, 1 · 2 = 2 ms → (2 − 3)/3 = −1/3.
        const fam: FamilyProfile = { basis: 'bytes', points: [point(1000, 1), point(2000, 3)] };
        const errors = leaveOneOutErrors('copy', fam, 0.001, 1e12);
        expect(errors[0]).toBeCloseTo(0.5, 12);
        expect(errors[1]).toBeCloseTo(-1 / 3, 12);
        // 90th percentile of |errors| = {1/3, 1/2}, interpolated: 1/3 + 0.9 · (1/2 − 1/3) = 0.48333…
        const evidence = familyErrorEvidence('copy', fam, 0.001, 1e12, 0.04);
        expect(evidence).toEqual({ looP90: expect.closeTo(1 / 3 + 0.9 / 6, 12), noiseCv: 0.04, points: 2 });
        // The family's band adds the noise's 90 % spread in quadrature.
        expect(familyBand({ ...fam, error: evidence }).relative).toBeCloseTo(Math.hypot(1 / 3 + 0.9 / 6, Z90 * 0.04), 12);
    });

    it('points on the model\'s own line are predicted without error when held out; the in-sample fit is no evidence', () => {
        // t = floor + 0.001 ms per byte, one workgroup each: any two points fix the line.
        const fam: FamilyProfile = { basis: 'bytes', points: [1000, 2000, 4000, 8000, 16000].map(b => point(b, 0.01 + b * 1e-3)) };
        for (const e of leaveOneOutErrors('copy', fam, 0.01, 1e12)) expect(Math.abs(e)).toBeLessThan(1e-6);
        // One point off the line by +50 %: held out, the others' line misses it by a third; the rest stay near.
        const bent: FamilyProfile = { basis: 'bytes', points: fam.points.map((p, i) => (i === 2 ? { ...p, ms: p.ms * 1.5 } : { ...p })) };
        const errors = leaveOneOutErrors('copy', bent, 0.01, 1e12);
        expect(errors[2]).toBeLessThan(-0.2);
        expect(familyErrorEvidence('copy', bent, 0.01, 1e12, 0)!.looP90).toBeGreaterThan(0.1);
    });

    it('one point: no evidence (the family keeps the default band)', () => {
        const fam: FamilyProfile = { basis: 'bytes', points: [point(1000, 1)] };
        expect(leaveOneOutErrors('copy', fam, 0.001, 1e12)).toEqual([]);
        expect(familyErrorEvidence('copy', fam, 0.001, 1e12, 0.05)).toBeUndefined();
        expect(familyBand(fam)).toEqual({ relative: DEFAULT_BAND, calibrated: false });
    });
});

describe('bands', () => {
    it('combine: half-widths add within a family, root-sum-square across families', () => {
        const c = { calibrated: true };
        const b = combineBands([
            { family: 'f', ms: 1, band: { relative: 0.1, ...c } },
            { family: 'f', ms: 2, band: { relative: 0.2, ...c } },
            { family: 'g', ms: 3, band: { relative: 0.1, ...c } },
        ]);
        // f: 0.1·1 + 0.2·2 = 0.5 ms; g: 0.3 ms; √(0.25 + 0.09) / 6 ms.
        expect(b.relative).toBeCloseTo(Math.sqrt(0.34) / 6, 12);
        expect(b.calibrated).toBe(true);
        // A single family keeps its relative band however many launches; a default-band part marks the sum uncalibrated.
        expect(combineBands([{ family: 'f', ms: 1, band: { relative: 0.12, ...c } }, { family: 'f', ms: 5, band: { relative: 0.12, ...c } }]).relative).toBeCloseTo(0.12, 12);
        expect(combineBands([{ family: 'f', ms: 1, band: { relative: 0.12, ...c } }, { family: 'g', ms: 1, band: familyBand(undefined) }]).calibrated).toBe(false);
        expect(combineBands([])).toEqual({ relative: 0, calibrated: true });
    });

    it('range and inside: the measured values whose error (predicted − measured)/measured lies within ±h', () => {
        expect(bandRange(1, 0.25)).toEqual({ low: 0.8, high: 1 / 0.75 });
        expect(bandRange(1, 1.2).high).toBe(Infinity);
        expect(insideBand(1, 0.8, 0.25)).toBe(true);     // error +25 %
        expect(insideBand(1, 0.79, 0.25)).toBe(false);
        expect(insideBand(1, 1.33, 0.25)).toBe(true);    // error −24.8 %
        expect(insideBand(1, 1.34, 0.25)).toBe(false);
        expect(insideBand(1, 0, 0.25)).toBe(false);
    });
});

/** The default profile with band evidence on every family: loo 10 %, noise 3 %. */
function profileWithEvidence(): DeviceProfile {
    const p = defaultProfile();
    for (const f of Object.values(p.families)) f.error = { looP90: 0.1, noiseCv: 0.03, points: 3 };
    return { ...p, uncalibrated: false };
}

describe('bands of predictions', () => {
    const ir = workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);

    it('each op carries its launches\' band; a tenant the band of all its launches; p50/p99 ranges follow', () => {
        const profile = profileWithEvidence();
        // Make one family's evidence different, so ops of different families differ.
        profile.families.elementwise.error = { looP90: 0.3, noiseCv: 0, points: 4 };
        const w = predictWorkload(ir, profile);
        const h = Math.hypot(0.1, Z90 * 0.03);
        const t = w.tenants[0];
        for (const o of t.ops.filter(x => x.launches.length > 0)) {
            const expected = combineBands(o.launches.map(l => ({ family: l.family, ms: l.ms, band: familyBand(profile.families[l.family]) })));
            expect(o.band.relative).toBeCloseTo(expected.relative, 12);
            expect(o.band.calibrated).toBe(true);
        }
        const dense = t.ops.find(o => o.kind === 'dense')!;
        expect(dense.band.relative).toBeCloseTo(h, 9);
        const all = t.ops.flatMap(o => o.launches.map(l => ({ family: l.family, ms: l.ms, band: l.band })));
        expect(t.band.relative).toBeCloseTo(combineBands(all).relative, 9);
        expect(t.band.relative).toBeGreaterThan(0);
        expect(t.bandMs.solo.p99).toEqual(bandRange(t.solo.p99, t.band.relative));
        expect(t.bandMs.corun.p50).toEqual(bandRange(t.corun.p50, t.band.relative));
    });

    it('an older profile without evidence still loads; its predictions carry the default band, marked uncalibrated', () => {
        const old = JSON.parse(JSON.stringify(defaultProfile())) as DeviceProfile;
        const loaded = parseProfile({ ...old, uncalibrated: false });
        const w = predictWorkload(ir, loaded);
        expect(w.tenants[0].band).toEqual({ relative: expect.closeTo(DEFAULT_BAND, 12), calibrated: false });
        expect(w.tenants[0].ops[0].band).toEqual({ relative: expect.closeTo(DEFAULT_BAND, 12), calibrated: false });
        // And a profile with evidence round-trips through the schema.
        const withEvidence = parseProfile(JSON.parse(JSON.stringify(profileWithEvidence())));
        expect(withEvidence.families['gemm.vec4'].error).toEqual({ looP90: 0.1, noiseCv: 0.03, points: 3 });
        expect(() => parseProfile({ ...withEvidence, families: { x: { basis: 'bytes', points: [point(1, 1)], error: { looP90: -1, noiseCv: 0, points: 3 } } } }))
            .toThrow(/families\.x\.error\.looP90/);
    });
});

describe('SLO verdicts with the band', () => {
    // The mean SLO without a tail: the solo service figure is the service time itself.
    const figures = (ms: number): LatencyFigures => ({ mean: ms, p50: ms, p90: ms, p95: ms, p99: ms, p999: ms } as LatencyFigures);
    const verdict = (serviceMs: number, corunMs: number, targetMs: number, band: number) =>
        sloPrediction({ percentile: 'mean', ms: targetMs }, serviceMs, 0, undefined as never, figures(serviceMs), figures(corunMs), band).verdict;

    it('infeasible only when even the band\'s low end of the solo figure exceeds the target', () => {
        // h = 0.25: solo 10 ms spans 8–13.3 ms.
        expect(verdict(10, 10, 7.9, 0.25)).toBe('infeasible');
        expect(verdict(10, 10, 8.1, 0.25)).toBe('at-risk');   // point above, low end below: straddles
        expect(verdict(10, 10, 9.9, 0)).toBe('infeasible');   // no band: the point decides, as before
    });

    it('at risk when the co-run (or solo) band reaches above the target; ok when the whole band fits', () => {
        expect(verdict(5, 10, 12, 0.25)).toBe('at-risk');     // co-run 10 ms spans 8–13.3 ms: straddles 12
        expect(verdict(5, 10, 13.4, 0.25)).toBe('ok');
        expect(verdict(5, 10, 9, 0.25)).toBe('at-risk');      // co-run point above the target
        expect(verdict(5, 5, 6, 0.25)).toBe('at-risk');       // solo 5 ms spans 4–6.67 ms
        expect(verdict(5, 5, 6.7, 0.25)).toBe('ok');
    });
});
