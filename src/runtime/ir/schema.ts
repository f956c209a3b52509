/**
 * zod schema of the Workload IR (src/runtime/ir/types.ts) for IR read from outside the process
 * (`tenancy run --ir file.json`, the language server's output over a pipe). Structural only;
 * cross-references, shapes and order are checked in ./validate.ts. Pure: no webgpu, no fs.
 */
import { z } from 'zod';
import type { IrOpKind } from './types.js';

const int = z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' });
const positiveInt = z.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' });
const nonNegativeInt = z.number({ error: 'must be a non-negative integer' }).int({ error: 'must be a non-negative integer' }).nonnegative({ error: 'must be a non-negative integer' });
const finite = z.number({ error: 'must be a number' }).finite({ error: 'must be a finite number' });

export const dtypeSchema = z.enum(['f32', 'f16', 'i32'], { error: 'must be one of f32, f16, i32' });

const positionSchema = z.object({ line: nonNegativeInt, character: nonNegativeInt });
export const sourceRangeSchema = z.object({
    uri: z.string({ error: 'must be a string' }),
    start: positionSchema,
    end: positionSchema,
});

const shapeSchema = z.array(positiveInt, { error: 'must be an array of positive integers' });

export const tensorSchema = z.object({
    id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    dtype: dtypeSchema,
    shape: shapeSchema,
});

export const opKinds = [
    'dense', 'matmul', 'conv2d', 'depthwise_conv2d',
    'max_pool2d', 'avg_pool2d', 'global_avg_pool',
    'batch_norm', 'layer_norm',
    'relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu',
    'add', 'mul', 'softmax',
    'reshape', 'transpose', 'flatten', 'concat',
    'embedding', 'attention', 'lstm',
] as const satisfies readonly IrOpKind[];

const pair = z.tuple([positiveInt, positiveInt], { error: 'must be [number, number]' });
const padding4 = z.tuple([nonNegativeInt, nonNegativeInt, nonNegativeInt, nonNegativeInt],
    { error: 'must be [top, left, bottom, right] (4 non-negative integers)' });
const bool = z.boolean({ error: 'must be a boolean' });
const empty = z.object({}).strict();

/** Attribute schemas per op kind (LANGUAGE.md operators, resolved by lowering). */
export const attrSchemas: Record<IrOpKind, z.ZodType> = {
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

export const weightSchema = z.object({
    name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    shape: shapeSchema,
    dtype: dtypeSchema,
});

export const opSchema = z.object({
    path: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    kind: z.enum(opKinds, { error: `must be one of ${opKinds.join(', ')}` }),
    inputs: z.array(z.string({ error: 'must be a tensor id (string)' }), { error: 'must be an array of tensor ids' }),
    output: z.string({ error: 'must be a tensor id (string)' }),
    // Checked per kind against attrSchemas in validate.ts so errors name the op path.
    attrs: z.record(z.string(), attrValue, { error: 'must be an object' }),
    weights: z.array(weightSchema, { error: 'must be an array' }),
    flops: finite.nonnegative({ error: 'must be a non-negative number' }),
    bytes: finite.nonnegative({ error: 'must be a non-negative number' }),
    source: sourceRangeSchema.optional(),
});

export const graphSchema = z.object({
    model: z.string({ error: 'must be a string' }),
    args: z.record(z.string(), finite, { error: 'must be an object of numbers' }),
    tensors: z.record(z.string(), tensorSchema, { error: 'must be an object of tensors' }),
    inputs: z.array(z.string(), { error: 'must be an array of tensor ids' }),
    outputs: z.array(z.string(), { error: 'must be an array of tensor ids' }).min(1, { error: 'must name at least one output' }),
    ops: z.array(opSchema, { error: 'must be an array of ops' }).min(1, { error: 'must contain at least one op' }),
});

export const arrivalSchema = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('poisson'), ratePerSecond: finite.positive({ error: 'must be a positive number' }) }),
    z.object({ kind: z.literal('closed'), clients: positiveInt, thinkMs: finite.nonnegative({ error: 'must be ≥ 0' }) }),
    z.object({ kind: z.literal('periodic'), everyMs: finite.positive({ error: 'must be a positive number' }) }),
], { error: 'must be { kind: poisson | closed | periodic, … }' });

const percentileSchema = z.enum(['mean', 'p50', 'p90', 'p95', 'p99', 'p999'],
    { error: 'must be one of mean, p50, p90, p95, p99, p999' });

export const sloSchema = z.object({ percentile: percentileSchema, ms: finite.positive({ error: 'must be a positive number' }) });

export const tenantSchema = z.object({
    name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    graph: graphSchema,
    arrival: arrivalSchema,
    slos: z.array(sloSchema, { error: 'must be an array' }),
    priority: z.enum(['high', 'normal', 'low'], { error: 'must be high, normal or low' }),
    source: sourceRangeSchema.optional(),
});

const sizeOrAuto = z.union([positiveInt, z.literal('auto')], { error: 'must be a positive integer or "auto"' });

export const scheduleSchema = z.discriminatedUnion('policy', [
    z.object({ policy: z.literal('sequential') }),
    z.object({ policy: z.literal('concurrent') }),
    z.object({ policy: z.literal('layer_block'), size: sizeOrAuto }),
    z.object({ policy: z.literal('regulated'), split: sizeOrAuto, sync: z.enum(['auto', 'none']) }),
    z.object({ policy: z.literal('co_tuned'), variants: positiveInt }),
    z.object({ policy: z.literal('auto') }),
], { error: 'must be { policy: sequential | concurrent | layer_block | regulated | co_tuned | auto, … }' });

export const benchmarkSchema = z.object({
    durationMs: finite.positive({ error: 'must be a positive number' }),
    warmupMs: finite.nonnegative({ error: 'must be ≥ 0' }),
    requests: positiveInt.optional(),
    repetitions: positiveInt.optional(),
    seed: int,
});

export const workloadSchema = z.object({
    irVersion: z.number({ error: 'must be a number' }),
    workload: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    sourceUri: z.string({ error: 'must be a string' }),
    device: z.object({
        preference: z.enum(['auto', 'high_performance', 'low_power', 'fallback'],
            { error: 'must be auto, high_performance, low_power or fallback' }),
        memoryBytes: finite.positive({ error: 'must be a positive number of bytes' }).optional(),
    }),
    tenants: z.array(tenantSchema, { error: 'must be an array of tenants' }).min(1, { error: 'must contain at least one tenant' }),
    schedule: scheduleSchema,
    benchmark: benchmarkSchema,
    source: sourceRangeSchema.optional(),
});
