/** The parts of the model the accuracy work added: tile padding of GEMMs that write scratch, local residual correction, host mean factor and idle penalty, stand-in families for older profiles. Pure, synthetic profiles. */
import { describe, expect, it } from 'vitest';
import { convCase, denseCase, matmulCase } from '../../../src/runtime/calibrate/synthetic.js';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import {
    defaultProfile, familyProfile, firstPassExtra, fitWaves, idleAdjustment, launchTiming, paddingOf, parseProfile, predictWorkload,
    requestServiceMs, residualFactor, serviceCvFor, type DeviceProfile, type FamilyProfile,
} from '../../../src/runtime/predict/index.js';
import type { IrArrival } from '../../../src/runtime/ir/types.js';
import { familyOf, launchEffectiveFlops, plannedLaunch, scalarLoadsOf, strideAlignmentOf } from '../../../src/runtime/plan/launch.js';
import { mlpTenant, workload } from './fixtures.js';
import { simulationInput } from '../../../src/runtime/predict/schedules.js';

const lavapipeCaps = { ...DEFAULT_CAPS, subgroupSize: 8 };

describe('tile padding of GEMM launches', () => {
    it('pads a split-K partial by its own GEMM outputs (deep conv on a 2×2 map: 4 columns on 32-column tiles)', () => {
        // (The default there is now kdot, whose lanes split K: named here.)
        const c = convCase(256, 2, 512, 3, 1, 'im2col_sgsplitk_4');
        const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps: lavapipeCaps });
        const partial = k.launches.find(l => l.name.endsWith('.partial'));
        expect(partial, k.launches.map(l => l.name).join(', ')).toBeDefined();
        // 512 filters × 4 pixels on 64×32 tiles: every tile computes 32 columns for 4 useful ones.
        expect(launchEffectiveFlops(partial!, 512 * 4) / partial!.flops).toBeCloseTo(8, 9);
    });
    it('pads Winograd’s batched GEMM, which writes scratch and not the op output', () => {
        const c = convCase(8, 24, 16, 3);
        const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps: lavapipeCaps });
        const gemm = k.launches.find(l => familyOf(l.name) === 'gemm.sgrow')!;
        expect(gemm.name).toBe('conv2d.winograd_sgrow_8x4');
        // 16 filters on 16-row tiles (the workgroup shrinks for short M), 144 tiles on 32-column tiles: 160/144 padding.
        expect(launchEffectiveFlops(gemm, 16 * 24 * 24) / gemm.flops).toBeCloseTo(160 / 144, 9);
    });
    it('pads kdot by the outputs its accumulators compute: none on 4 columns, 12 for 9', () => {
        const c = convCase(256, 2, 512, 3);
        const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps: lavapipeCaps });
        const gemm = k.launches.at(-1)!;
        expect(gemm.name).toBe('conv2d.im2col_kdot_8');
        expect(familyOf(gemm.name)).toBe('gemm.kdot');
        expect(launchEffectiveFlops(gemm, 512 * 4)).toBe(gemm.flops);
        const p = convCase(320, 3, 1280, 1);
        const pw = kernelsFor({ op: p.op, inputShapes: p.inputShapes, outputShape: p.outputShape, epilogue: [], caps: lavapipeCaps }).launches[0];
        expect(pw.name).toBe('conv2d.pointwise_kdot_8');
        expect(launchEffectiveFlops(pw, 1280 * 9) / pw.flops).toBeCloseTo(12 / 9, 9);
    });
    it('leaves an exact-fit GEMM unpadded', () => {
        const c = denseCase(64, 256, 256);
        const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps: lavapipeCaps });
        expect(launchEffectiveFlops(k.launches[0], 64 * 256)).toBe(k.launches[0].flops);
    });
});

/** A family whose points follow t = 0.001·W + 1e-7·x, except one shape measured 2× slower. */
function bumpyFamily(): FamilyProfile {
    const pts = [[1e6, 4], [4e6, 8], [1.6e7, 16], [6.4e7, 32], [2.56e8, 64], [1e7, 200]].map(([x, w], i) => ({
        flops: x, bytes: 1e4, workgroups: w, ms: (0.001 * w + 1e-7 * x) * (i === 5 ? 2 : 1), shape: `p${i}`,
    }));
    return { basis: 'flops', points: pts };
}

describe('residual correction of the waves model', () => {
    it('follows a measured point near it and the fitted model far from every point', () => {
        const fam = bumpyFamily();
        const fit = fitWaves(fam, 0)!;
        // At the slow shape: most of its 2× comes back (shrunk toward the model by the prior weight).
        const at = residualFactor(fam, fit, 0, 1e7, 200);
        const raw = fam.points[5].ms / (Math.ceil(200 / fit.concurrency) * (fit.perWave + fit.perWork * 1e7 / 200));
        expect(at).toBeGreaterThan(1);
        expect(Math.log(at)).toBeGreaterThan(0.7 * Math.log(raw));
        expect(Math.log(at)).toBeLessThanOrEqual(Math.log(raw) + 1e-12);
        // Far from every point (100× the work, 100× the workgroups): no correction.
        expect(residualFactor(fam, fit, 0, 1e11, 20000)).toBeCloseTo(1, 6);
    });
    it('is applied by launchTiming', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.sgrow': bumpyFamily() } };
        const slow = launchTiming(p, { name: 'x.sgrow_8x4', family: 'gemm.sgrow', flops: 1e7, bytes: 1e4, workgroups: 200, effectiveFlops: 1e7 });
        const fit = fitWaves(p.families['gemm.sgrow'], 0)!;
        const model = Math.ceil(200 / fit.concurrency) * (fit.perWave + fit.perWork * 1e7 / 200);
        expect(slow.ms / model).toBeCloseTo(residualFactor(p.families['gemm.sgrow'], fit, 0, 1e7, 200), 9);
    });
});

/**
 * A GEMM family like lavapipe's vec4 one: unpadded shapes at 1e-7 ms per FLOP per workgroup slot, and batch-1 denses
 * (32× padded on 32-row tiles) at half that per padded FLOP, at the same work and workgroups as two of the full ones.
 */
function paddedFamily(): FamilyProfile {
    const full = [[1e6, 2], [4e6, 4], [1.6e7, 8], [6.4e7, 16], [2.56e8, 32]].map(([x, w], i) => ({ flops: x, effectiveFlops: x, bytes: 1e4, workgroups: w, ms: 1e-7 * x, shape: `full${i}` }));
    const oneRow = [[1.6e7, 8], [6.4e7, 16]].map(([x, w], i) => ({ flops: x / 32, effectiveFlops: x, bytes: 1e4, workgroups: w, ms: 0.5e-7 * x, shape: `row${i}` }));
    return { basis: 'flops', points: [...full, ...oneRow].sort((a, b) => a.flops - b.flops) };
}

describe('padding as a coordinate of the residual correction', () => {
    it('reads padded over useful FLOPs of compute launches, 1 for memory families and unpadded ones', () => {
        expect(paddingOf('flops', { flops: 1e6, effectiveFlops: 3.2e7 })).toBe(32);
        expect(paddingOf('flops', { flops: 1e6, effectiveFlops: 1e6 })).toBe(1);
        expect(paddingOf('flops', { flops: 1e6 })).toBe(1);
        expect(paddingOf('bytes', { flops: 1e6, effectiveFlops: 3.2e7 })).toBe(1);
    });
    it('corrects a batch-1 dense by the batch-1 points and a full tile by the full ones at the same work and workgroups', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.vec4': paddedFamily() } };
        const at = (x: number, w: number, padding: number) => launchTiming(p, { name: 'dense.vec4_4x8', family: 'gemm.vec4', flops: x / padding, bytes: 1e4, workgroups: w, effectiveFlops: x }).ms;
        // Between the two batch-1 points (in ln x and ln W): about half the full tiles' time there.
        const x = 3.2e7, w = 11;
        const ratio = at(x, w, 32) / at(x, w, 1);
        expect(ratio).toBeGreaterThan(0.5);
        expect(ratio).toBeLessThan(0.65);
        // Without the padding coordinate both would take the same correction (the points at (ln x, ln W) are shared).
        const fam = p.families['gemm.vec4'], fit = fitWaves(fam, 0)!;
        expect(residualFactor(fam, fit, 0, x, w)).toBeCloseTo(residualFactor(fam, fit, 0, x, w, { padding: 1 }), 12);
        expect(residualFactor(fam, fit, 0, x, w, { padding: 32 })).toBeLessThan(0.8 * residualFactor(fam, fit, 0, x, w, { padding: 1 }));
    });
});

describe('host factors', () => {
    const base = (): DeviceProfile => ({ ...defaultProfile(), dispatchOverheadMs: 0.01, submitOverheadMs: 0.2 });
    it('scales the typical request by the mean/median factor of wall time and op times by that of GPU time', () => {
        const p = { ...base(), hostMeanFactor: { gpu: 1.25, wall: 1.5 } };
        // gpuMs is Σ opTiming, already ×1.25: the typical request is 10 + 3·0.01 + 0.2.
        expect(requestServiceMs(p, 12.5, 3, 1)).toBeCloseTo((10 + 0.03 + 0.2) * 1.5, 12);
        expect(requestServiceMs(base(), 10, 3, 1)).toBeCloseTo(10.23, 12);
        const w = workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        const plain = predictWorkload(w, base()).tenants[0], hosted = predictWorkload(w, p).tenants[0];
        hosted.ops.forEach((o, i) => expect(o.soloMs / plain.ops[i].soloMs).toBeCloseTo(1.25, 9));
        expect(hosted.serviceMs / plain.serviceMs).toBeCloseTo(1.5, 9);
        // The median op time is the launches' typical time: the host's mean factor leaves it alone.
        hosted.ops.forEach((o, i) => {
            expect(o.soloP50Ms).toBeCloseTo(plain.ops[i].soloMs, 12);
            expect(o.soloP50Ms).toBeCloseTo(o.launches.reduce((s, l) => s + l.ms, 0) / 1.25, 9);
        });
    });
    it('charges the idle penalty to requests that find the device idle, by the chance they do', () => {
        const p = { ...base(), idlePenalty: { wallMs: 10, gpuMsPerPass: 0.5 } };
        expect(idleAdjustment(p, 10, { kind: 'closed', clients: 1, thinkMs: 0 }).serviceMs).toBe(10);
        expect(idleAdjustment(p, 10, { kind: 'closed', clients: 1, thinkMs: 50 }).serviceMs).toBeCloseTo(20, 12);
        // Several thinking clients: a returning one finds the device idle when none of the others is at it (each 10/60 of its cycle).
        expect(idleAdjustment(p, 10, { kind: 'closed', clients: 3, thinkMs: 50 }).idleProbability).toBeCloseTo((5 / 6) ** 2, 12);
        expect(idleAdjustment(p, 10, { kind: 'closed', clients: 3, thinkMs: 0 }).idleProbability).toBe(0);
        // Poisson at 1/s with S = 10 ms: S' = S + a(1 − λS') with a = 10 ⇒ S' = 20/1.01.
        const open = idleAdjustment(p, 10, { kind: 'poisson', ratePerSecond: 1 });
        expect(open.serviceMs).toBeCloseTo(20 / 1.01, 9);
        expect(open.idleProbability).toBeCloseTo(1 - open.serviceMs / 1000, 9);
        expect(open.extraPassMs).toBeCloseTo(0.5 * open.idleProbability, 12);
        // Each pass of the request adds its part to the request's extra time.
        const three = idleAdjustment(p, 10, { kind: 'poisson', ratePerSecond: 1 }, 3);
        expect(three.serviceMs).toBeCloseTo((10 + 11.5) / (1 + 11.5 / 1000), 9);
        // Busier streams find the device idle less often.
        expect(idleAdjustment(p, 10, { kind: 'poisson', ratePerSecond: 40 }).serviceMs).toBeLessThan(open.serviceMs);
        // Without the field (older profiles) nothing changes.
        expect(idleAdjustment(base(), 10, { kind: 'poisson', ratePerSecond: 1 }).serviceMs).toBe(10);
    });
    it('adds the per-pass penalty to each op of an open-loop tenant, solo and co-running (each tenant has its own device)', () => {
        const p = { ...base(), idlePenalty: { wallMs: 20, gpuMsPerPass: 0.3 } };
        const w = workload([mlpTenant('open', { kind: 'poisson', ratePerSecond: 2 }), mlpTenant('busy', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        const t = predictWorkload(w, p).tenants[0];
        const back = predictWorkload(workload([mlpTenant('open', { kind: 'closed', clients: 1, thinkMs: 0 })]), p).tenants[0];
        // Two passes (fc1 with its fused relu, fc2): the request pays the fixed part and each pass's part.
        const pIdle = idleAdjustment(p, back.serviceMs, { kind: 'poisson', ratePerSecond: 2 }, 2).idleProbability;
        expect(t.serviceMs - back.serviceMs).toBeCloseTo((20 + 2 * 0.3) * pIdle, 9);
        t.ops.forEach((o, i) => expect(o.soloMs - back.ops[i].soloMs).toBeCloseTo(0.3 * pIdle, 9));
        // Most of its requests find the device idle (pIdle > 0.5): the median request pays each pass's whole part.
        expect(pIdle).toBeGreaterThan(0.5);
        t.ops.forEach((o, i) => expect(o.soloP50Ms - back.ops[i].soloP50Ms).toBeCloseTo(0.3, 9));
        // A busy stream (most arrivals queue behind another request): the median request pays none of it.
        const busy = predictWorkload(workload([mlpTenant('open', { kind: 'poisson', ratePerSecond: 0.9 * 1000 / back.serviceMs })]), p).tenants[0];
        expect(idleAdjustment(p, back.serviceMs, { kind: 'poisson', ratePerSecond: 0.9 * 1000 / back.serviceMs }, 2).idleProbability).toBeLessThan(0.5);
        busy.ops.forEach((o, i) => expect(o.soloP50Ms).toBeCloseTo(back.ops[i].soloP50Ms, 12));
        // Co-run mean ≥ slowdown × the idle-adjusted service time (a co-runner does not keep this tenant's device awake).
        expect(t.corun.mean).toBeGreaterThanOrEqual(t.slowdown * t.serviceMs);
    });
});

describe('a request\'s first pass', () => {
    const base = (): DeviceProfile => ({ ...defaultProfile(), dispatchOverheadMs: 0.01, submitOverheadMs: 0.2 });
    const closed: IrArrival = { kind: 'closed', clients: 1, thinkMs: 0 };
    it('puts what being first costs on the first op with launches, back to back and from idle', () => {
        const p = { ...base(), idlePenalty: { wallMs: 2, gpuMsPerPass: 0 }, firstPassMs: { busy: 0.05, idle: 0.3 } };
        const plain = predictWorkload(workload([mlpTenant('t', closed)]), base()).tenants[0];
        const back = predictWorkload(workload([mlpTenant('t', closed)]), p).tenants[0];
        // Back to back: the first op (fc1 with its relu) takes `busy` more, mean and median; the others nothing.
        expect(back.ops[0].soloMs - plain.ops[0].soloMs).toBeCloseTo(0.05, 12);
        expect(back.ops[0].soloP50Ms - plain.ops[0].soloP50Ms).toBeCloseTo(0.05, 12);
        expect(back.ops[0].launches.reduce((s, l) => s + l.ms, 0)).toBeCloseTo(back.ops[0].soloMs, 9);
        back.ops.slice(1).forEach((o, i) => expect(o.soloMs).toBe(plain.ops[i + 1].soloMs));
        // It is the request's time too, once per submission.
        expect(back.serviceMs - plain.serviceMs).toBeCloseTo(0.05, 9);
        expect(requestServiceMs(p, 10, 3, 4) - requestServiceMs(base(), 10, 3, 4)).toBeCloseTo(4 * 0.05, 12);
        // Arriving at a low rate: most requests find the device idle, and the typical one pays the idle part on its first op.
        const open = predictWorkload(workload([mlpTenant('t', { kind: 'poisson', ratePerSecond: 1 })]), p).tenants[0];
        const pIdle = idleAdjustment(p, back.serviceMs, { kind: 'poisson', ratePerSecond: 1 }, 2).idleProbability;
        expect(pIdle).toBeGreaterThan(0.5);
        expect(open.ops[0].soloP50Ms - plain.ops[0].soloP50Ms).toBeCloseTo(0.3, 12);
        expect(open.ops[0].soloMs - plain.ops[0].soloMs).toBeCloseTo(0.05 + pIdle * 0.25, 9);
        // The idle part is wall time the idle penalty holds already: the request's time gains only the penalty.
        expect(open.serviceMs - back.serviceMs).toBeCloseTo(2 * pIdle, 9);
        // The schedule simulation pays it per submission too, as host time (a chunked request pays it per chunk).
        const w = workload([mlpTenant('t', closed)]);
        expect(simulationInput(w, p).tenants[0].submitMs).toBeCloseTo(0.2 + 0.05, 12);
        expect(simulationInput(w, base()).tenants[0].submitMs).toBe(0.2);
        expect(simulationInput(w, p).tenants[0].workScale).toBeCloseTo(simulationInput(w, base()).tenants[0].workScale!, 12);
    });
    it('averages the idle part by the chance of finding the device idle; nothing without the field', () => {
        const p = { ...base(), firstPassMs: { busy: 0.1, idle: 0.5 } };
        expect(firstPassExtra(p, 0.2)).toEqual({ meanMs: 0.1 + 0.2 * 0.4, p50Ms: 0.1 });
        expect(firstPassExtra(p, 0.8).p50Ms).toBeCloseTo(0.5, 12);
        // A busy first pass slower than an idle one (noise) adds no idle part.
        expect(firstPassExtra({ ...base(), firstPassMs: { busy: 0.2, idle: 0.1 } }, 1)).toEqual({ meanMs: 0.2, p50Ms: 0.2 });
        expect(firstPassExtra(base(), 1)).toEqual({ meanMs: 0, p50Ms: 0 });
        expect(() => parseProfile({ ...defaultProfile(), firstPassMs: { busy: -1, idle: 0 } })).toThrow(/firstPassMs\.busy/);
    });
});

describe('co-run tail', () => {
    it('puts the co-run tail on co-run percentiles only: on requests that start beside a co-runner in flight', () => {
        const p: DeviceProfile = { ...defaultProfile(), serviceCv: 0, serviceTailMs: { p90: 0, p95: 0, p99: 1 }, corunTailMs: { p90: 0, p95: 0, p99: 50 } };
        const pair = (b: IrArrival) => predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }), mlpTenant('b', b)]), p).tenants[0];
        const quiet = pair({ kind: 'poisson', ratePerSecond: 0.5 }), busy = pair({ kind: 'closed', clients: 1, thinkMs: 0 });
        // The solo tail at p99 (1 ms) beyond the mean, which holds the tail's own mean: 0.04·0.5 + 0.01·1.
        expect(quiet.solo.p99 - quiet.solo.mean).toBeCloseTo(1 - 0.03, 9);
        // Tenant a's co-run p99 beyond its co-run p50: the co-run tail when b is always in flight, about the solo one when b rarely is.
        expect(busy.corun.p99 - busy.corun.p50).toBeGreaterThan(20);
        expect(quiet.corun.p99 - quiet.corun.p50).toBeLessThan(10);
    });
});

describe('service CV by request length', () => {
    it('scales the measured CV as the square root of measured over predicted length, clamped', () => {
        const p: DeviceProfile = { ...defaultProfile(), serviceCv: 0.2, serviceCvAtMs: 5 };
        expect(serviceCvFor(p, 5)).toBeCloseTo(0.2, 12);
        expect(serviceCvFor(p, 20)).toBeCloseTo(0.1, 12);
        expect(serviceCvFor(p, 5000)).toBeCloseTo(0.05, 12); // clamped at a quarter
        expect(serviceCvFor(p, 0.01)).toBeCloseTo(0.8, 12); // clamped at 4×
        expect(serviceCvFor({ ...p, serviceCvAtMs: undefined }, 20)).toBe(0.2);
    });
    it('gives a long request a narrower p99 than a short one, relative to its mean', () => {
        const p: DeviceProfile = { ...defaultProfile(), serviceCv: 0.3, serviceCvAtMs: 5, serviceTailMs: undefined };
        const rel = (size: { batch: number; input: number; hidden: number; out: number }) => {
            const t = predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 }, [], size)]), p).tenants[0];
            return t.solo.p99 / t.solo.mean;
        };
        expect(rel({ batch: 256, input: 2048, hidden: 2048, out: 1024 })).toBeLessThan(rel({ batch: 8, input: 64, hidden: 64, out: 8 }));
    });
});

describe('profiles', () => {
    it('reads older profiles without the new fields and finds stand-ins for the new families', () => {
        const old = JSON.parse(JSON.stringify(defaultProfile())) as Record<string, unknown>;
        const p = parseProfile(old);
        expect(p.hostMeanFactor).toBeUndefined();
        expect(p.idlePenalty).toBeUndefined();
        expect(familyProfile(p, 'attention.bmm')).toBe(p.families['gemm.vec4']);
        expect(familyProfile(p, 'gemm.kdot')).toBe(p.families['gemm.vec4']);
        expect(familyProfile(p, 'copy.im2col')).toBe(p.families.copy);
        expect(familyProfile(p, 'reduction.layer_norm')).toBe(p.families.reduction);
        expect(familyProfile(p, 'elementwise.reduce')).toBe(p.families.elementwise);
    });
    it('rejects mean factors below 1 and negative penalties, naming the field', () => {
        expect(() => parseProfile({ ...defaultProfile(), hostMeanFactor: { gpu: 0.5, wall: 1 } })).toThrow(/hostMeanFactor\.gpu/);
        expect(() => parseProfile({ ...defaultProfile(), idlePenalty: { wallMs: -1, gpuMsPerPass: 0 } })).toThrow(/idlePenalty\.wallMs/);
    });
});

/** A GEMM family measured at B row strides aligned to 128 B (odd widths) and to 1 KB (power-of-two ones), the aligned 1.3× slower at the same work and workgroups. */
function alignedFamily(withAlignment = true): FamilyProfile {
    const points = [[4e6, 8], [1.6e7, 16], [6.4e7, 32], [2.56e8, 64]].flatMap(([x, w], i) => [128, 1024].map(a => ({
        flops: x, effectiveFlops: x, bytes: 1e4, workgroups: w, ms: (a === 1024 ? 1.3 : 1) * 1e-7 * x, shape: `p${i}@${a}`,
        ...(withAlignment ? { strideAlignment: a } : {}),
    })));
    return { basis: 'flops', points };
}

describe('the B row stride alignment of a GEMM', () => {
    it('is the largest power of two dividing the stride the kernel reports, at most 4 KB; none without one', () => {
        const align = (ldbBytes: number | undefined) => strideAlignmentOf({ variant: ldbBytes === undefined ? { variant: 'x' } : { variant: 'x', ldbBytes } });
        expect(align(4 * 768)).toBe(1024);
        expect(align(4 * 800)).toBe(128);
        expect(align(4 * 1000)).toBe(32);
        expect(align(4 * 4096)).toBe(4096);
        expect(align(4 * 75)).toBe(4);
        expect(align(undefined)).toBeUndefined();
    });
    it('is read off the dense kernel: a 768-wide dense aligned to 1 KB, an 800-wide one to 128 B', () => {
        const alignmentOf = (n: number) => {
            const c = denseCase(16, 1024, n);
            const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps: lavapipeCaps });
            return plannedLaunch(k.launches[0], 16 * n).strideAlignment;
        };
        expect(alignmentOf(768)).toBe(1024);
        expect(alignmentOf(800)).toBe(128);
    });
    it('is a coordinate of the residual correction: an aligned launch takes the aligned points’ correction', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.sgrow': alignedFamily() } };
        const at = (alignment: number) => launchTiming(p, { name: 'dense.sgrow_8x4', family: 'gemm.sgrow', flops: 3.2e7, bytes: 1e4, workgroups: 24, effectiveFlops: 3.2e7, strideAlignment: alignment }).ms;
        const ratio = at(1024) / at(128);
        expect(ratio).toBeGreaterThan(1.2);
        expect(ratio).toBeLessThan(1.35);
        // 64 B and below is a cache line: no set favoured, the same coordinate as unaligned.
        expect(at(64)).toBeCloseTo(at(16), 12);
    });
    it('is left out where the family’s points carry no alignment (a profile calibrated before it)', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.sgrow': alignedFamily(false) } };
        const at = (alignment: number | undefined) => launchTiming(p, { name: 'dense.sgrow_8x4', family: 'gemm.sgrow', flops: 3.2e7, bytes: 1e4, workgroups: 24, effectiveFlops: 3.2e7, ...(alignment ? { strideAlignment: alignment } : {}) }).ms;
        expect(at(1024)).toBeCloseTo(at(undefined), 12);
    });
});

/** A GEMM family measured at aligned rows (vec4 loads) and at rows of odd length (both operands loaded as single floats), the latter 2.5× slower at the same work and workgroups. */
function scalarLoadFamily(withLoads = true): FamilyProfile {
    const points = [[4e6, 8], [1.6e7, 16], [6.4e7, 32], [2.56e8, 64]].flatMap(([x, w], i) => [0, 2].map(n => ({
        flops: x, effectiveFlops: x, bytes: 1e4, workgroups: w, ms: (n === 2 ? 2.5 : 1) * 1e-7 * x, shape: `p${i}/${n}`,
        ...(withLoads ? { scalarLoads: n } : {}),
    })));
    return { basis: 'flops', points };
}

describe('the scalar loads of a GEMM', () => {
    const loadsOf = (c: ReturnType<typeof matmulCase>) => {
        const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps: lavapipeCaps });
        return plannedLaunch(k.launches[0], c.outputShape.reduce((a, b) => a * b, 1)).scalarLoads;
    };
    it('counts the operands whose rows are not a multiple of 4 floats, where the variant loads vec4s', () => {
        expect(loadsOf(matmulCase(160, 160, 160, 'sgrow_8x4'))).toBe(0);
        expect(loadsOf(matmulCase(226, 226, 226, 'sgrow_8x4'))).toBe(2);
        expect(loadsOf(matmulCase(64, 226, 64, 'vec4_4x8'))).toBe(1); // A's rows (K) only
        expect(loadsOf(matmulCase(64, 64, 226, 'vec4_4x8'))).toBe(1); // B's rows (N) only
        // sg_* loads A one float per lane whatever K is: only B counts.
        expect(loadsOf(matmulCase(64, 226, 64, 'sg_8x4'))).toBe(0);
        expect(loadsOf(denseCase(24, 700, 10))).toBe(1);
    });
    it('is read from the kernel’s report, none without one', () => {
        expect(scalarLoadsOf({ variant: { variant: 'x', scalarLoads: 1 } })).toBe(1);
        expect(scalarLoadsOf({ variant: { variant: 'x' } })).toBeUndefined();
    });
    it('is a coordinate of the residual correction: a launch of odd rows takes the odd points’ correction', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.sgrow': scalarLoadFamily() } };
        const at = (scalarLoads: number) => launchTiming(p, { name: 'matmul.sgrow_8x4', family: 'gemm.sgrow', flops: 3.2e7, bytes: 1e4, workgroups: 24, effectiveFlops: 3.2e7, scalarLoads }).ms;
        const ratio = at(2) / at(0);
        expect(ratio).toBeGreaterThan(2);
        expect(ratio).toBeLessThan(2.6);
    });
    it('is left out where the family’s points carry none (a profile calibrated before it)', () => {
        const p: DeviceProfile = { ...defaultProfile(), kernelFloorMs: 0, bandwidthBytesPerMs: 1e15, families: { 'gemm.sgrow': scalarLoadFamily(false) } };
        const at = (scalarLoads: number | undefined) => launchTiming(p, { name: 'matmul.sgrow_8x4', family: 'gemm.sgrow', flops: 3.2e7, bytes: 1e4, workgroups: 24, effectiveFlops: 3.2e7, ...(scalarLoads !== undefined ? { scalarLoads } : {}) }).ms;
        expect(at(2)).toBeCloseTo(at(undefined), 12);
    });
});
