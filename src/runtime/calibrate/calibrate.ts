/// <reference types="@webgpu/types" />
/**
 * `tenancy calibrate`: measures a device profile (predict/profile.ts) on the local adapter.
 *
 * 0. Shaders: every case compiled once, spread over one device per core, before anything is timed.
 * 1. Kernel floor: GPU time of a one-workgroup kernel.
 * 2. Per kernel family, a ladder of synthetic ops (synthetic.ts) served by the real kernel
 *    generators, run as a tenant's request runs (measure.ts timeSequence: the ladder's ops one
 *    after another in one submission, a timestamped pass per launch, repetitions back to back):
 *    the median GPU time of every launch at every size — the throughput-vs-size curve.
 * 2b. Adaptive sampling (refine.ts): where a family's leave-one-out error is largest, that point
 *    again and new cases of its kind beside it.
 * 3. Memory bandwidth: the largest copy-like kernel (relu.map4: read once, write once).
 * 4. Dispatch and submit overhead: what those requests took beyond their passes (submit,
 *    completion seen by Node, gaps), fitted over the ladders as u + passes·d.
 * 5. Service jitter: robust CV and tail of the wall time of a repeated mid-size request; the
 *    mean/median of GPU and wall time of every request timed (the host's stalls); what a request
 *    that finds the device idle pays beyond back to back, through the runtime's own path
 *    (synthetic tenants in the phase loop, closed loop vs low-rate Poisson: the idle penalty).
 * 6. Interference: a victim kernel timed on one device while a second device (a second adapter,
 *    so a second queue) runs an aggressor continuously: compute×compute, compute×memory,
 *    memory×compute, memory×memory and a workgroup-capped variant against compute both ways.
 * 7. Co-run tail: the mid-size request's wall-time tail while the second device computes.
 * 8. Co-run model: two synthetic tenants co-run through the runtime's path in short rounds
 *    (corun-probe.ts), predicted on the profile of steps 1–7: the device's turn between
 *    co-running tenants' kernels, what the co-run figures' bands then lacked to hold the rounds'
 *    measurements, and how far ops' co-run times moved between rounds (corun-evidence.ts).
 */
import { availableParallelism, loadavg } from 'node:os';
import { adapterInfo, openGpu, requestAdapter, requestTenantDevice, type AdapterPreference } from '../gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../gpu/harness.js';
import { KernelError } from '../kernels/index.js';
import { capsFromDevice } from '../gpu/adapter.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { familyOf, plannedLaunch } from '../plan/launch.js';
import {
    PROFILE_SCHEMA_VERSION, parseProfile, profileKey, type CurvePoint, type DemandKind, type DeviceProfile, type FamilyProfile,
    type InterferencePair,
} from '../predict/profile.js';
import { idlePenaltyFromRuntimeTrials, levelledByTrial, mean, meanFactorFromTrials, medianOf, tailBeyondBody, type RuntimeIdleTrial } from './estimators.js';
import { measureRuntimeIdle } from './runtime-idle.js';
import { bandEvidence, roundDeviations } from './band-evidence.js';
import { familyBand } from '../predict/band.js';
import { formatPercent, formatSignedPercent } from '../../protocol/units.js';
import { fitLine, prepareCase, robustStats, startAggressor, timeLaunches, timeSequence, type PreparedCase, type SequenceTimes } from './measure.js';
import { calibrationCases, convCase, corunProbeTenants, idleProbeTenant, interferenceKernels, matmulCase, reluCase, type Ladder, type SyntheticCase } from './synthetic.js';
import { measureCorunRounds, type CorunRounds } from './corun-probe.js';
import { refinement, type RefineLimits, type Refinement } from './refine.js';
import type { IrTenant } from '../ir/types.js';
import { corunEvidence, probeWorkload } from './corun-evidence.js';
import { sortedAscending, statisticOf } from '../report/statistics.js';
import { CalibrationProgress } from './progress.js';

export interface CalibrateOptions {
    quick?: boolean;
    preference?: AdapterPreference;
    tenancyVersion: string;
    signal?: AbortSignal;
    /** Progress: fraction done (0…1) and what is being measured. */
    onProgress?: (fraction: number, message: string) => void;
    /** Overrides of what is measured (tests use tiny shapes): the size ladders and the interference kernels. */
    ladders?: Ladder[];
    interference?: Record<DemandKind, SyntheticCase>;
    /** Overrides of the co-run probe (step 8; tests run it shorter). */
    corunProbe?: Partial<CorunProbeSettings>;
}

/** Step 8's co-run probe: rounds, each round's measured window and warm-up (ms), and the short-kernel tenant's Poisson rate. */
interface CorunProbeSettings {
    rounds: number;
    durationMs: number;
    warmupMs: number;
    ratePerSecond: number;
}

/**
 * Rounds as long as the accuracy benchmark's co-run phases (2.5 s), so each round scatters as
 * one short run does; three of them, five figures of each of two tenants: 30 points. At 40/s the
 * short-kernel tenant brings ~100 requests a round.
 */
const CORUN_PROBE: CorunProbeSettings = { rounds: 3, durationMs: 2_500, warmupMs: 300, ratePerSecond: 40 };
const CORUN_PROBE_QUICK: CorunProbeSettings = { ...CORUN_PROBE, rounds: 2, durationMs: 1_500 };

/**
 * Step 2b's adaptive sampling (refine.ts): up to eight points (four when quick), two per family,
 * whose leave-one-out error is 15 % or more. Each brings up to three cases (itself and two new),
 * measured in three rounds of about 1.5 s per refined ladder.
 */
const REFINE: RefineLimits = { anchors: 8, perFamily: 2, minError: 0.15 };
const REFINE_QUICK: RefineLimits = { ...REFINE, anchors: 4 };

/** Runtime-path idle measurement (step 5b): the synthetic tenants' pointwise blocks (two request lengths: 3 and 11 passes), trials per length, the open-loop rate (requests per second). */
const RUNTIME_IDLE_BLOCKS = [0, 8], RUNTIME_IDLE_TRIALS = 7, RUNTIME_IDLE_RATE = 20;

/** Bytes-basis families (memory kernels, by the stem before the dot: `copy.im2col` is a copy); everything else is interpolated over FLOPs. */
const BYTES_FAMILIES = new Set(['elementwise', 'reduction', 'pool', 'copy', 'depthwise_conv2d']);

interface Gpu {
    device: GPUDevice;
    pipelines: KernelPipelines;
    caps: DeviceCaps;
}

/** A device on the preferred adapter with the kernels' pipelines and caps; refused without GPU timestamps (every measurement here reads them). */
async function openDevice(gpu: GPU, preference: AdapterPreference, label: string): Promise<{ dev: Gpu; adapter: GPUAdapter }> {
    const adapter = await requestAdapter(gpu, preference);
    if (!adapter.features.has('timestamp-query')) {
        throw new Error(`the adapter '${adapter.info.device || adapter.info.description}' lacks the timestamp-query feature; calibration needs GPU timestamps`);
    }
    const device = await adapter.requestDevice(kernelDeviceDescriptor(adapter, label));
    return { dev: { device, pipelines: new KernelPipelines(device), caps: capsFromDevice(device) }, adapter };
}

/** The mid-size request calibration times in every round (a conv and two matmuls in one submission, as a tenant's request). */
export function referenceRequest(): SyntheticCase[] {
    return [convCase(16, 32, 32, 3), matmulCase(128, 128, 128), matmulCase(96, 256, 64)];
}

/** Repetitions of the reference request when it tells the host's speed, after a warm-up: at 40 the medians of five probes in a row spread ±12 %, at 150 ±4 % (about 0.3 s). */
const SPEED_PROBE_WARMUP = 20, SPEED_PROBE_REPS = 150;

/**
 * The median wall of the reference request back to back on a device of its own (ms): how fast
 * the host runs now. Calibration takes it before and after its measurements (the profile's
 * hostSpeedProbeMs) and host-speed.ts again when predictions meet a measurement, the same way
 * both times, rather than set against the request's median inside the calibration's rounds
 * (serviceCvAtMs: after each ladder, on the calibration's device; 5 % above this one on a quiet
 * host).
 */
export async function timeReferenceRequest(preference: AdapterPreference, signal?: AbortSignal): Promise<number> {
    // Held until the device is gone: Dawn's instance must outlive its devices (a collected one aborts the process).
    let gpu: GPU | undefined = openGpu();
    const { dev } = await openDevice(gpu, preference, 'reference-request');
    const prepared: PreparedCase[] = [];
    try {
        for (const sc of referenceRequest()) prepared.push(await prepareCase(dev.device, dev.pipelines, sc, dev.caps));
        await timeSequence(dev.device, prepared, SPEED_PROBE_WARMUP, signal);
        return robustStats((await timeSequence(dev.device, prepared, SPEED_PROBE_REPS, signal)).walls).median;
    } finally {
        for (const p of prepared) p.destroy();
        dev.device.destroy();
        gpu = undefined;
    }
}

/** A request's wall-time tail beyond its normal body, ms, at p90/p95/p99. */
type Tail = NonNullable<DeviceProfile['serviceTailMs']>;

/** What every step of a calibration shares: the victim device, progress, cancellation, and the cases to free at the end. */
interface Calibration {
    gpu: GPU;
    victim: Gpu;
    preference: AdapterPreference;
    quick: boolean;
    signal?: AbortSignal;
    /** Progress by time (progress.ts): where the calibration is, and what it is doing or found. */
    progress: CalibrationProgress;
    /** Prepares a synthetic case on a device; freed when the calibration ends. */
    prep(device: Gpu, c: SyntheticCase): Promise<PreparedCase>;
    /** Frees a prepared case early. */
    release(prepared: PreparedCase): void;
}

/** Runs calibration and returns the profile (writing it is the caller's business). */
export async function calibrate(options: CalibrateOptions): Promise<DeviceProfile> {
    const started = performance.now();
    const loadBefore = loadavg()[0];
    const quick = options.quick ?? false;
    const preference = options.preference ?? 'auto';
    const progress = options.onProgress ?? (() => undefined);
    let gpu: GPU | undefined = openGpu();
    const opened: Gpu[] = [];
    const prepared: PreparedCase[] = [];
    try {
        const { dev: victim, adapter } = await openDevice(gpu, preference, 'calibrate-victim');
        opened.push(victim);
        const info = adapterInfo(adapter);
        const ladders = options.ladders ?? calibrationCases(quick);
        const c: Calibration = {
            gpu, victim, preference, quick, signal: options.signal,
            progress: new CalibrationProgress(progress, quick),
            prep: async (d, sc) => {
                const p = await prepareCase(d.device, d.pipelines, sc, d.caps);
                prepared.push(p);
                return p;
            },
            release: p => { p.destroy(); prepared.splice(prepared.indexOf(p), 1); },
        };

        const interference = options.interference ?? interferenceKernels();
        await warmShaders(c, [...ladders.flatMap(l => l.cases), ...referenceRequest(), ...Object.values(interference)], opened, 'cases', (part, seconds, message) => {
            c.progress.project('shaders', seconds);
            c.progress.at('shaders', part, message);
        });
        const kernelFloorMs = await measureKernelFloor(c);
        // The host's speed around the curves' window, for host-speed.ts to compare with when predictions meet a measurement.
        const probeBefore = await timeReferenceRequest(preference, options.signal);
        const rounds = await measureLadderRounds(c, ladders);
        const refined = await refineLadders(c, ladders, rounds, kernelFloorMs, opened);
        rounds.runs.push(...refined.runs);
        const probeAfter = await timeReferenceRequest(preference, options.signal);
        const hostSpeedProbeMs = (probeBefore + probeAfter) / 2;
        c.progress.say(`reference request back to back ${probeBefore.toFixed(2)} ms before the curves, ${probeAfter.toFixed(2)} ms after`);
        const { families, deviations } = familiesFrom(rounds.runs, c);
        const bandwidthBytesPerMs = bandwidthFrom(families, c);
        addBandEvidence(families, deviations, kernelFloorMs, bandwidthBytesPerMs, c);
        const { dispatchOverheadMs, submitOverheadMs } = overheadsFrom(rounds, c);
        const jitter = jitterFrom(rounds, c);
        for (const run of rounds.runs) for (const p of run.cases) c.release(p);
        const { idlePenalty, firstPassMs } = await measureIdlePenalty(c);
        const { pairs, aggressor } = await measureInterference(c, interference, opened);
        const corunTailMs = await measureCorunTail(c, rounds.request, aggressor, { tailMs: jitter.serviceTailMs, cv: jitter.serviceCv });
        const probe = { ...(quick ? CORUN_PROBE_QUICK : CORUN_PROBE), ...options.corunProbe };
        const probeTenants = corunProbeTenants(probe.ratePerSecond);
        const probeStarted = performance.now();
        c.progress.at('corunProbe', 0, `co-run probe: two synthetic tenants co-running, ${probe.rounds} rounds of ${(probe.durationMs / 1000).toFixed(1)} s`);
        const probeRounds = await measureCorunRounds(c.gpu, preference, probeTenants, {
            ...probe, signal: options.signal,
            onRound: done => c.progress.at('corunProbe', done / probe.rounds, `co-run probe: ${done} of ${probe.rounds} rounds done`),
        });

        const profile: DeviceProfile = {
            schemaVersion: PROFILE_SCHEMA_VERSION,
            uncalibrated: false,
            key: profileKey(info),
            adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
            createdAt: new Date().toISOString(),
            tenancyVersion: options.tenancyVersion,
            quick,
            limits: {
                maxStorageBufferBindingSize: victim.device.limits.maxStorageBufferBindingSize,
                maxBufferSize: victim.device.limits.maxBufferSize,
                maxComputeWorkgroupsPerDimension: victim.device.limits.maxComputeWorkgroupsPerDimension,
                ...(victim.caps.subgroupSize !== undefined ? { subgroupSize: victim.caps.subgroupSize } : {}),
            },
            bandwidthBytesPerMs,
            kernelFloorMs,
            dispatchOverheadMs,
            submitOverheadMs,
            serviceCv: jitter.serviceCv,
            serviceCvAtMs: jitter.requestMedianMs,
            hostSpeedProbeMs,
            serviceTailMs: jitter.serviceTailMs,
            corunTailMs,
            hostMeanFactor: jitter.hostMeanFactor,
            idlePenalty,
            ...(firstPassMs ? { firstPassMs } : {}),
            families,
            refinement: { anchors: refined.refined.anchors, added: refined.refined.added },
            interference: { pairs },
            calibrationMs: performance.now() - started,
            hostLoad: { before: loadBefore, after: loadavg()[0], cores: availableParallelism() },
        };
        const corunModel = corunModelFrom(parseProfile(profile, 'measured profile'), probeTenants, probeRounds, probe, c, performance.now() - probeStarted);
        return parseProfile({ ...profile, ...corunModel, calibrationMs: performance.now() - started }, 'measured profile');
    } finally {
        for (const p of prepared) p.destroy();
        for (const d of opened) d.device.destroy();
        gpu = undefined;
    }
}

/**
 * 8. The co-run model (corun-evidence.ts): the probe's co-run predicted on the profile of steps 1–7
 *    (the schedule simulation, as for a user's workload) at every candidate turn, the turn nearest
 *    the rounds kept (corunQuantumMs), and what the co-run figures' bands lacked to hold each
 *    round's measurements (corunModelError); and how far each op's co-run time moved between
 *    rounds (corunOpNoise).
 */
function corunModelFrom(profile: DeviceProfile, tenants: readonly IrTenant[], rounds: CorunRounds, probe: CorunProbeSettings, c: Calibration, elapsedMs: number): Pick<DeviceProfile, 'corunQuantumMs' | 'corunModelError' | 'corunOpNoise'> {
    const evidence = corunEvidence(probeWorkload(tenants, probe.durationMs, probe.warmupMs), profile, rounds);
    const turn = (q: number) => (Number.isFinite(q) ? `${q} ms` : 'whole kernels');
    const shown = evidence.predicted.map((t, k) => `${t.name} mean ${t.corun.mean.toFixed(1)} ms predicted, ${rounds.map(r => (r[k].latenciesMs.length > 0 ? statisticOf(sortedAscending(r[k].latenciesMs), 'mean').toFixed(1) : '—')).join(' / ')} measured`);
    const e = evidence.corunModelError, o = evidence.corunOpNoise;
    c.progress.finish(`co-run model (${rounds.length} rounds of ${(probe.durationMs / 1000).toFixed(1)} s, ${(elapsedMs / 1000).toFixed(1)} s): turns of ${turn(evidence.quantumMs ?? Infinity)} `
        + `(score ${evidence.scores.map(s => `${turn(s.quantumMs)} ${Number.isFinite(s.score) ? s.score.toFixed(2) : '∞'}`).join(', ')}); ${shown.join('; ')}; `
        + `${e ? `error ±${formatPercent(e.excessP90)} beyond the bands at p90 of ${e.points} figures` : 'no error measured (no request completed)'}`
        + `${o ? `; ops' co-run times moved ±${formatPercent(o.p90)} between rounds at p90 of ${o.points}` : ''}`);
    return { ...(evidence.quantumMs !== undefined ? { corunQuantumMs: evidence.quantumMs } : {}), ...(e ? { corunModelError: e } : {}), ...(o ? { corunOpNoise: o } : {}) };
}

/** Where a shader pass is: the part of its cases done, the seconds it is projected to take in all, and what it is doing. */
type ShaderPassProgress = (part: number, seconds: number, message: string) => void;

/**
 * 0. The shaders, compiled before anything is timed, over one device per core (at most four).
 *    Lavapipe compiles a pipeline at its first dispatch (about 0.6 s each) and keeps it in Mesa's
 *    on-disk cache, where any later device finds it: on a fresh machine the ladders' 199 pipelines
 *    took 123–126 s of the first calibration, one after another on the device that times them. A
 *    first dispatch of every case spread over two devices compiled them in 72 s, after which the
 *    timing device ran them all in 3.5 s (BENCHMARKS.md, "A first calibration on a fresh machine").
 *    On a warm cache the first cases dispatch at once and the pass stops there. A case a generator
 *    refuses is left to the ladders, which say so.
 *
 *    "At once": within WARM_DISPATCH_MS. The first cases are GEMMs, which compile in 0.6–1.3 s
 *    each; found in the cache, their first dispatches took 3–140 ms beside the other worker
 *    preparing its case (16 cases × 3 trials, 2026-12-07). At 100 ms one slow dispatch in four
 *    calibrations sent a warm pass through all 151 cases (5 s).
 */
const WARM_PROBE_CASES = 6, WARM_DISPATCH_MS = 300;

async function warmShaders(c: Calibration, cases: readonly SyntheticCase[], opened: Gpu[], what: string, report: ShaderPassProgress): Promise<void> {
    const started = performance.now();
    const workers: Gpu[] = [];
    for (let i = 0; i < Math.max(1, Math.min(availableParallelism(), 4)); i++) {
        const { dev } = await openDevice(c.gpu, c.preference, `calibrate-warm-${i}`);
        opened.push(dev);
        workers.push(dev);
    }
    // A warm cache compiles nothing: once the first cases all dispatched at once, the rest are left to the ladders.
    let next = 0, done = 0, fast = 0, warm = false, failed = false;
    let seen = 0, nextReport = WARM_PROBE_CASES;
    await Promise.all(workers.map(async w => {
        while (next < cases.length && !warm && !failed) {
            const sc = cases[next++];
            let prepared: PreparedCase | undefined;
            try {
                prepared = await prepareCase(w.device, w.pipelines, sc, w.caps);
                const t0 = performance.now();
                await timeLaunches(w.device, prepared, 1, c.signal);
                done++;
                if (performance.now() - t0 < WARM_DISPATCH_MS) fast++;
                if (fast === done && (done >= WARM_PROBE_CASES || done === cases.length)) warm = true;
            } catch (error) {
                // Another worker stops at its next case: the calibration ends (cancelled, or the device lost).
                if (!(error instanceof KernelError)) { failed = true; throw error; }
            } finally {
                prepared?.destroy();
            }
            // Past the warm probe, about every tenth of the cases, with the pass's length projected from its rate so far.
            if (++seen >= nextReport && !warm && !failed) {
                nextReport = seen + Math.max(1, Math.ceil(cases.length / 10));
                const elapsed = (performance.now() - started) / 1000;
                report(seen / cases.length, (elapsed * cases.length) / seen, `shaders: compiling, ${seen} of ${cases.length} ${what} (${elapsed.toFixed(0)} s)`);
            }
        }
    }));
    for (const w of workers) {
        w.device.destroy();
        opened.splice(opened.indexOf(w), 1);
    }
    const elapsed = (performance.now() - started) / 1000, seconds = elapsed.toFixed(1);
    report(1, elapsed, warm ? `shaders: already compiled (the first ${done} cases dispatched at once; ${seconds} s)` : `shaders compiled: ${cases.length} ${what} on ${workers.length} device${workers.length === 1 ? '' : 's'} in ${seconds} s`);
}

/** 1. Kernel floor: a one-workgroup kernel in a request of its own (the launch cost itself). */
async function measureKernelFloor(c: Calibration): Promise<number> {
    const trivial = await c.prep(c.victim, reluCase(4));
    await timeSequence(c.victim.device, [trivial], 3, c.signal);
    const kernelFloorMs = robustStats((await timeSequence(c.victim.device, [trivial], 15, c.signal)).launches[0][0]).median;
    c.progress.at('ladders', 0, `kernel floor ${kernelFloorMs.toFixed(3)} ms`);
    return kernelFloorMs;
}

/** One ladder's cases and their times in every round. */
interface LadderRun {
    family: string;
    cases: PreparedCase[];
    reps: number;
    times: SequenceTimes[];
}

/** The ladders' and the mid-size request's times, round by round. */
interface LadderRounds {
    runs: LadderRun[];
    /** The mid-size request (a conv and two matmuls in one submission, as a tenant's request) and its times per round. */
    request: PreparedCase[];
    requestRuns: SequenceTimes[];
}

/**
 * 2. Each ladder runs as one request-like sequence (timeSequence: one submission, a pass per
 *    launch, repetitions back to back). The repetitions are spread over rounds through all
 *    ladders, so a burst of other processes on the host hits a share of every ladder's samples
 *    instead of all of one ladder's. The mid-size request of step 5 runs in every round too,
 *    so its jitter is sampled over the same window as the ladders.
 */
async function measureLadderRounds(c: Calibration, ladders: readonly Ladder[]): Promise<LadderRounds> {
    const { victim, signal, quick } = c;
    const rounds = quick ? 2 : 5;
    // Per-case medians moved ±50% between runs on a shared 2-core host with 1.5 s per ladder: more samples, more rounds.
    c.progress.at('ladders', 0, `curves: ${ladders.length} ladders, a first run of each`);
    const runs = await prepareRuns(c, ladders, quick ? 500 : 4000, rounds);
    const request = await Promise.all(referenceRequest().map(sc => c.prep(victim, sc)));
    await timeSequence(victim.device, request, 2, signal);
    const requestRuns: SequenceTimes[] = [];
    // 300 in all (60 a round): its tail is an empirical p99, which 100 walls spread over the rounds left at 2.6–24 ms.
    const requestReps = Math.ceil((quick ? 30 : 300) / rounds);
    for (let round = 0; round < rounds; round++) {
        c.progress.at('curves', round / rounds, `curves: round ${round + 1} of ${rounds} through ${runs.length} ladders`);
        for (const run of runs) run.times.push(await timeSequence(victim.device, run.cases, run.reps, signal));
        requestRuns.push(await timeSequence(victim.device, request, requestReps, signal));
    }
    return { runs, request, requestRuns };
}

/**
 * The ladders' cases prepared on the victim and warmed up (pipeline compilation at first
 * dispatch, first touch of memory), with repetitions per round for about `budgetMs` of each
 * ladder over `rounds` rounds (5 to 40 in all, 9 at most when quick).
 */
async function prepareRuns(c: Calibration, ladders: readonly Ladder[], budgetMs: number, rounds: number): Promise<LadderRun[]> {
    const { victim, signal, quick } = c;
    const minReps = 5, maxReps = quick ? 9 : 40;
    const runs: LadderRun[] = [];
    for (const ladder of ladders) {
        const cases: PreparedCase[] = [];
        for (const sc of ladder.cases) {
            try {
                cases.push(await c.prep(victim, sc));
            } catch (error) {
                // A variant this device cannot run (e.g. subgroup GEMMs without subgroups): not measured, said so.
                if (error instanceof KernelError) { c.progress.say(`${ladder.family}: ${sc.shape} skipped — ${error.message}`); continue; }
                throw error;
            }
        }
        if (cases.length === 0) continue;
        const warm = await timeSequence(victim.device, cases, 2, signal);
        const reps = Math.max(minReps, Math.min(maxReps, Math.round(budgetMs / Math.max(0.05, robustStats(warm.walls).median))));
        runs.push({ family: ladder.family, cases, reps: Math.ceil(reps / rounds), times: [] });
    }
    return runs;
}

/**
 * 2b. Adaptive sampling (refine.ts): where a family's leave-one-out error is largest, its point
 *     measured again and cases of its kind between it and its neighbours, in interleaved rounds
 *     as the ladders were. Returns the runs to add to the ladders' and what was refined.
 */
async function refineLadders(c: Calibration, ladders: readonly Ladder[], first: LadderRounds, floorMs: number, opened: Gpu[]): Promise<{ runs: LadderRun[]; refined: Refinement }> {
    const { families } = familiesFrom(first.runs);
    const refined = refinement(families, floorMs, bandwidthOf(families), ladders, c.quick ? REFINE_QUICK : REFINE);
    if (refined.ladders.length === 0) {
        c.progress.at('refine', 1, `refined: nothing (no point a ladder can build beside was missed by ${formatPercent(REFINE.minError)} or more when left out)`);
        return { runs: [], refined };
    }
    // The new cases' shaders, like the ladders' (step 0), before the device that times them meets them.
    // The pass takes the first part of the step, its projected seconds beside the step's usual ones.
    const added = new Set(refined.added);
    const passShare = () => c.progress.projectedShare('refine');
    await warmShaders(c, refined.ladders.flatMap(l => l.cases).filter(sc => added.has(sc.shape)), opened, 'refined cases', (part, seconds, message) => {
        c.progress.project('refine', seconds);
        c.progress.at('refine', part * passShare(), message);
    });
    const rounds = c.quick ? 2 : 3;
    const runs = await prepareRuns(c, refined.ladders, c.quick ? 300 : 1500, rounds);
    for (let round = 0; round < rounds; round++) {
        c.progress.at('refine', passShare() + (1 - passShare()) * (round / rounds), `refining: round ${round + 1} of ${rounds} through ${runs.length} ladders`);
        for (const run of runs) run.times.push(await timeSequence(c.victim.device, run.cases, run.reps, c.signal));
    }
    c.progress.at('refine', 1, `refined: ${refined.anchors.map(a => `${a.family} at ${a.shape} (leave-one-out ${formatSignedPercent(a.error)})`).join(', ')}; ${refined.added.length} more cases`);
    return { runs, refined };
}

/** A run's times of all rounds pooled (launches per case and launch; walls, GPU sums). */
function pooled(run: { cases: readonly PreparedCase[] }, times: readonly SequenceTimes[]): SequenceTimes {
    return {
        launches: run.cases.map((p, ci) => p.steps.map((_, li) => times.flatMap(x => x.launches[ci][li]))),
        walls: times.flatMap(x => x.walls), gpu: times.flatMap(x => x.gpu), passes: times[0].passes,
    };
}

/**
 * 2 (cont.). Every launch's median time lands in its family's curve: the throughput-vs-size curve
 * of each kernel family. With it, each family's measurement errors: every launch's round medians
 * against its pooled median (band-evidence.ts roundDeviations), the rounds being interleaved
 * through all ladders.
 */
function familiesFrom(runs: readonly LadderRun[], c?: Calibration): { families: Record<string, FamilyProfile>; deviations: Record<string, number[]> } {
    const points = new Map<string, CurvePoint[]>();
    const deviations: Record<string, number[]> = {};
    for (const run of runs) {
        const t = pooled(run, run.times);
        run.cases.forEach((p, ci) => {
            const sc = p.case;
            const outputs = sc.outputShape.reduce((x, y) => x * y, 1);
            const ms = t.launches[ci].map(xs => robustStats(xs).median);
            p.kernels.launches.forEach((l, i) => {
                const fam = familyOf(l.name);
                (deviations[fam] ??= []).push(...roundDeviations(run.times.map(x => x.launches[ci][i])));
                const list = points.get(fam) ?? [];
                const { flops, bytes, workgroups, effectiveFlops, strideAlignment, scalarLoads } = plannedLaunch(l, outputs);
                list.push({
                    flops, bytes, workgroups, effectiveFlops, ...(strideAlignment !== undefined ? { strideAlignment } : {}), ...(scalarLoads !== undefined ? { scalarLoads } : {}),
                    ms: Math.max(ms[i], 1e-6), shape: `${sc.shape} [${l.name}]`,
                });
                points.set(fam, list);
            });
            const total = ms.reduce((s, x) => s + x, 0);
            const flops = p.kernels.launches.reduce((s, l) => s + l.flops, 0);
            c?.progress.say(`${run.family}: ${sc.shape} ${total.toFixed(3)} ms${flops > 0 ? ` (${(flops / total / 1e6).toFixed(2)} GFLOP/s)` : ''}`);
        });
    }
    const families: Record<string, FamilyProfile> = {};
    for (const [fam, pts] of points) {
        const basis = BYTES_FAMILIES.has(fam.split('.')[0]) || pts.every(p => p.flops === 0) ? 'bytes' : 'flops';
        const usable = basis === 'flops' ? pts.filter(p => p.flops > 0) : pts;
        if (usable.length === 0) continue;
        families[fam] = { basis, points: mergeSameWork(usable, basis) };
    }
    return { families, deviations };
}

/**
 * 3b. Each family's band evidence (predict/band.ts, calibrate/band-evidence.ts; computation only):
 *     leave-one-out error over the points just measured (a family with few points: its class's
 *     pooled) and the run-to-run error of its launches' measurements.
 */
function addBandEvidence(families: Record<string, FamilyProfile>, deviations: Record<string, number[]>, floorMs: number, bandwidthBytesPerMs: number, c: Calibration): void {
    const evidence = bandEvidence(families, floorMs, bandwidthBytesPerMs, deviations);
    const shown: string[] = [];
    for (const [name, fam] of Object.entries(families)) {
        const e = evidence[name];
        if (!e) continue;
        fam.error = e;
        shown.push(`${name} ±${formatPercent(familyBand(fam).relative)}${e.from === 'family' ? '' : ` (${e.from})`}`);
    }
    c.progress.say(`error bands (90 %, leave-one-out + run-to-run noise): ${shown.join(', ') || 'none (no family measured at enough sizes)'}`);
}

/** 3. Memory bandwidth from the largest copy-like kernel measured (relu.map4: read once, write once). */
function bandwidthFrom(families: Record<string, FamilyProfile>, c: Calibration): number {
    const bandwidthBytesPerMs = bandwidthOf(families);
    c.progress.say(`memory bandwidth ${(bandwidthBytesPerMs / 1e6).toFixed(2)} GB/s`);
    return bandwidthBytesPerMs;
}

/** Bytes per ms of the largest relu measured (read once, written once); also what step 2b's leave-one-out predicts with. */
function bandwidthOf(families: Record<string, FamilyProfile>): number {
    const copyPoints = (families.elementwise?.points ?? []).filter(p => p.shape.startsWith('relu'));
    const largest = copyPoints[copyPoints.length - 1];
    if (!largest) throw new Error('internal: no copy kernel was measured for the memory bandwidth');
    return largest.bytes / largest.ms;
}

/**
 * 4. Dispatch and submit overhead: what the ladders' requests took beyond their passes (submit,
 *    completion seen by this process, gaps), fitted over the ladders as u + passes·d.
 */
function overheadsFrom(rounds: LadderRounds, c: Calibration): { dispatchOverheadMs: number; submitOverheadMs: number } {
    const overheads = rounds.runs.map(run => {
        const t = pooled(run, run.times);
        return { passes: t.passes, ms: robustStats(t.walls.map((w, r) => w - t.gpu[r])).median };
    });
    const distinct = new Set(overheads.map(o => o.passes)).size;
    const line = distinct >= 2 ? fitLine(overheads.map(o => o.passes), overheads.map(o => o.ms)) : { intercept: robustStats(overheads.map(o => o.ms)).median, slope: 0 };
    const dispatchOverheadMs = Math.max(0, line.slope);
    const submitOverheadMs = Math.max(0, line.intercept + Math.min(0, line.slope) * robustStats(overheads.map(o => o.passes)).median);
    c.progress.say(`dispatch overhead ${(dispatchOverheadMs * 1000).toFixed(1)} µs per pass, submit ${(submitOverheadMs * 1000).toFixed(0)} µs per request`);
    return { dispatchOverheadMs, submitOverheadMs };
}

/**
 * 5. Service jitter: robust CV and tail of the mid-size request's wall time, and the host's
 *    mean/median factors of GPU and wall time over every request timed (its stalls).
 */
function jitterFrom(rounds: LadderRounds, c: Calibration): {
    serviceCv: number; requestMedianMs: number; serviceTailMs: Tail; hostMeanFactor: NonNullable<DeviceProfile['hostMeanFactor']>;
} {
    const runsPerRound = rounds.requestRuns;
    const walls = runsPerRound.flatMap(x => x.walls);
    // The CV within each round (the jitter of a request at one host state), the median over rounds: the
    // CV of all walls pooled swung 3.5…60% between calibrations as other processes came and went.
    const requestMedianMs = robustStats(walls).median;
    const serviceCv = medianOf(runsPerRound.map(x => robustStats(x.walls).cv));
    // The tail within a host state: each round levelled to the pooled median (a round a burst slowed as a
    // whole is load, not tail).
    const levelled = levelledByTrial(runsPerRound.map(x => x.walls));
    const serviceTailMs = tailBeyondBody(levelled, requestMedianMs, serviceCv);
    const hostMeanFactor = hostMeanFactorFrom([...rounds.runs.map(run => ({ cases: run.cases, times: run.times })), { cases: rounds.request, times: runsPerRound }]);
    c.progress.say(`service jitter (robust CV) ${(serviceCv * 100).toFixed(1)}%, tail beyond it at p99 ${serviceTailMs.p99.toFixed(2)} ms; mean/median ${hostMeanFactor.gpu.toFixed(2)} (GPU) ${hostMeanFactor.wall.toFixed(2)} (wall)`);
    return { serviceCv, requestMedianMs, serviceTailMs, hostMeanFactor };
}

/**
 * What the host's stalls (other processes on the cores a software adapter computes on) add to an
 * average request over its median, in GPU and wall time. A stall lands on whichever op is
 * running, so an op's mean exceeds its median. Each round through all ladders is one trial
 * (Σ means of that round) over the medians pooled over all rounds; the factor is the median
 * over trials, so one round a burst of other work landed on cannot carry it.
 */
function hostMeanFactorFrom(requests: readonly { cases: readonly PreparedCase[]; times: readonly SequenceTimes[] }[]): { gpu: number; wall: number } {
    const rounds = requests[0]?.times.length ?? 0;
    const trials = Array.from({ length: rounds }, () => ({ gpuMean: 0, wallMean: 0 }));
    const pool = { gpuMedian: 0, wallMedian: 0 };
    for (const { times } of requests) {
        for (let ci = 0; ci < times[0].launches.length; ci++) {
            for (let li = 0; li < times[0].launches[ci].length; li++) {
                pool.gpuMedian += robustStats(times.flatMap(x => x.launches[ci][li])).median;
                times.forEach((x, r) => { trials[r % rounds].gpuMean += mean(x.launches[ci][li]); });
            }
        }
        pool.wallMedian += robustStats(times.flatMap(x => x.walls)).median;
        times.forEach((x, r) => { trials[r % rounds].wallMean += mean(x.walls); });
    }
    return {
        gpu: meanFactorFromTrials(trials.map(t => t.gpuMean), pool.gpuMedian),
        wall: meanFactorFromTrials(trials.map(t => t.wallMean), pool.wallMedian),
    };
}

/**
 * 5b. What a request that finds the device idle pays beyond back to back, through the runtime's
 *     own path (runtime-idle.ts): two synthetic tenants of different lengths compiled and run by
 *     TenantRunner in the phase loop, closed loop back to back vs a low-rate Poisson stream, on a
 *     device requested as a tenant's. Idle arrivals timed on timers outside the runtime
 *     (bench/accuracy/idle-penalty.ts) miss most of what open-loop tenants pay in the runtime on this host.
 */
async function measureIdlePenalty(c: Calibration): Promise<{ idlePenalty: NonNullable<DeviceProfile['idlePenalty']>; firstPassMs?: DeviceProfile['firstPassMs'] }> {
    const started = performance.now();
    c.progress.at('idle', 0, 'idle arrivals: two synthetic tenants through the runtime, back to back and at a low rate');
    const device = await requestTenantDevice(c.gpu, c.preference, 'calibrate-runtime-idle', { timestamps: true });
    let trials: RuntimeIdleTrial[];
    try {
        trials = await measureRuntimeIdle(device.device, capsFromDevice(device.device), RUNTIME_IDLE_BLOCKS.map(idleProbeTenant), {
            trials: c.quick ? 2 : RUNTIME_IDLE_TRIALS, closedRequests: c.quick ? 8 : 60, openRequests: c.quick ? 6 : 20, ratePerSecond: RUNTIME_IDLE_RATE, signal: c.signal,
        });
    } finally {
        device.device.destroy();
    }
    const idle = idlePenaltyFromRuntimeTrials(trials);
    const first = idle.firstPass ? `; a request's first pass +${idle.firstPass.busy.toFixed(3)} ms back to back, +${idle.firstPass.idle.toFixed(3)} ms from idle` : '';
    c.progress.at('idle', 1, `idle arrivals (runtime path): +${idle.wallMs.toFixed(2)} ms, and +${idle.gpuMsPerPass.toFixed(3)} ms per pass (${idle.lengths.map(l => `${l.passes} passes: +${l.extraMs.toFixed(2)} ms, GPU +${l.extraGpuMs.toFixed(2)}, trials ${l.trialsMs.map(x => x.toFixed(1)).join(' ')}`).join('; ')}${first}; ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return { idlePenalty: { wallMs: idle.wallMs, gpuMsPerPass: idle.gpuMsPerPass }, ...(idle.firstPass ? { firstPassMs: idle.firstPass } : {}) };
}

/**
 * 6. Interference: a victim kernel timed on the victim device while a second device (a second
 *    adapter, so a second queue) runs an aggressor continuously: compute×compute, compute×memory,
 *    memory×compute, memory×memory and a workgroup-capped variant against compute both ways.
 *    Solo and co-run repetitions alternate in rounds, so drifting load hits both alike. Returns
 *    the pairs and the aggressor device with its compute kernel (step 7 reuses them).
 */
async function measureInterference(c: Calibration, kinds: Record<DemandKind, SyntheticCase>, opened: Gpu[]): Promise<{ pairs: InterferencePair[]; aggressor: { device: Gpu; compute: PreparedCase } }> {
    c.progress.at('interference', 0, 'interference: kernel pairs, one on each of two devices');
    const { dev: b } = await openDevice(c.gpu, c.preference, 'calibrate-aggressor');
    opened.push(b);
    const a = c.victim;
    const victims: Record<DemandKind, PreparedCase> = {
        compute: await c.prep(a, kinds.compute), memory: await c.prep(a, kinds.memory), capped: await c.prep(a, kinds.capped),
    };
    const aggressors: Record<DemandKind, PreparedCase> = {
        compute: await c.prep(b, kinds.compute), memory: await c.prep(b, kinds.memory), capped: await c.prep(b, kinds.capped),
    };
    const combos: [DemandKind, DemandKind][] = [
        ['compute', 'compute'], ['compute', 'memory'], ['memory', 'compute'], ['memory', 'memory'], ['capped', 'compute'], ['compute', 'capped'],
    ];
    // Many short rounds: one pair's slowdown moved 1.3–2.7× between runs with 4 rounds of 3 on a shared host.
    const rounds = c.quick ? 3 : 12, perRound = 5;
    const pairs: InterferencePair[] = [];
    for (const [v, g] of combos) {
        await timeLaunches(b.device, aggressors[g], 1, c.signal); // compile + warm the aggressor alone
        await timeLaunches(a.device, victims[v], 1, c.signal);
        const soloT: number[] = [], coT: number[] = [];
        for (let r = 0; r < rounds; r++) {
            soloT.push(...(await timeLaunches(a.device, victims[v], perRound, c.signal))[0]);
            const agg = startAggressor(b.device, aggressors[g], c.signal);
            try {
                await timeLaunches(a.device, victims[v], 1, c.signal); // let the aggressor reach its steady state
                coT.push(...(await timeLaunches(a.device, victims[v], perRound, c.signal))[0]);
            } finally {
                await agg.stop();
            }
        }
        const slowdown = robustStats(coT).median / robustStats(soloT).median;
        pairs.push({ victim: v, aggressor: g, slowdown, victimKernel: kinds[v].shape, aggressorKernel: kinds[g].shape });
        c.progress.at('interference', pairs.length / combos.length, `interference ${v} × ${g}: ${slowdown.toFixed(2)}×`);
    }
    return { pairs, aggressor: { device: b, compute: aggressors.compute } };
}

/**
 * 7. The mid-size request's wall-time tail while another device computes continuously: co-running
 *    tenants on a software adapter share the cores through the OS scheduler, whose stalls put a
 *    far heavier tail on a request than running alone. Beyond the body the schedule simulation
 *    gives a co-running request: its median (the interference pairs' slowdowns are medians too)
 *    spread by the *solo* service CV, the only jitter the simulation draws. Beyond the co-run
 *    walls' own, wider CV instead, the tail comes out 0 in most calibrations and the co-run
 *    spread is lost: every co-run tail of the accuracy benchmark read low (−8 to −56 %, 11
 *    tenants of 11 in one run, 2026-12-06).
 */
async function measureCorunTail(c: Calibration, request: PreparedCase[], aggressor: { device: Gpu; compute: PreparedCase }, solo: { tailMs: Tail; cv: number }): Promise<Tail> {
    await timeLaunches(aggressor.device.device, aggressor.compute, 1, c.signal);
    const agg = startAggressor(aggressor.device.device, aggressor.compute, c.signal);
    let walls: number[];
    try {
        await timeSequence(c.victim.device, request, 2, c.signal);
        // 300 walls: an empirical p99 of 150 rests on their one or two largest (27…59 ms between calibrations).
        walls = (await timeSequence(c.victim.device, request, c.quick ? 30 : 300, c.signal)).walls;
    } finally {
        await agg.stop();
    }
    const stats = robustStats(walls);
    const corunTailMs = tailBeyondBody(walls, stats.median, solo.cv);
    c.progress.at('corunTail', 1, `co-running: request tail beyond the solo body (CV ${(solo.cv * 100).toFixed(1)}%; co-run walls' own ${(stats.cv * 100).toFixed(1)}%) at p90/p95/p99 ${corunTailMs.p90.toFixed(2)}/${corunTailMs.p95.toFixed(2)}/${corunTailMs.p99.toFixed(2)} ms (alone ${solo.tailMs.p99.toFixed(2)} ms at p99)`);
    return corunTailMs;
}

/** Points of equal work and workgroups (e.g. repeated launches of one op) merged by mean time, ascending by the basis. */
function mergeSameWork(points: CurvePoint[], basis: 'flops' | 'bytes'): CurvePoint[] {
    const key = (p: CurvePoint) => (basis === 'flops' ? p.flops : p.bytes);
    const sorted = [...points].sort((x, y) => key(x) - key(y) || x.workgroups - y.workgroups);
    const out: CurvePoint[] = [];
    for (const p of sorted) {
        const last = out[out.length - 1];
        if (last && key(last) === key(p) && last.workgroups === p.workgroups && last.effectiveFlops === p.effectiveFlops) last.ms = (last.ms + p.ms) / 2;
        else out.push({ ...p });
    }
    return out;
}
