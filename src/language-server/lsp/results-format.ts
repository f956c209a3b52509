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
export function recordedTenantPrediction(results: Results, tenant: string): { corun: Record<string, unknown>; slos: RecordedSlo[]; ops: Map<string, RecordedOp> } | undefined {
    const recorded = results.predictions as Partial<RecordedPredictions> | undefined;
    const tenants: unknown = recorded?.prediction?.tenants;
    if (!Array.isArray(tenants)) return undefined;
    const found = tenants.find((t: { name?: unknown }) => t?.name === tenant) as { corun?: unknown; slos?: unknown; ops?: unknown } | undefined;
    if (!found) return undefined;
    const corun = typeof found.corun === 'object' && found.corun !== null ? found.corun as Record<string, unknown> : {};
    const slos = Array.isArray(found.slos) ? (found.slos as unknown[]).filter((s): s is RecordedSlo => typeof s === 'object' && s !== null) : [];
    const ops = new Map<string, RecordedOp>();
    if (Array.isArray(found.ops)) for (const op of found.ops as { path?: unknown }[]) if (typeof op?.path === 'string') ops.set(op.path, op as RecordedOp);
    return { corun, slos, ops };
}

/** A recorded op prediction's fields the report reads (unchecked: read each with `finite`). */
export interface RecordedOp {
    soloMs?: unknown;
    corunMs?: unknown;
    corunBand?: { relative?: unknown };
}

/** A recorded SLO prediction's fields the report reads (workload.ts SloPrediction; unchecked). */
export interface RecordedSlo {
    percentile?: unknown;
    corunMs?: unknown;
    corunBandMs?: { low?: unknown; high?: unknown };
}

/** A finite number, or undefined (recorded predictions write an unbounded latency as null). */
export function finite(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

