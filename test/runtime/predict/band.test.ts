/** Error bands: the leave-one-out evidence, the band of a family, its propagation to ops and tenants, and the SLO verdicts it decides. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BAND, MIN_DRIFT_POINTS, UNUSUAL_HOST_MOMENT, bandRange, combineBands, familyBand, hostDrift, hostDriftPending, hostMoment, insideBand, usualHostSpeed, widenBand } from '../../../src/runtime/predict/band.js';
import { HOST_SPEED_HISTORY, atHostSpeed, atUsualSpeed, curveRatio, defaultProfile, parseProfile, usualTail, withHostSpeedHistory, type DeviceProfile, type FamilyProfile } from '../../../src/runtime/predict/profile.js';
import { predictWorkload, sloPrediction } from '../../../src/runtime/predict/workload.js';
import { declaredEvaluation } from '../../../src/runtime/predict/schedules.js';
import { MIN_LOO_POINTS, bandEvidence, corunExcess, leaveOneOutErrors, roundDeviations } from '../../../src/runtime/calibrate/band-evidence.js';
import { corunOpNoise } from '../../../src/runtime/calibrate/corun-evidence.js';
import type { CorunRounds } from '../../../src/runtime/calibrate/corun-probe.js';
import { quantileOf } from '../../../src/runtime/calibrate/estimators.js';
import { familyLaunchTiming } from '../../../src/runtime/predict/latency.js';
import { createRandom } from '../../../src/runtime/plan/random.js';
import type { LatencyFigures } from '../../../src/runtime/predict/queueing.js';
import { mlpTenant, workload } from './fixtures.js';

const point = (bytes: number, ms: number, workgroups = 1) => ({ flops: 0, bytes, workgroups, ms, shape: `${bytes} B` });
/** n points on the model's own line t = floor + 1 µs per byte (floor 0.01 ms, one workgroup each): any two fix it. */
const onLine = (n: number): FamilyProfile => ({ basis: 'bytes', points: Array.from({ length: n }, (_, i) => point(1000 * 2 ** i, 0.01 + 1000 * 2 ** i * 1e-3)) });

describe('leave-one-out error of a family', () => {
    it('two points: each predicted from the other alone (linear scaling of one point), by hand', () => {
        // Held out 1000 B: from (2000 B, 3 ms) alone, 3 · 1000/2000 = 1.5 ms → (1.5 − 1)/1 = +0.5.
        // Held out 2000 B: from (1000 B, 1 ms) alone, 1 · 2 = 2 ms → (2 − 3)/3 = −1/3.
        const fam: FamilyProfile = { basis: 'bytes', points: [point(1000, 1), point(2000, 3)] };
        const errors = leaveOneOutErrors('copy', fam, 0.001, 1e12);
        expect(errors[0]).toBeCloseTo(0.5, 12);
        expect(errors[1]).toBeCloseTo(-1 / 3, 12);
        expect(leaveOneOutErrors('copy', { basis: 'bytes', points: [point(1000, 1)] }, 0.001, 1e12)).toEqual([]);
    });

    it('points on the model\'s own line are predicted without error when held out; the in-sample fit is no evidence', () => {
        const errors = leaveOneOutErrors('copy', onLine(5), 0.01, 1e12);
        for (const e of errors) expect(Math.abs(e)).toBeLessThan(1e-6);
        // One point off the line by +50 %: held out, the others' line misses it by a third.
        const bent: FamilyProfile = { basis: 'bytes', points: onLine(5).points.map((p, i) => (i === 2 ? { ...p, ms: p.ms * 1.5 } : p)) };
        expect(leaveOneOutErrors('copy', bent, 0.01, 1e12)[2]).toBeLessThan(-0.2);
    });
});

describe('co-run model error (corunExcess)', () => {
    it('per point the excess √(max(0, e² − band²)) a measurement needed, and their 90th percentile', () => {
        // e = |12 − 10| / 10 = 0.2 inside a 0.3 band → 0; e = |15 − 10| / 10 = 0.5 with band 0.3 → 0.4; e = 1.0, band 0.6 → 0.8.
        const points = [{ predicted: 12, measured: 10, band: 0.3 }, { predicted: 15, measured: 10, band: 0.3 }, { predicted: 5, measured: 10, band: 0.3 }, { predicted: 20, measured: 10, band: 0.6 }];
        const needed = [0, 0.4, 0.4, 0.8];
        expect(corunExcess(points)).toEqual({ excessP90: expect.closeTo(quantileOf(needed, 0.9), 12), points: 4 });
        // With it, 90 % of the points fall inside √(band² + c²) (split-conformal on calibration's own figures).
        const many = Array.from({ length: 50 }, (_, i) => ({ predicted: 10, measured: 10 * (1 + (i - 25) / 30), band: 0.1 }));
        const c = corunExcess(many)!.excessP90;
        const inside = many.filter(p => insideBand(p.predicted, p.measured, Math.hypot(p.band, c))).length;
        expect(inside / many.length).toBeGreaterThanOrEqual(0.88);
        expect(inside).toBeLessThan(many.length);
        // Figures that cannot be scored are left out; none left: no evidence.
        expect(corunExcess([{ predicted: Infinity, measured: 10, band: 0.1 }, { predicted: 1, measured: 0, band: 0.1 }])).toBeUndefined();
    });
});

describe('band evidence', () => {
    it('a round\'s deviation: the pooled median\'s error against the round\'s, as a prediction\'s error, scaled by √(R/(R − 1)), by hand', () => {
        // Pooled median of the nine samples: 1; rounds 1, 1.2, 0.8; √(3/2) = 1.2247.
        const d = roundDeviations([[1, 1, 1], [1.2, 1.2, 1.2], [0.8, 0.8, 0.8]]);
        expect(d[0]).toBeCloseTo(0, 12);
        expect(d[1]).toBeCloseTo(((1 - 1.2) / 1.2) * Math.sqrt(1.5), 12);
        expect(d[2]).toBeCloseTo(((1 - 0.8) / 0.8) * Math.sqrt(1.5), 12);
        // A round stalled 60× (by the OS): a prediction's error against it is near −100 %, not +5,900 %.
        const stalled = roundDeviations([[1, 1, 1], [1, 1, 1], [60, 60, 60]]);
        expect(stalled[2]).toBeCloseTo(((1 - 60) / 60) * Math.sqrt(1.5), 12);
        // One round (or rounds without samples): no measurement to compare with.
        expect(roundDeviations([[1, 2, 3], []])).toEqual([]);
    });

    it('noise is the spread of the same measurement, model error the held-out points: neither leaks into the other', () => {
        const bent: FamilyProfile = { basis: 'bytes', points: onLine(6).points.map((p, i) => ({ ...p, ms: p.ms * (i % 2 ? 1.3 : 0.8) })) };
        // Off the model, measured without noise: model error only.
        const steady = bandEvidence({ copy: bent }, 0.01, 1e12, { copy: roundDeviations([[1, 1], [1, 1], [1, 1]]) });
        expect(steady.copy.noiseP90).toBe(0);
        expect(steady.copy.looP90).toBeCloseTo(quantileOf(leaveOneOutErrors('copy', bent, 0.01, 1e12).map(Math.abs), 0.9), 12);
        expect(steady.copy.looP90).toBeGreaterThan(0.2);
        // On the model, measured with noise: noise only, the 90th percentile of |deviation|.
        const deviations = [0.1, -0.05, 0.02, -0.2, 0.04, 0];
        const noisy = bandEvidence({ copy: onLine(6) }, 0.01, 1e12, { copy: deviations });
        expect(noisy.copy).toEqual({ looP90: expect.closeTo(0, 6), noiseP90: expect.closeTo(quantileOf(deviations.map(Math.abs), 0.9), 12), points: 6, from: 'family' });
        expect(familyBand({ error: noisy.copy }).relative).toBeCloseTo(Math.hypot(noisy.copy.looP90, noisy.copy.noiseP90), 12);
    });

    it('a family with fewer than 4 points takes its class\'s pooled leave-one-out errors, else every family\'s', () => {
        const bent = (n: number, f: number): FamilyProfile => ({ basis: 'bytes', points: onLine(n).points.map((p, i) => (i === 1 ? { ...p, ms: p.ms * f } : p)) });
        const families: Record<string, FamilyProfile> = {
            'copy': bent(5, 1.4),                                    // own: 5 points
            'copy.x': { basis: 'bytes', points: [point(1000, 1), point(2000, 3)] }, // 2 points, ±50 % own: takes copy's
            'elementwise': bent(4, 0.7),                             // own: 4 points, exactly the minimum
            'gemm.y': bent(3, 3),                                    // 3 points, no gemm family with 4: every family's
            'gemm.z': { basis: 'bytes', points: [point(1000, 1)] },  // 1 point: every family's too
        };
        expect(MIN_LOO_POINTS).toBe(4);
        const loo = (name: string) => leaveOneOutErrors(name, families[name], 0.01, 1e12).map(Math.abs);
        const e = bandEvidence(families, 0.01, 1e12, {});
        expect(e.copy).toMatchObject({ looP90: quantileOf(loo('copy'), 0.9), points: 5, from: 'family' });
        expect(e['copy.x']).toMatchObject({ looP90: quantileOf(loo('copy'), 0.9), points: 5, from: 'class' });
        expect(e.elementwise).toMatchObject({ looP90: quantileOf(loo('elementwise'), 0.9), points: 4, from: 'family' });
        const all = [...loo('copy'), ...loo('elementwise')];
        expect(e['gemm.y']).toMatchObject({ looP90: quantileOf(all, 0.9), points: 9, from: 'all' });
        expect(e['gemm.z']).toMatchObject({ looP90: quantileOf(all, 0.9), points: 9, from: 'all' });
        // Without rounds, no noise evidence: 0, said so by noiseP90.
        expect(e.copy.noiseP90).toBe(0);
        // A family without rounds of its own takes every family's deviations.
        expect(bandEvidence(families, 0.01, 1e12, { copy: [0.1, 0.3] })['gemm.z'].noiseP90).toBeCloseTo(quantileOf([0.1, 0.3], 0.9), 12);
        // No family with 4 points: no evidence anywhere (the default band).
        expect(bandEvidence({ 'gemm.y': families['gemm.y'] }, 0.01, 1e12, {})).toEqual({});
    });

    it('honest: on synthetic calibrations with known model error and noise, about 90 % of fresh measurements fall inside their 90 % band', () => {
        // Truth: t(b) = 0.01 ms + b µs. Each shape deviates from it by its own model error (8 %, normal,
        // what no curve can know), each measurement by the host's noise (5 % per round, normal).
        // Calibration: 12 sizes timed in 5 rounds of 8; then 100 fresh sizes, each measured once.
        const random = createRandom(20, 'bands');
        const truth = (b: number) => 0.01 + b * 1e-3;
        const round = (ms: number) => { const f = 1 + 0.05 * random.normal(); return Array.from({ length: 8 }, () => ms * f * (1 + 0.005 * random.normal())); };
        let inside = 0, total = 0;
        const widths: number[] = [];
        for (let trial = 0; trial < 20; trial++) {
            const sizes = Array.from({ length: 12 }, (_, i) => Math.round(1000 * 2 ** (i * 0.9)));
            const deviations: number[] = [];
            // The model error is the shape's: the same in every round of it.
            const fam: FamilyProfile = { basis: 'bytes', points: [] };
            for (const b of sizes) {
                const shapeMs = truth(b) * (1 + 0.08 * random.normal());
                const rounds = Array.from({ length: 5 }, () => round(shapeMs));
                deviations.push(...roundDeviations(rounds));
                fam.points.push(point(b, quantileOf(rounds.flat(), 0.5)));
            }
            const evidence = bandEvidence({ copy: fam }, 0.01, 1e12, { copy: deviations }).copy;
            const calibrated = { ...fam, error: evidence };
            const h = familyBand(calibrated).relative;
            widths.push(h);
            for (let k = 0; k < 100; k++) {
                const b = Math.round(1000 * 2 ** (random.next() * 9.9));
                const predicted = familyLaunchTiming(calibrated, { family: 'copy', flops: 0, bytes: b, workgroups: 1 }, 0.01, 1e12).ms;
                const measured = quantileOf(round(truth(b) * (1 + 0.08 * random.normal())), 0.5);
                total++;
                if (insideBand(predicted, measured, h)) inside++;
            }
        }
        // The true 90 % half-width of a fresh error is about 1.645 · √(0.08² · (1 + ½) + 0.05²) ≈ 18 %
        // (the shape's own error, its neighbours' through the local correction, the noise).
        expect(inside / total).toBeGreaterThanOrEqual(0.85);
        expect(inside / total).toBeLessThanOrEqual(0.95);
        expect(quantileOf(widths, 0.5)).toBeLessThan(0.3);
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

/** The default profile with band evidence on every family: loo 10 %, noise 5 %. */
function profileWithEvidence(): DeviceProfile {
    const p = defaultProfile();
    for (const f of Object.values(p.families)) f.error = { looP90: 0.1, noiseP90: 0.05, points: 5, from: 'family' };
    return { ...p, uncalibrated: false };
}

describe('an op\'s co-run noise (corunOpNoise)', () => {
    it('each op\'s median per round against its median over the rounds (roundDeviations), the 90th percentile of |deviation| over every op and round', () => {
        // Two tenants, three rounds; op x timed in every round, y in two, z in one (no deviation: one round says nothing).
        const round = (x: number[], y: number[] | undefined, z: number[] | undefined): CorunRounds[number] => {
            const first: Record<string, number[]> = { x }, second: Record<string, number[]> = {};
            if (y) first.y = y;
            if (z) second.z = z;
            return [{ latenciesMs: [1], opTimesMs: first }, { latenciesMs: [1], opTimesMs: second }];
        };
        const rounds: CorunRounds = [round([1, 1.1, 1.2], [2, 2], [5]), round([1.3, 1.4], [2.6], undefined), round([0.9], undefined, undefined)];
        const expected = [
            ...roundDeviations([[1, 1.1, 1.2], [1.3, 1.4], [0.9]]),
            ...roundDeviations([[2, 2], [2.6], []]),
        ].map(Math.abs);
        expect(expected).toHaveLength(5);
        expect(corunOpNoise(rounds)).toEqual({ p90: expect.closeTo(quantileOf(expected, 0.9), 12), points: 5 });
        // By hand for y: pooled median 2, round medians 2 and 2.6, scaled by √2: 0 and √2 · (2 − 2.6) / 2.6.
        expect(roundDeviations([[2, 2], [2.6], []]).map(Math.abs)).toEqual([0, expect.closeTo(Math.SQRT2 * 0.6 / 2.6, 12)]);
        // No op timed in two rounds: no evidence, and the profile keeps none.
        expect(corunOpNoise([round([1], undefined, [2])])).toBeUndefined();
    });
});

describe('bands of predictions', () => {
    const ir = workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);

    it('each op carries its launches\' band; a tenant the band of all its launches; p50/p99 ranges follow', () => {
        const profile = profileWithEvidence();
        // Make one family's evidence different, so ops of different families differ.
        profile.families.elementwise.error = { looP90: 0.3, noiseP90: 0, points: 4, from: 'family' };
        const w = predictWorkload(ir, profile);
        const h = Math.hypot(0.1, 0.05);
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
        // A co-run figure's band: the tenant's and the sampling spread between the simulated figure (n_sim requests) and a
        // measured one (n_run: a run of the benchmark's 5 s at 20/s, 100 requests), √(h² + (1 + n_sim/n_run)·s_sim²).
        const simulated = declaredEvaluation(ir, profile).tenants[0];
        expect(simulated.sampling.p50).toBeGreaterThan(0);
        expect(simulated.sampledRequests).toBeGreaterThan(50);
        const spread = Math.sqrt(1 + simulated.sampledRequests / 100);
        for (const p of ['mean', 'p50', 'p95', 'p99'] as const) expect(t.corunBand[p]).toBeCloseTo(Math.hypot(t.band.relative, spread * simulated.sampling[p]), 12);
        // A run of 10,000 requests: the measured figure barely scatters, the simulated one's spread is left (√(1 + n_sim/n_run) → 1).
        const long = predictWorkload({ ...ir, benchmark: { ...ir.benchmark, requests: 10_000 } }, profile).tenants[0];
        expect(long.corunBand.p99).toBeCloseTo(Math.hypot(long.band.relative, Math.sqrt(1 + simulated.sampledRequests / 10_000) * simulated.sampling.p99), 12);
        expect(long.corunBand.p99).toBeLessThan(t.corunBand.p99);
        expect(t.bandMs.corun.p50).toEqual(bandRange(t.corun.p50, t.corunBand.p50));
        expect(t.bandMs.corun.p99).toEqual(bandRange(t.corun.p99, t.corunBand.p99));
    });

    it('the co-run model error calibration measured widens co-run bands only: √(h² + s² + c²) where the tenant co-runs', () => {
        const profile = { ...profileWithEvidence(), corunModelError: { excessP90: 0.5, points: 30 } };
        const w = predictWorkload(ir, profile);
        const simulated = declaredEvaluation(ir, profile).tenants;
        for (const [i, t] of w.tenants.entries()) {
            const spread = Math.sqrt(1 + simulated[i].sampledRequests / Math.max(2, t.throughputPerSecond * 5));
            for (const p of ['mean', 'p50', 'p95', 'p99'] as const) expect(t.corunBand[p]).toBeCloseTo(Math.hypot(t.band.relative, spread * simulated[i].sampling[p], 0.5), 12);
            expect(t.bandMs.solo.p99).toEqual(bandRange(t.solo.p99, t.band.relative));
        }
        // Alone, a tenant's "co-run" figures are its solo ones: no co-run model, no such term.
        const alone = predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 })]), profile).tenants[0];
        expect(alone.corunBand.p99).toBeCloseTo(alone.band.relative, 12);
        // An SLO verdict reads the widened band: a target just above the co-run p99 is at risk.
        const target = w.tenants[0].corun.p99 * 1.2;
        const at = (c: number) => predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 }, [{ percentile: 'p99', ms: target }]), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]), { ...profileWithEvidence(), corunModelError: { excessP90: c, points: 30 } });
        expect(at(0.5).tenants[0].slos[0].verdict).toBe('at-risk');
        expect(at(0.5).tenants[0].slos[0].corunBandMs.high).toBeGreaterThan(at(0).tenants[0].slos[0].corunBandMs.high);
    });

    it('an op\'s co-run band: its band, its tenant\'s co-run mean band (the slowdown that scales it) and ops\' co-run noise, in quadrature, where the tenant co-runs', () => {
        const profile = { ...profileWithEvidence(), corunOpNoise: { p90: 0.3, points: 33 } };
        const w = predictWorkload(ir, profile);
        for (const t of w.tenants) {
            expect(t.opCorunTerm).toBeCloseTo(Math.hypot(t.corunBand.mean, 0.3), 12);
            for (const o of t.ops.filter(x => x.launches.length > 0)) {
                expect(o.corunBand).toEqual({ relative: expect.closeTo(Math.hypot(o.band.relative, t.corunBand.mean, 0.3), 12), calibrated: true });
                expect(o.corunMs).toBeCloseTo(o.soloMs * t.slowdown, 12);
            }
            // The tenant's own figures keep their bands: the op term is for ops' co-run times.
            const without = predictWorkload(ir, profileWithEvidence()).tenants.find(x => x.name === t.name)!;
            expect(t.corunBand).toEqual(without.corunBand);
            // Without the noise measured, the slowdown's band alone.
            expect(without.opCorunTerm).toBeCloseTo(without.corunBand.mean, 12);
        }
        expect(w.profile.corunOpNoise).toBe(0.3);
        // Alone, an op's co-run time is its solo time: its co-run band is its band.
        const alone = predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: 20 })]), profile).tenants[0];
        expect(alone.opCorunTerm).toBe(0);
        for (const o of alone.ops) expect(o.corunBand).toEqual(o.band);
    });

    it('the host\'s drift between calibrations widens every op\'s and tenant\'s band once, in quadrature, and co-run bands with them', () => {
        const base = { ...profileWithEvidence(), hostSpeedProbeMs: 2 };
        // Earlier calibrations' reference request at 2.5, 1.6, 2 and 2.2 ms: a figure predicted at 2 ms is off by −20 %, +25 %, 0, −9 %.
        const history = [2.5, 1.6, 2, 2.2].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        const drifting = { ...base, hostSpeedHistory: history };
        const d = hostDrift(drifting)!;
        expect(d.points).toBe(4);
        // |errors| sorted 0, 0.0909, 0.2, 0.25: the 90th percentile interpolates 0.2 and 0.25 at 0.7 of the way.
        expect(d.p90).toBeCloseTo(0.2 + 0.7 * 0.05, 12);
        const plain = predictWorkload(ir, base), wide = predictWorkload(ir, drifting);
        for (const [i, t] of wide.tenants.entries()) {
            const was = plain.tenants[i];
            expect(t.band.relative).toBeCloseTo(Math.hypot(was.band.relative, d.p90), 12);
            t.ops.forEach((o, k) => expect(o.band.relative).toBeCloseTo(Math.hypot(was.ops[k].band.relative, d.p90), 12));
            expect(t.corunBand.p99).toBeGreaterThan(was.corunBand.p99);
        }
        expect(wide.profile.hostDrift).toEqual(d);
        expect(plain.profile.hostDrift).toBeUndefined();
        // Too few earlier calibrations, or no reference request now: not known, nothing added.
        expect(MIN_DRIFT_POINTS).toBe(3);
        expect(hostDrift({ ...base, hostSpeedHistory: history.slice(0, 2) })).toBeUndefined();
        expect(hostDrift({ hostSpeedHistory: history })).toBeUndefined();
        // Not known yet: the prediction says how many earlier calibrations there are; known, or no reference request: nothing pending.
        expect(plain.profile.hostDriftPending).toEqual({ calibrations: 0 });
        expect(predictWorkload(ir, { ...base, hostSpeedHistory: history.slice(0, 2) }).profile.hostDriftPending).toEqual({ calibrations: 2 });
        expect(wide.profile.hostDriftPending).toBeUndefined();
        expect(hostDriftPending({ hostSpeedHistory: history.slice(0, 2) })).toBeUndefined();
        expect(predictWorkload(ir, { ...base, uncalibrated: true }).profile.hostDriftPending).toBeUndefined();
        expect(widenBand({ relative: 0.3, calibrated: true }, undefined)).toEqual({ relative: 0.3, calibrated: true });
        expect(widenBand({ relative: 0.3, calibrated: false }, 0.4)).toEqual({ relative: expect.closeTo(0.5, 12), calibrated: false });
    });

    it('says how fast the host ran during a calibration against the median of its earlier ones (calibrate warns past 1.3× either way)', () => {
        const history = [2.5, 1.6, 2, 2.2].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        // Median of 1.6, 2, 2.2, 2.5: 2.1 ms.
        const slow = hostMoment({ hostSpeedProbeMs: 3.15, hostSpeedHistory: history })!;
        expect(slow.medianMs).toBeCloseTo(2.1, 12);
        expect(slow.ratio).toBeCloseTo(1.5, 12);
        expect(slow.points).toBe(4);
        expect(slow.ratio).toBeGreaterThanOrEqual(UNUSUAL_HOST_MOMENT);
        const usual = hostMoment({ hostSpeedProbeMs: 2.3, hostSpeedHistory: history })!;
        expect(usual.ratio).toBeLessThan(UNUSUAL_HOST_MOMENT);
        expect(usual.ratio).toBeGreaterThan(1 / UNUSUAL_HOST_MOMENT);
        expect(hostMoment({ hostSpeedProbeMs: 1.5, hostSpeedHistory: history })!.ratio).toBeLessThanOrEqual(1 / UNUSUAL_HOST_MOMENT);
        expect(hostMoment({ hostSpeedProbeMs: 3.15, hostSpeedHistory: history.slice(0, 2) })).toBeUndefined();
        expect(hostMoment({ hostSpeedHistory: history })).toBeUndefined();
    });

    it('a profile to predict with has its times at the host\'s usual speed: the median of its calibrations\' reference requests', () => {
        const history = [2.5, 1.6, 2, 2.2].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        // Calibrated at a slow moment: 3 ms. The median of 1.6, 2, 2.2, 2.5 and 3: 2.2 ms, so every time × 2.2 / 3.
        const slow: DeviceProfile = { ...profileWithEvidence(), hostSpeedProbeMs: 3, hostSpeedHistory: history };
        const usual = usualHostSpeed(slow)!;
        expect(usual).toEqual({ factor: expect.closeTo(2.2 / 3, 12), calibrations: 5, by: 'reference request' });
        const scaled = atUsualSpeed(slow);
        expect(scaled.usualSpeed).toEqual({ factor: usual.factor, calibrations: 5, by: 'reference request' });
        expect(scaled.hostSpeedProbeMs).toBeCloseTo(2.2, 12);
        expect(scaled.kernelFloorMs).toBeCloseTo(slow.kernelFloorMs * usual.factor, 12);
        expect(scaled.bandwidthBytesPerMs).toBeCloseTo(slow.bandwidthBytesPerMs / usual.factor, 6);
        const family = Object.keys(slow.families)[0];
        expect(scaled.families[family].points[0].ms).toBeCloseTo(slow.families[family].points[0].ms * usual.factor, 12);
        // The history stays: the drift is then measured from the usual speed (|2.2 − then| / then: 0.12, 0.375, 0.1, 0).
        expect(scaled.hostSpeedHistory).toEqual(history);
        expect(hostDrift(scaled)!.p90).toBeCloseTo(0.12 + 0.7 * (0.375 - 0.12), 12);
        // Predictions on it: every op's GPU time scaled alike, and the prediction says by how much.
        const before = predictWorkload(ir, slow), after = predictWorkload(ir, scaled);
        expect(after.tenants[0].gpuMs).toBeCloseTo(before.tenants[0].gpuMs * usual.factor, 9);
        expect(after.profile.usualSpeed).toEqual(scaled.usualSpeed);
        expect(before.profile.usualSpeed).toBeUndefined();
        // Scaled once; unchanged while the drift is not known, and for the default profile.
        expect(atUsualSpeed(scaled)).toBe(scaled);
        const young = { ...slow, hostSpeedHistory: history.slice(0, 2) };
        expect(atUsualSpeed(young)).toBe(young);
        expect(usualHostSpeed(young)).toBeUndefined();
        const fallback = defaultProfile();
        expect(atUsualSpeed(fallback)).toBe(fallback);
        // Timed against a known speed (calibrate/host-speed.ts), the usual speed no longer applies.
        expect(atHostSpeed(scaled, 1.1).usualSpeed).toBeUndefined();
    });

    it('the host\'s usual speed by the calibrations\' curves: levels carried from one calibration to the next, preferred to the reference request', () => {
        const base = profileWithEvidence();
        /** A calibration whose every curve point took `level` times the base profile's, its reference request `probeMs`. */
        const calibration = (day: number, level: number, probeMs: number): DeviceProfile => ({
            ...base, key: 'k', createdAt: `2026-12-0${day}T00:00:00.000Z`, hostSpeedProbeMs: probeMs,
            families: Object.fromEntries(Object.entries(base.families).map(([name, f]) => [name, { ...f, points: f.points.map(q => ({ ...q, ms: q.ms * level })) }])),
        });
        const points = Object.values(base.families).reduce((n, f) => n + f.points.length, 0);
        expect(points).toBeGreaterThanOrEqual(20);
        expect(curveRatio(calibration(1, 1.5, 2), calibration(2, 1.2, 2))).toBeCloseTo(1.25, 12);
        // Curves at 1, 1.5, 1.2 and 1.1 of the base, then a slow one at 1.6 whose reference request (2 ms) looked as usual.
        let p = calibration(1, 1, 2);
        for (const [day, level, probe] of [[2, 1.5, 2.1], [3, 1.2, 1.9], [4, 1.1, 2.2], [5, 1.6, 2]] as const) p = withHostSpeedHistory(calibration(day, level, probe), p);
        // Each earlier calibration's level on this one's times: 1 / 1.6, 1.5 / 1.6, 1.2 / 1.6, 1.1 / 1.6.
        p.hostSpeedHistory!.forEach((h, i) => expect(h.curveLevel).toBeCloseTo([1, 1.5, 1.2, 1.1][i] / 1.6, 12));
        // The median of 1, 1.1, 1.2, 1.5 and 1.6 is 1.2: this calibration's times × 1.2 / 1.6, told by the curves (the reference requests' median would say × 1).
        const usual = usualHostSpeed(p)!;
        expect(usual).toEqual({ factor: expect.closeTo(0.75, 12), calibrations: 5, by: 'curves' });
        expect(hostMoment(p)).toEqual({ ratio: expect.closeTo(1.6 / 1.15, 12), points: 4, by: 'curves' });
        const scaled = atUsualSpeed(p);
        expect(scaled.families['gemm.vec4'].points[0].ms).toBeCloseTo(base.families['gemm.vec4'].points[0].ms * 1.2, 12);
        // On the scaled profile the levels are against its times: the drift is measured from the usual speed,
        // |1.2 − then| / then over 1, 1.5, 1.2, 1.1: 0.2, 0.2, 0, 0.0909; p90 0.2.
        scaled.hostSpeedHistory!.forEach((h, i) => expect(h.curveLevel).toBeCloseTo([1, 1.5, 1.2, 1.1][i] / 1.2, 12));
        expect(hostDrift(scaled)!.p90).toBeCloseTo(0.2, 12);
        // Fewer than three earlier levels: the reference requests tell it.
        const young = { ...p, hostSpeedHistory: p.hostSpeedHistory!.map((h, i) => (i < 2 ? { createdAt: h.createdAt, probeMs: h.probeMs } : h)) };
        expect(usualHostSpeed(young)!.by).toBe('reference request');
    });

    it('a profile to predict with has the host\'s usual tails: per quantile the median of its calibrations\' tails, each at its speed', () => {
        const base = profileWithEvidence();
        /** A calibration whose curves took `level` times the base's, with a co-run tail of `p99` ms at p99 (half of it at p95, a quarter at p90). */
        const calibration = (day: number, level: number, p99: number): DeviceProfile => ({
            ...base, key: 'k', createdAt: `2026-12-0${day}T00:00:00.000Z`, hostSpeedProbeMs: 2 * level,
            families: Object.fromEntries(Object.entries(base.families).map(([name, f]) => [name, { ...f, points: f.points.map(q => ({ ...q, ms: q.ms * level })) }])),
            serviceTailMs: { p90: 0, p95: 0.1 * p99, p99: 0.2 * p99 }, corunTailMs: { p90: p99 / 4, p95: p99 / 2, p99 },
        });
        // Tails of 16, 20 (on curves twice as slow: 10 at the latest one's speed) and 8 ms, then the latest, 4 ms.
        let p = calibration(1, 1, 16);
        for (const [day, level, p99] of [[2, 2, 20], [3, 1, 8], [4, 1, 4]] as const) p = withHostSpeedHistory(calibration(day, level, p99), p);
        expect(p.hostSpeedHistory!.map(h => h.corunTailMs?.p99)).toEqual([16, 20, 8]);
        expect(parseProfile(JSON.parse(JSON.stringify(p))).hostSpeedHistory).toEqual(p.hostSpeedHistory);
        // The median of 4, 16, 10 and 8 ms at p99: 9; at p95 of 2, 8, 5 and 4: 4.5.
        const usual = usualTail(p, 'corunTailMs')!;
        expect(usual.calibrations).toBe(4);
        expect(usual.tail.p99).toBeCloseTo(9, 12);
        expect(usual.tail.p95).toBeCloseTo(4.5, 12);
        expect(usual.tail.p90).toBeCloseTo(2.25, 12);
        expect(usualTail(p, 'serviceTailMs')!.tail.p99).toBeCloseTo(1.8, 12);
        // Read for predictions: those tails, then at the host's usual speed like every time (the curves' median level, 1: unchanged).
        const read = atUsualSpeed(p);
        expect(read.usualTails).toEqual({ calibrations: 4 });
        expect(read.corunTailMs!.p99).toBeCloseTo(9 * (read.usualSpeed?.factor ?? 1), 12);
        expect(atUsualSpeed(read)).toBe(read);
        // The co-run figures take them: a co-running tenant's p99 moves with the tail, its solo figures with the solo tail.
        const two = workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        const own = predictWorkload(two, { ...p, hostSpeedHistory: undefined }), usualRead = predictWorkload(two, read);
        expect(usualRead.tenants[0].corun.p99).toBeGreaterThan(own.tenants[0].corun.p99);
        // Fewer than three earlier calibrations with a tail (older profiles' entries carry none): its own tails.
        const young = { ...p, hostSpeedHistory: p.hostSpeedHistory!.map((h, i) => (i === 0 ? { createdAt: h.createdAt, probeMs: h.probeMs, curveLevel: h.curveLevel } : h)) };
        expect(usualTail(young, 'corunTailMs')).toBeUndefined();
        expect(atUsualSpeed(young).corunTailMs!.p99).toBeCloseTo(4 * (atUsualSpeed(young).usualSpeed?.factor ?? 1), 12);
        expect(atUsualSpeed(young).usualTails).toBeUndefined();
    });

    it('a new calibration carries the host\'s speed of the one it replaces into its history, the last 20 of this adapter', () => {
        const at = (createdAt: string, probeMs: number, key = 'k'): DeviceProfile => ({ ...profileWithEvidence(), key, createdAt, hostSpeedProbeMs: probeMs });
        const first = at('2026-12-01T00:00:00.000Z', 2);
        const second = withHostSpeedHistory(at('2026-12-02T00:00:00.000Z', 2.4), first);
        // The same curves: the first calibration's level on the second's times is 1.
        expect(second.hostSpeedHistory).toEqual([{ createdAt: '2026-12-01T00:00:00.000Z', probeMs: 2, curveLevel: expect.closeTo(1, 12) }]);
        const third = withHostSpeedHistory(at('2026-12-03T00:00:00.000Z', 1.8), second);
        expect(third.hostSpeedHistory!.map(h => h.probeMs)).toEqual([2, 2.4]);
        expect(parseProfile(JSON.parse(JSON.stringify(third))).hostSpeedHistory).toEqual(third.hostSpeedHistory);
        // Another adapter, the uncalibrated default, or a profile without a reference request: nothing carried over.
        expect(withHostSpeedHistory(at('2026-12-03T00:00:00.000Z', 1.8, 'other'), second).hostSpeedHistory).toBeUndefined();
        expect(withHostSpeedHistory(at('2026-12-03T00:00:00.000Z', 1.8), { ...second, uncalibrated: true }).hostSpeedHistory).toBeUndefined();
        expect(withHostSpeedHistory(at('2026-12-03T00:00:00.000Z', 1.8), { ...second, hostSpeedProbeMs: undefined }).hostSpeedHistory).toBeUndefined();
        expect(withHostSpeedHistory(third, undefined)).toBe(third);
        // A previous profile with too few points in common: its level is not known, nor those it carried.
        const sparse = { ...second, families: { 'gemm.vec4': second.families['gemm.vec4'] } };
        expect(withHostSpeedHistory(at('2026-12-03T00:00:00.000Z', 1.8), sparse).hostSpeedHistory).toEqual([
            { createdAt: '2026-12-01T00:00:00.000Z', probeMs: 2 }, { createdAt: '2026-12-02T00:00:00.000Z', probeMs: 2.4 },
        ]);
        // Bounded: the oldest fall off.
        let p = first;
        for (let i = 0; i < HOST_SPEED_HISTORY + 5; i++) p = withHostSpeedHistory(at(`2026-12-05T00:00:${String(i).padStart(2, '0')}.000Z`, 2 + i / 100), p);
        expect(p.hostSpeedHistory).toHaveLength(HOST_SPEED_HISTORY);
        expect(p.hostSpeedHistory!.at(-1)!.probeMs).toBeCloseTo(2 + (HOST_SPEED_HISTORY + 3) / 100, 12);
    });

    it('an older profile without evidence still loads; its predictions carry the default band, marked uncalibrated', () => {
        const old = JSON.parse(JSON.stringify(defaultProfile())) as DeviceProfile;
        const loaded = parseProfile({ ...old, uncalibrated: false });
        const w = predictWorkload(ir, loaded);
        expect(w.tenants[0].band).toEqual({ relative: expect.closeTo(DEFAULT_BAND, 12), calibrated: false });
        expect(w.tenants[0].ops[0].band).toEqual({ relative: expect.closeTo(DEFAULT_BAND, 12), calibrated: false });
        // And a profile with evidence round-trips through the schema.
        const withEvidence = parseProfile(JSON.parse(JSON.stringify(profileWithEvidence())));
        expect(withEvidence.families['gemm.vec4'].error).toEqual({ looP90: 0.1, noiseP90: 0.05, points: 5, from: 'family' });
        expect(() => parseProfile({ ...withEvidence, families: { x: { basis: 'bytes', points: [point(1, 1)], error: { looP90: -1, noiseP90: 0, points: 3, from: 'family' } } } }))
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
