/**
 * Small readers over a results file shared by the report and the status item:
 * the adapter's display name and the predictions a run recorded (results.predictions).
 */
import type { RecordedPredictions } from '../../runtime/predict/record.js';
import type { Results } from '../../runtime/report/schema.js';
import { adapterDisplayName } from '../../protocol/adapter.js';

/** `mesa llvmpipe (software)` from a results/profile adapter record (see src/protocol/adapter.ts). */
export const adapterName = adapterDisplayName;

/** The predictions a run recorded (runtime/predict/record.ts), read defensively: the field is `unknown` in the schema. */
export function recordedTenantPrediction(results: Results, tenant: string): { corun: Record<string, unknown>; ops: Map<string, { soloMs?: unknown; corunMs?: unknown }> } | undefined {
    const recorded = results.predictions as Partial<RecordedPredictions> | undefined;
    const tenants: unknown = recorded?.prediction?.tenants;
    if (!Array.isArray(tenants)) return undefined;
    const found = tenants.find((t: { name?: unknown }) => t?.name === tenant) as { corun?: unknown; ops?: unknown } | undefined;
    if (!found) return undefined;
    const corun = typeof found.corun === 'object' && found.corun !== null ? found.corun as Record<string, unknown> : {};
    const ops = new Map<string, { soloMs?: unknown; corunMs?: unknown }>();
    if (Array.isArray(found.ops)) for (const op of found.ops as { path?: unknown }[]) if (typeof op?.path === 'string') ops.set(op.path, op as { soloMs?: unknown; corunMs?: unknown });
    return { corun, ops };
}

/** A finite number, or undefined (recorded predictions write an unbounded latency as null). */
export function finite(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

