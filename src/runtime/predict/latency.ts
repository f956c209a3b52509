/**
 * Per-launch and per-op latency from a device profile (roofline over measured curves):
 *
 *   t_curve(x) = log-log interpolation of the family's measured (x_k, t_k), x = FLOPs (compute
 *                families) or bytes (memory families); beyond the largest point the last
 *                point's rate holds (t ∝ x); below the smallest, the first segment's slope,
 *                clamped to [0, 1] (time never falls faster than the work), floored at the
 *                profile's kernel floor.
 *   t_launch   = max(t_curve, bytes / bandwidth)          (the memory roof binds skinny GEMMs)
 *   t_op       = Σ t_launch over the op's launches         (composites are their kernels)
 *
 * A launch is memory-bound when bytes / bandwidth ≥ its compute time; memory families are
 * memory-bound by construction. Pure.
 */
import type { DemandKind, DeviceProfile, FamilyProfile } from './profile.js';
import type { PlannedLaunch, PlannedOp } from './plan.js';

/** Timing of one launch. */
export interface LaunchTiming {
    ms: number;
    /** What bounds it: compute (FLOPs curve), memory (bandwidth or a memory family). */
    bound: 'compute' | 'memory';
    /** Its contention kind (capped variants are their own kind). */
    demand: DemandKind;
}

/** The family's curve, or the nearest stand-in when the profile lacks it (older profile, new kernel). */
export function familyProfile(profile: DeviceProfile, family: string): FamilyProfile | undefined {
    const direct = profile.families[family];
    if (direct) return direct;
    const stem = family.split('.')[0];
    const sibling = Object.keys(profile.families).find(k => k.split('.')[0] === stem);
    if (sibling) return profile.families[sibling];
    return undefined;
}

/** Log-log interpolation of time over a family's curve at work x (in its basis). */
export function curveMs(family: FamilyProfile, x: number, floorMs: number): number {
    const pts = family.points;
    const xs = pts.map(p => (family.basis === 'flops' ? p.flops : p.bytes));
    const n = pts.length;
    if (x <= 0) return floorMs;
    if (n === 1) return Math.max(floorMs, pts[0].ms * (x / xs[0]));
    if (x >= xs[n - 1]) return Math.max(floorMs, pts[n - 1].ms * (x / xs[n - 1]));
    if (x <= xs[0]) {
        const slope = Math.min(1, Math.max(0, Math.log(pts[1].ms / pts[0].ms) / Math.log(xs[1] / xs[0])));
        return Math.max(floorMs, pts[0].ms * Math.pow(x / xs[0], slope));
    }
    let i = 1;
    while (xs[i] < x) i++;
    const f = Math.log(x / xs[i - 1]) / Math.log(xs[i] / xs[i - 1]);
    return Math.max(floorMs, Math.exp(Math.log(pts[i - 1].ms) + f * Math.log(pts[i].ms / pts[i - 1].ms)));
}

/** Time of one launch on a profile. */
export function launchTiming(profile: DeviceProfile, launch: PlannedLaunch): LaunchTiming {
    const memoryMs = launch.bytes / profile.bandwidthBytesPerMs;
    const fam = familyProfile(profile, launch.family);
    const capped = /capped/.test(launch.family);
    if (!fam) {
        // No curve at all: the roofline's memory side plus the floor (stated as memory-bound).
        return { ms: Math.max(profile.kernelFloorMs, memoryMs), bound: 'memory', demand: capped ? 'capped' : 'memory' };
    }
    if (fam.basis === 'bytes') {
        return { ms: Math.max(curveMs(fam, launch.bytes, profile.kernelFloorMs), memoryMs), bound: 'memory', demand: 'memory' };
    }
    const computeMs = curveMs(fam, launch.flops, profile.kernelFloorMs);
    const bound = memoryMs > computeMs ? 'memory' : 'compute';
    return { ms: Math.max(computeMs, memoryMs), bound, demand: capped ? 'capped' : bound };
}

/** Timing of one planned op: launch times summed, the bound of the dominant launch. */
export interface OpTiming {
    ms: number;
    bound: 'compute' | 'memory';
    /** Time per contention kind (sums to ms). */
    demandMs: Record<DemandKind, number>;
    launches: LaunchTiming[];
}

/** Time of one planned op (GPU time of its launches, without dispatch overhead). */
export function opTiming(profile: DeviceProfile, op: PlannedOp): OpTiming {
    const launches = op.launches.map(l => launchTiming(profile, l));
    const demandMs: Record<DemandKind, number> = { compute: 0, memory: 0, capped: 0 };
    let computeMs = 0, memMs = 0;
    for (const t of launches) {
        demandMs[t.demand] += t.ms;
        if (t.bound === 'compute') computeMs += t.ms; else memMs += t.ms;
    }
    return { ms: computeMs + memMs, bound: computeMs >= memMs && computeMs > 0 ? 'compute' : 'memory', demandMs, launches };
}

/** Arithmetic intensity (FLOPs per byte) at which compute and memory time meet for a compute family: the ridge point. */
export function ridgeIntensity(profile: DeviceProfile, family = 'gemm.vec4'): number | undefined {
    const fam = familyProfile(profile, family);
    if (!fam || fam.basis !== 'flops') return undefined;
    const last = fam.points[fam.points.length - 1];
    const flopsPerMs = last.flops / last.ms;
    return flopsPerMs / profile.bandwidthBytesPerMs;
}
