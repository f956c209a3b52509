/** Loads the workloads of a .tenancy document as IR for `tenancy predict` (parse, check, lower). */
import type { WorkloadIR } from '../../runtime/ir/types.js';

export async function loadWorkloadIrs(file: string): Promise<WorkloadIR[]> {
    throw new Error(`${file}: reading .tenancy documents needs src/cli/load-workspace.ts (language core), not in this build yet`);
}
