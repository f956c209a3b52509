/**
 * Queueing approximations for a tenant's request stream on its queue (one in-order WebGPU
 * queue = one server). Pure math; the approximations, briefly:
 *
 * - Open loop (poisson, periodic), utilisation ρ = λ·S. Mean wait by Kingman's G/G/1 formula
 *     W = ((c_a² + c_s²) / 2) · (ρ / (1 − ρ)) · S
 *   with c_a² = 1 (Poisson — then it is exactly Pollaczek–Khinchine for M/G/1) or 0
 *   (periodic), c_s² the service time's squared coefficient of variation. ρ ≥ 1 ⇒ unbounded.
 * - Wait tail: P(W > 0) = ρ (exact for M/G/1) and, given a wait, exponential with mean W/ρ
 *   (the heavy-traffic limit), so the q-quantile of the wait is (W/ρ)·ln(ρ/(1 − q)) when
 *   1 − q < ρ, else 0. For periodic arrivals P(W > 0) = ρ overstates waiting (a D/D/1 queue
 *   never waits); the wait then comes only from service jitter and is small either way.
 * - Service quantiles: normal with mean S and standard deviation c_s·S (clamped at 0), plus the
 *   host's measured tail beyond that normal body (calibration: a heavy tail from scheduling on a
 *   shared CPU), added in ms. The service time's mean and variance are this distribution's,
 *   tail included (serviceMoments): the mean latency, the utilisation and the queueing all see
 *   the stalls the percentiles show (before, the mean and the waits used the body alone, while
 *   p90–p99 carried the tail).
 * - Response quantile ≈ service quantile + wait quantile. Adding quantiles bounds the true
 *   quantile of the sum from above (comonotone), which is the safe side for SLO checks.
 * - Closed loop (N clients, think Z): exact mean-value analysis of one queueing station plus a
 *   delay station, R(n) = S·(1 + Q(n − 1)), X(n) = n / (R(n) + Z), Q(n) = X(n)·R(n).
 */

/** The percentiles `slo` accepts (docs/language.md#slos), as quantiles. */
export const PERCENTILE_Q = { mean: NaN, p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const;
export type Percentile = keyof typeof PERCENTILE_Q;
export const PERCENTILES: readonly Percentile[] = ['mean', 'p50', 'p90', 'p95', 'p99', 'p999'];

/** Latency figures of a tenant, ms. `Infinity` when the queue is unstable. */
export type LatencyFigures = Record<Percentile, number>;

// Acklam's coefficients (module constants: the language server evaluates quantiles thousands of times per build).
const acklamA = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const acklamB = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const acklamC = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const acklamD = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const pLow = 0.02425;

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
    if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), found ${p}`);
    if (p < pLow) {
        const q = Math.sqrt(-2 * Math.log(p));
        return (((((acklamC[0] * q + acklamC[1]) * q + acklamC[2]) * q + acklamC[3]) * q + acklamC[4]) * q + acklamC[5]) / ((((acklamD[0] * q + acklamD[1]) * q + acklamD[2]) * q + acklamD[3]) * q + 1);
    }
    if (p > 1 - pLow) return -normalQuantile(1 - p);
    const q = p - 0.5, r = q * q;
    return (((((acklamA[0] * r + acklamA[1]) * r + acklamA[2]) * r + acklamA[3]) * r + acklamA[4]) * r + acklamA[5]) * q / (((((acklamB[0] * r + acklamB[1]) * r + acklamB[2]) * r + acklamB[3]) * r + acklamB[4]) * r + 1);
}

/** Kingman's mean wait in a G/G/1 queue; Infinity when ρ ≥ 1. */
export function kingmanWaitMs(rho: number, serviceMs: number, ca2: number, cs2: number): number {
    if (rho <= 0) return 0;
    if (rho >= 1) return Infinity;
    return ((ca2 + cs2) / 2) * (rho / (1 - rho)) * serviceMs;
}

/** q-quantile of the wait, given mean wait W and P(W > 0) = ρ with an exponential conditional tail. */
export function waitQuantileMs(q: number, rho: number, meanWaitMs: number): number {
    if (rho <= 0 || meanWaitMs <= 0) return 0;
    if (rho >= 1 || !Number.isFinite(meanWaitMs)) return Infinity;
    if (1 - q >= rho) return 0;
    return (meanWaitMs / rho) * Math.log(rho / (1 - q));
}

/** Extra service time (ms) at quantile q beyond the normal body: the host's heavy tail. */
export type ServiceTail = (q: number) => number;
export const noTail: ServiceTail = () => 0;

type TailPoints = { p90: number; p95: number; p99: number };
// One function per points object (a profile's), so its moments are computed once.
const tailsByPoints = new WeakMap<TailPoints, ServiceTail>();

/** A tail from measured points (ms at p90, p95, p99): 0 up to the median, linear in q between points, flat beyond p99. */
export function tailFrom(points: TailPoints | undefined): ServiceTail {
    if (!points) return noTail;
    let tail = tailsByPoints.get(points);
    if (!tail) tailsByPoints.set(points, tail = piecewiseTail(points));
    return tail;
}

function piecewiseTail(points: TailPoints): ServiceTail {
    const qs = [0.5, 0.9, 0.95, 0.99], vs = [0, points.p90, points.p95, points.p99];
    return q => {
        if (q <= qs[0]) return 0;
        for (let i = 1; i < qs.length; i++) if (q <= qs[i]) return vs[i - 1] + ((q - qs[i - 1]) / (qs[i] - qs[i - 1])) * (vs[i] - vs[i - 1]);
        return vs[vs.length - 1];
    };
}

// The tail's moments over q ∈ (0.5, 1) (it is 0 below the median): E[T], E[T²] and E[z·T] with z the standard normal
// quantile, by the midpoint rule on 500 steps (z precomputed; exact for E[T], the steps meet the tail's corners);
// cached per tail function.
const TAIL_STEPS = 500;
const tailGrid = Array.from({ length: TAIL_STEPS }, (_, i) => { const q = 0.5 + (0.5 * (i + 0.5)) / TAIL_STEPS; return { q, z: normalQuantile(q) }; });
interface TailMoments { mean: number; square: number; withZ: number }
const tailMomentCache = new WeakMap<ServiceTail, TailMoments>();

function integrate(f: (q: number, z: number) => number): number {
    let sum = 0;
    for (const { q, z } of tailGrid) sum += f(q, z);
    return (sum * 0.5) / TAIL_STEPS;
}

function tailMoments(tail: ServiceTail): TailMoments {
    let m = tailMomentCache.get(tail);
    if (m) return m;
    m = { mean: integrate(q => tail(q)), square: integrate(q => tail(q) ** 2), withZ: integrate((q, z) => z * tail(q)) };
    tailMomentCache.set(tail, m);
    return m;
}

/**
 * Mean (ms) and squared coefficient of variation of the service time whose quantiles
 * serviceQuantileMs gives: S·(1 + z·cv) + T(q) has mean S + E[T] and second moment
 * S²(1 + cv²) + 2S(E[T] + cv·E[z·T]) + E[T²] (the body's clamp at 0, which matters only for
 * cv > 0.3, is left out).
 */
export function serviceMoments(serviceMs: number, cv: number, tail: ServiceTail = noTail): { meanMs: number; cs2: number } {
    if (tail === noTail) return { meanMs: serviceMs, cs2: cv * cv };
    const t = tailMoments(tail);
    const meanMs = serviceMs + t.mean;
    if (!(meanMs > 0)) return { meanMs: 0, cs2: 0 };
    const second = serviceMs * serviceMs * (1 + cv * cv) + 2 * serviceMs * (t.mean + cv * t.withZ) + t.square;
    return { meanMs, cs2: Math.max(0, second / (meanMs * meanMs) - 1) };
}

/** q-quantile of the service time: normal with coefficient of variation cv (clamped at 0), plus the host's tail. */
export function serviceQuantileMs(q: number, serviceMs: number, cv: number, tail: ServiceTail = noTail): number {
    return Math.max(0, serviceMs * (1 + normalQuantile(q) * cv)) + tail(q);
}

/** Latency figures of an open-loop stream: service S (ms, the body's mean), c_s, arrival rate λ (/s), c_a², the host's tail. */
export function openLoopLatency(serviceMs: number, cv: number, ratePerSecond: number, ca2: number, tail: ServiceTail = noTail): { figures: LatencyFigures; utilisation: number; meanWaitMs: number } {
    const { meanMs, cs2 } = serviceMoments(serviceMs, cv, tail);
    const rho = (ratePerSecond * meanMs) / 1000;
    const w = kingmanWaitMs(rho, meanMs, ca2, cs2);
    const figures = {} as LatencyFigures;
    for (const p of PERCENTILES) {
        figures[p] = p === 'mean' ? meanMs + w : serviceQuantileMs(PERCENTILE_Q[p], serviceMs, cv, tail) + waitQuantileMs(PERCENTILE_Q[p], rho, w);
    }
    return { figures, utilisation: rho, meanWaitMs: w };
}

/** Clients past which MVA's recursion (one step per client) gives way to Schweitzer's approximation (closed form). */
const exactMvaClients = 10_000;

/**
 * Mean-value analysis of N closed-loop clients with think time Z on one server of mean service S.
 * Exact up to exactMvaClients; beyond, Schweitzer's approximation Q(N−1) ≈ Q(N)·(N−1)/N, which for
 * one server solves in closed form (R² + (Z − S·N)·R − S·Z = 0), so a client count of 10⁹ costs
 * what 10 does.
 */
export function closedLoopMva(clients: number, serviceMs: number, thinkMs: number): { responseMs: number; throughputPerMs: number; utilisation: number; queueLength: number } {
    if (clients > exactMvaClients) {
        const b = serviceMs * clients - thinkMs;
        const r = (b + Math.sqrt(b * b + 4 * serviceMs * thinkMs)) / 2;
        const x = clients / (r + thinkMs);
        return { responseMs: r, throughputPerMs: x, utilisation: Math.min(1, x * serviceMs), queueLength: x * r };
    }
    let q = 0, r = serviceMs, x = 0;
    for (let n = 1; n <= clients; n++) {
        r = serviceMs * (1 + q);
        x = n / (r + thinkMs);
        q = x * r;
    }
    return { responseMs: r, throughputPerMs: x, utilisation: Math.min(1, x * serviceMs), queueLength: q };
}

/**
 * Latency figures of a closed-loop stream. The mean is MVA's; percentiles put the mean wait
 * (R − S) through the same exponential-tail shape as the open loop with P(wait) = (N−1)/N of the
 * server's utilisation (with one client nothing ever waits).
 */
export function closedLoopLatency(clients: number, thinkMs: number, serviceMs: number, cv: number, tail: ServiceTail = noTail): { figures: LatencyFigures; utilisation: number; throughputPerSecond: number } {
    const { meanMs } = serviceMoments(serviceMs, cv, tail);
    const m = closedLoopMva(clients, meanMs, thinkMs);
    const meanWait = Math.max(0, m.responseMs - meanMs);
    const pWait = clients <= 1 ? 0 : Math.min(1, m.utilisation * (clients - 1) / clients);
    const figures = {} as LatencyFigures;
    for (const p of PERCENTILES) {
        figures[p] = p === 'mean' ? m.responseMs : serviceQuantileMs(PERCENTILE_Q[p], serviceMs, cv, tail) + (pWait > 0 ? waitQuantileMs(PERCENTILE_Q[p], pWait, meanWait) : 0);
    }
    return { figures, utilisation: m.utilisation, throughputPerSecond: m.throughputPerMs * 1000 };
}
