/**
 * The schedule comparison the editor's hints, its hover on `schedule` and `tenancy predict` show:
 * every candidate schedule (predict/schedules.ts autoCandidates, the ones `auto` chooses
 * among) and the workload's own, evaluated by the one schedule simulation (predict/schedules.ts),
 * the best by bestSchedule (so `auto`'s choice), the ops that collide most (predict/collisions.ts),
 * and the hint rule with its text. Pure: the language server steps the computation between
 * requests (schedule-hints.ts), the CLI runs it to the end.
 */
import type { IrSchedule, IrTenant, WorkloadIR } from '../../runtime/ir/types.js';
import type { PlanCache } from '../../runtime/plan/plan.js';
import { opCollisions, type OpCollision } from '../../runtime/predict/collisions.js';
import type { DeviceProfile } from '../../runtime/predict/profile.js';
import {
    autoCandidates, bestSchedule, completeSteps, evaluateScheduleSteps, simulationInput,
    type ScheduleEvaluation, type ScheduledTenant, type SimulationInput,
} from '../../runtime/predict/schedules.js';
import { scheduleName } from '../../runtime/schedule/policy.js';
import { alignTable } from '../../runtime/report/table.js';
import type { Comparison } from '../../runtime/report/compare.js';
import { formatPredictedMeasured } from '../../protocol/figures.js';
import { bandRange } from '../../runtime/predict/band.js';
import type { Percentile } from '../../runtime/predict/queueing.js';
import { corunBands, corunModelErrorOf, corunThroughput, requestBand, runRequests } from '../../runtime/predict/workload.js';
import { formatBandRange } from './format.js';
import { formatMs, formatRatio, msValue, significant } from '../../protocol/units.js';
import { measuredGainOf, sameSchedule, type MeasuredGain } from '../lsp/measured-comparison.js';

/**
 * How far a predicted gain must go before the editor suggests another schedule: the predictor's
 * error on the very ratio a hint rests on, a schedule's QoS-satisfied throughput over another's.
 * The schedules benchmark measured it (BENCHMARKS.md, "Schedules", runs of 2026-12-05 and -06 with
 * both capacities measured): eleven gains over `concurrent` were predicted at 0.42–1.30× what was
 * measured. Under-predicted gains cost a hint, not a wrong one; the largest over-prediction, 1.30×,
 * means a predicted 1.47× gain measured at least 1.13×. So 0.47, applied once to the ratio (both
 * schedules' figures come from the same ops on the same profile, so much of their error is shared).
 */
export const HINT_BAND = 0.47;

/** What the candidates' evaluation of a workload's traffic gives, whatever its own schedule (shared by workloads that differ only in it). */
export interface CandidateFigures {
    input: SimulationInput;
    /** In autoCandidates order. */
    candidates: ScheduleEvaluation[];
    collisions: OpCollision[];
}

/** A workload's schedules compared. */
export interface ScheduleComparison {
    workload: string;
    /** The schedule the workload declares. */
    declared: IrSchedule;
    candidates: ScheduleEvaluation[];
    /** The declared schedule's figures (a candidate's when it is one, the best for `auto`); undefined when it cannot be simulated. */
    current: ScheduleEvaluation | undefined;
    /** Why `current` is undefined. */
    currentMissing?: string;
    /** bestSchedule over the candidates: what `auto` runs, and why. */
    best: ScheduleEvaluation;
    why: string;
    collisions: OpCollision[];
    tenantCount: number;
    /** Whether any tenant declares an SLO. */
    hasSlos: boolean;
    /** What each figure's 90 % band rests on (ComparisonBands); absent: the figures are shown without. */
    bands?: ComparisonBands;
}

/**
 * What the figures' bands rest on, as the declared schedule's co-run figures' (predict/workload.ts
 * corunBands): each tenant's kernels' band h (its request's launches, the host's noise and drift),
 * the co-run model's error c calibration measured where tenants co-run, and the workload's
 * `benchmark`, how many requests a run would measure each figure from. Each schedule adds its own
 * simulation's sampling spread: the band a figure would carry were that schedule declared.
 */
export interface ComparisonBands {
    /** Per tenant (the IR's order), the relative band h and its arrivals (the requests a run brings it: workload.ts corunThroughput). */
    tenants: { h: number; arrival: IrTenant['arrival'] }[];
    corunModelError: number;
    benchmark: WorkloadIR['benchmark'];
}

/** A figure's relative 90 % band under a schedule, per percentile (see ComparisonBands). */
export function figureBands(bands: ComparisonBands, tenant: number, t: ScheduledTenant): Record<Percentile, number> {
    const { h, arrival } = bands.tenants[tenant];
    return corunBands(h, t, runRequests(bands.benchmark, corunThroughput(arrival, t)), bands.corunModelError);
}

/**
 * The range of a schedule's QoS-satisfied load, read off the loads its capacity search simulated
 * (ScheduleEvaluation.capacityProbes), no further simulation: `low`, the load at which the worst
 * SLO reaches its target at its figure's band's high end; `high`, at its band's low end. Each is
 * where that SLO's margin (figure ÷ target at the band's end, the worst over the SLOs) crosses 1,
 * interpolated in log–log between the highest load tried below 1 and the lowest above. The search
 * probes around the capacity, so a crossing outside the loads tried is a bound on the safe side:
 * `low` 0 when even the least load tried misses at the high end, the highest tried when none does;
 * `high` the least load tried when it already misses at the low end, null when none tried does.
 * Undefined without a search or an SLO.
 */
export function capacityRange(e: ScheduleEvaluation, bands: ComparisonBands): { low: number; high: number | null } | undefined {
    if (e.capacityProbes.length === 0 || !e.tenants.some(t => t.slos.length > 0)) return undefined;
    const probes = [...e.capacityProbes].sort((a, b) => a.load - b.load);
    const margins = probes.map(probe => {
        let pessimistic = 0, optimistic = 0;
        probe.tenants.forEach((t, i) => {
            const band = figureBands(bands, i, t);
            for (const s of t.slos) {
                const b = band[s.percentile as Percentile];
                pessimistic = Math.max(pessimistic, b < 1 ? s.predictedMs / ((1 - b) * s.targetMs) : Infinity);
                optimistic = Math.max(optimistic, s.predictedMs / ((1 + b) * s.targetMs));
            }
        });
        return { load: probe.load, pessimistic, optimistic };
    });
    // Where a margin crosses 1 between the loads tried; outside them, the bound on the safe side (the range only widens).
    const crossing = (margin: (m: typeof margins[number]) => number, belowAll: number, aboveAll: number | null): number | null => {
        const below = margins.filter(m => margin(m) <= 1).at(-1);
        const above = margins.find(m => margin(m) > 1 && (!below || m.load > below.load));
        if (!above) return aboveAll;
        if (!below) return belowAll;
        const [ma, mb] = [margin(below), margin(above)];
        if (!Number.isFinite(mb) || !(ma > 0)) return below.load;
        return Math.exp(Math.log(below.load) + (Math.log(above.load) - Math.log(below.load)) * (-Math.log(ma)) / (Math.log(mb) - Math.log(ma)));
    };
    return {
        low: crossing(m => m.pessimistic, 0, margins.at(-1)!.load) ?? 0,
        high: crossing(m => m.optimistic, margins[0].load, null),
    };
}

/** `1.8–14×`, `≥ 1.8×` (no load tried misses at the band's low end), `≤ 14×` (every load tried misses at its high end) (capacityRange). */
function formatLoadRange(r: { low: number; high: number | null }): string {
    if (r.low > 0 && r.high !== null) return `${significant(r.low)}–${significant(r.high)}×`;
    if (r.low > 0) return `≥ ${significant(r.low)}×`;
    return r.high !== null ? `≤ ${significant(r.high)}×` : 'no bound';
}

/** A schedule's QoS-satisfied throughput cell: `1818/s at 0.17× the load (0.12–0.25×)`, the range where the figures have bands. */
function capacityText(e: ScheduleEvaluation, bands: ComparisonBands | undefined): string {
    if (!(e.qosThroughput > 0)) return '— (no load meets the SLOs)';
    const range = bands && capacityRange(e, bands);
    return `${significant(e.qosThroughput)}/s at ${formatRatio(e.capacityLoad)} the load${range ? ` (${formatLoadRange(range)})` : ''}`;
}

/** The candidates evaluated on a workload, stepwise (a step per simulation); capacity searched, as `auto` does. */
export function* candidateSteps(ir: WorkloadIR, profile: DeviceProfile, cache?: PlanCache): Generator<void, CandidateFigures> {
    const input = simulationInput(ir, profile, { cache });
    yield;
    const candidates: ScheduleEvaluation[] = [];
    for (const schedule of autoCandidates(profile)) candidates.push(yield* evaluateScheduleSteps(schedule, input, { capacity: true }));
    return { input, candidates, collisions: opCollisions(input, { top: 3 }) };
}

/** Whether the declared schedule is one of the candidates (then its figures are the candidate's), or `auto`. */
export function declaredAmongCandidates(schedule: IrSchedule, profile: DeviceProfile): boolean {
    return schedule.policy === 'auto' || autoCandidates(profile).some(c => scheduleName(c) === scheduleName(schedule));
}

/** The declared schedule evaluated like the candidates, stepwise; undefined with why when the simulation cannot run it. */
export function* declaredSteps(schedule: IrSchedule, input: SimulationInput): Generator<void, { evaluation?: ScheduleEvaluation; missing?: string }> {
    try {
        return { evaluation: yield* evaluateScheduleSteps(schedule, input, { capacity: true }) };
    } catch (error) {
        return { missing: `${scheduleName(schedule)} cannot be simulated (${error instanceof Error ? error.message : String(error)})` };
    }
}

/** Puts a comparison together from the candidates' figures and, when the declared schedule is not a candidate, its own. */
export function assembleComparison(ir: WorkloadIR, figures: CandidateFigures, declared?: { evaluation?: ScheduleEvaluation; missing?: string }): ScheduleComparison {
    const { best, why } = bestSchedule(figures.candidates);
    const name = scheduleName(ir.schedule);
    const current = ir.schedule.policy === 'auto' ? best : figures.candidates.find(c => c.name === name) ?? declared?.evaluation;
    return {
        workload: ir.workload, declared: ir.schedule, candidates: figures.candidates, current,
        currentMissing: current ? undefined : declared?.missing ?? `${name} was not evaluated`,
        best, why, collisions: figures.collisions, tenantCount: ir.tenants.length, hasSlos: ir.tenants.some(t => t.slos.length > 0),
        bands: {
            tenants: figures.input.plans.map((plan, i) => ({ h: requestBand(figures.input.profile, plan, figures.input.cache).relative, arrival: ir.tenants[i].arrival })),
            corunModelError: corunModelErrorOf(figures.input.profile, ir.tenants.length),
            benchmark: ir.benchmark,
        },
    };
}

/** The whole comparison at once (the CLI's form). */
export function compareWorkloadSchedules(ir: WorkloadIR, profile: DeviceProfile, cache?: PlanCache): ScheduleComparison {
    const figures = completeSteps(candidateSteps(ir, profile, cache));
    return assembleComparison(ir, figures, declaredAmongCandidates(ir.schedule, profile) ? undefined : completeSteps(declaredSteps(ir.schedule, figures.input)));
}

/** An SLO the suggested schedule is predicted to meet and the declared one to miss, at the declared load. */
export interface RescuedSlo {
    tenant: string;
    percentile: string;
    targetMs: number;
    suggestedMs: number;
    currentMs: number;
}

/** A suggestion to change schedule. */
export interface ScheduleHint {
    suggested: ScheduleEvaluation;
    current: ScheduleEvaluation;
    /** The suggested schedule's QoS-satisfied throughput over the current one's (∞ when the current meets the SLOs at no load). */
    gain: number;
    rescued: RescuedSlo[];
    /** The costliest colliding ops, when the current schedule lets tenants' ops overlap. */
    collisions: OpCollision[];
    /** `tenancy compare`'s measured gain of the suggested schedule over the declared one, when it measured both. */
    measured: MeasuredGain | undefined;
    /** Why the hint is withdrawn: the measurement contradicts it (no gain, or worse). Then it suggests nothing. */
    withdrawn: string | undefined;
    /** The diagnostic's text. */
    message: string;
}

/**
 * The measured gain of `schedule` over the declared schedule in the latest `tenancy compare` of the
 * workload (its baseline is the schedule the workload declared when it ran); undefined when
 * there is none, it measured against another schedule (the line changed since), or not `schedule`.
 */
export function measuredAgainstDeclared(c: ScheduleComparison, schedule: string, measured: Comparison | undefined): MeasuredGain | undefined {
    if (!measured || !sameSchedule(measured.baseline, scheduleName(c.declared))) return undefined;
    return measuredGainOf(measured, schedule);
}

/**
 * Whether a measurement withdraws a hint, and the words: a complete, valid comparison whose
 * interval shows no gain ruling out the predicted one, or a loss (measured-comparison.ts
 * betterThanBaseline). `measured: no gain (0.90–1.10×) in nlp's p99, hint withdrawn`.
 */
function withdrawal(m: MeasuredGain | undefined): string | undefined {
    if (!m?.measured || m.betterThanBaseline !== 'contradicted' || !m.complete || !m.valid) return undefined;
    const g = m.measured;
    const interval = g.low !== null && g.high !== null ? `${g.low.toFixed(2)}–${g.high.toFixed(2)}×` : `${g.estimate.toFixed(2)}×`;
    const word = g.verdict === 'worse' ? 'worse' : 'no gain';
    return `measured: ${word} (${interval}) in ${m.what} against ${m.baseline}, hint withdrawn`;
}

/** The measured part of a hint: `predicted 1.60×, measured 1.40× (1.20–1.70)`, marked when the comparison is not complete or valid. */
function measuredText(m: MeasuredGain, predictedGain: number): string {
    // A capacity gain measures the very ratio the hint predicts (QoS-satisfied throughput); a latency gain is the compare's own prediction of that statistic.
    const text = m.metric === 'capacity' && Number.isFinite(predictedGain) ? formatPredictedMeasured(predictedGain, m.measured) : `${m.what} ${m.text}`;
    return text + (m.complete ? '' : ', comparison incomplete') + (m.valid ? '' : ', not valid');
}

/**
 * The hint rule: another candidate, the best by bestSchedule (what `auto` would run), is
 * suggested when it beats the declared schedule beyond the predictor's error band:
 * - its QoS-satisfied throughput exceeds (1 + band) × the declared schedule's; or
 * - the declared schedule meets the SLOs at no load and it meets every SLO at the declared load
 *   with the band to spare (each predicted figure × (1 + band) within its target).
 * Never for one tenant (nothing to schedule between), a workload without SLOs (no quality to
 * serve: the QoS-satisfied throughput is then plain throughput at the search's highest load, and
 * which schedule is "better" depends on what the user wants), `auto` (it already runs the best),
 * or a declared schedule the simulation cannot run. `measured`, the workload's latest
 * `tenancy compare`, puts the measured gain beside the predicted one, and withdraws the hint
 * when it contradicts it (see withdrawal).
 */
export function scheduleHint(c: ScheduleComparison, options: { band?: number; measured?: Comparison } = {}): ScheduleHint | undefined {
    const band = options.band ?? HINT_BAND;
    const current = c.current;
    const suggested = c.best;
    if (c.tenantCount < 2 || !c.hasSlos || !current || c.declared.policy === 'auto' || suggested.name === current.name) return undefined;
    let gain: number;
    if (current.qosThroughput > 0) {
        gain = suggested.qosThroughput / current.qosThroughput;
        if (!(gain > 1 + band)) return undefined;
    } else {
        const spare = suggested.sloMet && suggested.tenants.every(t => t.slos.every(s => s.predictedMs * (1 + band) <= s.targetMs));
        if (!(suggested.qosThroughput > 0 && spare)) return undefined;
        gain = Infinity;
    }
    const rescued: RescuedSlo[] = [];
    suggested.tenants.forEach((t, i) => {
        for (const s of t.slos) {
            const was = current.tenants[i]?.slos.find(x => x.percentile === s.percentile);
            if (s.met && was && !was.met) rescued.push({ tenant: t.name, percentile: s.percentile, targetMs: s.targetMs, suggestedMs: s.predictedMs, currentMs: was.predictedMs });
        }
    });
    // Under sequential no two tenants' ops overlap: nothing collides.
    const collisions = current.schedule.policy === 'sequential' ? [] : c.collisions;
    const measured = measuredAgainstDeclared(c, suggested.name, options.measured);
    const withdrawn = withdrawal(measured);
    return { suggested, current, gain, rescued, collisions, measured, withdrawn, message: hintMessage(suggested, current, gain, rescued, collisions[0], measured, withdrawn) };
}

function hintMessage(
    suggested: ScheduleEvaluation, current: ScheduleEvaluation, gain: number, rescued: RescuedSlo[], collision: OpCollision | undefined,
    measured: MeasuredGain | undefined, withdrawn: string | undefined,
): string {
    const meets = rescued.slice(0, 2).map(r => `${r.tenant}'s ${r.percentile} (${formatMs(r.suggestedMs)} vs ${formatMs(r.currentMs)})`);
    const more = rescued.length > 2 ? ` and ${rescued.length - 2} more SLO${rescued.length > 3 ? 's' : ''}` : '';
    const qos = (e: ScheduleEvaluation) => `${significant(e.qosThroughput)}/s`;
    const capacityMeasured = measured?.metric === 'capacity' && !withdrawn && Number.isFinite(gain);
    const predicted = capacityMeasured ? measuredText(measured, gain) : `${qos(suggested)} vs ${qos(current)}`;
    const was = withdrawn ? 'was' : 'is';
    let text: string;
    if (!Number.isFinite(gain)) {
        text = `${suggested.name} ${was} predicted to meet ${meets.length ? `${meets.join(' and ')}${more}` : 'every SLO'} at the declared load; ${current.name} meets them at no load`;
    } else if (meets.length) {
        text = `${suggested.name} ${was} predicted to meet ${meets.join(' and ')}${more} at ${formatRatio(gain)} the QoS-satisfied throughput (${predicted})`;
    } else {
        text = `${suggested.name} ${was} predicted to serve ${formatRatio(gain)} the QoS-satisfied throughput of ${current.name} (${predicted})`;
    }
    if (withdrawn) return `${text}; ${withdrawn}`;
    if (measured?.measured && !capacityMeasured) text += `; ${measuredText(measured, gain)}`;
    if (collision) text += `; ${collision.ops[0]} and ${collision.ops[1]} collide`;
    return text;
}

/** The percentiles a tenant's cell shows: p50, its SLOs' percentiles, p99. */
function shownPercentiles(t: ScheduledTenant): string[] {
    const order = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean'];
    const wanted = new Set(['p50', 'p99', ...t.slos.map(s => s.percentile)]);
    return order.filter(p => wanted.has(p));
}

function figure(t: ScheduledTenant, p: string): number {
    const slo = t.slos.find(s => s.percentile === p);
    if (slo) return slo.predictedMs;
    return p === 'p50' ? t.p50Ms : p === 'p95' ? t.p95Ms : p === 'p99' ? t.p99Ms : t.meanMs;
}

/** The comparison as table rows (header first): per schedule, each tenant's predicted percentiles (ms, each with its 90 % band where the comparison has them) and SLO verdict, the QoS-satisfied throughput and the marks. */
export function comparisonRows(c: ScheduleComparison): string[][] {
    const tenants = c.candidates[0]?.tenants ?? [];
    const header = ['schedule', ...tenants.map(t => {
        const slos = t.slos.map(s => `${s.percentile} ≤ ${msValue(s.targetMs)}`).join(', ');
        return `${t.name} ${shownPercentiles(t).join(' · ')} ms${slos ? ` (SLO ${slos})` : ''}`;
    }), 'QoS-satisfied throughput', ''];
    const rows = [header];
    const listed = c.current && !c.candidates.includes(c.current) ? [...c.candidates, c.current] : c.candidates;
    for (const e of listed) {
        const marks: string[] = [];
        if (e === c.current) marks.push(c.declared.policy === 'auto' ? 'current (auto\'s choice)' : 'current');
        if (e === c.best && c.declared.policy !== 'auto') marks.push('best (auto would run it)');
        rows.push([
            e.name === e.resolved.name ? e.name : `${e.name} → ${e.resolved.name}`,
            ...e.tenants.map((t, i) => {
                const band = c.bands && figureBands(c.bands, i, t);
                const values = shownPercentiles(t).map(p => {
                    const x = figure(t, p);
                    return band ? `${msValue(x)} (${formatBandRange(bandRange(x, band[p as Percentile]))})` : msValue(x);
                }).join(' · ');
                return t.slos.length === 0 ? values : `${values} ${t.slos.every(s => s.met) ? '✓' : '✗'}`;
            }),
            capacityText(e, c.bands),
            marks.join(', '),
        ]);
    }
    return rows;
}

/**
 * What the comparison concludes, in sentences (hover and CLI): the best and why, the hint or why
 * there is none (withdrawn by a measurement), what the workload's latest `tenancy compare`
 * measured (`measured`), the collisions.
 */
export function comparisonNotes(c: ScheduleComparison, band = HINT_BAND, measured?: Comparison): string[] {
    const hint = scheduleHint(c, { band, measured });
    const notes = [`Best: ${c.best.name} — ${c.why}.`];
    if (c.current === undefined) notes.push(`The declared schedule is not compared: ${c.currentMissing}.`);
    if (hint?.withdrawn) notes.push(`Hint withdrawn: ${hint.message}.`);
    else if (hint) notes.push(`Hint: ${hint.message}.`);
    else if (c.tenantCount < 2) notes.push('No hint: one tenant has nothing to be scheduled against.');
    else if (!c.hasSlos) notes.push('No hint: no tenant declares an SLO, so no schedule is better for it in a way the predictor can tell (add `slo` lines).');
    else if (c.declared.policy === 'auto') notes.push(`No hint: auto runs the best, ${c.best.resolved.name}.`);
    else if (c.current && c.current.name !== c.best.name) notes.push(`No hint: ${c.best.name}'s predicted advantage is within the predictor's error (a hint needs more than ${formatRatio(1 + band)} the QoS-satisfied throughput, or every SLO met with that margin where ${c.current.name} meets none).`);
    if (measured) notes.push(measuredNote(c, measured));
    if (c.collisions.length > 0) notes.push(`Ops that collide most (their share of the pair's mutual slowdown while both are busy: one's kernels waiting for the other's): ${c.collisions.map(x => `${x.ops[0]} and ${x.ops[1]} (${Math.round(x.share * 100)}%)`).join('; ')}.`);
    return notes;
}

/** What the latest `tenancy compare` measured, per schedule against the declared one: `Measured (tenancy compare, …): layer_block(size: 4): nlp's p99 predicted 1.60×, measured 1.40× (1.20–1.70); …`. */
function measuredNote(c: ScheduleComparison, measured: Comparison): string {
    const when = `tenancy compare, ${measured.finishedAt}${measured.status === 'complete' ? '' : `, ${measured.status}`}${measured.valid ? '' : ', not valid'}`;
    const declared = scheduleName(c.declared);
    if (!sameSchedule(measured.baseline, declared)) {
        return `Measured (${when}) against ${measured.baseline}, not ${declared}: compare again for measured gains over ${declared}.`;
    }
    const gains = measured.schedules.filter(s => !s.baseline).map(s => measuredGainOf(measured, s.name)).filter(g => g !== undefined);
    const listed = gains.map(g => `${g.schedule === g.asked ? g.schedule : `${g.asked} → ${g.schedule}`}: ${g.what} ${g.text}`);
    return `Measured (${when}) against ${declared}: ${listed.length ? listed.join('; ') : 'no other schedule'}.`;
}

/** What the table's ranges are, when it has them. */
function bandsNote(c: ScheduleComparison): string[] {
    return c.bands ? ['Ranges: each figure\'s 90 % band, as it would carry it were that schedule declared — the tenant\'s kernels\' band, the co-run model\'s error, and how far the figure scatters over a run of the workload\'s benchmark under that schedule ("≥ x": the band has no upper end, the figure read off too few requests). The load\'s range: where the worst SLO\'s figure reaches its target at its band\'s high end and at its low end, read off the loads the capacity search tried (beyond them, a bound: ≥, ≤).'] : [];
}

/** The comparison as markdown (the hover on `schedule`); `measured`, the workload's latest `tenancy compare`. */
export function comparisonMarkdown(c: ScheduleComparison, profileLabel: string, band = HINT_BAND, measured?: Comparison): string {
    const rows = comparisonRows(c);
    const cell = (s: string) => s.replace(/\|/g, '\\|');
    const table = [
        `| ${rows[0].map(cell).join(' | ')} |`,
        `|${rows[0].map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
        ...rows.slice(1).map(r => `| ${r.map(cell).join(' | ')} |`),
    ];
    return [`**Schedules compared** (predicted by simulating each schedule's policy over the ops' predicted times; ${profileLabel})`, '', ...table, '', ...bandsNote(c), ...comparisonNotes(c, band, measured)].join('\n');
}

/** The comparison as plain data (`tenancy predict --json`): per schedule its figures, the marks, why, the hint. */
export function comparisonJson(c: ScheduleComparison, band = HINT_BAND) {
    const hint = scheduleHint(c, { band });
    const listed = c.current && !c.candidates.includes(c.current) ? [...c.candidates, c.current] : c.candidates;
    return {
        workload: c.workload,
        declared: scheduleName(c.declared),
        current: c.current?.name ?? null,
        currentMissing: c.currentMissing ?? null,
        best: c.best.name,
        why: c.why,
        schedules: listed.map(e => ({
            name: e.name, runs: e.resolved.name, why: e.resolved.why ?? null,
            sloMet: e.sloMet, qosThroughputPerSecond: e.qosThroughput, capacityLoad: e.capacityLoad, capacityLoadRange: (c.bands && capacityRange(e, c.bands)) ?? null,
            tenants: e.tenants.map((t, i) => ({ ...t, bands: c.bands ? figureBands(c.bands, i, t) : null })),
        })),
        hint: hint ? { schedule: hint.suggested.name, gain: hint.gain, message: hint.message } : null,
        band,
        collisions: c.collisions,
    };
}

/** The comparison as text (`tenancy predict`). */
export function comparisonText(c: ScheduleComparison): string {
    return [`schedules compared (simulated; latencies in ms at the declared load):`, alignTable(comparisonRows(c)), ...bandsNote(c), ...comparisonNotes(c)].join('\n');
}
