/**
 * A tenant's plan for a device, on shapes only (no GPU objects): the graph's plan (./plan.ts,
 * the same the predictor times), every op served by a kernel, memory planning, and the checks
 * that a tensor or the plan fits the device — all before anything is allocated.
 * src/runtime/gpu/compile.ts turns a tenant plan into GPU objects.
 */
import type { IrTenant } from '../ir/types.js';
import { dtypeBytes, numel } from '../ir/types.js';
import type { DeviceCaps, OpKernels } from '../kernels/kernel.js';
import { formatBytes } from '../../protocol/units.js';
import type { FusedOp } from './fusion.js';
import { checkBufferFits, MemoryLimitError, planMemory, alignBufferSize, type MemoryLimits, type MemoryPlan, type MemoryStep } from './memory.js';
import { planGraph, planVariant, type KernelProvider, type PlanCache, type PlannedOp } from './plan.js';
import type { TuningCache } from './tuning.js';

/** Raised when an op cannot be compiled (no kernel, bad variant, limits); names the op path. */
export class CompileError extends Error {
    constructor(message: string, readonly opPath?: string, readonly tenant?: string) {
        super(message);
        this.name = 'CompileError';
    }
}

/** A planned op the device can run: its kernels exist. */
export type RunnableOp = PlannedOp & { readonly kernels: OpKernels };

export interface TenantPlan {
    tenant: IrTenant;
    ops: readonly RunnableOp[];
    /**
     * Per op, its other versions (VELTAIR's multi-version kernels: the same op in variants more
     * tolerant of co-runners, most tolerant last), or undefined; version 0 is the op itself.
     */
    versions: readonly (readonly RunnableOp[] | undefined)[];
    memory: MemoryPlan;
    /** Bytes of weights (incl. folded batch-norm scale/shift). */
    weightBytes: number;
    /** Bytes of uniform buffers. */
    uniformBytes: number;
    /** Weights + activations (after reuse) + uniforms + graph-input data. */
    totalBytes: number;
}

export interface TenantPlanOptions {
    caps: DeviceCaps;
    limits: MemoryLimits;
    /** Kernel generators (default src/runtime/kernels). */
    kernels?: KernelProvider;
    /** Tuned variants of this adapter (keyed by `adapterKey`). */
    tuning?: TuningCache;
    adapterKey?: string;
    /** Told when a cached variant cannot be built and the default is used instead. */
    onTuningWarning?: (message: string) => void;
    fusion?: boolean;
    /** Shared with other plans (tenants of one run); undefined ⇒ one per call. */
    cache?: PlanCache;
    /** Per op, the variants to plan as its other versions (one that cannot be built runs as the op itself). */
    versions?: (ops: readonly RunnableOp[]) => readonly (readonly string[])[];
}

/** Plans one tenant; throws CompileError / MemoryLimitError naming the op (nothing is allocated). */
export function planTenant(tenant: IrTenant, options: TenantPlanOptions): TenantPlan {
    const graph = tenant.graph;
    const { tuning, adapterKey } = options;
    for (const t of Object.values(graph.tensors)) {
        checkBufferFits(`tensor ${t.id} ${t.dtype}[${t.shape.join(', ')}]`, numel(t.shape) * dtypeBytes(t.dtype), options.limits, tenant.name,
            graph.ops.find(o => o.output === t.id)?.path);
    }
    const planned = planGraph(graph, {
        caps: options.caps, fusion: options.fusion, kernels: options.kernels, cache: options.kernels ? undefined : options.cache,
        variants: tuning && adapterKey ? {
            variantFor: signature => tuning.variantFor(adapterKey, signature),
            onUnusable: message => options.onTuningWarning?.(`tenant ${tenant.name}, ${message}`),
        } : undefined,
    });
    const ops: RunnableOp[] = [];
    for (const op of planned) {
        if (!op.kernels) {
            const message = op.unsupported ?? 'no kernel';
            // Generators already prefix the op path; add the tenant and keep their wording.
            throw new CompileError(`${message.includes(op.path) ? `tenant ${tenant.name}: ` : `tenant ${tenant.name}, op ${op.path}: `}${message}`, op.path, tenant.name);
        }
        ops.push(op as RunnableOp);
    }
    const wanted = options.versions?.(ops) ?? [];
    const versions = ops.map((op, i) => {
        // A version that is the op's own variant, or that cannot be built, runs as the op itself and keeps its place: version k means the same for every op.
        const alternatives = (wanted[i] ?? []).map(v =>
            (v === op.variant ? op : planVariant(op, graph, v, { caps: options.caps, fusion: options.fusion, kernels: options.kernels, cache: options.kernels ? undefined : options.cache }) ?? op) as RunnableOp);
        return alternatives.length > 0 ? alternatives : undefined;
    });
    const steps: MemoryStep[] = [];
    let weightBytes = 0, uniformBytes = 0;
    const weightRoles = new Set<string>();
    ops.forEach((op, i) => {
        const scratch = new Map<string, number>();
        for (const version of [op, ...(versions[i] ?? [])]) {
            const kernels = version.kernels;
            for (const b of kernels.buffers) {
                const bytes = numel(b.shape) * dtypeBytes(b.dtype);
                checkBufferFits(`${b.kind} buffer '${b.role}' ${b.dtype}[${b.shape.join(', ')}]`, bytes, options.limits, tenant.name, op.path);
                // Versions share the op's weights (one upload per role); scratch roles take the largest any version needs.
                if (b.kind === 'weight' && !weightRoles.has(`${i}:${b.role}`)) {
                    weightRoles.add(`${i}:${b.role}`);
                    weightBytes += alignBufferSize(bytes);
                }
                if (b.kind === 'scratch') scratch.set(b.role, Math.max(scratch.get(b.role) ?? 0, bytes));
            }
            for (const l of kernels.launches) if (l.uniforms) uniformBytes += alignBufferSize(l.uniforms.byteLength);
            checkRoles(tenant.name, op.path, op.fused, kernels);
        }
        for (const n of op.fused.foldedNorms) {
            const c = graph.tensors[n.norm.output].shape[1];
            weightBytes += 2 * alignBufferSize(4 * c);
        }
        steps.push({
            path: op.path,
            reads: [...op.fused.inputs, ...op.fused.epilogueInputs.map(e => e.tensor)],
            writes: op.fused.output,
            aliasesInput: op.kernels.aliasesInput,
            scratch: [...scratch].map(([role, bytes]) => ({ role, bytes })),
        });
    });
    const tensorBytes = new Map<string, number>();
    for (const t of Object.values(graph.tensors)) tensorBytes.set(t.id, numel(t.shape) * dtypeBytes(t.dtype));
    const memory = planMemory({ tensorBytes, steps, inputs: graph.inputs, outputs: graph.outputs });
    const totalBytes = weightBytes + memory.totalBytes + uniformBytes;
    if (options.limits.budgetBytes !== undefined && totalBytes > options.limits.budgetBytes) {
        throw new MemoryLimitError(
            `tenant ${tenant.name}: needs ${formatBytes(totalBytes)} (weights ${formatBytes(weightBytes)}, activations ${formatBytes(memory.totalBytes)} after reuse), ` +
            `more than the workload's device memory of ${formatBytes(options.limits.budgetBytes)}; raise device(memory: …) or shrink the model`, undefined, tenant.name);
    }
    return { tenant, ops, versions, memory, weightBytes, uniformBytes, totalBytes };
}

/** Every binding role must be resolvable: inN, out, a buffer role, an epilogue role, or a uniform. */
function checkRoles(tenant: string, path: string, fused: FusedOp, kernels: OpKernels): void {
    const known = new Set<string>(['out', ...fused.inputs.map((_, i) => `in${i}`), ...kernels.buffers.map(b => b.role),
        ...fused.epilogueInputs.map(e => e.role), ...fused.foldedNorms.flatMap(n => [n.scaleRole, n.shiftRole])]);
    for (const l of kernels.launches) {
        for (const b of l.bindings) {
            if (b.access !== 'uniform' && !known.has(b.role)) {
                throw new CompileError(`tenant ${tenant}, op ${path}: kernel ${l.name} binds role '${b.role}', which is none of ${[...known].join(', ')}`, path, tenant);
            }
            if (b.access === 'uniform' && !l.uniforms) {
                throw new CompileError(`tenant ${tenant}, op ${path}: kernel ${l.name} has a uniform binding '${b.role}' but no uniform data`, path, tenant);
            }
        }
    }
}

/** Plans all tenants (one plan cache: a model in several tenants is planned once) and checks their sum against the workload's memory budget. */
export function planWorkload(tenants: readonly IrTenant[], optionsFor: (tenant: IrTenant) => TenantPlanOptions, budgetBytes?: number): TenantPlan[] {
    const plans = tenants.map(t => planTenant(t, optionsFor(t)));
    const total = plans.reduce((a, p) => a + p.totalBytes, 0);
    if (budgetBytes !== undefined && total > budgetBytes) {
        const parts = plans.map(p => `${p.tenant.name} ${formatBytes(p.totalBytes)}`).join(', ');
        throw new MemoryLimitError(`the tenants together need ${formatBytes(total)} (${parts}), more than the workload's device memory of ${formatBytes(budgetBytes)}; raise device(memory: …) or remove a tenant`);
    }
    return plans;
}
