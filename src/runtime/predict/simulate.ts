/**
 * A schedule evaluated by running it: a discrete-event simulation of the tenants' queues in which
 * the workload's own schedule policy (src/runtime/schedule, the very objects the runtime's phase
 * loop calls) decides what to submit after every arrival and completion, and submissions run for
 * their predicted time. The editor's schedule figures and the runtime's decisions therefore come
 * from one piece of code; only the clock differs.
 *
 * The device: every submission in flight progresses at once, tenant i's at rate 1 / s_i with
 * s_i = 1 + Σ_{j in flight, j ≠ i} c_ij (contention.ts: the profile's measured interference of
 * the two tenants' demand mixes) — processor sharing on a software adapter, overlapping kernels
 * on a GPU. A submission's work is its ops' predicted time (dispatch overheads included) plus
 * the submit overhead, times a log-normal factor with the profile's service CV (the host's
 * jitter). Arrivals follow the tenants' arrival processes (the runtime's own, seeded).
 * Pure and deterministic for a seed.
 */
import type { IrArrival, IrPriority, IrSlo } from '../ir/types.js';
import { createRandom } from '../plan/random.js';
import { createArrivalProcess, type ArrivalProcess } from '../schedule/arrivals.js';
import type { OpView, SchedulePolicy, TenantView } from '../schedule/policy.js';
import { quantileSorted, sortedAscending } from '../report/statistics.js';

/** A tenant as the simulation runs it. */
export interface SimulatedTenant {
    name: string;
    priority: IrPriority;
    arrival: IrArrival;
    slos: readonly IrSlo[];
    /** Per op what the schedule reads, with its predicted solo time (ms; dispatch overhead included). */
    ops: readonly OpView[];
    /** Host overhead of one submission (submit and completion), ms. */
    submitMs: number;
    /** Per version (multi-version kernels), the ops as that version runs them; a submission's `version` picks one (absent, or past the end: `ops`). */
    versions?: readonly (readonly OpView[])[];
}

export interface SimulationOptions {
    /** The schedule's policy: a fresh object per simulation (a policy may learn as it runs). */
    policy: SchedulePolicy;
    /** c_ij: the slowdown − 1 tenant j inflicts on tenant i while both have work in flight. */
    contention: readonly (readonly number[])[];
    /** Coefficient of variation of a submission's time (0: deterministic). */
    serviceCv: number;
    seed: number;
    /** Arrivals in [0, warmupMs) are not measured; measured ones arrive in [warmupMs, warmupMs + durationMs). */
    warmupMs: number;
    durationMs: number;
    /** Open-loop rates (and closed-loop clients, rounded) scaled by this factor (capacity search); default 1. */
    load?: number;
}

/** What the simulation measured of a tenant. */
export interface SimulatedFigures {
    /** Latencies of measured requests, ascending, ms. */
    latenciesMs: Float64Array;
    /** Measured requests that had not finished when the simulation stopped (overload). */
    unfinished: number;
    /** Measured completions per second over the measured window. */
    throughputPerSecond: number;
}

/** The arrival of a tenant at `load` times its traffic. */
export function scaledArrival(arrival: IrArrival, load: number): IrArrival {
    if (load === 1) return arrival;
    switch (arrival.kind) {
        case 'poisson': return { ...arrival, ratePerSecond: arrival.ratePerSecond * load };
        case 'periodic': return { ...arrival, everyMs: arrival.everyMs / load };
        case 'closed': return { ...arrival, clients: Math.max(1, Math.round(arrival.clients * load)) };
    }
}

interface Live {
    id: number;
    arrivalMs: number;
    nextOp: number;
}

interface InFlight {
    tenant: number;
    opEnd: number;
    /** Work left at solo speed, ms. */
    work: number;
}

/** Most events one simulation may take: bounds the work of an overloaded mix (the rest is unfinished). */
const MAX_EVENTS = 200_000;

/** Runs the tenants' queues under the policy; figures per tenant in input order. */
export function simulate(tenants: readonly SimulatedTenant[], options: SimulationOptions): SimulatedFigures[] {
    const random = createRandom(options.seed, 'simulation');
    const load = options.load ?? 1;
    const limit = { warmupMs: options.warmupMs, durationMs: options.durationMs };
    const processes: ArrivalProcess[] = tenants.map(t => createArrivalProcess(scaledArrival(t.arrival, load), random.fork(`arrivals/${t.name}`), limit));
    const jitter = random.fork('service');
    const sigma = Math.sqrt(Math.log(1 + options.serviceCv * options.serviceCv));
    const factor = () => options.serviceCv > 0 ? Math.exp(sigma * jitter.normal() - sigma * sigma / 2) : 1;
    const future = processes.map(p => p.initial());
    const cursor = tenants.map(() => 0);
    const waiting: Live[][] = tenants.map(() => []);
    const inFlight: (InFlight | undefined)[] = tenants.map(() => undefined);
    const latencies: number[][] = tenants.map(() => []);
    const lastDone = tenants.map(() => options.warmupMs);
    const nextArrival = (i: number) => future[i][cursor[i]] ?? Infinity;
    let now = 0, nextId = 0, events = 0;

    const work = (t: number, from: number, to: number, version = 0) => {
        const ops = tenants[t].versions?.[version] ?? tenants[t].ops;
        let ms = tenants[t].submitMs;
        for (let k = from; k < to; k++) ms += ops[k].predictedMs ?? 0;
        return ms * factor();
    };
    const rates = () => inFlight.map((f, i) => {
        if (!f) return 0;
        let s = 1;
        for (let j = 0; j < inFlight.length; j++) if (j !== i && inFlight[j]) s += options.contention[i][j];
        return 1 / s;
    });
    const decide = () => {
        // The view the runtime's phase loop gives a policy (execute/phase.ts), from the simulated queues.
        const views: TenantView[] = tenants.map((t, index) => ({
            index, name: t.name, priority: t.priority, opCount: t.ops.length, busy: inFlight[index] !== undefined, waiting: waiting[index], ops: t.ops, slos: t.slos,
        }));
        for (const s of options.policy.decide({ nowMs: now, tenants: views })) {
            const head = waiting[s.tenant][0];
            if (inFlight[s.tenant] || !head || s.opEnd <= head.nextOp || s.opEnd > tenants[s.tenant].ops.length) {
                throw new Error(`schedule ${options.policy.name} submitted an invalid step for tenant ${tenants[s.tenant].name} in the simulation`);
            }
            inFlight[s.tenant] = { tenant: s.tenant, opEnd: s.opEnd, work: work(s.tenant, head.nextOp, s.opEnd, s.version) };
        }
    };

    for (;;) {
        if (++events > MAX_EVENTS) break;
        // Admit every arrival due by now.
        for (let i = 0; i < tenants.length; i++) {
            while (nextArrival(i) <= now) waiting[i].push({ id: nextId++, arrivalMs: future[i][cursor[i]++], nextOp: 0 });
        }
        decide();
        const r = rates();
        let dt = Infinity;
        for (let i = 0; i < tenants.length; i++) {
            const f = inFlight[i];
            if (f && r[i] > 0) dt = Math.min(dt, f.work / r[i]);
            dt = Math.min(dt, nextArrival(i) - now);
        }
        if (!Number.isFinite(dt)) break; // nothing in flight, nothing to come
        now += Math.max(0, dt);
        for (let i = 0; i < tenants.length; i++) {
            const f = inFlight[i];
            if (!f) continue;
            f.work -= r[i] * dt;
            if (f.work > 1e-9) continue;
            inFlight[i] = undefined;
            const head = waiting[i][0];
            head.nextOp = f.opEnd;
            if (head.nextOp < tenants[i].ops.length) continue;
            waiting[i].shift();
            if (processes[i].isMeasured(head.arrivalMs)) {
                latencies[i].push(now - head.arrivalMs);
                lastDone[i] = Math.max(lastDone[i], now);
            }
            const next = processes[i].onCompletion(now);
            if (next !== undefined) insertSorted(future[i], cursor[i], next);
        }
    }
    return tenants.map((_, i) => {
        const unfinished = waiting[i].filter(r => processes[i].isMeasured(r.arrivalMs)).length + future[i].slice(cursor[i]).filter(t => processes[i].isMeasured(t)).length;
        const windowMs = Math.max(1, lastDone[i] - options.warmupMs);
        return { latenciesMs: sortedAscending(latencies[i]), unfinished, throughputPerSecond: latencies[i].length / (windowMs / 1000) };
    });
}

/** Inserts t into the ascending list from `from` on. */
function insertSorted(list: number[], from: number, t: number): void {
    let i = list.length;
    while (i > from && list[i - 1] > t) i--;
    list.splice(i, 0, t);
}

/** A latency statistic of simulated figures (Infinity when the tenant's queue did not drain: overloaded). */
export function simulatedStatistic(f: SimulatedFigures, percentile: IrSlo['percentile'], q: number | undefined): number {
    if (f.latenciesMs.length === 0 || f.unfinished > f.latenciesMs.length * 0.01) return Infinity;
    if (percentile === 'mean') {
        let s = 0;
        for (const x of f.latenciesMs) s += x;
        return s / f.latenciesMs.length;
    }
    return quantileSorted(f.latenciesMs, q!);
}

