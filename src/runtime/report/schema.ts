/**
 * The results file (`.tenancy/results/<file-stem>.<workload>.json`): a versioned zod schema,
 * exported so the language server and the extension can read and validate results. Keep this
 * file free of webgpu imports (the language server imports it).
 *
 * Units: times in milliseconds, rates per second, sizes in bytes. `null` means "not measured"
 * (a phase that did not run, a value without enough samples), never 0.
 */
import { z } from 'zod';
import { SPLIT_AXES, type SplitAxis } from '../kernels/kernel.js';

export const RESULTS_SCHEMA_VERSION = 2;

const num = z.number();
const nullableNum = z.number().nullable();
const count = z.number().int().nonnegative();

const positionSchema = z.object({ line: z.number().int(), character: z.number().int() });
const sourceSchema = z.object({ uri: z.string(), start: positionSchema, end: positionSchema });

const statisticSchema = z.enum(['mean', 'p50', 'p90', 'p95', 'p99', 'p999']);
const percentileSchema = z.enum(['p50', 'p90', 'p95', 'p99', 'p999']);

/** One-sided 95 % confidence bounds of a statistic (statistics.ts); a null end: too few samples to give one. */
export const boundsSchema = z.object({ low: nullableNum, high: nullableNum });

/**
 * A co-run / solo ratio with its 95 % interval (two-stage bootstrap over rounds and requests)
 * and what it says: `slower` or `faster` when the interval excludes 1, `no-change` when it
 * contains 1, `unknown` when the samples cannot bound it.
 */
export const ratioSchema = z.object({
    estimate: num,
    low: nullableNum,
    high: nullableNum,
    verdict: z.enum(['slower', 'faster', 'no-change', 'unknown']),
});
export type Ratio = z.infer<typeof ratioSchema>;

/** How long a request spent where, mean ms over the phase's requests: queueing + GPU time + host overhead = latency. */
export const breakdownSchema = z.object({
    /** Waiting with no GPU work of it in flight: before its first submission and between blocks. */
    queueingMs: num,
    /** The GPU time of its kernels (timestamps; CPU-side per op when timed on the CPU). */
    gpuMs: num,
    /** The rest of its submissions' wall time: submit, completion seen by the host, passes between kernels. */
    hostMs: num,
});

/** Latency statistics of one tenant in one phase, over all measured rounds. */
export const phaseStatsSchema = z.object({
    /** Measured requests completed (the warm-up round not counted). */
    requests: count,
    /** Rounds that measured this phase. */
    rounds: count,
    /** Sum over rounds of each measured window, from its start to its last measured completion. */
    windowMs: num,
    throughputPerSecond: num,
    /** Measured requests that arrived but had not finished when a phase ended (overload). */
    unfinished: count,
    latencyMs: z.object({ mean: num, min: num, max: num, p50: num, p90: num, p95: num, p99: num, p999: num }),
    /** Each statistic's one-sided 95 % bounds; a percentile the requests cannot bound has `high: null`. */
    boundsMs: z.record(statisticSchema, boundsSchema),
    /** The highest percentile these requests bound (null: not even p50). */
    boundedUpTo: percentileSchema.nullable(),
    breakdown: breakdownSchema.nullable(),
    /** Up to 1000 latencies (ms), ascending: quantiles of the full sample when it is larger. */
    latencySampleMs: z.array(num),
});
export type PhaseStats = z.infer<typeof phaseStatsSchema>;

export const sloResultSchema = z.object({
    percentile: statisticSchema,
    targetMs: num,
    /** The judged phase's value of that statistic (co-run; solo when there is no co-run phase). */
    measuredMs: nullableNum,
    boundsMs: boundsSchema.nullable(),
    /** met: the upper bound is within the target; violated: the lower bound is beyond it; inconclusive: the bounds straddle it; invalid: too few requests to bound it. */
    verdict: z.enum(['met', 'violated', 'inconclusive', 'invalid']),
    /** Requests the statistic needs before it can be bounded (null once it has them). */
    requestsNeeded: count.nullable(),
    /** Fraction of measured requests that finished within targetMs. */
    attainment: nullableNum,
});
export type SloResult = z.infer<typeof sloResultSchema>;

/** co-run / solo of a statistic of request latency; a null statistic: a phase missing or a p99 without the requests to bound it. */
export const slowdownSchema = z.object({ mean: ratioSchema.nullable(), p50: ratioSchema.nullable(), p99: ratioSchema.nullable() });

/** Who else ran while an op ran in the co-run phase, from the kernel timeline. */
export const attributionSchema = z.object({
    /** Fraction of the op's co-run time during which another tenant's kernel ran. */
    overlappedFraction: num,
    /** Median time of its runs that mostly overlapped another tenant's kernels, and of the others (null: none). */
    overlappedP50Ms: nullableNum,
    aloneP50Ms: nullableNum,
    /** The co-runners' ops it overlapped most, by share of its co-run time, with its median time when each was its main overlap. */
    by: z.array(z.object({ tenant: z.string(), op: z.string(), fraction: num, p50Ms: nullableNum })),
});
export type Attribution = z.infer<typeof attributionSchema>;

export const opResultSchema = z.object({
    /** Stable op path of the (fused) op, e.g. "vision/tiny_resnet/block.2/conv1". */
    path: z.string(),
    kind: z.string(),
    fused: z.array(z.string()),
    kernels: z.array(z.object({ name: z.string(), variant: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])) })),
    /** The op's variant name, and 'tuned' (measured, from the tuning cache) or 'default' (the generator's rule). */
    variant: z.string().optional(),
    variantSource: z.enum(['tuned', 'default']).optional(),
    /** How the schedule split the op into chunks of its grid (regulated: each chunk a dispatch of its own), when it did. */
    split: z.object({ axis: z.enum(SPLIT_AXES as readonly [SplitAxis, ...SplitAxis[]]), chunks: num }).optional(),
    flops: num,
    bytes: num,
    /** Mean GPU (or CPU-side, see config.timing) time per request, ms. */
    soloMs: nullableNum,
    corunMs: nullableNum,
    /** The median over requests of the same time, ms: a few stalled passes move a mean far more than a median. */
    soloP50Ms: nullableNum,
    corunP50Ms: nullableNum,
    /** Co-run / solo median time with its interval. */
    slowdown: ratioSchema.nullable(),
    attribution: attributionSchema.nullable(),
    source: sourceSchema.optional(),
});
export type OpResult = z.infer<typeof opResultSchema>;

/** What one co-runner does to a tenant: the share of the tenant's co-run GPU time it overlapped, and the tenant's slowdown over solo during that time. */
export const interferenceSchema = z.object({ aggressor: z.string(), overlappedFraction: num, slowdown: nullableNum });

export const tenantResultSchema = z.object({
    name: z.string(),
    model: z.string(),
    priority: z.enum(['high', 'normal', 'low']),
    arrival: z.record(z.string(), z.union([z.string(), z.number()])),
    /** Planned device memory: weights + activations after reuse + staging, bytes. */
    memoryBytes: num,
    solo: phaseStatsSchema.nullable(),
    corun: phaseStatsSchema.nullable(),
    slowdown: slowdownSchema,
    /** A/A: its even solo rounds against its odd ones (mean latency): slowdowns inside this interval are within the host's noise. */
    noise: ratioSchema.nullable(),
    slos: z.array(sloResultSchema),
    /** True when every SLO verdict and the requests `min_requests` asks for are there. */
    valid: z.boolean(),
    invalidReasons: z.array(z.string()),
    /** One entry per co-runner (the row of the interference heatmap). */
    interference: z.array(interferenceSchema),
    /**
     * Multi-version kernels (layer_block): the hot ops' variants per version (version 0: the op's
     * own, then more tolerant of co-runners), the co-run blocks run in each version, the rule that
     * chose them and the first decisions. Null when the tenant had one version.
     */
    multiVersion: z.object({
        ops: z.array(z.object({ path: z.string(), variants: z.array(z.string()) })),
        blocks: z.array(count),
        rule: z.string(),
        decisions: z.array(z.object({ op: z.string(), version: count, level: z.number().nullable() })),
    }).nullable(),
    ops: z.array(opResultSchema),
    source: sourceSchema.optional(),
});
export type TenantResult = z.infer<typeof tenantResultSchema>;

export const timelineSchema = z.object({
    /** Which phase the intervals come from. */
    phase: z.enum(['corun', 'solo']),
    /** Intervals are ms since the phase's measured window started (per-device clocks aligned, see execute). */
    intervals: z.array(z.object({
        tenant: z.string(),
        request: z.number().int(),
        op: z.string(),
        startMs: num,
        endMs: num,
    })),
    /** True when intervals were cut at the size bound. */
    truncated: z.boolean(),
});

export const adapterInfoSchema = z.object({
    vendor: z.string(),
    architecture: z.string(),
    device: z.string(),
    description: z.string(),
    isFallbackAdapter: z.boolean(),
    features: z.array(z.string()),
});

export const runStatusSchema = z.enum(['complete', 'partial', 'cancelled', 'failed']);

export const measurementSchema = z.object({
    /** Rounds planned (benchmark { rounds }) and measured (with the extension), after one warm-up round. */
    plannedRounds: z.number().int().nonnegative(),
    rounds: z.number().int().nonnegative(),
    /** Measured time per phase in one round (time mode), ms; null in request-count mode. */
    roundMs: nullableNum,
    /** The warm-up round's time per phase, ms (its requests are discarded). */
    warmupMs: num,
    /** The cap on the whole measurement, ms, and whether it stopped the run short of what it planned or needed. */
    budgetMs: num,
    budgetReached: z.boolean(),
    /** Rounds added beyond the plan so that tenants reach the requests their SLO percentiles need. */
    extendedRounds: z.number().int().nonnegative(),
    /** What the extension or the budget did, in words (absent when nothing happened). */
    note: z.string().optional(),
    /** Wall time of the measurement (warm-up round included), ms. */
    elapsedMs: num,
});

export const hostSchema = z.object({
    /** 1-minute load average before and after, and the cores (Linux; null elsewhere). */
    loadBefore: nullableNum,
    loadAfter: nullableNum,
    cores: z.number().int().positive(),
    /** Share of CPU time stolen by the hypervisor during the run (Linux /proc/stat; null elsewhere). */
    stealFraction: nullableNum,
    /**
     * The calibration's reference request (calibrate.ts timeReferenceRequest) timed before the
     * measurement, ms: how fast the host ran, against a profile's own time of it
     * (hostSpeedProbeMs). Absent when the run did not time it (no calibrated profile, a test).
     */
    referenceRequestMs: z.number().positive().optional(),
    /** A/A: the first half of every tenant's solo rounds against the second half (mean latency); slowdowns inside its interval are within this host's noise. */
    noise: ratioSchema.nullable(),
    /** True when the host was busy enough to distort figures (load above the cores, steal above 5 %, or an A/A difference). */
    busy: z.boolean(),
    /** Why `busy`, in words. */
    warning: z.string().optional(),
});

export const resultsSchema = z.object({
    schemaVersion: z.literal(RESULTS_SCHEMA_VERSION),
    status: runStatusSchema,
    /** Why the run is not complete (absent when complete). */
    reason: z.string().optional(),
    /** Op path the failure points at, when there is one. */
    failedOp: z.string().optional(),
    workload: z.string(),
    sourceUri: z.string(),
    startedAt: z.string(),
    finishedAt: z.string(),
    adapter: adapterInfoSchema.nullable(),
    config: z.object({
        /** The schedule that ran, its `auto` arguments resolved (`regulated(split: {"a":4}, sync: 2.10 ms)`). */
        policy: z.string(),
        /** Why that schedule or those arguments (for `auto`). */
        scheduleWhy: z.string().optional(),
        schedule: z.record(z.string(), z.union([z.string(), z.number()])),
        durationMs: num,
        warmupMs: num,
        requests: z.number().int().nullable(),
        /** Measured rounds (each: every tenant solo, then all co-running), after one warm-up round. */
        rounds: z.number().int().positive(),
        seed: z.number().int(),
        /** × every tenant's declared traffic (a sweep's cell); absent: 1, the traffic as declared. */
        load: z.number().positive().optional(),
        /** sha256 of the canonical IR JSON the run compiled. */
        irHash: z.string(),
        /** How per-op times were measured. */
        timing: z.enum(['gpu-timestamps', 'cpu-per-op']),
        fusion: z.boolean(),
        tenancyVersion: z.string(),
    }),
    /** How the rounds went: planned, run, extended to give tenants the requests their SLOs need, stopped by the budget. */
    measurement: measurementSchema,
    /** The host around the run: how busy it was, and the noise of solo against solo (A/A). */
    host: hostSchema,
    /** True when every tenant's figures are valid (see tenants[].valid) and the run completed. */
    valid: z.boolean(),
    invalidReasons: z.array(z.string()),
    tenants: z.array(tenantResultSchema),
    timeline: timelineSchema.nullable(),
    /** Reserved for the predictions shown when the run started (filled by the predictor). */
    predictions: z.unknown().optional(),
});
export type Results = z.infer<typeof resultsSchema>;
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * Validates a parsed, versioned file (`schemaVersion`) against its schema; throws a readable
 * error that names the version (older: `again` says how to write a new one; newer: update) or
 * the first fields that do not fit.
 */
export function parseVersioned<T>(value: unknown, schema: z.ZodType<T>, version: number, what: { name: string; again: string }): T {
    const found = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (typeof found === 'number' && found !== version) {
        throw new Error(found < version
            ? `${what.name} written by an older Tenancy (${what.name} schema ${found}; this one reads ${version}): ${what.again}`
            : `${what.name} written by a newer Tenancy (${what.name} schema ${found}; this one reads ${version}): update Tenancy`);
    }
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    const first = r.error.issues.slice(0, 5).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`invalid ${what.name} file: ${first.join('; ')}`);
}

/** Validates a parsed results file; throws a readable error naming the field (or the version) on mismatch. */
export function parseResults(value: unknown): Results {
    return parseVersioned(value, resultsSchema, RESULTS_SCHEMA_VERSION, { name: 'results', again: 'run the workload again' });
}
