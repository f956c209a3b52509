import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseInputs, fitLine, prepareCase, robustStats, startAggressor, timeLaunches, wallTimeOfSubmit } from '../../../src/runtime/calibrate/measure.js';
import { calibrationCases, embeddingCase, matmulCase, reluCase } from '../../../src/runtime/calibrate/synthetic.js';
import { kernelsFor } from '../../../src/runtime/kernels/index.js';
import { DEFAULT_CAPS } from '../../../src/runtime/kernels/index.js';
import { familyOf } from '../../../src/runtime/plan/launch.js';
import { openKernelDevice, probeAdapter, type KernelTestDevice } from '../gpu.js';

describe('calibration statistics (pure)', () => {
    it('fits a line exactly and reports a robust CV', () => {
        const fit = fitLine([1, 4, 16, 48], [1.5, 3, 9, 25]);
        expect(fit.slope).toBeCloseTo(0.5, 12);
        expect(fit.intercept).toBeCloseTo(1, 12);
        expect(robustStats([10, 10, 10, 10]).cv).toBe(0);
        // One wild outlier barely moves the robust CV.
        expect(robustStats([10, 10.1, 9.9, 10, 10.2, 9.8, 500]).cv).toBeLessThan(0.05);
    });
    it('an embedding gathers rows from across its table, as a run does; other ops read floats', () => {
        const [ids] = caseInputs(embeddingCase(200, 3000, 8));
        expect(ids).toBeInstanceOf(Int32Array);
        expect(ids.length).toBe(200);
        expect(Math.min(...ids)).toBeGreaterThanOrEqual(0);
        expect(Math.max(...ids)).toBeLessThan(3000);
        // Uniform over 3,000 rows: about 190 distinct of 200 draws, and not just the first and last row.
        expect(new Set(ids).size).toBeGreaterThan(150);
        const [x] = caseInputs(reluCase(64));
        expect(x).toBeInstanceOf(Float32Array);
        expect(x.every(v => v >= -0.5 && v < 0.5)).toBe(true);
    });
    it('every synthetic case is served by the kernel generators, and the ladders cover every family', () => {
        const families = new Set<string>();
        for (const ladder of calibrationCases(false)) {
            for (const c of ladder.cases) {
                // With a fixed subgroup size, as lavapipe reports: the subgroup variants are served too.
                const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps: { ...DEFAULT_CAPS, subgroupSize: 8 } });
                expect(k.launches.length, c.shape).toBeGreaterThan(0);
                for (const l of k.launches) families.add(familyOf(l.name));
            }
            if (!ladder.family.includes(' ')) expect([...families], ladder.family).toContain(ladder.family);
        }
        for (const f of ['gemm.vec4', 'gemm.sgrow', 'gemm.sg', 'gemm.sgsplitk', 'gemm.kdot', 'gemm.wgmem', 'gemm.capped', 'gemm.splitk', 'attention.bmm', 'conv2d', 'conv2d.direct', 'depthwise_conv2d', 'depthwise_conv2d.direct',
            'elementwise', 'elementwise.reduce', 'reduction', 'reduction.layer_norm', 'reduction.pool', 'reduction.pool.direct', 'reduction.attention', 'pool', 'copy', 'copy.im2col',
            'copy.winograd_input', 'copy.winograd_output']) {
            expect([...families]).toContain(f);
        }
    });
});

const hasAdapter = await probeAdapter();

describe.skipIf(!hasAdapter)('calibration measurements on the GPU', () => {
    let a: KernelTestDevice;
    let b: KernelTestDevice;
    beforeAll(async () => {
        a = await openKernelDevice();
        b = await openKernelDevice();
    });
    afterAll(() => {
        a?.close();
        b?.close();
    });

    it('times each launch with timestamps and larger work takes longer', async () => {
        const small = await prepareCase(a.device, a.pipelines, matmulCase(32, 32, 32), a.caps);
        const large = await prepareCase(a.device, a.pipelines, matmulCase(192, 192, 192), a.caps);
        try {
            const ts = await timeLaunches(a.device, small, 5);
            const tl = await timeLaunches(a.device, large, 5);
            expect(ts).toHaveLength(1);
            expect(ts[0]).toHaveLength(5);
            for (const t of [...ts[0], ...tl[0]]) expect(t).toBeGreaterThan(0);
            expect(robustStats(tl[0]).median).toBeGreaterThan(robustStats(ts[0]).median);
        } finally {
            small.destroy();
            large.destroy();
        }
    });

    it('measures submit wall time growing with the number of passes', async () => {
        const trivial = await prepareCase(a.device, a.pipelines, reluCase(4), a.caps);
        try {
            await wallTimeOfSubmit(a.device, trivial, 256);
            const one: number[] = [], many: number[] = [];
            // Interleaved, and compared by the minimum: other processes on the machine only ever add time.
            for (let i = 0; i < 7; i++) {
                one.push(await wallTimeOfSubmit(a.device, trivial, 1));
                many.push(await wallTimeOfSubmit(a.device, trivial, 256));
            }
            expect(Math.min(...many)).toBeGreaterThan(Math.min(...one));
        } finally {
            trivial.destroy();
        }
    });

    it('an aggressor on a second device keeps completing work while the victim is timed, and stops cleanly', async () => {
        const victim = await prepareCase(a.device, a.pipelines, matmulCase(160, 160, 160), a.caps);
        const aggressor = await prepareCase(b.device, b.pipelines, matmulCase(160, 160, 160), b.caps);
        try {
            await timeLaunches(a.device, victim, 2);
            const solo: number[] = [], co: number[] = [];
            let completed = 0;
            // Alternating rounds, as calibration measures: drifting load from other processes hits both alike.
            for (let round = 0; round < 3; round++) {
                solo.push(...(await timeLaunches(a.device, victim, 3))[0]);
                const agg = startAggressor(b.device, aggressor);
                try {
                    await timeLaunches(a.device, victim, 1);
                    co.push(...(await timeLaunches(a.device, victim, 3))[0]);
                } finally {
                    await agg.stop();
                }
                completed += agg.completed();
            }
            expect(completed).toBeGreaterThan(0);
            // Not "never faster": on lavapipe a busy second device can even speed a small victim up (its
            // worker threads stay awake), which calibration records as a slowdown below 1. Sane bounds only.
            const slowdown = robustStats(co).median / robustStats(solo).median;
            expect(slowdown).toBeGreaterThan(0.3);
            expect(slowdown).toBeLessThan(20);
        } finally {
            victim.destroy();
            aggressor.destroy();
        }
    });
});
