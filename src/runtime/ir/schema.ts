/**
 * The zod schema of the Workload IR: the one definition of its shape. The IR's types
 * (./types.ts) are derived from it, and IR read from outside the process (`tenancy run --ir
 * file.json`, the language server's output over a pipe) is checked against it. Structural only;
 * cross-references, shapes and order are checked in ./validate.ts. Pure: no webgpu, no fs.
 */
import { z } from 'zod';
import { ARRIVAL_KINDS, DEVICE_PREFERENCES, DTYPES, OP_KINDS, PRIORITIES, SCHEDULE_POLICIES, SLO_PERCENTILES, SYNC_MODES, wordList } from './vocabulary.js';

/** Bump on any change that an older reader would misread. */
export const IR_VERSION = 2;

const int = z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' });
const positiveInt = z.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' });
const nonNegativeInt = z.number({ error: 'must be a non-negative integer' }).int({ error: 'must be a non-negative integer' }).nonnegative({ error: 'must be a non-negative integer' });
const finite = z.number({ error: 'must be a number' }).finite({ error: 'must be a finite number' });

export const dtypeSchema = z.enum(DTYPES, { error: `must be one of ${DTYPES.join(', ')}` });

/** Zero-based LSP-style position. */
const positionSchema = z.object({ line: nonNegativeInt, character: nonNegativeInt });
/** Where an element came from in the source text (document URI + range). */
export const sourceRangeSchema = z.object({
    uri: z.string({ error: 'must be a string' }),
    start: positionSchema,
    end: positionSchema,
});

const shapeSchema = z.array(positiveInt, { error: 'must be an array of positive integers' });

/** A tensor with a concrete shape. Ids are unique within one tenant's graph. */
export const tensorSchema = z.object({
    id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    dtype: dtypeSchema,
    shape: shapeSchema,
});

const pair = z.tuple([positiveInt, positiveInt], { error: 'must be [number, number]' });
const padding4 = z.tuple([nonNegativeInt, nonNegativeInt, nonNegativeInt, nonNegativeInt],
    { error: 'must be [top, left, bottom, right] (4 non-negative integers)' });
const bool = z.boolean({ error: 'must be a boolean' });
const empty = z.object({}).strict();

/** Attribute schemas per op kind (docs/language.md#operators, resolved by lowering). */
export const attrSchemas: Record<(typeof OP_KINDS)[number], z.ZodType> = {
    dense: z.object({ units: positiveInt, bias: bool }).strict(),
    matmul: empty,
    conv2d: z.object({
        filters: positiveInt, kernel: pair, stride: pair, padding: padding4, dilation: pair,
        groups: positiveInt, bias: bool,
    }).strict(),
    depthwise_conv2d: z.object({ kernel: pair, stride: pair, padding: padding4, multiplier: positiveInt }).strict(),
    max_pool2d: z.object({ kernel: pair, stride: pair, padding: padding4 }).strict(),
    avg_pool2d: z.object({ kernel: pair, stride: pair, padding: padding4 }).strict(),
    global_avg_pool: empty,
    batch_norm: empty,
    layer_norm: empty,
    relu: empty, relu6: empty, gelu: empty, sigmoid: empty, tanh: empty, silu: empty,
    add: empty, mul: empty,
    softmax: z.object({ axis: nonNegativeInt }).strict(),
    reshape: z.object({ shape: shapeSchema }).strict(),
    transpose: z.object({ perm: z.array(nonNegativeInt, { error: 'must be an array of axes' }) }).strict(),
    flatten: empty,
    concat: z.object({ axis: nonNegativeInt }).strict(),
    embedding: z.object({ vocab: positiveInt, dim: positiveInt }).strict(),
    attention: z.object({ heads: positiveInt, causal: bool }).strict(),
    lstm: z.object({ hidden: positiveInt, layers: positiveInt }).strict(),
};

const attrValue = z.union([finite, z.boolean(), z.string(), z.array(finite)],
    { error: 'must be a number, boolean, string or number array' });

/** An implicit parameter owned by an op (weights are filled from the benchmark seed). */
export const weightSchema = z.object({
    /** e.g. "weight", "bias", "gamma", "beta", "mean", "var", "w_qkv", "w_ih.0". */
    name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    shape: shapeSchema,
    dtype: dtypeSchema,
});

export const opSchema = z.object({
    /** Stable path, unique within the workload: `tenant/model/block.2/conv1`. */
    path: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    kind: z.enum(OP_KINDS, { error: `must be one of ${OP_KINDS.join(', ')}` }),
    /** Tensor ids, positional as in the language reference (e.g. add: [a, b]; concat: [t0, t1, …]). */
    inputs: z.array(z.string({ error: 'must be a tensor id (string)' }), { error: 'must be an array of tensor ids' }),
    /** The tensor id this op produces. */
    output: z.string({ error: 'must be a tensor id (string)' }),
    // Checked per kind against attrSchemas in validate.ts so errors name the op path.
    attrs: z.record(z.string(), attrValue, { error: 'must be an object' }),
    weights: z.array(weightSchema, { error: 'must be an array' }),
    /** Floating-point operations (a multiply-add counts 2). */
    flops: finite.nonnegative({ error: 'must be a non-negative number' }),
    /** Bytes read (inputs + weights) plus bytes written (output), each once. */
    bytes: finite.nonnegative({ error: 'must be a non-negative number' }),
    source: sourceRangeSchema.optional(),
});

/** One tenant's model, flattened: blocks inlined, `repeat` expanded, shapes concrete. */
export const graphSchema = z.object({
    /** The model called, with its arguments after defaults. */
    model: z.string({ error: 'must be a string' }),
    args: z.record(z.string(), finite, { error: 'must be an object of numbers' }),
    tensors: z.record(z.string(), tensorSchema, { error: 'must be an object of tensors' }),
    /** Graph inputs (fed with seeded random data; i32 ids drawn within the consuming op's range). */
    inputs: z.array(z.string(), { error: 'must be an array of tensor ids' }),
    outputs: z.array(z.string(), { error: 'must be an array of tensor ids' }).min(1, { error: 'must name at least one output' }),
    /** Topologically ordered. */
    ops: z.array(opSchema, { error: 'must be an array of ops' }).min(1, { error: 'must contain at least one op' }),
});

export const arrivalSchema = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('poisson'), ratePerSecond: finite.positive({ error: 'must be a positive number' }) }),
    z.object({ kind: z.literal('closed'), clients: positiveInt, thinkMs: finite.nonnegative({ error: 'must be ≥ 0' }) }),
    z.object({ kind: z.literal('periodic'), everyMs: finite.positive({ error: 'must be a positive number' }) }),
], { error: `must be { kind: ${ARRIVAL_KINDS.join(' | ')}, … }` });

const percentileSchema = z.enum(SLO_PERCENTILES, { error: `must be one of ${SLO_PERCENTILES.join(', ')}` });

export const sloSchema = z.object({ percentile: percentileSchema, ms: finite.positive({ error: 'must be a positive number' }) });

export const tenantSchema = z.object({
    name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    graph: graphSchema,
    arrival: arrivalSchema,
    slos: z.array(sloSchema, { error: 'must be an array' }),
    priority: z.enum(PRIORITIES, { error: `must be ${wordList(PRIORITIES)}` }),
    source: sourceRangeSchema.optional(),
});

const sizeOrAuto = z.union([positiveInt, z.literal('auto')], { error: 'must be a positive integer or "auto"' });

export const scheduleSchema = z.discriminatedUnion('policy', [
    z.object({ policy: z.literal('sequential') }),
    z.object({ policy: z.literal('concurrent') }),
    z.object({ policy: z.literal('layer_block'), size: sizeOrAuto }),
    z.object({ policy: z.literal('regulated'), split: sizeOrAuto, sync: z.enum(SYNC_MODES) }),
    z.object({ policy: z.literal('co_tuned'), variants: positiveInt }),
    z.object({ policy: z.literal('auto') }),
], { error: `must be { policy: ${SCHEDULE_POLICIES.join(' | ')}, … }` });

/** How a run measures (execute/rounds.ts): rounds of every tenant solo then all co-running, after a warm-up round. */
export const benchmarkSchema = z.object({
    /** Measured time per phase over all rounds (time mode). */
    durationMs: finite.positive({ error: 'must be a positive number' }),
    /** Each phase's time in the warm-up round, whose requests are discarded. */
    warmupMs: finite.nonnegative({ error: 'must be ≥ 0' }),
    /** Request-count mode: measured requests per tenant and phase over all rounds. */
    requests: positiveInt.optional(),
    /** Measured rounds (default execute/rounds.ts DEFAULT_ROUNDS). */
    rounds: positiveInt.optional(),
    /** The cap on the whole measurement, extension included. */
    budgetMs: finite.positive({ error: 'must be a positive number' }).optional(),
    /** Requests each tenant needs per phase; rounds are added (within the budget) until it has them. */
    minRequests: positiveInt.optional(),
    seed: int,
});

export const workloadSchema = z.object({
    irVersion: z.literal(IR_VERSION, { error: `must be ${IR_VERSION}` }),
    /** Workload name as written. */
    workload: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    /** URI of the document that defines the workload. */
    sourceUri: z.string({ error: 'must be a string' }),
    device: z.object({
        preference: z.enum(DEVICE_PREFERENCES, { error: `must be ${wordList(DEVICE_PREFERENCES)}` }),
        memoryBytes: finite.positive({ error: 'must be a positive number of bytes' }).optional(),
    }),
    tenants: z.array(tenantSchema, { error: 'must be an array of tenants' }).min(1, { error: 'must contain at least one tenant' }),
    schedule: scheduleSchema,
    benchmark: benchmarkSchema,
    source: sourceRangeSchema.optional(),
});
