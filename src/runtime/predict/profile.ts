/**
 * The device profile: what `tenancy calibrate` measured on one adapter, and what the
 * prediction model is parameterised by. A versioned zod schema (profiles are read from disk by
 * the language server and the CLI), the key a profile is stored under, and the labelled
 * default profile used when nothing was calibrated. Pure: no fs, no webgpu.
 *
 * Units: times in milliseconds, work in FLOPs and bytes, bandwidth in bytes per millisecond
 * (numerically equal to kB/s·1000, i.e. 1 GB/s = 1e6 bytes/ms).
 */
import { z } from 'zod';
import { DEFAULT_CAPS } from '../kernels/index.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { MIN_DRIFT_POINTS, SPEED_MEASURES, usualHostSpeed } from './band.js';
import { quantileSorted, sortedAscending } from '../report/statistics.js';

export const PROFILE_SCHEMA_VERSION = 1;

const finite = z.number().finite();
const positive = finite.positive();
const nonNegative = finite.nonnegative();
/** A request's wall-time tail beyond its normal body, ms at p90, p95 and p99. */
const tailSchema = z.object({ p90: nonNegative, p95: nonNegative, p99: nonNegative });

/** Identity of the adapter a profile was measured on (WebGPU GPUAdapterInfo; the description carries the driver). */
export const adapterIdentitySchema = z.object({
    vendor: z.string(),
    architecture: z.string(),
    device: z.string(),
    description: z.string(),
});
export type ProfileAdapter = z.infer<typeof adapterIdentitySchema>;

/** One measured launch: GPU time of one dispatch of a kernel family at one size (median of repeats). */
export const curvePointSchema = z.object({
    flops: nonNegative,
    bytes: positive,
    /** Workgroups dispatched (x·y·z). */
    workgroups: z.number().int().positive(),
    /** FLOPs the launch actually executes with its tiles padded to full size (≥ flops); absent ⇒ flops. */
    effectiveFlops: nonNegative.optional(),
    /** A GEMM's B row stride alignment, bytes (plan/launch.ts strideAlignmentOf); absent for other kernels and in older profiles. */
    strideAlignment: positive.optional(),
    /** A GEMM's operands loaded as single floats for want of rows in multiples of 4 (plan/launch.ts scalarLoadsOf); absent for other kernels and in older profiles. */
    scalarLoads: z.number().int().min(0).max(2).optional(),
    ms: positive,
    /** The synthetic op the point came from (for humans reading the profile). */
    shape: z.string(),
});
export type CurvePoint = z.infer<typeof curvePointSchema>;

/**
 * A kernel family: launches whose time scales alike (see families.ts). `basis` says which work
 * measure the curve is interpolated on: FLOPs for compute kernels, bytes for memory kernels.
 */
export const familyProfileSchema = z.object({
    basis: z.enum(['flops', 'bytes']),
    /** Ascending by the basis. At least one point. */
    points: z.array(curvePointSchema).min(1),
    /**
     * The evidence for the family's error band (band.ts; calibrate/band-evidence.ts): `looP90`, the
     * 90th percentile of |leave-one-out relative error| (the model fitted without a point, then
     * asked for it) over `points` errors — the family's own (`from: 'family'`), or, for a family
     * with too few points, pooled over its class's (`'class'`) or every family's (`'all'`);
     * `noiseP90`, the 90th percentile of the run-to-run error of one measurement of its launches
     * (interleaved rounds). Absent in older profiles: predictions then carry the default band.
     */
    error: z.object({
        looP90: nonNegative, noiseP90: nonNegative, points: z.number().int().min(2), from: z.enum(['family', 'class', 'all']),
    }).optional(),
});
export type FamilyProfile = z.infer<typeof familyProfileSchema>;

/** Contention kinds of a running kernel: compute-bound, memory-bound, or compute on a workgroup-capped (persistent) variant. */
export const demandKinds = ['compute', 'memory', 'capped'] as const;
export type DemandKind = (typeof demandKinds)[number];

/** Workgroups of the capped kernel calibration measures the `capped` interference pairs with (calibrate/synthetic.ts): the device share those pairs stand for. */
export const CAPPED_INTERFERENCE_WORKGROUPS = 4;

/** Measured pairwise interference: the victim's kernel time co-running with the aggressor (on a second device, continuously busy) over its solo time. */
export const interferencePairSchema = z.object({
    victim: z.enum(demandKinds),
    aggressor: z.enum(demandKinds),
    slowdown: positive,
    victimKernel: z.string(),
    aggressorKernel: z.string(),
});
export type InterferencePair = z.infer<typeof interferencePairSchema>;

export const deviceProfileSchema = z.object({
    schemaVersion: z.literal(PROFILE_SCHEMA_VERSION),
    /** True for the built-in default profile: predictions are then labelled "uncalibrated". */
    uncalibrated: z.boolean(),
    /** profileKey(adapter): the file name the profile is cached under. */
    key: z.string().min(1),
    adapter: adapterIdentitySchema,
    createdAt: z.string(),
    tenancyVersion: z.string(),
    /** True when `--quick` measured fewer sizes and repeats. */
    quick: z.boolean(),
    limits: z.object({
        maxStorageBufferBindingSize: z.number().int().positive(),
        maxBufferSize: z.number().int().positive(),
        maxComputeWorkgroupsPerDimension: z.number().int().positive(),
        /** The device's fixed subgroup size, when it has one (the kernels' defaults depend on it). */
        subgroupSize: z.number().int().positive().optional(),
    }),
    /** Sustained device-memory bandwidth (a large copy kernel), bytes per ms. */
    bandwidthBytesPerMs: positive,
    /** GPU time of a trivial one-workgroup kernel: the floor under any launch. */
    kernelFloorMs: nonNegative,
    /** Extra wall time per additional dispatch in one submission (encoding, driver, pass gaps). */
    dispatchOverheadMs: nonNegative,
    /** Wall time of one submit + completion round trip (onSubmittedWorkDone), beyond GPU time. */
    submitOverheadMs: nonNegative,
    /** Coefficient of variation of repeated identical requests' wall time (service jitter; robust: IQR-based; calibration takes the median over its rounds). */
    serviceCv: nonNegative,
    /** Median wall time of the request serviceCv was measured on (latency.ts serviceCvFor scales the CV by request length); absent in older profiles. */
    serviceCvAtMs: positive.optional(),
    /**
     * The reference request's median wall back to back on a device of its own, ms, the mean of
     * its times before and after the curves were measured (calibrate.ts timeReferenceRequest):
     * what calibrate/host-speed.ts compares with to tell how fast the host runs now. Absent in
     * older profiles.
     */
    hostSpeedProbeMs: positive.optional(),
    /**
     * The earlier calibrations of this adapter on this machine, oldest first, at most
     * HOST_SPEED_HISTORY: how fast the host ran in each, to tell its usual speed and how far it
     * moves (band.ts). `probeMs`: its hostSpeedProbeMs; `curveLevel`: its curves' times over this
     * profile's, the geometric mean over the points both measured (curveRatio; absent for
     * calibrations before it was kept). The curves' level follows what predictions scale with:
     * of three calibrations on 2026-12-07, the predicted ops' common factors between pairs were
     * 1.62, 1.29 and 0.79, the curves' levels 1.61, 1.31 and 0.81, the reference request's ratios
     * 1.43, 0.99 and 0.69 (BENCHMARKS.md). `serviceTailMs`, `corunTailMs`: its tails as it
     * measured them (at its own speed), for the host's usual tails (usualTail). `tenancy calibrate`
     * carries it over from the profile it replaces (withHostSpeedHistory). Absent: no earlier
     * calibration, or an older profile.
     */
    hostSpeedHistory: z.array(z.object({
        createdAt: z.string(), probeMs: positive, curveLevel: positive.optional(), serviceTailMs: tailSchema.optional(), corunTailMs: tailSchema.optional(),
    })).optional(),
    /**
     * Set on a profile read for predictions whose times were scaled to the host's usual speed
     * (atUsualSpeed): the factor applied and over how many calibrations its median was taken.
     * Never written by calibration.
     */
    usualSpeed: z.object({ factor: positive, calibrations: z.number().int().positive(), by: z.enum(SPEED_MEASURES) }).optional(),
    /**
     * Set on a profile read for predictions whose tails (serviceTailMs, corunTailMs) are the host's
     * usual ones (usualTail): the median over `calibrations` of them. Never written by calibration.
     */
    usualTails: z.object({ calibrations: z.number().int().positive() }).optional(),
    /**
     * The host's heavy tail: how far the p90/p95/p99 of those wall times lie beyond the normal
     * body median·(1 + z·cv), ms (0 when the tail is normal). Absent in older profiles.
     */
    serviceTailMs: tailSchema.optional(),
    /**
     * The tail while another device computes continuously (co-running tenants share the host's
     * cores through the OS scheduler), beyond the co-run median spread by the solo `serviceCv`
     * (the jitter the schedule simulation draws): used for co-run figures. Absent ⇒ serviceTailMs.
     */
    corunTailMs: tailSchema.optional(),
    /**
     * Mean over median of the requests calibration timed, for their GPU time (Σ passes) and their
     * wall time: the host's stalls (other processes on the cores a software adapter computes on)
     * make the average request slower than the typical one (calibration: the median over its
     * rounds of each round's ratio). Curves and overheads are medians; predicted means are
     * scaled by these (latency.ts). Absent in older profiles ⇒ 1.
     */
    hostMeanFactor: z.object({ gpu: finite.min(1), wall: finite.min(1) }).optional(),
    /**
     * What a request that finds the device idle takes beyond the same request back to back: a
     * fixed wall time per request plus a time per pass. Calibration measures it through the
     * runtime's own path (calibrate/runtime-idle.ts: synthetic tenants of two lengths in the phase
     * loop, closed loop vs a low-rate Poisson stream, idle arrivals only, median over trials, a
     * line over the pass counts); profiles before aa1dae5 paired timer-waited arrivals with the
     * request back to back (0–0.9 ms, smaller), before 187a625 solved an open-loop stream through
     * the model's form (2–75 ms). On a software adapter the driver's threads sleep and other
     * processes take the cores and caches in the gap. Applies to requests that find the device
     * idle (latency.ts idleAdjustment).
     * Absent in older profiles ⇒ 0.
     */
    idlePenalty: z.object({ wallMs: nonNegative, gpuMsPerPass: nonNegative }).optional(),
    /**
     * What a request's first pass takes beyond the same kernel later in the request (ms, GPU
     * time): `busy` when the request follows the previous one back to back, `idle` when it found
     * the device idle. Curves time kernels past a submission's first pass; on a software adapter
     * the first wakes the driver's threads (measured here: +0.03–0.07 ms back to back, +0.2–0.3 ms
     * from idle; the later of three identical convolutions no slower). Calibration times it in the idle trials, whose probe's
     * first pass runs the kernel of its later ones (calibrate/runtime-idle.ts). A prediction
     * puts it on a request's first op (predict/workload.ts) and counts `busy` once per submission
     * in the request's time and, as host time, in the schedule simulation's (latency.ts
     * submissionMs); `idle` is part of idlePenalty.wallMs already. Absent in older profiles ⇒ 0.
     */
    firstPassMs: z.object({ busy: nonNegative, idle: nonNegative }).optional(),
    /** Per kernel family (families.ts). */
    families: z.record(z.string(), familyProfileSchema),
    /**
     * Calibration's adaptive sampling (calibrate/refine.ts): the points whose leave-one-out error
     * called for more measurements (family, the case's shape, the error), and the shapes of the
     * new cases measured beside them; their points are in `families`. Absent in older profiles.
     */
    refinement: z.object({
        anchors: z.array(z.object({ family: z.string(), shape: z.string(), error: finite })),
        added: z.array(z.string()),
    }).optional(),
    interference: z.object({
        pairs: z.array(interferencePairSchema),
    }),
    /**
     * How long a kernel that queued while another tenant had work in flight holds the whole device while a co-running
     * tenant's kernel waits, ms (the schedule simulation's turn, simulate.ts quantumMs): fitted by calibration to co-runs of a
     * tenant of short kernels beside a closed loop of long ones (calibrate/corun-evidence.ts).
     * Absent in older profiles and the default profile ⇒ a kernel runs to its end.
     */
    corunQuantumMs: positive.optional(),
    /**
     * The co-run model's error beyond what a co-run figure's band already holds (its tenant's
     * band and its sampling spread, workload.ts corunBands): calibration co-runs synthetic
     * tenants through the runtime's path in short rounds (calibrate/corun-probe.ts), predicts
     * the same co-run, and keeps the 90th percentile of the excess each figure needed to fall
     * inside its band (calibrate/band-evidence.ts corunExcess), over `points` figures (mean,
     * p50, p90, p95, p99 of each tenant in each round). A relative half-width; co-run bands
     * add it in quadrature. Absent in older profiles ⇒ no such term.
     */
    corunModelError: z.object({ excessP90: nonNegative, points: z.number().int().positive() }).optional(),
    /**
     * How far an op's co-run time moves from one short co-run to the next: the same probe's rounds
     * (calibrate/corun-probe.ts), each op's median GPU time per request in each round against its
     * median over all rounds, as band-evidence.ts roundDeviations reads the curves' rounds; the
     * 90th percentile of |deviation| over `points` (ops × rounds; calibrate/corun-evidence.ts). A
     * relative half-width; an op's co-run band adds it in quadrature (workload.ts opCorunTerm).
     * Absent in older profiles ⇒ no such term.
     */
    corunOpNoise: z.object({ p90: nonNegative, points: z.number().int().positive() }).optional(),
    /** How long calibration took, ms (0 for the default profile). */
    calibrationMs: nonNegative,
    /**
     * The host's 1-minute load average before and after calibrating, and its core count: on a
     * software adapter other processes compete for the same cores, so a busy host inflates every
     * figure. Absent in the default profile.
     */
    hostLoad: z.object({ before: nonNegative, after: nonNegative, cores: z.number().int().positive() }).optional(),
});
export type DeviceProfile = z.infer<typeof deviceProfileSchema>;

/**
 * The profile as a host running `factor` times slower than at calibration would measure it
 * (calibrate/host-speed.ts): every time scaled by the factor, the bandwidth divided by it;
 * ratios (interference slowdowns, CVs, mean factors) kept; the history of earlier calibrations'
 * speeds dropped (the speed is known). A new object, so the model's caches
 * (fitted families, by object) hold apart.
 */
export function atHostSpeed(profile: DeviceProfile, factor: number): DeviceProfile {
    if (!(factor > 0) || !Number.isFinite(factor) || factor === 1) return profile;
    const tail = (t: DeviceProfile['serviceTailMs']) => (t ? { p90: t.p90 * factor, p95: t.p95 * factor, p99: t.p99 * factor } : undefined);
    const families = Object.fromEntries(Object.entries(profile.families).map(([name, f]) => [name, { ...f, points: f.points.map(p => ({ ...p, ms: p.ms * factor })) }]));
    return {
        ...profile,
        bandwidthBytesPerMs: profile.bandwidthBytesPerMs / factor,
        kernelFloorMs: profile.kernelFloorMs * factor,
        dispatchOverheadMs: profile.dispatchOverheadMs * factor,
        submitOverheadMs: profile.submitOverheadMs * factor,
        ...(profile.serviceCvAtMs !== undefined ? { serviceCvAtMs: profile.serviceCvAtMs * factor } : {}),
        ...(profile.hostSpeedProbeMs !== undefined ? { hostSpeedProbeMs: profile.hostSpeedProbeMs * factor } : {}),
        ...(profile.serviceTailMs ? { serviceTailMs: tail(profile.serviceTailMs) } : {}),
        ...(profile.corunTailMs ? { corunTailMs: tail(profile.corunTailMs) } : {}),
        ...(profile.idlePenalty ? { idlePenalty: { wallMs: profile.idlePenalty.wallMs * factor, gpuMsPerPass: profile.idlePenalty.gpuMsPerPass * factor } } : {}),
        ...(profile.firstPassMs ? { firstPassMs: { busy: profile.firstPassMs.busy * factor, idle: profile.firstPassMs.idle * factor } } : {}),
        families,
        // The host's speed now is known: how far it drifts between calibrations (band.ts hostDrift) no longer applies.
        hostSpeedHistory: undefined,
        usualSpeed: undefined,
    };
}

/**
 * The profile to predict with: its times at the host's usual speed (band.ts usualHostSpeed: the
 * median speed of this calibration and the earlier ones here, told by their curves' levels or
 * their reference requests), not at the moment it was calibrated. One calibration's moment moves
 * every figure by a common factor: 2026-12-07, a calibration at 1.28× the earlier ones' median
 * read all ops 52 % high on the accuracy benchmark, 25 % high scaled to the median
 * (BENCHMARKS.md). The history is kept, so the bands' drift term (band.ts hostDrift) is then how
 * far the host moves from its usual speed. Its tails are the host's usual ones too (usualTail).
 * Unchanged while the drift is not known (fewer than three earlier calibrations), for an
 * uncalibrated profile, and for one already read so.
 */
export function atUsualSpeed(profile: DeviceProfile): DeviceProfile {
    if (profile.uncalibrated || profile.usualSpeed || profile.usualTails) return profile;
    const withTails = atUsualTails(profile);
    const usual = usualHostSpeed(profile);
    if (!usual) return withTails;
    // The earlier calibrations' curve levels are relative to this profile's times, which move by the factor.
    const history = profile.hostSpeedHistory?.map(h => (h.curveLevel !== undefined ? { ...h, curveLevel: h.curveLevel / usual.factor } : h));
    return { ...atHostSpeed(withTails, usual.factor), hostSpeedHistory: history, usualSpeed: { factor: usual.factor, calibrations: usual.calibrations, by: usual.by } };
}

type Tail = NonNullable<DeviceProfile['serviceTailMs']>;

/**
 * The host's usual tail: per quantile, the median of this calibration's tail and the earlier
 * ones' here (hostSpeedHistory), each taken to this calibration's speed (over its curves' level,
 * else over its reference request's time against this one's), with how many there were;
 * undefined with fewer than MIN_DRIFT_POINTS earlier ones that carry it. A tail rests on the few
 * largest of a few hundred walls and moves with whatever else the host ran in those seconds:
 * four calibrations back to back (2026-12-07) measured co-run tails of 16.3, 17.5, 8.0 and
 * 4.0 ms at p99, and the co-run figures predicted on them spread 1.34× (the median over the
 * accuracy benchmark's co-running tenants of the largest over the smallest), 1.18× with the
 * tails' median (BENCHMARKS.md, "The host's usual tails").
 */
export function usualTail(profile: DeviceProfile, which: 'serviceTailMs' | 'corunTailMs'): { tail: Tail; calibrations: number } | undefined {
    const own = profile[which];
    if (!own) return undefined;
    const earlier = (profile.hostSpeedHistory ?? []).flatMap(h => {
        const t = h[which];
        const level = h.curveLevel ?? (profile.hostSpeedProbeMs !== undefined ? h.probeMs / profile.hostSpeedProbeMs : undefined);
        return t && level !== undefined ? [{ p90: t.p90 / level, p95: t.p95 / level, p99: t.p99 / level }] : [];
    });
    if (earlier.length < MIN_DRIFT_POINTS) return undefined;
    const all = [own, ...earlier];
    // The median of tails that each rise with q rises with q too.
    const median = (q: keyof Tail) => quantileSorted(sortedAscending(all.map(t => t[q])), 0.5);
    return { tail: { p90: median('p90'), p95: median('p95'), p99: median('p99') }, calibrations: all.length };
}

/** The profile with the host's usual tails (usualTail) where its history allows, marked so; else unchanged. */
function atUsualTails(profile: DeviceProfile): DeviceProfile {
    const service = usualTail(profile, 'serviceTailMs'), corun = usualTail(profile, 'corunTailMs');
    if (!service && !corun) return profile;
    return {
        ...profile,
        ...(service ? { serviceTailMs: service.tail } : {}),
        ...(corun ? { corunTailMs: corun.tail } : {}),
        usualTails: { calibrations: Math.max(service?.calibrations ?? 0, corun?.calibrations ?? 0) },
    };
}

/** Whether an adapter computes on the host's CPU cores (lavapipe/llvmpipe, SwiftShader): its figures share the cores with every other process. */
export function isSoftwareAdapter(adapter: ProfileAdapter): boolean {
    return adapter.architecture === 'software' || /llvmpipe|lavapipe|swiftshader/i.test(`${adapter.device} ${adapter.description}`);
}

/** A filesystem-safe key for an adapter: vendor-architecture-device-description, slugged, with a short hash so distinct descriptions never collide. */
export function profileKey(adapter: ProfileAdapter): string {
    const text = [adapter.vendor, adapter.architecture, adapter.device, adapter.description].map(s => s || 'unknown').join('/');
    const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);
    return `${slug}-${fnv1a(text)}`;
}

/** 32-bit FNV-1a as 8 hex digits (stable, dependency-free). */
function fnv1a(text: string): string {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, '0');
}

/** Validates a parsed profile; throws naming the first bad fields and the schema version expected vs found. */
export function parseProfile(value: unknown, where = 'device profile'): DeviceProfile {
    const r = deviceProfileSchema.safeParse(value);
    if (r.success) {
        for (const [name, fam] of Object.entries(r.data.families)) {
            fam.points.sort((a, b) => (fam.basis === 'flops' ? a.flops - b.flops : a.bytes - b.bytes));
            if (fam.basis === 'flops' && fam.points.some(p => p.flops <= 0)) {
                throw new Error(`${where}: family '${name}' has basis flops but a point with 0 FLOPs`);
            }
        }
        return r.data;
    }
    const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
    const hint = version !== PROFILE_SCHEMA_VERSION
        ? ` (found schemaVersion ${JSON.stringify(version)}, expected ${PROFILE_SCHEMA_VERSION}; run \`tenancy calibrate\` again)`
        : '';
    const first = r.error.issues.slice(0, 5).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`invalid ${where}${hint}: ${first.join('; ')}`);
}

const DEFAULT_ADAPTER: ProfileAdapter = { vendor: 'unknown', architecture: 'unknown', device: 'uncalibrated default', description: '' };

function point(flops: number, bytes: number, ms: number, shape: string, workgroups = 64): CurvePoint {
    return { flops, bytes, workgroups, ms, shape };
}

/**
 * The default profile used when no calibration exists (`uncalibrated: true`, hovers say so).
 * Its numbers are deliberately round figures of the order measured on the reference software
 * adapter (Mesa lavapipe on two cores: register-blocked vec4 matmul ≈ 7–11 GFLOP/s, workgroup-memory
 * tiled ≈ 0.7 — BENCHMARKS.md, "Kernels"), so an uncalibrated prediction is within a small factor on
 * that class of machine and merely an order of magnitude anywhere else.
 */
export function defaultProfile(): DeviceProfile {
    const gemm = (gflops: number): FamilyProfile => ({
        basis: 'flops',
        points: [
            point(2 * 64 ** 3, 3 * 4 * 64 ** 2, (2 * 64 ** 3) / (gflops * 0.4e6), 'matmul 64³', 2),
            point(2 * 256 ** 3, 3 * 4 * 256 ** 2, (2 * 256 ** 3) / (gflops * 0.9e6), 'matmul 256³', 32),
            point(2 * 1024 ** 3, 3 * 4 * 1024 ** 2, (2 * 1024 ** 3) / (gflops * 1e6), 'matmul 1024³', 512),
        ],
    });
    const memory = (bytesPerMs: number): FamilyProfile => ({
        basis: 'bytes',
        points: [
            point(0, 64 * 1024, 0.02 + (64 * 1024) / bytesPerMs, '16 Ki floats'),
            point(0, 16 * 1024 * 1024, 0.02 + (16 * 1024 * 1024) / bytesPerMs, '4 Mi floats'),
        ],
    });
    return {
        schemaVersion: PROFILE_SCHEMA_VERSION,
        uncalibrated: true,
        key: 'uncalibrated-default',
        adapter: DEFAULT_ADAPTER,
        createdAt: '1970-01-01T00:00:00.000Z',
        tenancyVersion: '0.1.0',
        quick: false,
        // The WebGPU spec's default limits: what every device supports.
        limits: { maxStorageBufferBindingSize: 134217728, maxBufferSize: 268435456, maxComputeWorkgroupsPerDimension: 65535 },
        bandwidthBytesPerMs: 4e6,
        kernelFloorMs: 0.02,
        dispatchOverheadMs: 0.03,
        submitOverheadMs: 0.3,
        serviceCv: 0.1,
        families: {
            'gemm.vec4': gemm(8),
            'gemm.wgmem': gemm(0.5),
            'gemm.capped': gemm(4),
            'gemm.splitk': gemm(6),
            'conv2d': gemm(4),
            'depthwise_conv2d': memory(2e6),
            'elementwise': memory(4e6),
            'reduction': memory(2e6),
            'pool': memory(2e6),
            'copy': memory(4e6),
        },
        interference: {
            // Two always-busy tenants time-share a device: each runs at about half speed; memory
            // kernels contend a little less with compute ones. Measured lavapipe pairs were 1.4–2.6×.
            pairs: [
                { victim: 'compute', aggressor: 'compute', slowdown: 2, victimKernel: 'default', aggressorKernel: 'default' },
                { victim: 'compute', aggressor: 'memory', slowdown: 1.7, victimKernel: 'default', aggressorKernel: 'default' },
                { victim: 'memory', aggressor: 'compute', slowdown: 1.7, victimKernel: 'default', aggressorKernel: 'default' },
                { victim: 'memory', aggressor: 'memory', slowdown: 2, victimKernel: 'default', aggressorKernel: 'default' },
                { victim: 'capped', aggressor: 'compute', slowdown: 2, victimKernel: 'default', aggressorKernel: 'default' },
                { victim: 'compute', aggressor: 'capped', slowdown: 1.5, victimKernel: 'default', aggressorKernel: 'default' },
            ],
        },
        calibrationMs: 0,
    };
}

/** DeviceCaps with a profile's measured limits over WebGPU's defaults: the limits the plan of a predicted tenant is made for. */
export function capsForProfile(profile: DeviceProfile | undefined): DeviceCaps {
    if (!profile) return DEFAULT_CAPS;
    return {
        ...DEFAULT_CAPS,
        maxStorageBufferBindingSize: profile.limits.maxStorageBufferBindingSize,
        maxBufferSize: profile.limits.maxBufferSize,
        maxComputeWorkgroupsPerDimension: profile.limits.maxComputeWorkgroupsPerDimension,
        // The same default variants as the runtime on that device (subgroup GEMMs need a fixed subgroup size).
        ...(profile.limits.subgroupSize !== undefined ? { subgroupSize: profile.limits.subgroupSize } : {}),
    };
}

/** Earlier calibrations a profile remembers the host's speed of (hostSpeedHistory). */
export const HOST_SPEED_HISTORY = 20;

/** Fewer curve points two calibrations both measured than this: their levels are not compared (curveRatio). */
const MIN_SHARED_POINTS = 20;

/**
 * How slow one calibration's curves ran against another's: the geometric mean of `of`'s times over
 * `against`'s at the points both measured (the same family, shape and work: calibration's ladders
 * repeat; the shapes adaptive sampling adds differ). Undefined with fewer than MIN_SHARED_POINTS.
 */
export function curveRatio(of: DeviceProfile, against: DeviceProfile): number | undefined {
    const key = (family: string, p: CurvePoint) => `${family}|${p.shape}|${p.flops}|${p.bytes}`;
    const times = new Map<string, number>();
    for (const [family, f] of Object.entries(against.families)) for (const p of f.points) times.set(key(family, p), p.ms);
    let sum = 0, n = 0;
    for (const [family, f] of Object.entries(of.families)) {
        for (const p of f.points) {
            const t = times.get(key(family, p));
            if (t !== undefined && t > 0 && p.ms > 0) { sum += Math.log(p.ms / t); n++; }
        }
    }
    return n >= MIN_SHARED_POINTS ? Math.exp(sum / n) : undefined;
}

/**
 * A new profile with the host's speed in the calibrations before it: the history of the profile
 * it replaces (same adapter key, calibrated, with a reference-request time) and that profile's
 * own, the last HOST_SPEED_HISTORY of them. Curve levels move to the new profile's times: the
 * previous profile's is its curves over the new one's, each older one's its level on the previous
 * profile times that (dropped where a link is missing). Without such a previous profile,
 * unchanged. Pure.
 */
export function withHostSpeedHistory(profile: DeviceProfile, previous: DeviceProfile | undefined): DeviceProfile {
    if (!previous || previous.uncalibrated || previous.key !== profile.key || previous.hostSpeedProbeMs === undefined) return profile;
    const level = curveRatio(previous, profile);
    const carried = (previous.hostSpeedHistory ?? []).map(({ curveLevel, ...h }) => (curveLevel !== undefined && level !== undefined ? { ...h, curveLevel: curveLevel * level } : h));
    const history = [...carried, {
        createdAt: previous.createdAt, probeMs: previous.hostSpeedProbeMs, ...(level !== undefined ? { curveLevel: level } : {}),
        ...(previous.serviceTailMs ? { serviceTailMs: previous.serviceTailMs } : {}), ...(previous.corunTailMs ? { corunTailMs: previous.corunTailMs } : {}),
    }];
    return { ...profile, hostSpeedHistory: history.slice(-HOST_SPEED_HISTORY) };
}
