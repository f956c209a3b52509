/**
 * Small readers over a results file shared by the lenses, measured figures, report and status:
 * the adapter's display name and the predictions a run recorded (results.predictions).
 */
import type { RecordedPredictions } from '../../runtime/predict/record.js';
import type { Results } from '../../runtime/report/schema.js';

/** `mesa llvmpipe (software)` from a results/profile adapter record. */
export function adapterName(adapter: unknown): string | undefined {
    if (typeof adapter !== 'object' || adapter === null) return undefined;
    const a = adapter as Record<string, unknown>;
    // Dawn's description ("llvmpipe (LLVM 15.0.6, 256 bits)") reads better than its device slug.
    const name = [a.vendor, a.description || a.device].filter(v => typeof v === 'string' && v !== '').join(' ');
    if (!name) return undefined;
    return typeof a.architecture === 'string' && a.architecture !== '' ? `${name} (${a.architecture})` : name;
}

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

