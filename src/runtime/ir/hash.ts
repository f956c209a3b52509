/** The identity of a workload's IR: what a results file says was compiled. Pure. */
import { createHash } from 'node:crypto';
import type { WorkloadIR } from './types.js';

/** sha256 of the IR's canonical JSON (keys sorted), identifying what was compiled. */
export function irHash(ir: WorkloadIR): string {
    const canonical = (v: unknown): unknown => Array.isArray(v) ? v.map(canonical)
        : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map(k => [k, canonical((v as Record<string, unknown>)[k])])) : v;
    return createHash('sha256').update(JSON.stringify(canonical(ir))).digest('hex');
}
