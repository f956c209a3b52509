/**
 * Per-launch and per-op latency from a device profile (roofline over measured curves):
 *
 *   compute families (GEMM, convolution): a waves model fitted to the family's points,
 *                t = floor + (F_eff / W) · ⌈W / C⌉ / r
 *                W workgroups, F_eff the FLOPs with partial tiles padded (plan.ts), C the
 *                workgroups the device runs at once and r the rate of one — fitted per family
 *                (C on a grid, r the median ratio, least squared log error). It captures both
 *                low occupancy (W < C) and tile padding (batch-1 dense on 32-row tiles).
 *   memory families: log-log interpolation of the measured (bytes_k, t_k); beyond the largest
 *                point the last rate holds (t ∝ bytes); below the smallest, the first
 *                segment's slope clamped to [0, 1]; floored at the kernel floor.
 *   t_launch   = max(t_model, bytes / bandwidth)          (the memory roof binds skinny GEMMs)
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

/** A fitted waves model of a compute family. */
export interface WavesFit {
    /** Workgroups in flight at once. */
    concurrency: number;
    /** Effective FLOPs per ms of one workgroup slot. */
    slotRate: number;
    /** Root-mean-square error of log time over the family's points (0.1 ≈ 10%). */
    rmsLogError: number;
}

const fits = new WeakMap<FamilyProfile, WavesFit>();
const CONCURRENCY_GRID = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096];

function wavesWork(effectiveFlops: number, workgroups: number, concurrency: number): number {
    const w = Math.max(1, workgroups);
    return (effectiveFlops / w) * Math.ceil(w / concurrency);
}

/** Fits the waves model to a compute family's points (memoised per family object). */
export function fitWaves(family: FamilyProfile, floorMs: number): WavesFit {
    const hit = fits.get(family);
    if (hit) return hit;
    const pts = family.points.filter(p => p.flops > 0);
    let best: WavesFit = { concurrency: 1, slotRate: 1, rmsLogError: Infinity };
    for (const c of CONCURRENCY_GRID) {
        const ratios = pts.map(p => wavesWork(p.effectiveFlops ?? p.flops, p.workgroups, c) / Math.max(p.ms - floorMs, p.ms * 0.05)).sort((a, b) => a - b);
        const r = ratios[ratios.length >> 1];
        if (!(r > 0)) continue;
        let sq = 0;
        for (const p of pts) sq += Math.log((floorMs + wavesWork(p.effectiveFlops ?? p.flops, p.workgroups, c) / r) / p.ms) ** 2;
        const rms = Math.sqrt(sq / Math.max(1, pts.length));
        // Prefer the smaller concurrency on ties (within 1%): fewer slots is the simpler explanation.
        if (rms < best.rmsLogError * 0.99) best = { concurrency: c, slotRate: r, rmsLogError: rms };
    }
    fits.set(family, best);
    return best;
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
    const fit = fitWaves(fam, profile.kernelFloorMs);
    const computeMs = Number.isFinite(fit.rmsLogError)
        ? profile.kernelFloorMs + wavesWork(launch.effectiveFlops, launch.workgroups, fit.concurrency) / fit.slotRate
        : curveMs(fam, launch.flops, profile.kernelFloorMs);
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
