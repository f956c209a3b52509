/**
 * How fast the host runs now against when the profile was calibrated. On a software adapter the
 * kernels compute on the host's cores, which other processes share, and a host whose load
 * changes moves the whole profile: one core kept busy slowed every figure of a calibration by a
 * common factor of 1.5, with 8.7 % left beyond it (BENCHMARKS.md, "Calibration repeatability").
 * So before predictions are set beside a measurement, the calibration's reference request
 * (calibrate.ts referenceRequest) is timed again; its median wall over the profile's
 * (serviceCvAtMs) is the factor the profile is scaled by (predict/profile.ts atHostSpeed).
 */
import { openGpu, type AdapterPreference } from '../gpu/adapter.js';
import type { DeviceProfile } from '../predict/profile.js';
import { openDevice, referenceRequest } from './calibrate.js';
import { prepareCase, robustStats, timeSequence, type PreparedCase } from './measure.js';

/** The host's speed now against the profile's: `factor` = nowMs / calibratedMs (> 1: slower now). */
export interface HostSpeed {
    factor: number;
    /** Median wall of the reference request now, ms. */
    nowMs: number;
    /** Its median wall when the profile was calibrated, ms. */
    calibratedMs: number;
}

/** Repetitions of the reference request (about 2 ms each on the software adapter): its median, not one stalled pass. */
const PROBE_REPS = 40;

/** Times the reference request on a device of its own; undefined for a profile without a reference time (uncalibrated or older). */
export async function measureHostSpeed(profile: DeviceProfile, options: { preference?: AdapterPreference; signal?: AbortSignal } = {}): Promise<HostSpeed | undefined> {
    const calibratedMs = profile.serviceCvAtMs;
    if (profile.uncalibrated || calibratedMs === undefined) return undefined;
    const { dev } = await openDevice(openGpu(), options.preference ?? 'auto', 'host-speed');
    const prepared: PreparedCase[] = [];
    try {
        for (const sc of referenceRequest()) prepared.push(await prepareCase(dev.device, dev.pipelines, sc, dev.caps));
        await timeSequence(dev.device, prepared, 3, options.signal);
        const nowMs = robustStats((await timeSequence(dev.device, prepared, PROBE_REPS, options.signal)).walls).median;
        return { factor: nowMs / calibratedMs, nowMs, calibratedMs };
    } finally {
        for (const p of prepared) p.destroy();
        dev.device.destroy();
    }
}
