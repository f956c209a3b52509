/**
 * How fast the host runs now against when the profile was calibrated. On a software adapter the
 * kernels compute on the host's cores, which other processes share, and a host whose load
 * changes moves the whole profile: one core kept busy slowed every figure of a calibration by a
 * common factor of 1.5, with 8.7 % left beyond it (BENCHMARKS.md, "Calibration repeatability").
 * So before predictions are set beside a measurement, the calibration's reference request is
 * timed again as calibration timed it (calibrate.ts timeReferenceRequest); its median wall over
 * the profile's (hostSpeedProbeMs) is the factor the profile is scaled by (predict/profile.ts
 * atHostSpeed).
 */
import type { AdapterPreference } from '../gpu/adapter.js';
import type { DeviceProfile } from '../predict/profile.js';
import { timeReferenceRequest } from './calibrate.js';

/** The host's speed now against the profile's: `factor` = nowMs / calibratedMs (> 1: slower now). */
export interface HostSpeed {
    factor: number;
    /** Median wall of the reference request now, ms. */
    nowMs: number;
    /** Its median wall when the profile was calibrated, ms. */
    calibratedMs: number;
}

/** Times the reference request as calibration timed it for the profile; undefined for a profile without that time (uncalibrated or older). */
export async function measureHostSpeed(profile: DeviceProfile, options: { preference?: AdapterPreference; signal?: AbortSignal } = {}): Promise<HostSpeed | undefined> {
    const calibratedMs = profile.hostSpeedProbeMs;
    if (profile.uncalibrated || calibratedMs === undefined) return undefined;
    const nowMs = await timeReferenceRequest(options.preference ?? 'auto', options.signal);
    return { factor: nowMs / calibratedMs, nowMs, calibratedMs };
}
