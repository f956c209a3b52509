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
 * jitter), scaled by the host's mean factors (latency.ts requestServiceMs) as the solo
 * prediction is. A request's first submission also carries the idle penalty when the request
 * found its tenant's device idle (latency.ts idleAdjustment: each tenant has its own device, so
 * co-runners do not keep it awake). Each request's latency carries, drawn once per request, the
 * host's heavy tail (calibration's stalls beyond that body, queueing.ts ServiceTail: its co-run
 * tail when another tenant had work in flight while it did, else its solo tail) — added
 * to the latency as the solo figures add it to their quantiles, not queued as device work: scored
 * on the same measurements, a stall queued as work made the co-run p99 of a profile with a
 * 200–300 ms tail 2.5× worse than adding it (BENCHMARKS.md, "Prediction accuracy"). Arrivals
 * follow the tenants' arrival processes (the runtime's own, seeded).
 * Pure and deterministic for a seed.
 */
import type { IrArrival, IrPriority, IrSlo } from '../ir/types.js';
import { createRandom } from '../plan/random.js';
import { createArrivalProcess, type ArrivalProcess } from '../schedule/arrivals.js';
import type { OpView, SchedulePolicy, TenantView } from '../schedule/policy.js';
import { quantileSorted, sortedAscending } from '../report/statistics.js';
import { noTail, type ServiceTail } from './queueing.js';

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
    /** A submission's work over its ops' predicted times: the host's mean factors (default 1). */
    workScale?: number;
    /** Extra time (ms) of a request that finds the tenant's device idle (default 0). */
    idlePenaltyMs?: number;
}

export interface SimulationOptions {
    /** The schedule's policy: a fresh object per simulation (a policy may learn as it runs). */
    policy: SchedulePolicy;
    /** c_ij: the slowdown − 1 tenant j inflicts on tenant i while both have work in flight. */
    contention: readonly (readonly number[])[];
    /** Coefficient of variation of a submission's time (0: deterministic). */
    serviceCv: number;
    /** The host's extra time (ms) at a request's quantile beyond the body, alone and beside a co-runner in flight; default none. */
    tail?: ServiceTail;
    corunTail?: ServiceTail;
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
    /** Mean time (ms) a completed request had a submission in flight on the device: its co-run service time, without waits in its own queue. */
    serviceMs: number;
    /** Time in flight over the work done at solo speed: how much co-runners stretched the tenant's service (1: not at all). */
    slowdown: number;
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
    /** It arrived to an idle device (nothing queued or in flight for its tenant, and not at the instant the last request finished). */
    idle: boolean;
    /** Another tenant had work in flight while it did (its latency then takes the co-run tail). */
    overlapped?: boolean;
}

interface InFlight {
    tenant: number;
    opEnd: number;
    /** Work left at solo speed, ms. */
    work: number;
    /** The submission's whole work at solo speed, ms. */
    total: number;
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
    // Its own stream: the jitter's draws are the same with or without a tail.
    const stalls = random.fork('tail');
    const stall = (corunning: boolean) => {
        const tail = (corunning ? options.corunTail : undefined) ?? options.tail ?? noTail;
        return tail === noTail ? 0 : tail(stalls.next());
    };
    const future = processes.map(p => p.initial());
    const cursor = tenants.map(() => 0);
    const waiting: Live[][] = tenants.map(() => []);
    const inFlight: (InFlight | undefined)[] = tenants.map(() => undefined);
    const latencies: number[][] = tenants.map(() => []);
    const lastDone = tenants.map(() => options.warmupMs);
    // Over the whole run: time with a submission in flight, work done at solo speed, requests completed.
    const busyMs = tenants.map(() => 0), workMs = tenants.map(() => 0), served = tenants.map(() => 0);
    const nextArrival = (i: number) => future[i][cursor[i]] ?? Infinity;
    let now = 0, nextId = 0, events = 0;

    // Per op list (a tenant's, or one of its versions'), the running sum of the ops' predicted times: a submission's work in O(1).
    const sums = new Map<readonly OpView[], Float64Array>();
    const prefix = (ops: readonly OpView[]) => {
        let sum = sums.get(ops);
        if (!sum) {
            sums.set(ops, sum = new Float64Array(ops.length + 1));
            for (let k = 0; k < ops.length; k++) sum[k + 1] = sum[k] + (ops[k].predictedMs ?? 0);
        }
        return sum;
    };
    const work = (t: number, from: number, to: number, version = 0) => {
        const sum = prefix(tenants[t].versions?.[version] ?? tenants[t].ops);
        return (tenants[t].submitMs + sum[to] - sum[from]) * (tenants[t].workScale ?? 1) * factor();
    };
    // When each tenant's last request finished: an arrival at that instant (a closed loop without think time) finds it busy.
    const lastFinish = tenants.map(() => -Infinity);
    const rate = new Float64Array(tenants.length);
    // The tenants in flight, ascending (the sums add c_ij in the order j, as a walk over every tenant would): an event
    // costs the square of those in flight, not of all tenants (58 Poisson tenants: a few in flight at a time).
    const flying = new Int32Array(tenants.length);
    let k = 0;
    const rates = () => {
        k = 0;
        for (let i = 0; i < tenants.length; i++) {
            rate[i] = 0;
            if (inFlight[i]) flying[k++] = i;
        }
        for (let a = 0; a < k; a++) {
            const i = flying[a], row = options.contention[i];
            let s = 1;
            for (let b = 0; b < k; b++) if (b !== a) s += row[flying[b]];
            rate[i] = 1 / s;
        }
        return rate;
    };
    // The view the runtime's phase loop gives a policy (execute/phase.ts), from the simulated queues: built once (the
    // waiting lists are the queues themselves), its busy flags set before each decision.
    const views: TenantView[] = tenants.map((t, index) => ({
        index, name: t.name, priority: t.priority, opCount: t.ops.length, busy: false, waiting: waiting[index], ops: t.ops, slos: t.slos,
    }));
    const decide = () => {
        for (let i = 0; i < views.length; i++) views[i].busy = inFlight[i] !== undefined;
        for (const s of options.policy.decide({ nowMs: now, tenants: views })) {
            const head = waiting[s.tenant][0];
            if (inFlight[s.tenant] || !head || s.opEnd <= head.nextOp || s.opEnd > tenants[s.tenant].ops.length) {
                throw new Error(`schedule ${options.policy.name} submitted an invalid step for tenant ${tenants[s.tenant].name} in the simulation`);
            }
            const ms = work(s.tenant, head.nextOp, s.opEnd, s.version) + (head.nextOp === 0 && head.idle ? tenants[s.tenant].idlePenaltyMs ?? 0 : 0);
            inFlight[s.tenant] = { tenant: s.tenant, opEnd: s.opEnd, work: ms, total: ms };
        }
    };

    // The earliest arrival to come over all tenants: no tenant has one due before it.
    let nextDue = -Infinity;
    for (;;) {
        if (++events > MAX_EVENTS) break;
        // Admit every arrival due by now.
        if (nextDue <= now) {
            nextDue = Infinity;
            for (let i = 0; i < tenants.length; i++) {
                while (nextArrival(i) <= now) {
                    const arrivalMs = future[i][cursor[i]++];
                    const idle = waiting[i].length === 0 && inFlight[i] === undefined && arrivalMs > lastFinish[i];
                    waiting[i].push({ id: nextId++, arrivalMs, nextOp: 0, idle });
                }
                nextDue = Math.min(nextDue, nextArrival(i));
            }
        }
        decide();
        const r = rates();
        let dt = Infinity;
        for (let a = 0; a < k; a++) {
            const i = flying[a];
            if (r[i] > 0) dt = Math.min(dt, inFlight[i]!.work / r[i]);
        }
        // The least of the tenants' next arrivals less now is the earliest one less now (rounding keeps the order).
        dt = Math.min(dt, nextDue - now);
        if (!Number.isFinite(dt)) break; // nothing in flight, nothing to come
        now += Math.max(0, dt);
        // The submissions in flight (those rates() listed), in tenant order.
        const running = k;
        for (let a = 0; a < running; a++) {
            const i = flying[a];
            const f = inFlight[i]!;
            f.work -= r[i] * dt;
            busyMs[i] += Math.max(0, dt);
            if (running > 1 && dt > 0) waiting[i][0].overlapped = true;
            if (f.work > 1e-9) continue;
            inFlight[i] = undefined;
            workMs[i] += f.total;
            const head = waiting[i][0];
            head.nextOp = f.opEnd;
            if (head.nextOp < tenants[i].ops.length) continue;
            waiting[i].shift();
            served[i]++;
            lastFinish[i] = now;
            if (processes[i].isMeasured(head.arrivalMs)) {
                latencies[i].push(now - head.arrivalMs + stall(head.overlapped === true));
                lastDone[i] = Math.max(lastDone[i], now);
            }
            const next = processes[i].onCompletion(now);
            if (next !== undefined) {
                insertSorted(future[i], cursor[i], next);
                nextDue = Math.min(nextDue, next);
            }
        }
    }
    return tenants.map((_, i) => {
        const unfinished = waiting[i].filter(r => processes[i].isMeasured(r.arrivalMs)).length + future[i].slice(cursor[i]).filter(t => processes[i].isMeasured(t)).length;
        const windowMs = Math.max(1, lastDone[i] - options.warmupMs);
        return {
            latenciesMs: sortedAscending(latencies[i]), unfinished, throughputPerSecond: latencies[i].length / (windowMs / 1000),
            serviceMs: served[i] > 0 ? busyMs[i] / served[i] : Infinity, slowdown: workMs[i] > 0 ? busyMs[i] / workMs[i] : 1,
        };
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

