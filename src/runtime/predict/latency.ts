/**
 * Per-launch and per-op latency from a device profile (roofline over measured curves):
 *
 *   every family: a waves model fitted to the family's measured points,
 *                t = floor + ⌈W / C⌉ · (a + b · x / W)
 *                W workgroups, x the work (FLOPs with partial tiles padded — plan.ts — for
 *                compute families, bytes for memory families), C the workgroups the device
 *                runs at once, a a fixed cost per workgroup and b the time per unit of work of
 *                one workgroup slot. C is chosen on a grid, (a, b) ≥ 0 by least squares on
 *                relative error. It captures low occupancy (W < C), tile padding (a batch-1
 *                dense on 4-row tiles) and many tiny workgroups (depthwise convolution of a 6×6 map
 *                with 960 channels). A family measured at one size scales its time with x;
 *                without a fit, log-log interpolation over x (curveMs). The fitted model is
 *                then corrected locally by the log residuals of the family's nearby points
 *                (residualFactor: Gaussian weights in (ln x, ln W, ln padding, B's stride
 *                alignment, scalar loads), shrunk toward the model; padding = padded over useful
 *                FLOPs, 1 for memory families).
 *   t_launch   = max(t_model, bytes / bandwidth)          (the memory roof binds skinny GEMMs)
 *   t_op       = Σ t_launch over the op's launches         (composites are their kernels)
 *
 * A launch is memory-bound when bytes / bandwidth ≥ its compute time; memory families are
 * memory-bound by construction. Pure.
 */
import type { IrArrival } from '../ir/types.js';
import type { DemandKind, DeviceProfile, FamilyProfile } from './profile.js';
import type { PlannedLaunch } from '../plan/launch.js';
import type { PlannedOp } from '../plan/plan.js';
import { combineBands, familyBand, type ErrorBand } from './band.js';

/** Timing of one launch. */
export interface LaunchTiming {
    ms: number;
    /** What bounds it: compute (FLOPs curve), memory (bandwidth or a memory family). */
    bound: 'compute' | 'memory';
    /** Its contention kind (capped variants are their own kind). */
    demand: DemandKind;
    /** Its family's 90 % error band (band.ts). */
    band: ErrorBand;
}

/**
 * Stand-ins for families older profiles lack: the family that timed those launches before, or for
 * kdot (whose launches split-K timed by padded FLOPs, 8× its own) the family nearest it in time per
 * FLOP (vec4_4x8 and kdot_8 7–8 GFLOP/s on lavapipe, BENCHMARKS.md "Deep layers on small maps").
 */
const STAND_IN: Record<string, string> = { 'attention.bmm': 'gemm.vec4', 'gemm.sgsplitk': 'gemm.splitk', 'conv2d.capped': 'gemm.capped', 'reduction.pool.direct': 'reduction.pool', 'gemm.kdot': 'gemm.vec4' };

/** The family's curve, or the nearest stand-in when the profile lacks it (older profile, new kernel). */
export function familyProfile(profile: DeviceProfile, family: string): FamilyProfile | undefined {
    const direct = profile.families[family] ?? (STAND_IN[family] ? profile.families[STAND_IN[family]] : undefined);
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

/**
 * Local correction of the waves model by the family's own measured points: one line per family
 * cannot follow every shape a kernel runs at (a skinny dense with a long K and a square matmul
 * of the same FLOPs differ by 2× on lavapipe), so the log residuals of the calibration points,
 * r_i = ln(measured_i / model_i), are averaged with Gaussian weights over the distance between
 * the launch and each point in (ln work, ln workgroups, ln padding) and shrunk toward 0 (the
 * model) by a prior weight: near a measured shape the prediction follows the measurement, far
 * from every one it is the fitted model.
 *
 * Padding (padded over useful FLOPs of a tiled GEMM: 4 for a batch-1 dense on 4-row tiles, 1
 * for a full tile and for memory families) is a coordinate because the padded rows do not cost
 * what useful ones do: on lavapipe a 1-row dense runs about twice the padded FLOP rate of a 2–8
 * row one of the same padded work and workgroups, so without it a batch-1 classifier head took
 * its correction from the few-row and square shapes beside it in (ln x, ln W). Chosen by
 * leave-one-out over calibration points alone (bench/accuracy/README.md, session of issue 20):
 * gemm.vec4's held-out error fell in each of five calibrations (24.2 → 24.0, 18.8 → 16.5,
 * 35.6 → 26.9, 27.2 → 22.1, 43.0 → 38.0 %), all families' together in each.
 *
 * A GEMM's B row stride alignment (plan/launch.ts strideAlignmentOf) is a coordinate as well,
 * ln(alignment / 64) above a cache line's 64 bytes, 0 at or below: a column walk with a stride
 * aligned to 1–4 KB touches few cache sets, and models' dims (768, 1024, 3072) are so aligned
 * where calibration's ladders had mostly odd ones. A family whose points carry no alignment (an
 * older profile) leaves it out.
 *
 * So is the number of a GEMM's operands loaded as single floats (plan/launch.ts scalarLoadsOf),
 * ln 4 each (a vec4 load becomes four): a matmul or projection whose K is not a multiple of 4
 * ran 1.6–3× slower per FLOP than its aligned neighbours in work, which the (ln x, ln W)
 * neighbourhood otherwise averaged into both. A family whose points carry none leaves it out.
 */
export const RESIDUAL_BANDWIDTH = 0.6;
export const RESIDUAL_PRIOR_WEIGHT = 0.2;

interface Residual { lw: number; lg: number; lp: number; la: number; ls: number; r: number }
/** A family's residuals, and whether its points carry a stride alignment and scalar loads (each coordinate counts only then). */
interface Residuals { points: Residual[]; aligned: boolean; loads: boolean }
const residuals = new WeakMap<FamilyProfile, Residuals>();

/** The alignment coordinate: ln(alignment / 64) above a cache line, 0 at or below it and without one. */
function alignmentCoordinate(alignment: number | undefined): number {
    return alignment !== undefined && alignment > 64 ? Math.log(alignment / 64) : 0;
}

/** The scalar-loads coordinate: ln 4 per operand loaded as single floats. */
function scalarLoadsCoordinate(scalarLoads: number | undefined): number {
    return (scalarLoads ?? 0) * Math.log(4);
}

function residualsOf(family: FamilyProfile, fit: WavesFit, floorMs: number): Residuals {
    let rs = residuals.get(family);
    if (!rs) {
        const aligned = family.points.some(p => p.strideAlignment !== undefined);
        const loads = family.points.some(p => p.scalarLoads !== undefined);
        rs = {
            aligned,
            loads,
            points: family.points.filter(p => workOf(family.basis, p) > 0).map(p => ({
                lw: Math.log(workOf(family.basis, p)),
                lg: Math.log(Math.max(1, p.workgroups)),
                lp: Math.log(paddingOf(family.basis, p)),
                la: aligned ? alignmentCoordinate(p.strideAlignment) : 0,
                ls: loads ? scalarLoadsCoordinate(p.scalarLoads) : 0,
                r: Math.log(p.ms / wavesMs(fit, workOf(family.basis, p), p.workgroups, floorMs)),
            })),
        };
        residuals.set(family, rs);
    }
    return rs;
}

/** Padded over useful FLOPs of a launch or point in a compute family (≥ 1); 1 in a memory family or without FLOPs. */
export function paddingOf(basis: FamilyProfile['basis'], p: { flops: number; effectiveFlops?: number }): number {
    return basis === 'flops' && p.flops > 0 && p.effectiveFlops !== undefined ? Math.max(1, p.effectiveFlops / p.flops) : 1;
}

/** Where a launch sits beyond its work and workgroups: its tile padding (default 1), B's stride alignment, its scalar loads. */
export interface LaunchShape { padding?: number; alignment?: number; scalarLoads?: number }

/** exp of the weighted mean log residual of a family's points near (work, workgroups, padding, stride alignment, scalar loads): the factor the waves model is corrected by there. */
export function residualFactor(family: FamilyProfile, fit: WavesFit, floorMs: number, work: number, workgroups: number, shape: LaunchShape = {}): number {
    if (!(work > 0)) return 1;
    const { points, aligned, loads } = residualsOf(family, fit, floorMs);
    const lw = Math.log(work), lg = Math.log(Math.max(1, workgroups)), lp = Math.log(Math.max(1, shape.padding ?? 1));
    const la = aligned ? alignmentCoordinate(shape.alignment) : 0, ls = loads ? scalarLoadsCoordinate(shape.scalarLoads) : 0;
    let sw = RESIDUAL_PRIOR_WEIGHT, sr = 0;
    for (const p of points) {
        const d2 = (p.lw - lw) ** 2 + (p.lg - lg) ** 2 + (p.lp - lp) ** 2 + (p.la - la) ** 2 + (p.ls - ls) ** 2;
        const w = Math.exp(-d2 / (2 * RESIDUAL_BANDWIDTH ** 2));
        sw += w;
        sr += w * p.r;
    }
    return Math.exp(sr / sw);
}

/** The work of a launch as the model reads it (a planned launch, or a calibration point with its family's name). */
export type LaunchWork = Pick<PlannedLaunch, 'family' | 'flops' | 'bytes' | 'workgroups'> & Partial<Pick<PlannedLaunch, 'effectiveFlops' | 'strideAlignment' | 'scalarLoads'>>;

/** Time of one launch on a profile. */
export function launchTiming(profile: DeviceProfile, launch: PlannedLaunch): LaunchTiming {
    const fam = familyProfile(profile, launch.family);
    return { ...familyLaunchTiming(fam, launch, profile.kernelFloorMs, profile.bandwidthBytesPerMs), band: familyBand(fam) };
}

/**
 * Time of one launch on a given family curve (undefined: none) with the memory roof: the model
 * of launchTiming without the profile's look-up, so leave-one-out (band.ts) can ask it of a
 * family with one point held out.
 */
export function familyLaunchTiming(fam: FamilyProfile | undefined, launch: LaunchWork, floorMs: number, bandwidthBytesPerMs: number): Omit<LaunchTiming, 'band'> {
    const memoryMs = launch.bytes / bandwidthBytesPerMs;
    const capped = /capped/.test(launch.family);
    if (!fam) {
        // No curve at all: the roofline's memory side plus the floor (stated as memory-bound).
        return { ms: Math.max(floorMs, memoryMs), bound: 'memory', demand: capped ? 'capped' : 'memory' };
    }
    const fit = fitWaves(fam, floorMs);
    const work = workOf(fam.basis, launch);
    const modelMs = fit
        ? wavesMs(fit, work, launch.workgroups, floorMs) * residualFactor(fam, fit, floorMs, work, launch.workgroups, { padding: paddingOf(fam.basis, launch), alignment: launch.strideAlignment, scalarLoads: launch.scalarLoads })
        : curveMs(fam, work, floorMs);
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
    /** The launches' typical (median) time summed, before the host's mean/median factor. */
    typicalMs: number;
    bound: 'compute' | 'memory';
    /** Time per contention kind (sums to ms). */
    demandMs: Record<DemandKind, number>;
    launches: LaunchTiming[];
    /** The op's 90 % error band: its launches' bands combined (band.ts combineBands). */
    band: ErrorBand;
}

/**
 * Time of one planned op (GPU time of its launches, without dispatch overhead): the mean on the
 * calibrated host, i.e. the launches' typical (median) times scaled by the host's mean/median
 * factor of GPU time (profile.hostMeanFactor.gpu).
 */
export function opTiming(profile: DeviceProfile, op: PlannedOp): OpTiming {
    return launchesTiming(profile, op.launches);
}

/** Timing of a sequence of launches (an op, or one chunk of a split op: plan/split.ts), as opTiming. */
export function launchesTiming(profile: DeviceProfile, planned: readonly PlannedLaunch[]): OpTiming {
    const host = profile.hostMeanFactor?.gpu ?? 1;
    let typicalMs = 0;
    const launches = planned.map(l => {
        const t = launchTiming(profile, l);
        typicalMs += t.ms;
        return host === 1 ? t : { ...t, ms: t.ms * host };
    });
    const demandMs: Record<DemandKind, number> = { compute: 0, memory: 0, capped: 0 };
    let computeMs = 0, memMs = 0;
    for (const t of launches) {
        demandMs[t.demand] += t.ms;
        if (t.bound === 'compute') computeMs += t.ms; else memMs += t.ms;
    }
    const band = combineBands(planned.map((l, i) => ({ family: l.family, ms: launches[i].ms, band: launches[i].band })));
    return { ms: computeMs + memMs, typicalMs, bound: computeMs >= memMs && computeMs > 0 ? 'compute' : 'memory', demandMs, launches, band };
}

/**
 * Predicted GPU time of one planned op as a schedule sees it, ms: its launches' time plus the
 * dispatch overhead each launch pays (what a block of ops costs the queue it runs on).
 * Undefined when the figure is not a finite time.
 */
export function opServiceMs(profile: DeviceProfile, op: PlannedOp): number | undefined {
    return launchesServiceMs(profile, op.launches);
}

/** opServiceMs of a sequence of launches: one chunk of a split op is timed like an op, its own dispatches paid. */
export function launchesServiceMs(profile: DeviceProfile, launches: readonly PlannedLaunch[]): number | undefined {
    if (launches.length === 0) return 0;
    const ms = launchesTiming(profile, launches).ms + launches.length * profile.dispatchOverheadMs;
    return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * Mean service time of one request: its typical time — the launches' median GPU time, the
 * dispatch overhead per launch, and per submission the submit overhead and what its first pass
 * takes beyond its curve back to back (profile.firstPassMs.busy) — scaled by the host's
 * mean/median factor of request wall time (profile.hostMeanFactor). `gpuMs` is Σ opTiming (means).
 */
export function requestServiceMs(profile: DeviceProfile, gpuMs: number, launches: number, submits: number): number {
    const f = profile.hostMeanFactor ?? { gpu: 1, wall: 1 };
    return (gpuMs / f.gpu + launches * profile.dispatchOverheadMs + submits * submissionMs(profile)) * f.wall;
}

/**
 * What each submission of a request costs beyond its kernels' curves: the submit overhead, and
 * its first pass's extra back to back (profile.firstPassMs.busy: waking the driver's threads,
 * which holds none of the device a co-runner computes on: the schedule simulation counts it as
 * host time).
 */
export function submissionMs(profile: DeviceProfile): number {
    return profile.submitOverheadMs + (profile.firstPassMs?.busy ?? 0);
}

/**
 * What a request's first pass takes beyond its curve (profile.firstPassMs): on average, the back
 * to back part plus the idle part by the chance the request finds the device idle; for the
 * typical (median) request, the idle part only when most requests find the device idle. The
 * idle part is wall time idlePenalty.wallMs holds already: this places it on the first op.
 */
export function firstPassExtra(profile: DeviceProfile, idleProbability: number): { meanMs: number; p50Ms: number } {
    const f = profile.firstPassMs;
    if (!f) return { meanMs: 0, p50Ms: 0 };
    const idleMore = Math.max(0, f.idle - f.busy);
    return { meanMs: f.busy + idleProbability * idleMore, p50Ms: f.busy + (idleProbability >= 0.5 ? idleMore : 0) };
}

/**
 * What finding the device idle costs a tenant's requests: a request that starts on an idle
 * device takes profile.idlePenalty.wallMs plus gpuMsPerPass for each of its `passes` longer.
 * The chance a request finds the device idle: open loop, 1 − ρ (an arrival of a Poisson stream
 * sees the time-average state), with ρ = λ·S' the utilisation at the adjusted service time
 * S' = S + a·(1 − λS'), i.e. S' = (S + a)/(1 + aλ); closed loop with think time Z, the chance
 * that none of the other clients is at the device, (1 − S/(S + Z))^(clients − 1) (1 for one
 * client: the device waited for it), and 0 without think time. The device is the
 * tenant's own (its own queue and driver threads), so co-runners do not change this. Returns
 * the adjusted mean service time, the extra GPU time per pass and the idle probability.
 */
export function idleAdjustment(profile: DeviceProfile, serviceMs: number, arrival: IrArrival, passes = 0): { serviceMs: number; extraPassMs: number; idleProbability: number } {
    const penalty = profile.idlePenalty;
    if (!penalty || (penalty.wallMs <= 0 && penalty.gpuMsPerPass <= 0)) return { serviceMs, extraPassMs: 0, idleProbability: 0 };
    const extra = penalty.wallMs + passes * penalty.gpuMsPerPass;
    let pIdle: number;
    if (arrival.kind === 'closed') {
        // A client back from thinking finds the device idle when no other client is at it: each is there about S/(S + Z)
        // of its cycle (at low load), independently. Two clients thinking 20 ms around a 0.8 ms request find it idle 96 % of
        // the time, as the simulation has them; without think time a loop never lets the device go idle.
        const atDevice = serviceMs / (serviceMs + arrival.thinkMs);
        pIdle = arrival.thinkMs > 0 ? (1 - atDevice) ** Math.max(0, arrival.clients - 1) : 0;
    } else {
        const lambda = arrival.kind === 'poisson' ? arrival.ratePerSecond / 1000 : 1 / arrival.everyMs;
        const adjusted = (serviceMs + extra) / (1 + extra * lambda);
        pIdle = Math.min(1, Math.max(0, 1 - lambda * adjusted));
    }
    return { serviceMs: serviceMs + extra * pIdle, extraPassMs: penalty.gpuMsPerPass * pIdle, idleProbability: pIdle };
}

/**
 * Coefficient of variation of a request of mean service time S: the profile's serviceCv was
 * measured on one request (serviceCvAtMs long); stalls independent over time add variance in
 * proportion to a request's length, so the CV scales as √(serviceCvAtMs / S) — a 100 ms model
 * varies relatively less than a 5 ms one. Clamped to [0.25, 4]× the measured CV (the scaling
 * is an approximation far from the measured length). Without serviceCvAtMs (older profiles): serviceCv.
 */
export function serviceCvFor(profile: DeviceProfile, serviceMs: number): number {
    const at = profile.serviceCvAtMs;
    if (!at || !(serviceMs > 0)) return profile.serviceCv;
    return profile.serviceCv * Math.min(4, Math.max(0.25, Math.sqrt(at / serviceMs)));
}

