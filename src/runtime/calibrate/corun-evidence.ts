/**
 * What calibration's co-run probe (corun-probe.ts: synthetic tenants co-run through the runtime's
 * path in short rounds) says about the co-run model (calibrate.ts step 8). Computation only (no
 * GPU). Pure.
 *
 * The turn — profile.ts corunQuantumMs: the schedule simulation lets a kernel that queued while
 * another tenant had work in flight hold the whole device while another tenant's waits for at most
 * this long (simulate.ts quantumMs; one that queued while the others were idle runs to its end). Scored
 * against the probe's rounds at every candidate turn, from whole kernels (no quantum) down to
 * 0.25 ms, the turn whose predictions lie nearest the rounds' central figures (mean and p50 of
 * both tenants: the mean |ln(predicted / measured)|) is kept. Turns matter only where one
 * tenant's kernels are much longer than another's; the probe is built that way. On lavapipe
 * (BENCHMARKS.md, "A kernel's turn"), with whole kernels the short-kernel tenant beside four 5 ms
 * denses was predicted overloaded (mean 2.4 s) where it measured 10 ms; with 0.5 ms turns, 10.7 ms.
 *
 * The co-run model's error — profile.ts corunModelError: with the kept turn, each round's five
 * figures of each tenant (mean, p50, p90, p95, p99) against the prediction and its band
 * (band-evidence.ts corunExcess). The turn was chosen on the same rounds' central figures, so
 * the excess is in-sample there; the tails it rests on most were not fitted.
 *
 * An op's co-run noise — profile.ts corunOpNoise: each op's median GPU time per request in each
 * round (what a run's results record as its co-run time) against its median over the rounds
 * (band-evidence.ts roundDeviations, as the curves' noise is read), the 90th percentile of
 * |deviation|. Model-free: the op's co-run time as predicted (its solo time × its tenant's
 * slowdown) is not scored here. It was tried, as the tenants' figures are: the probe's short
 * kernels, which wait for turns beside the long ones, were predicted at 2.9× their solo time and
 * measured 1.0–1.3×, an excess of ±360 % that would have made every op's co-run band useless, where
 * the accuracy benchmark's co-running ops err about as much as they move between two runs
 * (BENCHMARKS.md, "An op's co-run band").
 */
import type { IrTenant, WorkloadIR } from '../ir/types.js';
import { IR_VERSION } from '../ir/types.js';
import type { DeviceProfile } from '../predict/profile.js';
import { predictWorkload, type TenantPrediction } from '../predict/workload.js';
import { sortedAscending, statisticOf } from '../report/statistics.js';
import { quantileOf } from './estimators.js';
import { corunExcess, roundDeviations, type CorunPoint } from './band-evidence.js';
import type { CorunRounds } from './corun-probe.js';

/** The turns tried, ms (Infinity: a kernel runs to its end). */
export const CANDIDATE_QUANTA_MS = [Infinity, 8, 4, 2, 1, 0.5, 0.25] as const;

/** The figures the excess is read from, and the central ones the turn is fitted on. */
const FIGURES = ['mean', 'p50', 'p90', 'p95', 'p99'] as const;
const CENTRAL = ['mean', 'p50'] as const;

export interface CorunEvidence {
    /** The kept turn, ms; undefined when whole kernels fitted best. */
    quantumMs: number | undefined;
    /** Each candidate's score (mean |ln(predicted / measured)| of the central figures; Infinity when a prediction is unbounded). */
    scores: { quantumMs: number; score: number }[];
    corunModelError: DeviceProfile['corunModelError'];
    corunOpNoise: DeviceProfile['corunOpNoise'];
    /** The probe's tenants as predicted with the kept turn (for the progress line). */
    predicted: TenantPrediction[];
}

/** The probe's workload: its tenants under `concurrent`, as calibration ran them. */
export function probeWorkload(tenants: readonly IrTenant[], durationMs: number, warmupMs: number): WorkloadIR {
    return {
        irVersion: IR_VERSION, workload: 'corun_probe', sourceUri: 'tenancy:calibration', device: { preference: 'auto' },
        tenants: [...tenants], schedule: { policy: 'concurrent' }, benchmark: { durationMs, warmupMs, seed: 23 },
    };
}

/** The turn and the co-run model's errors from the probe's rounds on `profile` (steps 1–7 of calibration). */
export function corunEvidence(ir: WorkloadIR, profile: DeviceProfile, rounds: CorunRounds): CorunEvidence {
    const measured = ir.tenants.map((_, k) => rounds.map(r => sortedAscending(r[k].latenciesMs)).filter(m => m.length > 0));
    const withTurn = (q: number): DeviceProfile => {
        const { corunQuantumMs: _, corunModelError: __, corunOpNoise: ___, ...rest } = profile;
        return Number.isFinite(q) ? { ...rest, corunQuantumMs: q } : rest;
    };
    const scores = CANDIDATE_QUANTA_MS.map(q => {
        const tenants = predictWorkload(ir, withTurn(q)).tenants;
        const logs: number[] = [];
        for (const [k, t] of tenants.entries()) {
            for (const stat of CENTRAL) for (const m of measured[k]) logs.push(Math.abs(Math.log(t.corun[stat] / statisticOf(m, stat))));
        }
        const score = logs.length > 0 && logs.every(Number.isFinite) ? logs.reduce((a, b) => a + b, 0) / logs.length : Infinity;
        return { quantumMs: q, score };
    });
    // Ties (no tenant's kernels long enough to matter) keep whole kernels: the first candidate.
    const best = scores.reduce((a, b) => (b.score < a.score - 1e-9 ? b : a));
    const kept = withTurn(best.quantumMs);
    const predicted = predictWorkload(ir, kept).tenants;
    const points: CorunPoint[] = [];
    for (const [k, t] of predicted.entries()) {
        for (const stat of FIGURES) for (const m of measured[k]) points.push({ predicted: t.corun[stat], measured: statisticOf(m, stat), band: t.corunBand[stat] });
    }
    return { quantumMs: Number.isFinite(best.quantumMs) ? best.quantumMs : undefined, scores, corunModelError: corunExcess(points), corunOpNoise: corunOpNoise(rounds), predicted };
}

/** The 90th percentile of |round deviation| of every op's co-run median per request (module comment); undefined where no op was timed in two rounds. */
export function corunOpNoise(rounds: CorunRounds): DeviceProfile['corunOpNoise'] {
    const deviations: number[] = [];
    const tenants = rounds[0]?.length ?? 0;
    for (let k = 0; k < tenants; k++) {
        const paths = new Set(rounds.flatMap(r => Object.keys(r[k].opTimesMs)));
        for (const path of paths) deviations.push(...roundDeviations(rounds.map(r => r[k].opTimesMs[path] ?? [])).map(Math.abs));
    }
    return deviations.length > 0 ? { p90: quantileOf(deviations, 0.9), points: deviations.length } : undefined;
}
