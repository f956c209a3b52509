/**
 * A schedule evaluated by running it: a discrete-event simulation of the tenants' queues in which
 * the workload's own schedule policy (src/runtime/schedule, the very objects the runtime's phase
 * loop calls) decides what to submit after every arrival and completion, and submissions run for
 * their predicted time. The editor's schedule figures and the runtime's decisions therefore come
 * from one piece of code; only the clock differs.
 *
 * The device: a non-preemptive queue of kernels. A submission is its ops' kernels in order (an
 * op's predicted time, dispatch overheads included, cut evenly among its launches), preceded by
 * the host's submit overhead, which holds no share of the device. A tenant puts one kernel at a
 * time to the device (a WebGPU queue runs its passes in order); kernels start in the order they
 * were put while the running ones leave room, and a kernel, once started, runs to its end. A
 * kernel's start-up (OpView.leadMs: the profile's kernel floor and dispatch overhead per launch)
 * holds none of the device: a tenant starts its next kernel up while another's runs, and only
 * then queues for the device (alone, it runs start-ups and kernels back to back). Scored on the
 * same stored co-run measurements, counting start-ups as the device's time over-predicted co-run
 * slowdowns by 26–30 % on average in three runs, and leaving them off the device brought that to
 * 8–14 % (BENCHMARKS.md, "Kernel start-ups"). Every kernel of a tenant's own plan otherwise takes
 * the whole device, so co-running tenants take turns and one tenant's small kernels wait behind
 * another's big ones: a kernel that arrives while another tenant's runs waits for the rest of
 * that kernel's turn, and behind a busy tenant a submission of n small kernels waits for n
 * turns. A turn lasts to the kernel's end, or, with `quantumMs` (the profile's corunQuantumMs,
 * fitted by calibration to a co-run of short kernels beside long ones), at most that long while
 * another tenant's kernel waits, for a kernel that queued while another tenant had a submission in
 * flight (their kernels alternate); the kernel then goes to the back of the queue and resumes
 * where it stopped. A kernel that queued while every other tenant was idle runs to its end:
 * lavapipe's compute threads take a dispatch's workgroups in per-thread blocks, first queued
 * first (Mesa's lp_cs_tpool), so a request arriving behind a running kernel waits for its rest.
 * Measured there (BENCHMARKS.md, "Turns on lavapipe"): one kernel of 0.5 ms beside 4.6–4.8 ms
 * kernels waited 4.6–5.0 ms at p90 (the rest of theirs; nothing beside a one-workgroup kernel,
 * which leaves a thread free), and a request of eight such kernels waited 4.9, 8.6 and 16 ms in
 * all beside kernels of 1.7, 4.6 and 20 ms: about the rest of one long kernel, then a little per
 * kernel. This rule follows the first part, for a request arriving from idle; while both tenants
 * stay in flight every kernel takes turns, and those eight kernels are simulated at about the
 * same wait whatever the long kernels' length. On lavapipe whole-kernel turns for every kernel
 * predicted a tenant of 0.2 ms kernels beside a closed loop of 5 ms kernels overloaded (mean
 * 2.4 s) where it measured 10 ms, and turns of 0.5 ms predicted 10.7 ms
 * (calibrate/corun-evidence.ts); between kernels of similar lengths the two predict alike.
 * Processor sharing, which
 * stretched every co-running submission by at most 1 + Σ c_ij, scored worse on the accuracy
 * benchmark's co-runs (BENCHMARKS.md, "Co-run tails" and "A kernel's turn": at equal shares,
 * slowdown error 22 % against 18 % with turns). Calibration's
 * interference pairs (a victim kernel beside an always-busy aggressor) fit the same picture where
 * the kernels differ: waiting half an aggressor kernel on average gives (s_vl − 1)(s_lv − 1) = 1/4,
 * and the compute × memory pairs multiplied to 0.20 and 0.25 in two calibrations (same-kind pairs,
 * 1.5 by that account, measured 1.39–2.68: the host's noise).
 * Only co_tuned's capped kernels occupy a share of the device (SimulatedTenant.shares) and
 * leave room: kernels running side by side progress at rate 1 / s_i with
 * s_i = 1 + Σ_{j running, j ≠ i} c_ij (contention.ts: the profile's measured interference of the
 * two tenants' demand mixes). A submission's kernel and host times are scaled by a log-normal
 * factor with the profile's service CV (the host's jitter) and by the host's mean factors
 * (latency.ts requestServiceMs) as the solo prediction is. A request's first submission also
 * carries the idle penalty (host time) when the request found its tenant's device idle
 * (latency.ts idleAdjustment: each tenant has its own device, so co-runners do not keep it
 * awake). Each request's latency carries, drawn once per request, the host's heavy tail
 * (calibration's stalls beyond its normal body, queueing.ts ServiceTail: its co-run
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
    /** Per version, per op the share of the device its kernels occupy (absent: all of it): co_tuned's capped kernels leave room for others'. */
    shares?: readonly (readonly number[])[];
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
    /**
     * How long a kernel holds the whole device while another tenant's kernel waits, ms of wall time
     * (profile.ts corunQuantumMs); then it goes to the back of the device's queue mid-kernel.
     * Absent: to its end.
     */
    quantumMs?: number;
}

/** What the simulation measured of a tenant. */
export interface SimulatedFigures {
    /** Latencies of measured requests, ascending, ms. */
    latenciesMs: Float64Array;
    /** Measured requests that had not finished when the simulation stopped (overload). */
    unfinished: number;
    /** Of those, the ones that had arrived: how long each had waited when it stopped, ascending, ms (a lower bound of its latency). */
    unfinishedWaitsMs: Float64Array;
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

/** An op list's kernels: each op's predicted time cut evenly among its launches (an op's launches are not timed one by one in its view). */
interface Kernels {
    /** end[m + 1] − end[m]: kernel m's time at solo speed, before the host's factors; end[0] = 0. */
    end: Float64Array;
    /** first[k]: op k's first kernel (first[ops] = the kernel count). */
    first: Int32Array;
    /** Per kernel, the share of the device it occupies (absent: every kernel takes it all). */
    share?: Float64Array;
    /** Per kernel, its first ms (solo speed) that hold none of the device: its launch's start-up (OpView.leadMs). */
    lead: Float64Array;
}

const HOST = 0, QUEUED = 1, RUNNING = 2;

interface InFlight {
    opEnd: number;
    kernels: Kernels;
    /** Device ms per kernel ms: the host's mean factors × this submission's jitter. */
    scale: number;
    /** Host time left before its first kernel (submit round trip, idle penalty), ms: it holds no share of the device. */
    hostMs: number;
    state: typeof HOST | typeof QUEUED | typeof RUNNING;
    /** The kernel running, or next to run; `last` the submission's end (exclusive). */
    kernel: number;
    last: number;
    /** Position in the op list's kernel time (end[] coordinates): how far the running kernel has got. */
    at: number;
    /** The submission's whole work at solo speed, ms. */
    total: number;
    /** The kernel that last queued while another tenant had a submission in flight (−1: none): only it takes turns of `quantumMs`. */
    sliced: number;
}

/** Most events one simulation may take: bounds the work of an overloaded mix (the rest is unfinished). A kernel switch is an event. */
const MAX_EVENTS = 1_000_000;
/**
 * Most requests an open-loop tenant's queue may hold (a closed loop's holds at most its clients): past it the tenant is
 * overloaded beyond doubt and the simulation stops there (what is queued or still to come is unfinished, so its figures
 * are ∞ as for any overload) instead of draining a backlog whose every request would miss any target (a capacity probe at
 * 16× the load took most of a comparison's time draining).
 */
const MAX_BACKLOG = 2_000;

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
    let now = 0, nextId = 0, events = 0, changed = true, overloaded = false;

    // Per op list (a tenant's, or one of its versions'), its kernels: built once, so a submission's kernels are a range.
    const built = new Map<readonly OpView[], Kernels>();
    const kernelsOf = (t: number, version = 0): Kernels => {
        const ops = tenants[t].versions?.[version] ?? tenants[t].ops;
        let k = built.get(ops);
        if (!k) built.set(ops, k = kernelList(ops, tenants[t].versions?.[version] ? tenants[t].shares?.[version] : undefined));
        return k;
    };
    // When each tenant's last request finished: an arrival at that instant (a closed loop without think time) finds it busy.
    const lastFinish = tenants.map(() => -Infinity);
    // The device's queue: tenants whose next kernel waits for room, in the order they asked (non-preemptive FIFO).
    const queue: number[] = [];
    const slowdown = new Float64Array(tenants.length), stops = new Float64Array(tenants.length);
    // The view the runtime's phase loop gives a policy (execute/phase.ts), from the simulated queues: built once (the
    // waiting lists are the queues themselves), its busy flags set before each decision.
    const views: TenantView[] = tenants.map((t, index) => ({
        index, name: t.name, priority: t.priority, opCount: t.ops.length, busy: false, waiting: waiting[index], ops: t.ops, slos: t.slos,
        ...(t.versions && t.versions.length > 1 ? { versions: t.versions.length, versionOps: t.versions } : {}),
    }));
    const decide = () => {
        for (let i = 0; i < views.length; i++) views[i].busy = inFlight[i] !== undefined;
        for (const s of options.policy.decide({ nowMs: now, tenants: views })) {
            const head = waiting[s.tenant][0];
            if (inFlight[s.tenant] || !head || s.opEnd <= head.nextOp || s.opEnd > tenants[s.tenant].ops.length) {
                throw new Error(`schedule ${options.policy.name} submitted an invalid step for tenant ${tenants[s.tenant].name} in the simulation`);
            }
            const t = tenants[s.tenant];
            const kernels = kernelsOf(s.tenant, s.version);
            const first = kernels.first[head.nextOp], last = kernels.first[s.opEnd];
            const scale = (t.workScale ?? 1) * factor();
            const hostMs = t.submitMs * scale + (head.nextOp === 0 && head.idle ? t.idlePenaltyMs ?? 0 : 0);
            const deviceMs = (kernels.end[last] - kernels.end[first]) * scale;
            inFlight[s.tenant] = { opEnd: s.opEnd, kernels, scale, hostMs, state: HOST, kernel: first, last, at: kernels.end[first], total: hostMs + deviceMs, sliced: -1 };
        }
    };
    const shareOf = (f: InFlight) => f.kernels.share?.[f.kernel] ?? 1;
    // Starts queued kernels in order while the running ones leave room: a kernel that takes the whole device runs alone.
    const admit = () => {
        while (queue.length > 0) {
            let used = 0;
            for (const f of inFlight) if (f?.state === RUNNING) used += shareOf(f);
            if (used >= 1 - 1e-9) return;
            inFlight[queue.shift()!]!.state = RUNNING;
        }
    };
    // Where a running submission stops next: while others wait, its turn's end (turnEnd; then it goes to the back of the
    // queue); while others run beside it, its current kernel's end; alone, its last kernel's end.
    const quantumMs = options.quantumMs ?? Infinity;
    const stopOf = (i: number, f: InFlight) => {
        if (queue.length === 0) {
            let alone = true;
            for (let j = 0; j < inFlight.length; j++) if (j !== i && inFlight[j]?.state === RUNNING) alone = false;
            if (alone) return f.kernels.end[f.last];
            return f.kernels.end[f.kernel + 1];
        }
        return turnEnd(f);
    };
    // Where a kernel's turn ends while another tenant's waits: its end, or, for a kernel that queued while another tenant had
    // a submission in flight, a quantum on (on the kernel's own clock).
    const turnEnd = (f: InFlight) => f.kernel === f.sliced ? Math.min(f.kernels.end[f.kernel + 1], f.at + quantumMs / f.scale) : f.kernels.end[f.kernel + 1];

    // Its host time over (submit, idle penalty, a kernel's start-up): its kernel's start-up next if not yet served, else the device's queue.
    const hostDone = (i: number, f: InFlight) => {
        const leadEnd = f.kernels.end[f.kernel] + f.kernels.lead[f.kernel];
        if (leadEnd - f.at > 1e-12) {
            f.hostMs = (leadEnd - f.at) * f.scale;
            f.at = leadEnd;
            return;
        }
        // It takes turns only if another tenant has a submission in flight as it queues (their kernels alternate); one that
        // queues while the others are idle runs to its end, and a request arriving meanwhile waits for its rest.
        let others = false;
        for (let j = 0; j < inFlight.length && !others; j++) if (j !== i && inFlight[j]) others = true;
        f.sliced = others ? f.kernel : -1;
        f.state = QUEUED;
        queue.push(i);
    };
    // Its kernel over with more to run while others wait or run: the next kernel starts up (no share of the device), then queues.
    const kernelDone = (i: number, f: InFlight) => {
        f.state = HOST;
        f.hostMs = 0;
        hostDone(i, f);
    };

    // Where every kernel takes the whole device, one runs at a time: while tenants take turns and nothing else happens before
    // the next arrival, their turns and start-ups are stepped here without the general step's bookkeeping (most of a co-run's
    // events), in the same order and at the same times. The last kernel of a submission is left to the general step.
    const serial = tenants.every(t => t.shares === undefined);
    const takeTurns = () => {
        let horizon = Infinity, running = -1;
        for (let i = 0; i < tenants.length; i++) {
            horizon = Math.min(horizon, nextArrival(i));
            if (inFlight[i]?.state === RUNNING) running = i;
        }
        if (running < 0) return;
        const start = now;
        const advance = (to: number) => {
            for (const g of inFlight) if (g?.state === HOST) g.hostMs -= to - now;
            now = to;
        };
        while (events < MAX_EVENTS) {
            const f = inFlight[running]!;
            let hostEnd = Infinity, host = -1;
            for (let i = 0; i < inFlight.length; i++) {
                const g = inFlight[i];
                if (g?.state === HOST && now + g.hostMs < hostEnd) { hostEnd = now + g.hostMs; host = i; }
            }
            // Alone on the device (the others starting up), it runs on past its kernels' ends, as in the general step.
            const turns = queue.length > 0;
            if (turns && f.kernel + 1 >= f.last) break;
            const stop = turns ? turnEnd(f) : f.kernels.end[f.last];
            const end = now + (stop - f.at) * f.scale;
            if (hostEnd < end) {
                if (hostEnd > horizon) break;
                f.at += (hostEnd - now) / f.scale;
                while (f.kernel + 1 < f.last && f.kernels.end[f.kernel + 1] <= f.at) f.kernel++;
                advance(hostEnd);
                hostDone(host, inFlight[host]!);
            } else {
                if (!turns || end > horizon) break;
                advance(end);
                if (stop >= f.kernels.end[f.kernel + 1]) {
                    f.kernel++;
                    f.at = f.kernels.end[f.kernel];
                } else {
                    f.at = stop; // its quantum over mid-kernel
                }
                kernelDone(running, f);
                running = queue.shift()!;
                inFlight[running]!.state = RUNNING;
            }
            events++;
        }
        const dt = now - start;
        if (dt <= 0) return;
        // At least two tenants were in flight throughout (one waited or started up while another ran): all overlapped.
        for (let i = 0; i < tenants.length; i++) {
            if (!inFlight[i]) continue;
            busyMs[i] += dt;
            waiting[i][0].overlapped = true;
        }
    };

    for (;;) {
        if (++events > MAX_EVENTS) break;
        // Admit every arrival due by now.
        for (let i = 0; i < tenants.length; i++) {
            while (nextArrival(i) <= now) {
                const arrivalMs = future[i][cursor[i]++];
                const idle = waiting[i].length === 0 && inFlight[i] === undefined && arrivalMs > lastFinish[i];
                waiting[i].push({ id: nextId++, arrivalMs, nextOp: 0, idle });
                changed = true;
            }
            if (waiting[i].length > MAX_BACKLOG && !processes[i].closedLoop) overloaded = true;
        }
        if (overloaded) break;
        // The policy decides after every arrival and completion, as in the runtime (not after a kernel switch: its view is the same).
        if (changed) decide();
        changed = false;
        admit();
        if (serial && queue.length > 0) takeTurns();
        // Running kernels slow each other only where they overlap (kernels that leave room for others): s_i = 1 + Σ c_ij.
        for (let i = 0; i < tenants.length; i++) {
            if (inFlight[i]?.state !== RUNNING) continue;
            let s = 1;
            for (let j = 0; j < inFlight.length; j++) if (j !== i && inFlight[j]?.state === RUNNING) s += options.contention[i][j];
            slowdown[i] = s;
        }
        let dt = Infinity;
        for (let i = 0; i < tenants.length; i++) {
            const f = inFlight[i];
            if (f?.state === HOST) dt = Math.min(dt, f.hostMs);
            else if (f?.state === RUNNING) dt = Math.min(dt, ((stops[i] = stopOf(i, f)) - f.at) * f.scale * slowdown[i]);
            dt = Math.min(dt, nextArrival(i) - now);
        }
        if (!Number.isFinite(dt)) break; // nothing in flight, nothing to come
        dt = Math.max(0, dt);
        now += dt;
        let running = 0;
        for (const f of inFlight) if (f) running++;
        for (let i = 0; i < tenants.length; i++) {
            const f = inFlight[i];
            if (!f) continue;
            busyMs[i] += dt;
            if (running > 1 && dt > 0) waiting[i][0].overlapped = true;
            if (f.state === HOST) {
                f.hostMs -= dt;
                if (f.hostMs > 1e-9) continue;
                if (f.kernel < f.last) {
                    hostDone(i, f);
                    continue;
                }
            } else if (f.state === RUNNING) {
                const stop = stops[i];
                f.at += dt / (f.scale * slowdown[i]);
                if ((stop - f.at) * f.scale > 1e-9) {
                    // Mid-kernel: the kernel it is in (a lone submission runs its kernels back to back).
                    while (f.kernel + 1 < f.last && f.kernels.end[f.kernel + 1] <= f.at) f.kernel++;
                    continue;
                }
                f.at = stop;
                while (f.kernel < f.last && f.kernels.end[f.kernel + 1] <= stop) f.kernel++;
                if (f.kernel < f.last) {
                    // Others wait or run: its next kernel starts up, then goes to the back of the device's queue.
                    kernelDone(i, f);
                    continue;
                }
            } else {
                continue;
            }
            inFlight[i] = undefined;
            changed = true;
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
            if (next !== undefined) insertSorted(future[i], cursor[i], next);
        }
    }
    return tenants.map((_, i) => {
        const queued = waiting[i].filter(r => processes[i].isMeasured(r.arrivalMs));
        const unfinished = queued.length + future[i].slice(cursor[i]).filter(t => processes[i].isMeasured(t)).length;
        const windowMs = Math.max(1, lastDone[i] - options.warmupMs);
        return {
            latenciesMs: sortedAscending(latencies[i]), unfinished, unfinishedWaitsMs: sortedAscending(queued.map(r => Math.max(0, now - r.arrivalMs))), throughputPerSecond: latencies[i].length / (windowMs / 1000),
            serviceMs: served[i] > 0 ? busyMs[i] / served[i] : Infinity, slowdown: workMs[i] > 0 ? busyMs[i] / workMs[i] : 1,
        };
    });
}

/** The kernels of an op list: each op with a predicted time runs as its launches, that time cut evenly among them; `shares` per op. */
function kernelList(ops: readonly OpView[], shares: readonly number[] | undefined): Kernels {
    const first = new Int32Array(ops.length + 1);
    let count = 0;
    for (let k = 0; k < ops.length; k++) {
        first[k] = count;
        if ((ops[k].predictedMs ?? 0) > 0) count += Math.max(1, ops[k].launches);
    }
    first[ops.length] = count;
    const end = new Float64Array(count + 1);
    const share = shares ? new Float64Array(count) : undefined;
    const lead = new Float64Array(count);
    for (let k = 0; k < ops.length; k++) {
        const n = first[k + 1] - first[k];
        for (let m = first[k]; m < first[k + 1]; m++) {
            end[m + 1] = end[m] + ops[k].predictedMs! / n;
            lead[m] = (ops[k].leadMs ?? 0) / n;
            if (share) share[m] = shares![k] ?? 1;
        }
    }
    return { end, first, share, lead };
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
    return statisticOfSorted(f.latenciesMs, percentile, q);
}

/**
 * A latency statistic that stays finite under overload: the requests unfinished when the
 * simulation stopped count at their wait so far (a lower bound of their latency; requests that
 * had not arrived are left out). Where simulatedStatistic says only "overloaded" (Infinity),
 * this still ranks a queue that grew less below one that grew more, so searches can compare
 * candidates that all miss an SLO. Equal to simulatedStatistic when every request finished.
 */
export function boundedStatistic(f: SimulatedFigures, percentile: IrSlo['percentile'], q: number | undefined): number {
    const all = f.unfinishedWaitsMs.length === 0 ? f.latenciesMs : sortedAscending([...f.latenciesMs, ...f.unfinishedWaitsMs]);
    return all.length === 0 ? Infinity : statisticOfSorted(all, percentile, q);
}

function statisticOfSorted(sorted: Float64Array, percentile: IrSlo['percentile'], q: number | undefined): number {
    if (percentile === 'mean') {
        let s = 0;
        for (const x of sorted) s += x;
        return s / sorted.length;
    }
    return quantileSorted(sorted, q!);
}

