/**
 * The results file (`.tenancy/results/<file-stem>.<workload>.json`): a versioned zod schema,
 * exported so the language server and the extension can read and validate results. Keep this
 * file free of webgpu imports (the language server imports it).
 *
 * Units: times in milliseconds, rates per second, sizes in bytes. `null` means "not measured"
 * (a phase that did not run, a value without enough samples), never 0.
 */
import { z } from 'zod';

export const RESULTS_SCHEMA_VERSION = 1;

const num = z.number();
const nullableNum = z.number().nullable();

const positionSchema = z.object({ line: z.number().int(), character: z.number().int() });
const sourceSchema = z.object({ uri: z.string(), start: positionSchema, end: positionSchema });

/** Confidence interval of the p99 latency (see statistics.ts: order-statistic binomial, distribution-free). */
export const intervalSchema = z.object({
    low: nullableNum,
    high: nullableNum,
    confidence: num,
    method: z.literal('order-statistic-binomial'),
});

/** Latency statistics of one tenant in one phase. */
export const phaseStatsSchema = z.object({
    /** Measured (post-warm-up) requests completed. */
    requests: z.number().int(),
    /** Length of the measured window, from its start to the last measured completion. */
    windowMs: num,
    throughputPerSecond: num,
    /** Measured requests that arrived but had not finished when the phase ended (overload). */
    unfinished: z.number().int(),
    latencyMs: z.object({
        mean: num, min: num, max: num, p50: num, p90: num, p95: num, p99: num, p999: num,
        p99Interval: intervalSchema,
    }),
    /** Up to 1000 latencies (ms), ascending: quantiles of the full sample when it is larger. */
    latencySampleMs: z.array(num),
});
export type PhaseStats = z.infer<typeof phaseStatsSchema>;

export const sloResultSchema = z.object({
    percentile: z.enum(['mean', 'p50', 'p90', 'p95', 'p99', 'p999']),
    targetMs: num,
    /** The co-run value of that percentile (solo when there is no co-run phase). */
    measuredMs: nullableNum,
    met: z.boolean().nullable(),
    /** Fraction of measured requests that finished within targetMs. */
    attainment: nullableNum,
});

export const slowdownSchema = z.object({ mean: nullableNum, p99: nullableNum });

export const opResultSchema = z.object({
    /** Stable op path of the (fused) op, e.g. "vision/tiny_resnet/block.2/conv1". */
    path: z.string(),
    kind: z.string(),
    /** Paths of IR ops fused into this one (batch_norm, activations, residual add). */
    fused: z.array(z.string()),
    /** Kernel launches and the variant chosen for each. */
    kernels: z.array(z.object({ name: z.string(), variant: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])) })),
    /** The op's variant name, and 'tuned' (measured, from the tuning cache) or 'default' (the generator's rule). */
    variant: z.string().optional(),
    variantSource: z.enum(['tuned', 'default']).optional(),
    flops: num,
    bytes: num,
    /** Mean GPU (or CPU-side, see config.timing) time per request, ms. */
    soloMs: nullableNum,
    corunMs: nullableNum,
    slowdown: nullableNum,
    /**
     * The median over requests of the same time, ms. On a shared host a
     * few stalled passes move an op's mean far more than its median. Absent in older files.
     */
    soloP50Ms: nullableNum.optional(),
    corunP50Ms: nullableNum.optional(),
    source: sourceSchema.optional(),
});
export type OpResult = z.infer<typeof opResultSchema>;

export const tenantResultSchema = z.object({
    name: z.string(),
    model: z.string(),
    priority: z.enum(['high', 'normal', 'low']),
    arrival: z.record(z.string(), z.union([z.string(), z.number()])),
    /** Planned device memory: weights + activations after reuse + staging, bytes. */
    memoryBytes: num,
    solo: phaseStatsSchema.nullable(),
    corun: phaseStatsSchema.nullable(),
    /** co-run / solo. */
    slowdown: slowdownSchema,
    slos: z.array(sloResultSchema),
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
        policy: z.string(),
        schedule: z.record(z.string(), z.union([z.string(), z.number()])),
        durationMs: num,
        warmupMs: num,
        requests: z.number().int().nullable(),
        /** Solo and co-run phases each ran this many times; samples merged (absent in older files: 1). */
        repetitions: z.number().int().positive().optional(),
        seed: z.number().int(),
        /** sha256 of the canonical IR JSON the run compiled. */
        irHash: z.string(),
        /** How per-op times were measured. */
        timing: z.enum(['gpu-timestamps', 'cpu-per-op']),
        fusion: z.boolean(),
        tenancyVersion: z.string(),
    }),
    tenants: z.array(tenantResultSchema),
    timeline: timelineSchema.nullable(),
    /** Reserved for the predictions shown when the run started (filled by the predictor). */
    predictions: z.unknown().optional(),
});
export type Results = z.infer<typeof resultsSchema>;
export type RunStatus = z.infer<typeof runStatusSchema>;

/** Validates a parsed results file; throws a readable error naming the field on mismatch. */
export function parseResults(value: unknown): Results {
    const r = resultsSchema.safeParse(value);
    if (r.success) return r.data;
    const first = r.error.issues.slice(0, 5).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`);
    const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
    const hint = version !== RESULTS_SCHEMA_VERSION ? ` (file has schemaVersion ${JSON.stringify(version)}, this reader expects ${RESULTS_SCHEMA_VERSION})` : '';
    throw new Error(`invalid results file${hint}: ${first.join('; ')}`);
}
