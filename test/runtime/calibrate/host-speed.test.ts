/** The host's speed now against calibration (calibrate/host-speed.ts) and the profile at that speed (predict/profile.ts atHostSpeed). */
import { describe, expect, it } from 'vitest';
import { measureHostSpeed } from '../../../src/runtime/calibrate/host-speed.js';
import { atHostSpeed, defaultProfile, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { predictWorkload } from '../../../src/runtime/predict/workload.js';
import { mlpTenant, workload } from '../predict/fixtures.js';
import { probeAdapter } from '../gpu.js';

const hasAdapter = await probeAdapter();

/** The default profile dressed as a calibrated one, with host effects to scale. */
function calibrated(): DeviceProfile {
    return {
        ...defaultProfile(), uncalibrated: false, serviceCvAtMs: 2, hostSpeedProbeMs: 1.5, serviceTailMs: { p90: 0.1, p95: 0.3, p99: 2 }, corunTailMs: { p90: 0.2, p95: 0.5, p99: 3 },
        idlePenalty: { wallMs: 1, gpuMsPerPass: 0.05 },
    };
}

describe('the profile at the host speed', () => {
    it('scales every time by the factor: op times exactly, a closed loop back to back too; ratios kept', () => {
        const profile = calibrated();
        const slower = atHostSpeed(profile, 1.4);
        const ir = workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]);
        const [base, scaled] = [predictWorkload(ir, profile), predictWorkload(ir, slower)];
        base.tenants[0].ops.forEach((op, k) => expect(scaled.tenants[0].ops[k].soloP50Ms).toBeCloseTo(op.soloP50Ms * 1.4, 9));
        expect(scaled.tenants[0].solo.mean).toBeCloseTo(base.tenants[0].solo.mean * 1.4, 6);
        expect(slower.serviceTailMs!.p99).toBeCloseTo(2.8, 12);
        expect(slower.idlePenalty).toEqual({ wallMs: 1.4, gpuMsPerPass: 0.05 * 1.4 });
        expect(slower.bandwidthBytesPerMs).toBeCloseTo(profile.bandwidthBytesPerMs / 1.4, 6);
        expect(slower.interference).toEqual(profile.interference);
        expect(slower.serviceCv).toBe(profile.serviceCv);
        // The speed now is known: the drift between earlier calibrations' speeds no longer widens the bands.
        const history = [1, 1.2, 1.4].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        const drifting = { ...profile, hostSpeedProbeMs: 1.1, hostSpeedHistory: history };
        expect(predictWorkload(ir, drifting).profile.hostDrift).toBeDefined();
        expect(atHostSpeed(drifting, 1.4).hostSpeedHistory).toBeUndefined();
        expect(predictWorkload(ir, atHostSpeed(drifting, 1.4)).profile.hostDrift).toBeUndefined();
        // The profile itself is untouched, and a factor of 1 (or none that makes sense) is the profile.
        expect(profile.serviceTailMs!.p99).toBe(2);
        expect(atHostSpeed(profile, 1)).toBe(profile);
        expect(atHostSpeed(profile, Number.NaN)).toBe(profile);
    });
});

describe.skipIf(!hasAdapter)('measuring the host speed (software adapter)', () => {
    it("times the calibration's reference request again: its median over the profile's", async () => {
        const speed = await measureHostSpeed(calibrated());
        expect(speed).toBeDefined();
        expect(speed!.calibratedMs).toBe(1.5);
        expect(speed!.nowMs).toBeGreaterThan(0);
        expect(speed!.factor).toBeCloseTo(speed!.nowMs / 1.5, 12);
        // Nothing to compare with: an uncalibrated profile, or one calibrated before the probe existed.
        expect(await measureHostSpeed(defaultProfile())).toBeUndefined();
        expect(await measureHostSpeed({ ...calibrated(), hostSpeedProbeMs: undefined })).toBeUndefined();
    });
});
