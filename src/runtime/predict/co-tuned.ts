/**
 * The predictor's side of `co_tuned(variants: N)` (schedule/co-tuned.ts): the device shares its
 * versions occupy, what each version of each tenant costs, how versions co-running slow each
 * other, and ConCo's simulated-annealing search over the joint choice of versions.
 *
 * Shares. P, the workgroups the device runs at once, is the concurrency of the waves model fitted
 * to the profile's register-blocked GEMM curve (latency.ts fitWaves) — the device's parallelism as
 * calibration measured it — and on a software adapter at least the host's cores (deviceParallelism). Version k of N (k ≥ 1) caps each hot op at W_k = round(P·(N−k)/N)
 * workgroups (at least 1; equal caps merge, so a narrow device may offer fewer versions than
 * asked), share C_k = W_k / P; version 0 is the op's own variant, C = 1. The hot ops are the ones
 * layer_block's versions use (plan/versions.ts hotOps); ops without capped variants run their own.
 *
 * Cost at a share. A version's solo op times are the profile's prediction for the capped kernel
 * (its family's curve at W_k workgroups): each candidate is timed once at its own share and then
 * re-evaluated at whatever running share the co-runners leave it, never re-searched — ConCo's
 * observation that candidates rank alike across shares. Co-running (simulate.ts), a full-width
 * kernel takes the whole device and the tenants' kernels alternate, non-preemptively; a capped
 * op's kernels occupy their version's share C of it, so another tenant's kernel can start beside
 * them while the running shares leave room, and kernels side by side slow tenant i by
 * 1 + Σ_j c_ij with c_ij from the tenants' demand mixes as for every schedule (contention.ts),
 * except that a capped kernel's coefficients
 * follow its share: calibration measured the `capped` pairs with a kernel of
 * CAPPED_INTERFERENCE_WORKGROUPS workgroups (share C₀ = that / P) and the `compute` pairs with a
 * full-width one (C = 1); a capped kernel at share C takes the linear interpolation between the
 * two (on both the victim's and the aggressor's side; below C₀ the measured capped figures, no
 * extrapolation). So on an adapter where capping does not spare the co-runner (the software
 * adapter: DESIGN.md) the calibrated profile says so and the search keeps the own variants.
 * R, the share a tenant runs at, is C / max(1, ΣC) over the tenants' chosen shares: over-provisioning
 * (ΣC > 1) is allowed and divides the device in proportion. R is what `why` reports; the simulation
 * itself starts a kernel while the running ones' shares sum below 1 and slows kernels side by side
 * by the coefficients above.
 *
 * Search. The state is one version per tenant; the objective the predicted SLO-satisfied
 * throughput at the declared load: Σ over tenants of the requests per second that finish within
 * the tenant's tightest SLO (every completion for a tenant without one), halved for each SLO the
 * configuration misses — so meeting the SLOs comes first and, among configurations that do, the
 * one serving most wins. Simulated annealing from every tenant in version 0 (plain concurrent):
 * a step moves one tenant (chosen at random) to another version; a worse state is accepted with
 * probability exp(ΔJ / (T·J₀)), the temperature T cooling geometrically. Seeded (the workload's
 * seed) and bounded by a count of steps and of simulations (each state simulated once, on half
 * the window), never by a clock, so the editor and the runtime find the same. The best state seen
 * wins; the start is kept unless another beats it by more than MIN_GAIN (2 %: below that
 * the difference is the simulation's sampling, not the configuration). Pure.
 */
import type { IrGraph, IrSlo, WorkloadIR } from '../ir/types.js';
import { planGraph, planVariant, type PlanCache, type PlannedOp } from '../plan/plan.js';
import { createRandom } from '../plan/random.js';
import { hotOps, shareVariants } from '../plan/versions.js';
import { coTunedPolicy, versionLabel, versionShare, type CoTunedOptions } from '../schedule/co-tuned.js';
import type { OpView } from '../schedule/policy.js';
import { PERCENTILE_Q } from '../report/statistics.js';
import { demandMix, interferenceCoefficient, type DemandMix } from './contention.js';
import { familyProfile, fitWaves, opServiceMs, opTiming } from './latency.js';
import { opViews } from './op-views.js';
import { CAPPED_INTERFERENCE_WORKGROUPS, capsForProfile, demandKinds, isSoftwareAdapter, type DemandKind, type DeviceProfile } from './profile.js';
import type { ServiceTail } from './queueing.js';
import { simulate, simulatedStatistic, type SimulatedFigures, type SimulatedTenant } from './simulate.js';
import { completeSteps } from './steps.js';

/** What a co_tuned prediction needs of the workload beyond the simulation input (predict/schedules.ts SimulationInput). */
export interface CoTunedInput {
    ir: WorkloadIR;
    profile: DeviceProfile;
    cache: PlanCache;
    tenants: readonly SimulatedTenant[];
    serviceCv: number;
    tail: ServiceTail;
    corunTail: ServiceTail;
    quantumMs?: number;
    seed: number;
    warmupMs: number;
    durationMs: number;
}

/**
 * The device's parallelism P as the profile knows it: the fitted concurrency of its GEMM curve,
 * and on a software adapter at least the host's cores when calibrated. A software adapter
 * (lavapipe) runs a dispatch's workgroups on a pool of worker threads, one per core, so it runs
 * one workgroup per core at once; its GEMM curve need not show that (the calibrated lavapipe
 * profile of the two-core reference host fits a concurrency of 1), and P = 1 would make every
 * cap 100 % — co_tuned a plain concurrent schedule with nothing to search. At least 1.
 */
export function deviceParallelism(profile: DeviceProfile): number {
    const family = familyProfile(profile, 'gemm.vec4');
    const fit = family ? fitWaves(family, profile.kernelFloorMs) : undefined;
    const threads = isSoftwareAdapter(profile.adapter) ? profile.hostLoad?.cores ?? 1 : 1;
    return Math.max(1, fit?.concurrency ?? 1, threads);
}

/** The workgroup caps of versions 1 … of `variants` (distinct, descending) on a device of `parallelism` workgroups. */
export function shareWorkgroups(variants: number, parallelism: number): number[] {
    const caps: number[] = [];
    for (let k = 1; k < variants; k++) {
        const w = Math.max(1, Math.round(parallelism * (variants - k) / variants));
        if (!caps.includes(w)) caps.push(w);
    }
    return caps;
}

/** Each tenant's versions as the simulation runs them: per version its op views, the device share of each op's kernels, and its demand mix. */
interface TenantVersions {
    ops: OpView[][];
    shares: number[][];
    mixes: DemandMix[];
}

interface ShareModel {
    grid: Omit<CoTunedOptions, 'versions'>;
    tenants: TenantVersions[];
}

const models = new WeakMap<object, Map<number, ShareModel>>();

/** The versions of every tenant on the profile (memoised per input and `variants`). */
function shareModel(input: CoTunedInput, variants: number): ShareModel {
    let byVariants = models.get(input);
    if (!byVariants) models.set(input, byVariants = new Map());
    let model = byVariants.get(variants);
    if (model) return model;
    const { profile, cache } = input;
    const parallelism = deviceParallelism(profile);
    const workgroups = shareWorkgroups(variants, parallelism);
    const caps = capsForProfile(profile);
    const grid = { variants, parallelism, workgroups };
    const tenants = input.ir.tenants.map(t => {
        const planned = planGraph(t.graph, { caps, cache });
        const hot = hotOps(planned.map(op => opServiceMs(profile, op) ?? 0));
        const versionOps = [planned, ...workgroups.map(w => planned.map((op, i) => hot.has(i) ? shareVersion(op, t.graph, w, input) : op))];
        // A capped op's kernels occupy its version's share of the device; every other op's take all of it.
        const shares = versionOps.map((ops, v) => ops.map((op, i) => op === planned[i] ? 1 : versionShare(grid, v)));
        return { ops: versionOps.map(ops => opViews(ops, profile)), shares, mixes: versionOps.map(ops => mixOf(profile, ops)) };
    });
    model = { grid, tenants };
    byVariants.set(variants, model);
    return model;
}

/** An op in its share variant capped at `workgroups`, or the op itself when it has none or it cannot be built. */
function shareVersion(op: PlannedOp, graph: IrGraph, workgroups: number, input: CoTunedInput): PlannedOp {
    const [variant] = shareVariants(op, [workgroups]);
    if (variant === undefined || variant === op.variant) return op;
    return planVariant(op, graph, variant, { caps: capsForProfile(input.profile), cache: input.cache }) ?? op;
}

function mixOf(profile: DeviceProfile, ops: readonly PlannedOp[]): DemandMix {
    const demand = { compute: 0, memory: 0, capped: 0 };
    for (const op of ops) {
        const timing = opTiming(profile, op);
        for (const k of demandKinds) demand[k] += timing.demandMs[k];
    }
    return demandMix(demand);
}

/**
 * c(victim kind, aggressor kind) with capped kernels at their shares: the measured capped pair at
 * C₀, the full-width (compute) pair at C = 1, linear between (see the module comment).
 */
export function shareCoefficient(profile: DeviceProfile, victim: DemandKind, aggressor: DemandKind, victimShare: number, aggressorShare: number, parallelism: number): number {
    const measuredShare = Math.min(1, CAPPED_INTERFERENCE_WORKGROUPS / parallelism);
    const lift = (kind: DemandKind, share: number) => kind !== 'capped' || measuredShare >= 1 ? 0 : Math.min(1, Math.max(0, (share - measuredShare) / (1 - measuredShare)));
    const tv = lift(victim, victimShare), ta = lift(aggressor, aggressorShare);
    const c = (v: DemandKind, a: DemandKind) => interferenceCoefficient(profile, v, a);
    return (1 - tv) * (1 - ta) * c(victim, aggressor) + tv * (1 - ta) * c('compute', aggressor)
        + (1 - tv) * ta * c(victim, 'compute') + tv * ta * c('compute', 'compute');
}

/** c_ij for every ordered pair of tenants in a configuration (their mixes at their versions' shares). */
function configurationContention(input: CoTunedInput, model: ShareModel, versions: readonly number[]): number[][] {
    const { profile } = input;
    const shares = versions.map(v => versionShare(model.grid, v));
    return versions.map((vi, i) => versions.map((vj, j) => {
        if (i === j) return 0;
        const mi = model.tenants[i].mixes[vi], mj = model.tenants[j].mixes[vj];
        let c = 0;
        for (const k of demandKinds) {
            if (mi[k] === 0) continue;
            for (const l of demandKinds) if (mj[l] !== 0) c += mi[k] * mj[l] * shareCoefficient(profile, k, l, shares[i], shares[j], model.grid.parallelism);
        }
        return c;
    }));
}

/** The versions the configuration of `options` gives each tenant of the input, in input order. */
function versionsOf(input: CoTunedInput, options: CoTunedOptions): number[] {
    return input.tenants.map(t => options.versions[t.name] ?? 0);
}

/**
 * Simulates a co_tuned configuration (the runtime's own policy over the versions' predicted
 * times, with the configuration's contention) at a load factor, on a share of the window.
 */
export function simulateCoTuned(input: CoTunedInput, options: CoTunedOptions, load = 1, window = 1): SimulatedFigures[] {
    const model = shareModel(input, options.variants);
    const chosen = versionsOf(input, options);
    // Where every tenant's chosen version takes the whole device, no kernel leaves room: the simulation's turn-taking
    // shortcut applies (it steps the same events as the general step).
    const whole = chosen.every((v, i) => model.tenants[i].shares[v].every(s => s >= 1));
    const tenants = input.tenants.map((t, i) => ({ ...t, versions: model.tenants[i].ops, ...(whole ? {} : { shares: model.tenants[i].shares }) }));
    return simulate(tenants, {
        policy: coTunedPolicy(options), contention: configurationContention(input, model, chosen), serviceCv: input.serviceCv, tail: input.tail, corunTail: input.corunTail,
        quantumMs: input.quantumMs, seed: input.seed, warmupMs: input.warmupMs, durationMs: input.durationMs * window, load,
    });
}

/** Steps and simulations a search may take (counts, not a clock: results must not depend on the machine's speed). */
const SEARCH_STEPS = 120, SEARCH_SIMULATIONS = 32;
/** Temperatures (relative to the start's objective) the annealing cools between. */
const T_START = 0.2, T_END = 0.005;
/** The relative gain a configuration needs over the best so far to replace it. */
const MIN_GAIN = 0.02;

/** How a configuration did in the search's simulation. */
export interface CoTunedScore {
    /** Requests per second within their tenant's tightest SLO, over all tenants. */
    goodput: number;
    /** SLOs the configuration misses. */
    missed: number;
    /** goodput halved per missed SLO: what the search maximises. */
    objective: number;
}

/** The search's objective of simulated figures (see the module comment). */
export function coTunedScore(tenants: readonly Pick<SimulatedTenant, 'slos'>[], figures: readonly SimulatedFigures[]): CoTunedScore {
    let goodput = 0, missed = 0;
    tenants.forEach((t, i) => {
        const f = figures[i];
        const target = t.slos.length ? Math.min(...t.slos.map(s => s.ms)) : Infinity;
        let within = 0;
        for (const ms of f.latenciesMs) if (ms <= target) within++;
        // Completions per second × the share of them within the target (unfinished requests are in neither).
        goodput += f.latenciesMs.length > 0 ? f.throughputPerSecond * within / f.latenciesMs.length : 0;
        for (const s of t.slos) if (!(statisticOf(f, s) <= s.ms)) missed++;
    });
    return { goodput, missed, objective: goodput * 0.5 ** missed };
}

function statisticOf(f: SimulatedFigures, slo: IrSlo): number {
    return simulatedStatistic(f, slo.percentile, slo.percentile === 'mean' ? undefined : PERCENTILE_Q[slo.percentile]);
}

/**
 * A store of searched configurations (tune/co-tuned-cache.ts keeps one per adapter on disk): a
 * hit skips the search. The search is deterministic, so what a store holds under a key is what
 * the search would find again.
 */
export interface CoTunedStore {
    lookup(key: string): { coTuned: CoTunedOptions; why: string } | undefined;
    record(key: string, found: { coTuned: CoTunedOptions; why: string; objective: number }): void;
}

/** Bump when the search or its model changes what it finds: older stored configurations then miss. */
const SEARCH_REVISION = 3;

/** What identifies a search (everything it reads), as text for a store to hash. */
function coTunedSearchKey(input: CoTunedInput, variants: number): string {
    return JSON.stringify({
        revision: SEARCH_REVISION, variants, seed: input.seed, steps: SEARCH_STEPS, simulations: SEARCH_SIMULATIONS,
        warmupMs: input.warmupMs, durationMs: input.durationMs, profile: input.profile,
        tenants: input.ir.tenants.map(t => ({ name: t.name, priority: t.priority, arrival: t.arrival, slos: t.slos, graph: t.graph })),
    });
}

/**
 * The search's configuration for `variants`, from the store when it has it (the why then says so), else searched and
 * recorded; stepwise (a step per simulation, and one for building the versions).
 */
export function* cachedCoTunedSteps(input: CoTunedInput, variants: number, store: CoTunedStore | undefined): Generator<void, { coTuned: CoTunedOptions; why: string }> {
    const key = store ? coTunedSearchKey(input, variants) : '';
    const hit = store?.lookup(key);
    if (hit) return { coTuned: hit.coTuned, why: `${hit.why} (from the co_tuned cache)` };
    const found = yield* searchCoTunedSteps(input, variants);
    store?.record(key, { coTuned: found.coTuned, why: found.why, objective: found.best.objective });
    return { coTuned: found.coTuned, why: found.why };
}

/** What the search found, and how it got there. */
export interface CoTunedSearch {
    coTuned: CoTunedOptions;
    why: string;
    /** The start (every tenant in version 0) and the chosen configuration's scores. */
    start: CoTunedScore;
    best: CoTunedScore;
    steps: number;
    simulations: number;
}

/** ConCo's search (see the module comment): the versions per tenant that maximise the predicted SLO-satisfied throughput. */
export function searchCoTuned(input: CoTunedInput, variants: number, limits: { steps?: number; simulations?: number } = {}): CoTunedSearch {
    return completeSteps(searchCoTunedSteps(input, variants, limits));
}

/**
 * searchCoTuned, stepwise: it yields after building the versions and after every simulation (each
 * up to tens of milliseconds; a whole search took up to a second on a calibrated profile), so the
 * editor's job answers requests between them and stops at the next edit.
 */
export function* searchCoTunedSteps(input: CoTunedInput, variants: number, limits: { steps?: number; simulations?: number } = {}): Generator<void, CoTunedSearch> {
    const model = shareModel(input, variants);
    yield;
    const names = input.tenants.map(t => t.name);
    const versionCount = 1 + model.grid.workgroups.length;
    const optionsOf = (state: readonly number[]): CoTunedOptions => ({ ...model.grid, versions: Object.fromEntries(names.map((n, i) => [n, state[i]])) });
    const scores = new Map<string, CoTunedScore>();
    const maxSteps = limits.steps ?? SEARCH_STEPS, maxSimulations = limits.simulations ?? SEARCH_SIMULATIONS;
    function* scoreOf(state: readonly number[]): Generator<void, CoTunedScore | undefined> {
        const key = state.join(',');
        const known = scores.get(key);
        if (known) return known;
        if (scores.size >= maxSimulations) return undefined;
        const score = coTunedScore(input.tenants, simulateCoTuned(input, optionsOf(state), 1, 0.5));
        scores.set(key, score);
        yield;
        return score;
    }
    let current = names.map(() => 0);
    const start = (yield* scoreOf(current))!;
    let currentScore = start, best = current, bestScore = start;
    const scale = Math.max(start.objective, 1e-9);
    const random = createRandom(input.seed, 'co_tuned');
    let steps = 0;
    if (versionCount > 1) {
        for (; steps < maxSteps; steps++) {
            const temperature = T_START * (T_END / T_START) ** (steps / Math.max(1, maxSteps - 1));
            const tenant = random.int(names.length);
            const next = [...current];
            next[tenant] = (current[tenant] + 1 + random.int(versionCount - 1)) % versionCount;
            const score = yield* scoreOf(next);
            if (!score) break; // the simulation budget is spent
            const delta = score.objective - currentScore.objective;
            if (delta >= 0 || random.next() < Math.exp(delta / (temperature * scale))) {
                current = next;
                currentScore = score;
            }
            if (score.objective > bestScore.objective * (1 + MIN_GAIN) + 1e-12) {
                best = next;
                bestScore = score;
            }
        }
    }
    const coTuned = optionsOf(best);
    return { coTuned, why: whyOf(coTuned, names, start, bestScore, steps, scores.size, versionCount), start, best: bestScore, steps, simulations: scores.size };
}

function whyOf(options: CoTunedOptions, names: readonly string[], start: CoTunedScore, best: CoTunedScore, steps: number, simulations: number, versionCount: number): string {
    const shares = names.map(n => versionShare(options, options.versions[n] ?? 0));
    const total = shares.reduce((a, b) => a + b, 0);
    const chosen = names.map((n, i) => {
        const v = options.versions[n] ?? 0;
        return `${n} version ${v} (${versionLabel(options, v)}, C ${percent(shares[i])}, R ${percent(shares[i] / Math.max(1, total))})`;
    }).join(', ');
    const figures = (s: CoTunedScore) => `${s.goodput.toFixed(1)} requests/s within their SLOs${s.missed ? `, ${s.missed} SLO${s.missed === 1 ? '' : 's'} missed` : ''}`;
    const versions = `${versionCount} version${versionCount === 1 ? '' : 's'} per hot op on a device of ${options.parallelism} workgroups${versionCount < options.variants ? ` (${options.variants} asked; equal caps merged)` : ''}`;
    const slos = (n: number) => n === 0 ? 'every SLO met' : `${n} SLO${n === 1 ? '' : 's'} missed`;
    const outcome = best === start
        ? `nothing beat every tenant in its own variant (${figures(start)})`
        : `${best.missed < start.missed ? `${slos(best.missed)} where every tenant in its own variant has ${slos(start.missed)}; ` : ''}predicted ${figures(best)} against ${figures(start)} with every tenant in its own variant`;
    return `the annealing search (${steps} steps, ${simulations} simulations, ${versions}) chose ${chosen}${total > 1 ? `, shares summing to ${percent(total)} (over-provisioned)` : ''}: ${outcome}`;
}

function percent(x: number): string {
    return `${Math.round(100 * x)}%`;
}
