/**
 * The closed word lists of the Workload IR, each written once: the zod schema (./schema.ts), the
 * IR's types (./types.ts, derived from the schema) and the language server's reader, completion
 * and hover all take their words from here. No dependencies.
 */

/** Element types of tensors and weights. */
export const DTYPES = ['f32', 'f16', 'i32'] as const;

/** The operators of the language, one IR op kind each. */
export const OP_KINDS = [
    'dense', 'matmul', 'conv2d', 'depthwise_conv2d',
    'max_pool2d', 'avg_pool2d', 'global_avg_pool',
    'batch_norm', 'layer_norm',
    'relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu',
    'add', 'mul', 'softmax',
    'reshape', 'transpose', 'flatten', 'concat',
    'embedding', 'attention', 'lstm',
] as const;

/** How requests arrive: an open Poisson stream, closed-loop clients, or a fixed period. */
export const ARRIVAL_KINDS = ['poisson', 'closed', 'periodic'] as const;

/** The latency statistics an SLO may bound. */
export const SLO_PERCENTILES = ['mean', 'p50', 'p90', 'p95', 'p99', 'p999'] as const;

/** A tenant's priority, highest first. */
export const PRIORITIES = ['high', 'normal', 'low'] as const;

/** Which adapter a workload asks for (the `device` line). */
export const DEVICE_PREFERENCES = ['auto', 'high_performance', 'low_power', 'fallback'] as const;

/** The schedules a workload may name. */
export const SCHEDULE_POLICIES = ['sequential', 'concurrent', 'layer_block', 'regulated', 'co_tuned', 'auto'] as const;

/** Where a `regulated` schedule puts sync points between tenants' queues. */
export const SYNC_MODES = ['auto', 'none'] as const;

/** A readable list of words: `a, b or c`. */
export function wordList(words: readonly string[], last = 'or'): string {
    return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}
