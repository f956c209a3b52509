/**
 * Per-launch and per-op latency from a device profile (roofline over measured curves):
 *
 *   every family: a waves model fitted to the family's measured points,
 *                t = floor + ⌈W / C⌉ · (a + b · x / W)
 *                W workgroups, x the work (FLOPs with partial tiles padded — plan.ts — for
 *                compute families, bytes for memory families), C the workgroups the device
 *                runs at once, a a fixed cost per workgroup and b the time per unit of work of
 *                one workgroup slot. C is chosen on a grid, (a, b) ≥ 0 by least squares on
 *                relative error. It captures low occupancy (W < C), tile padding (batch-1 dense
 *                on 32-row tiles) and many tiny workgroups (depthwise convolution of a 6×6 map
 *                with 960 channels). A family measured at one size scales its time with x;
 *                without a fit, log-log interpolation over x (curveMs).
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

/** A fitted waves model of a family. */
export interface WavesFit {
    /** Workgroups in flight at once. */
    concurrency: number;
    /** Fixed time per workgroup wave, ms. */
    perWave: number;
    /** Time per unit of work (FLOP or byte) per workgroup, ms. */
    perWork: number;
    /** Root-mean-square error of log time over the family's points (0.1 ≈ 10%). */
    rmsLogError: number;
}

const fits = new WeakMap<FamilyProfile, WavesFit>();
const CONCURRENCY_GRID = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096];

/** The work measure of a point or launch in a family's basis. */
function workOf(basis: FamilyProfile['basis'], p: { flops: number; bytes: number; effectiveFlops?: number }): number {
    return basis === 'flops' ? (p.effectiveFlops ?? p.flops) : p.bytes;
}

/** Non-negative weighted least squares of y ≈ a·u + b·v (weights w), by the 2×2 normal equations with clamping. */
function nnls2(u: number[], v: number[], y: number[], w: number[]): [number, number] {
    let suu = 0, svv = 0, suv = 0, suy = 0, svy = 0;
    for (let i = 0; i < y.length; i++) {
        const ww = w[i] * w[i];
        suu += ww * u[i] * u[i]; svv += ww * v[i] * v[i]; suv += ww * u[i] * v[i]; suy += ww * u[i] * y[i]; svy += ww * v[i] * y[i];
    }
    const det = suu * svv - suv * suv;
    if (det > 1e-300 * Math.max(1, suu * svv)) {
        const a = (suy * svv - svy * suv) / det, b = (svy * suu - suy * suv) / det;
        if (a >= 0 && b >= 0) return [a, b];
    }
    // One coefficient at zero: the better of the two one-term fits.
    const aOnly = suu > 0 ? Math.max(0, suy / suu) : 0, bOnly = svv > 0 ? Math.max(0, svy / svv) : 0;
    let ea = 0, eb = 0;
    for (let i = 0; i < y.length; i++) {
        ea += (w[i] * (y[i] - aOnly * u[i])) ** 2;
        eb += (w[i] * (y[i] - bOnly * v[i])) ** 2;
    }
    return ea < eb ? [aOnly, 0] : [0, bOnly];
}

/** Fits the waves model to a family's points (memoised per family object); undefined with fewer than two points. */
export function fitWaves(family: FamilyProfile, floorMs: number): WavesFit | undefined {
    if (fits.has(family)) return fits.get(family);
    const pts = family.points.filter(p => workOf(family.basis, p) > 0);
    if (pts.length < 2) return undefined;
    let best: WavesFit | undefined;
    for (const c of CONCURRENCY_GRID) {
        const waves = pts.map(p => Math.ceil(Math.max(1, p.workgroups) / c));
        const u = waves;
        const v = pts.map((p, i) => waves[i] * workOf(family.basis, p) / Math.max(1, p.workgroups));
        const y = pts.map(p => Math.max(p.ms - floorMs, p.ms * 0.05));
        const [a, b] = nnls2(u, v, y, y.map(t => 1 / t));
        if (!(a > 0 || b > 0)) continue;
        let sq = 0;
        pts.forEach((p, i) => { sq += Math.log((floorMs + a * u[i] + b * v[i]) / p.ms) ** 2; });
        const rms = Math.sqrt(sq / pts.length);
        // Prefer the smaller concurrency on ties (within 1%): fewer slots is the simpler explanation.
        if (!best || rms < best.rmsLogError * 0.99) best = { concurrency: c, perWave: a, perWork: b, rmsLogError: rms };
    }
    fits.set(family, best as WavesFit);
    return best;
}

/** Time of a launch on a fitted family (floor included). */
function wavesMs(fit: WavesFit, work: number, workgroups: number, floorMs: number): number {
    const w = Math.max(1, workgroups);
    const waves = Math.ceil(w / fit.concurrency);
    return floorMs + waves * (fit.perWave + fit.perWork * work / w);
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
    const fit = fitWaves(fam, profile.kernelFloorMs);
    const work = workOf(fam.basis, launch);
    const modelMs = fit ? wavesMs(fit, work, launch.workgroups, profile.kernelFloorMs) : curveMs(fam, work, profile.kernelFloorMs);
    if (fam.basis === 'bytes') {
        return { ms: Math.max(modelMs, memoryMs), bound: 'memory', demand: 'memory' };
    }
    const computeMs = modelMs;
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
