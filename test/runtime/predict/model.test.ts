import { describe, expect, it } from 'vitest';
import {
    curveMs, defaultProfile, interferenceCoefficient, launchTiming, pairCoefficient, parseProfile,
    predictWorkload, profileKey, type DeviceProfile, type FamilyProfile,
} from '../../../src/runtime/predict/index.js';
import { autoCandidates, bestSchedule, compareSchedules } from '../../../src/runtime/predict/schedules.js';
import { bandRange } from '../../../src/runtime/predict/band.js';
import { familyOf } from '../../../src/runtime/plan/launch.js';
import { mlpTenant, workload } from './fixtures.js';

const fam: FamilyProfile = {
    basis: 'flops',
    points: [
        { flops: 1e6, bytes: 1e4, workgroups: 4, ms: 1, shape: 'a' },
        { flops: 1e8, bytes: 1e6, workgroups: 64, ms: 20, shape: 'b' },
    ],
};

describe('curve interpolation', () => {
    it('is exact at the measured points and monotone between', () => {
        expect(curveMs(fam, 1e6, 0)).toBeCloseTo(1, 12);
        expect(curveMs(fam, 1e8, 0)).toBeCloseTo(20, 12);
        let prev = 0;
        for (let x = 1e5; x <= 1e10; x *= 3) {
            const t = curveMs(fam, x, 0.01);
            expect(t).toBeGreaterThanOrEqual(prev);
            prev = t;
        }
    });
    it('holds the last rate beyond the largest point and the floor below', () => {
        expect(curveMs(fam, 1e9, 0)).toBeCloseTo(200, 9);
        expect(curveMs(fam, 1, 0.5)).toBeGreaterThanOrEqual(0.5);
        // Below the first point the slope is the first segment's (log 20 / log 100 ≈ 0.65), clamped to ≤ 1.
        expect(curveMs(fam, 1e4, 0)).toBeCloseTo(Math.pow(1e-2, Math.log(20) / Math.log(100)), 9);
    });
});

describe('kernel families', () => {
    it('classifies kernel names', () => {
        expect(familyOf('dense.vec4_4x8')).toBe('gemm.vec4');
        expect(familyOf('matmul.wgmem_16x16')).toBe('gemm.wgmem');
        expect(familyOf('conv2d.im2col_kdot_8')).toBe('gemm.kdot');
        expect(familyOf('conv2d.pointwise_kdot_8')).toBe('gemm.kdot');
        expect(familyOf('dense.capped_4')).toBe('gemm.capped');
        expect(familyOf('dense.splitk_4')).toBe('gemm.splitk');
        expect(familyOf('dense.splitk_4.partial')).toBe('gemm.splitk');
        expect(familyOf('dense.splitk_4.reduce')).toBe('elementwise.reduce');
        expect(familyOf('attention.qkv.vec4_4x8')).toBe('gemm.vec4');
        expect(familyOf('attention.scores')).toBe('attention.bmm');
        expect(familyOf('attention.softmax')).toBe('reduction.attention');
        expect(familyOf('lstm.step.0')).toBe('gemm.vec4');
        expect(familyOf('matmul.sgrow_8x4')).toBe('gemm.sgrow');
        expect(familyOf('conv2d.winograd_sgrow_8x4.input')).toBe('copy.winograd_input');
        expect(familyOf('conv2d.winograd_sgrow_8x4.output')).toBe('copy.winograd_output');
        expect(familyOf('conv2d.winograd_sgrow_8x4')).toBe('gemm.sgrow');
        expect(familyOf('conv2d.im2col_sgrow_8x4.im2col')).toBe('copy.im2col');
        expect(familyOf('embedding.copy')).toBe('copy.gather');
        expect(familyOf('global_avg_pool.workgroup_reduce')).toBe('reduction.pool');
        expect(familyOf('global_avg_pool.direct')).toBe('reduction.pool.direct');
        expect(familyOf('matmul.sg_8x4')).toBe('gemm.sg');
        expect(familyOf('conv2d.im2col_sg_8x4')).toBe('gemm.sg');
        expect(familyOf('dense.sgsplitk_4.partial')).toBe('gemm.sgsplitk');
        expect(familyOf('conv2d.pointwise_sg_8x4')).toBe('gemm.sg');
        expect(familyOf('layer_norm.workgroup_reduce')).toBe('reduction.layer_norm');
        expect(familyOf('conv2d.gemm_4x4')).toBe('conv2d');
        expect(familyOf('conv2d.direct')).toBe('conv2d.direct');
        expect(familyOf('depthwise_conv2d.pix4')).toBe('depthwise_conv2d');
        expect(familyOf('depthwise_conv2d.direct')).toBe('depthwise_conv2d.direct');
        expect(familyOf('conv2d.pointwise_vec4_4x8')).toBe('gemm.vec4');
        expect(familyOf('relu.map4')).toBe('elementwise');
        expect(familyOf('softmax.workgroup_reduce')).toBe('reduction');
        expect(familyOf('max_pool2d.direct')).toBe('pool');
        expect(familyOf('transpose.copy')).toBe('copy');
    });
});

describe('roofline', () => {
    it('binds a skinny GEMM by memory bandwidth', () => {
        const p = defaultProfile();
        // batch-1 dense 4096×4096: 2·16M FLOPs over 64 MiB of weights.
        const t = launchTiming(p, { name: 'dense.vec4_4x8', family: 'gemm.vec4', flops: 2 * 4096 * 4096, bytes: 4 * 4096 * 4096, workgroups: 512, effectiveFlops: 2 * 4096 * 4096 });
        expect(t.bound).toBe('memory');
        expect(t.ms).toBeCloseTo((4 * 4096 * 4096) / p.bandwidthBytesPerMs, 9);
        const square = launchTiming(p, { name: 'matmul.vec4_4x8', family: 'gemm.vec4', flops: 2 * 512 ** 3, bytes: 12 * 512 ** 2, workgroups: 128, effectiveFlops: 2 * 512 ** 3 });
        expect(square.bound).toBe('compute');
    });
});


function pureCompute(): DeviceProfile {
    const p = defaultProfile();
    p.interference.pairs = [{ victim: 'compute', aggressor: 'compute', slowdown: 1.8, victimKernel: 'x', aggressorKernel: 'y' }];
    return p;
}

describe('contention', () => {
    it('uses measured pairs and the nearest kind for missing ones', () => {
        const p = pureCompute();
        expect(interferenceCoefficient(p, 'compute', 'compute')).toBeCloseTo(0.8, 12);
        expect(interferenceCoefficient(p, 'memory', 'capped')).toBeCloseTo(0.8, 12);
        expect(pairCoefficient(p, { compute: 1, memory: 0, capped: 0 }, { compute: 0.5, memory: 0.5, capped: 0 })).toBeCloseTo(0.8, 12);
    });
    it('takes turns on the device: always-busy tenants alternate kernel by kernel, whatever the pair coefficients', () => {
        const p = pureCompute();
        p.families = { 'gemm.vec4': p.families['gemm.vec4'] };
        p.serviceCv = 0;
        const closed = { kind: 'closed' as const, clients: 1, thinkMs: 0 };
        // Each kernel waits for one kernel of every other tenant: two take up to twice their time, three up to three times
        // (less: a tenant's host time between requests, large beside this small MLP's kernels, holds no share of the device).
        const two = predictWorkload(workload([mlpTenant('a', closed), mlpTenant('b', closed)]), p);
        const three = predictWorkload(workload([mlpTenant('a', closed), mlpTenant('b', closed), mlpTenant('c', closed)]), p);
        for (const t of two.tenants) {
            expect(t.slowdown).toBeGreaterThan(1.5);
            expect(t.slowdown).toBeLessThanOrEqual(2);
        }
        for (const t of three.tenants) {
            expect(t.slowdown).toBeGreaterThan(two.tenants[0].slowdown + 0.3);
            expect(t.slowdown).toBeLessThanOrEqual(3);
        }
        // An open-loop aggressor slows the victim in proportion to how often it is in flight: none at a trickle.
        const s = [0.01, 5, 20, 80].map(rate => predictWorkload(workload([
            mlpTenant('victim', closed), mlpTenant('aggr', { kind: 'poisson', ratePerSecond: rate }),
        ]), p).tenants[0].slowdown);
        for (let i = 1; i < s.length; i++) expect(s[i]).toBeGreaterThan(s[i - 1]);
        expect(s[0]).toBeLessThan(1.01);
    });
});

describe('predictWorkload', () => {
    it('solo: service is GPU time plus dispatch and submit overheads; one closed client never queues', () => {
        const p = defaultProfile();
        const w = predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]), p);
        const t = w.tenants[0];
        expect(w.profile.uncalibrated).toBe(true);
        expect(t.gpuMs).toBeCloseTo(t.ops.reduce((s, o) => s + o.soloMs, 0), 12);
        expect(t.serviceMs).toBeCloseTo(t.gpuMs + t.launches * p.dispatchOverheadMs + p.submitOverheadMs, 12);
        expect(t.solo.mean).toBeCloseTo(t.serviceMs, 12);
        expect(t.corun).toEqual(t.solo);
        expect(t.slowdown).toBe(1);
        expect(t.meanRatio).toEqual({ estimate: 1, ...bandRange(1, t.band.relative) });
    });
    it('two always-busy tenants take turns: each about twice its solo time (the simulation: both always in flight)', () => {
        const p = pureCompute();
        p.families = { 'gemm.vec4': p.families['gemm.vec4'] }; // fc layers only: pure compute, no memory launches
        p.serviceCv = 0;
        const closed = { kind: 'closed' as const, clients: 1, thinkMs: 0 };
        const big = { batch: 64, input: 512, hidden: 512, out: 512 };
        const w = predictWorkload(workload([mlpTenant('a', closed, [], big), mlpTenant('b', closed, [], big)]), p);
        expect(w.corunSchedule).toBe('concurrent');
        expect(w.corunPending).toBe(false);
        for (const t of w.tenants) {
            expect(t.mix.compute).toBeCloseTo(1, 9);
            // A closed loop without think time always has its next request in flight: each of its kernels waits for one of
            // the other's (its host time between requests, a few %, overlaps the other's kernels).
            expect(t.slowdown).toBeGreaterThan(1.9);
            expect(t.slowdown).toBeLessThanOrEqual(2);
            expect(t.corun.mean).toBeCloseTo(t.serviceMs * t.slowdown, 1);
            expect(Math.abs(t.corunUtilisation - 1)).toBeLessThan(0.02);
            // What a run measures as co-run / solo mean, with the co-run mean's band (the kernels' error in it: see workload.ts).
            expect(t.meanRatio.estimate).toBeCloseTo(t.corun.mean / t.solo.mean, 12);
            expect(t.meanRatio).toEqual({ estimate: t.meanRatio.estimate, ...bandRange(t.meanRatio.estimate, t.corunBand.mean) });
            expect(t.corunBand.mean).toBeGreaterThanOrEqual(t.band.relative);
        }
    });
    it('a faster aggressor slows the victim more (monotone in arrival rate)', () => {
        const p = defaultProfile();
        let prev = 0;
        for (const rate of [1, 5, 10, 20]) {
            // A victim always in flight: it is slowed for the share of its time the aggressor is in flight too.
            const w = predictWorkload(workload([
                mlpTenant('victim', { kind: 'closed', clients: 1, thinkMs: 0 }),
                mlpTenant('aggr', { kind: 'poisson', ratePerSecond: rate }),
            ]), p);
            expect(w.tenants[0].slowdown).toBeGreaterThan(prev);
            prev = w.tenants[0].slowdown;
        }
    });
    it('utilisation > 1 ⇒ overloaded with unbounded latency', () => {
        const p = defaultProfile();
        const solo = predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]), p).tenants[0].serviceMs;
        const rate = 1.5 * 1000 / solo;
        const w = predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: rate })]), p);
        expect(w.deviceUtilisation).toBeCloseTo(1.5, 9);
        // Its band: the open-loop tenant's own (one tenant: its share is all of it).
        expect(w.deviceUtilisationBand).toEqual(bandRange(w.deviceUtilisation, w.tenants[0].band.relative));
        expect(w.overloaded).toBe(true);
        expect(w.tenants[0].solo.p99).toBe(Infinity);
        const ok = predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: rate / 2 })]), p);
        expect(ok.overloaded).toBe(false);
        // Two open-loop tenants of unlike bands: the band weighted by each one's share of the utilisation.
        const calibrated = { ...p, uncalibrated: false, families: Object.fromEntries(Object.entries(p.families).map(([k, f]) => [k, { ...f, error: { looP90: 0.1, noiseP90: 0, points: 5, from: 'family' as const } }])) };
        const two = predictWorkload(workload([mlpTenant('a', { kind: 'poisson', ratePerSecond: rate / 4 }), mlpTenant('b', { kind: 'poisson', ratePerSecond: rate / 8 }, [], { batch: 4, input: 64, hidden: 64, out: 8 })]), calibrated);
        const [ta, tb] = two.tenants;
        const shares = [ta.soloUtilisation, tb.soloUtilisation];
        expect(two.deviceUtilisation).toBeCloseTo(shares[0] + shares[1], 12);
        const weighted = (shares[0] * ta.band.relative + shares[1] * tb.band.relative) / (shares[0] + shares[1]);
        expect(two.deviceUtilisationBand).toEqual({ low: expect.closeTo(two.deviceUtilisation / (1 + weighted), 12), high: expect.closeTo(two.deviceUtilisation / (1 - weighted), 12) });
        // Closed loops only: no open-loop demand, and no band to speak of.
        expect(predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]), p).deviceUtilisationBand).toEqual({ low: 0, high: 0 });
        expect(Number.isFinite(ok.tenants[0].solo.p99)).toBe(true);
    });
    it('SLO verdicts: infeasible below the solo service, at risk between solo and co-run', () => {
        const p = defaultProfile();
        const closed = { kind: 'closed' as const, clients: 1, thinkMs: 0 };
        const base = predictWorkload(workload([mlpTenant('a', closed), mlpTenant('b', closed)]), p).tenants[0];
        const between = (base.serviceMs * 1.1 + base.corun.mean) / 2;
        expect(base.corun.mean).toBeGreaterThan(base.serviceMs * 1.1);
        const w = predictWorkload(workload([
            mlpTenant('a', closed, [{ percentile: 'mean', ms: base.serviceMs / 2 }, { percentile: 'p99', ms: 1e6 }]),
            mlpTenant('b', closed, [{ percentile: 'mean', ms: between }]),
        ]), p);
        expect(w.tenants[0].slos.map(s => s.verdict)).toEqual(['infeasible', 'ok']);
        expect(w.tenants[1].slos[0].verdict).toBe('at-risk');
    });
    it('sequential policy: one FCFS server over the mix, near Pollaczek–Khinchine (M/D/1 here)', () => {
        const p = defaultProfile();
        p.serviceCv = 0;
        const w = predictWorkload(workload([
            mlpTenant('a', { kind: 'poisson', ratePerSecond: 50 }),
            mlpTenant('b', { kind: 'poisson', ratePerSecond: 50 }),
        ], { policy: 'sequential' }), p);
        const S = w.tenants[0].serviceMs; // identical tenants
        const lambda = 100 / 1000, rho = lambda * S;
        expect(rho).toBeGreaterThan(0.05);
        // Sampled: the mean wait within a fifth of P–K's, the service never stretched (no two requests overlap).
        const wait = w.tenants[0].corun.mean - S, pk = (lambda * S * S) / (2 * (1 - rho));
        expect(Math.abs(wait - pk)).toBeLessThan(0.2 * pk);
        expect(w.tenants[0].slowdown).toBeCloseTo(1, 9);
        expect(w.tenants[0].corunUtilisation).toBeCloseTo((lambda / 2) * S, 3);
    });
    it('co-run figures are the schedule simulation\'s: the comparison\'s row for the workload\'s schedule', () => {
        const p = defaultProfile();
        for (const schedule of [{ policy: 'concurrent' as const }, { policy: 'sequential' as const }, { policy: 'layer_block' as const, size: 2 }, { policy: 'auto' as const }]) {
            const ir = workload([
                mlpTenant('a', { kind: 'poisson', ratePerSecond: 40 }, [{ percentile: 'p99', ms: 30 }]),
                mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 }, [], { batch: 64, input: 512, hidden: 512, out: 512 }),
            ], schedule);
            const w = predictWorkload(ir, p);
            // `auto`'s row is the best candidate's (what it runs).
            const row = schedule.policy === 'auto' ? bestSchedule(compareSchedules(ir, p, autoCandidates(p))).best : compareSchedules(ir, p, [schedule])[0];
            expect(w.corunSchedule).toBe(row.resolved.name);
            w.tenants.forEach((t, i) => {
                expect(t.corun.p99).toBe(row.tenants[i].p99Ms);
                expect(t.corun.p50).toBe(row.tenants[i].p50Ms);
                expect(t.corun.p95).toBe(row.tenants[i].p95Ms);
            });
        }
    });
    it('a pending simulation leaves the co-run figures at the solo ones and says so', () => {
        const p = defaultProfile();
        const w = predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }), mlpTenant('b', { kind: 'closed', clients: 1, thinkMs: 0 })]), p, { schedule: 'pending' });
        expect(w.corunPending).toBe(true);
        expect(w.corunSchedule).toBeNull();
        for (const t of w.tenants) expect(t.corun).toEqual(t.solo);
    });
});

describe('profile schema', () => {
    it('round-trips the default profile and keys adapters filesystem-safely', () => {
        const p = defaultProfile();
        expect(parseProfile(JSON.parse(JSON.stringify(p)))).toEqual(p);
        const key = profileKey({ vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 19.1.7, 256 bits)', description: 'Mesa 25.0.7' });
        expect(key).toMatch(/^[a-z0-9-]+$/);
        expect(key).not.toBe(profileKey({ vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 19.1.7, 256 bits)', description: 'Mesa 25.0.8' }));
    });
    it('rejects another schema version, naming expected and found', () => {
        const bad = { ...defaultProfile(), schemaVersion: 2 };
        expect(() => parseProfile(bad)).toThrow(/found schemaVersion 2, expected 1/);
        const missing = { ...defaultProfile(), bandwidthBytesPerMs: -1 };
        expect(() => parseProfile(missing)).toThrow(/bandwidthBytesPerMs/);
    });
});

describe('waves model', () => {
    it('recovers concurrency, per-wave cost and rate from synthetic points and charges tile padding', async () => {
        const { fitWaves } = await import('../../../src/runtime/predict/latency.js');
        // A device with 4 slots, 0.05 ms per wave and 1e6 FLOP/ms per slot, floor 0.01 ms.
        const ms = (f: number, w: number) => 0.01 + Math.ceil(w / 4) * (0.05 + (f / w) / 1e6);
        const fam: FamilyProfile = {
            basis: 'flops',
            points: [[1e6, 2], [8e6, 6], [3e7, 32], [2e8, 130], [4e6, 400]].map(([f, w]) => ({ flops: f, bytes: 1e4, workgroups: w, ms: ms(f, w), shape: `${f}` })),
        };
        const fit = fitWaves(fam, 0.01)!;
        expect(fit.concurrency).toBe(4);
        expect(fit.perWave).toBeCloseTo(0.05, 9);
        expect(1 / fit.perWork).toBeCloseTo(1e6, 0);
        expect(fit.rmsLogError).toBeLessThan(1e-9);
        const p = { ...defaultProfile(), kernelFloorMs: 0.01, bandwidthBytesPerMs: 1e12, families: { 'gemm.vec4': fam } };
        const useful = launchTiming(p, { name: 'dense.vec4_4x8', family: 'gemm.vec4', flops: 4e6, bytes: 1e3, workgroups: 4, effectiveFlops: 4e6 });
        const padded = launchTiming(p, { name: 'dense.vec4_4x8', family: 'gemm.vec4', flops: 4e6, bytes: 1e3, workgroups: 4, effectiveFlops: 1.6e7 });
        expect(useful.ms).toBeCloseTo(ms(4e6, 4), 9);
        expect(padded.ms).toBeCloseTo(ms(1.6e7, 4), 9);
        // Fewer workgroups than slots: no faster than one wave.
        expect(launchTiming(p, { name: 'x.vec4_4x8', family: 'gemm.vec4', flops: 4e6, bytes: 1e3, workgroups: 1, effectiveFlops: 4e6 }).ms).toBeCloseTo(ms(4e6, 1), 9);
        // A family measured at one size has no fit: time scales with the work.
        expect(fitWaves({ basis: 'bytes', points: [fam.points[0]] }, 0.01)).toBeUndefined();
    });
});
