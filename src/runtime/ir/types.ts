/**
 * Workload IR — the contract between the language server (which produces it from a checked
 * `.tenancy` document, see src/language-server/lower.ts) and the runtime (which validates it
 * on entry, compiles it to kernels and runs it). Plain JSON: no classes, no functions, no
 * undefined-vs-missing distinctions that JSON would lose. The types are the zod schema's
 * (./schema.ts), so what is declared and what is checked cannot drift apart.
 *
 * Attributes per op kind, all resolved to concrete numbers by lowering (no defaults left for
 * the runtime to guess, no negative axes, no "same" padding; ./schema.ts attrSchemas):
 * - dense: { units, bias }
 * - matmul: {}
 * - conv2d: { filters, kernel: [kh, kw], stride: [sh, sw], padding: [top, left, bottom, right],
 *             dilation: [dh, dw], groups, bias }
 * - depthwise_conv2d: { kernel, stride, padding (4-tuple as conv2d), multiplier }
 * - max_pool2d, avg_pool2d: { kernel, stride, padding (4-tuple) }   (avg excludes padding)
 * - global_avg_pool, batch_norm, layer_norm, relu, relu6, gelu, sigmoid, tanh, silu, add, mul,
 *   flatten: {}
 * - softmax: { axis }                         (non-negative)
 * - reshape: { shape }                        (concrete, no -1)
 * - transpose: { perm }
 * - concat: { axis }                          (non-negative)
 * - embedding: { vocab, dim }
 * - attention: { heads, causal }
 * - lstm: { hidden, layers }
 *
 * Weight layouts the runtime expects (row-major): dense weight [k, units]; conv2d weight
 * [filters, c/groups, kh, kw] (OIHW); lstm per layer l: w_ih.l [in, 4h], w_hh.l [h, 4h],
 * b.l [4h], gates i | f | g | o.
 */
import type { z } from 'zod';
import type {
    arrivalSchema, benchmarkSchema, graphSchema, opSchema, scheduleSchema, sloSchema, sourceRangeSchema, tenantSchema, weightSchema, workloadSchema,
} from './schema.js';
import type { DEVICE_PREFERENCES, DTYPES, OP_KINDS, PRIORITIES, SLO_PERCENTILES } from './vocabulary.js';

export { IR_VERSION } from './schema.js';

export type DType = (typeof DTYPES)[number];
export type IrOpKind = (typeof OP_KINDS)[number];
export type IrPercentile = (typeof SLO_PERCENTILES)[number];
export type IrPriority = (typeof PRIORITIES)[number];
export type IrDevicePreference = (typeof DEVICE_PREFERENCES)[number];

export type IrSourceRange = z.infer<typeof sourceRangeSchema>;
export type IrAttrs = z.infer<typeof opSchema>['attrs'];
export type IrWeight = z.infer<typeof weightSchema>;
export type IrOp = z.infer<typeof opSchema>;
export type IrGraph = z.infer<typeof graphSchema>;
export type IrArrival = z.infer<typeof arrivalSchema>;
export type IrSlo = z.infer<typeof sloSchema>;
export type IrTenant = z.infer<typeof tenantSchema>;
export type IrSchedule = z.infer<typeof scheduleSchema>;
export type IrBenchmark = z.infer<typeof benchmarkSchema>;
export type WorkloadIR = z.infer<typeof workloadSchema>;

/** Bytes per element of a dtype. */
export function dtypeBytes(dtype: DType): number {
    return dtype === 'f16' ? 2 : 4;
}

/** Elements of a tensor of this shape (1 for a scalar). */
export function numel(shape: readonly number[]): number {
    let n = 1;
    for (const d of shape) n *= d;
    return n;
}
