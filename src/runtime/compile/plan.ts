/**
 * IR → tenant plan, on shapes only (no GPU objects): fusion, kernel selection through the
 * tuning seam, memory planning, and the checks that a tensor or a plan fits the device —
 * all before anything is allocated. ./compile.ts turns a plan into GPU objects.
 */
import type { IrOp, IrSourceRange, IrTenant } from '../ir/types.js';
import { dtypeBytes } from '../ir/types.js';
import type { DeviceCaps, KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from '../kernels/kernel.js';
import { fuseGraph, type FusedOp } from './fusion.js';
import { checkBufferFits, formatBytes, MemoryLimitError, planMemory, alignBufferSize, type MemoryLimits, type MemoryPlan, type MemoryStep } from './memory.js';
import { noTuning, opSignature, type TuningCache } from './tuning.js';

/** Where kernels come from (src/runtime/kernels/index.ts; injectable for tests). */
export interface KernelProvider {
    kernelsFor(request: KernelRequest): OpKernels;
}

/** Raised when an op cannot be compiled (no kernel, bad variant, limits); names the op path. */
export class CompileError extends Error {
    constructor(message: string, readonly opPath?: string, readonly tenant?: string) {
        super(message);
        this.name = 'CompileError';
    }
}

/** One planned (possibly fused) op. */
export interface PlannedOp {
    fused: FusedOp;
    path: string;
    kind: string;
    kernels: OpKernels;
    /** The tuned variant requested (undefined: the generator's default). */
    variant?: string;
    /**
     * Added (tuning): the variant the kernels use (the tuned one or the generator's default) and
     * where it came from — 'tuned' from the tuning cache, 'default' from the generator's rule.
     */
    variantName?: string;
    variantSource: 'tuned' | 'default';
    /** Tuning signature (kind, shapes, epilogue) — the key calibration fills. */
    signature: string;
    flops: number;
    bytes: number;
    source?: IrSourceRange;
}

export interface TenantPlan {
    tenant: IrTenant;
    ops: PlannedOp[];
    memory: MemoryPlan;
    /** Bytes of weights (incl. folded batch-norm scale/shift). */
    weightBytes: number;
    /** Bytes of uniform buffers. */
    uniformBytes: number;
    /** Weights + activations (after reuse) + uniforms + graph-input data. */
    totalBytes: number;
}

export interface PlanOptions {
    kernels: KernelProvider;
    caps: DeviceCaps;
    limits: MemoryLimits;
    tuning?: TuningCache;
    /** adapterKey(adapter) for tuning lookups. */
    adapterKey?: string;
    /** Added (tuning): told when a cached variant cannot be built and the default is used instead. */
    onTuningWarning?: (message: string) => void;
    fusion?: boolean;
}

const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Plans one tenant; throws CompileError / MemoryLimitError naming the op (nothing is allocated). */
export function planTenant(tenant: IrTenant, options: PlanOptions): TenantPlan {
    const graph = tenant.graph;
    const tuning = options.tuning ?? noTuning;
    const fusedOps = fuseGraph(graph, { enabled: options.fusion ?? true });
    const tensorBytes = new Map<string, number>();
    for (const t of Object.values(graph.tensors)) tensorBytes.set(t.id, numel(t.shape) * dtypeBytes(t.dtype));
    const ops: PlannedOp[] = [];
    const steps: MemoryStep[] = [];
    let weightBytes = 0, uniformBytes = 0;
    const where = (op: IrOp) => `tenant ${tenant.name}, op ${op.path}`;
    for (const t of Object.values(graph.tensors)) {
        checkBufferFits(`tensor ${t.id} ${t.dtype}[${t.shape.join(', ')}]`, numel(t.shape) * dtypeBytes(t.dtype), options.limits, tenant.name,
            graph.ops.find(o => o.output === t.id)?.path);
    }
    for (const fused of fusedOps) {
        const op = fused.op;
        const inputShapes = fused.inputs.map(id => graph.tensors[id].shape);
        const outputShape = graph.tensors[fused.output].shape;
        const signature = opSignature(op, inputShapes, outputShape, fused.epilogue);
        let variant = options.adapterKey ? tuning.variantFor(options.adapterKey, signature) : undefined;
        let kernels: OpKernels;
        try {
            try {
                kernels = options.kernels.kernelsFor({ op, inputShapes, outputShape, epilogue: fused.epilogue, variant, caps: options.caps });
            } catch (error) {
                // A cached choice this device or generator version cannot build: fall back to the default.
                if (variant === undefined) throw error;
                options.onTuningWarning?.(`tenant ${tenant.name}, op ${op.path}: tuned variant '${variant}' unusable (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); using the default`);
                variant = undefined;
                kernels = options.kernels.kernelsFor({ op, inputShapes, outputShape, epilogue: fused.epilogue, caps: options.caps });
            }
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            // Generators already prefix the op path; add the tenant and keep their wording.
            throw new CompileError(`${message.includes(op.path) ? `tenant ${tenant.name}: ` : `${where(op)}: `}${message}`, op.path, tenant.name);
        }
        for (const b of kernels.buffers) {
            const bytes = numel(b.shape) * dtypeBytes(b.dtype);
            checkBufferFits(`${b.kind} buffer '${b.role}' ${b.dtype}[${b.shape.join(', ')}]`, bytes, options.limits, tenant.name, op.path);
            if (b.kind === 'weight') weightBytes += alignBufferSize(bytes);
        }
        for (const n of fused.foldedNorms) {
            const c = graph.tensors[n.norm.output].shape[1];
            weightBytes += 2 * alignBufferSize(4 * c);
        }
        for (const l of kernels.launches) if (l.uniforms) uniformBytes += alignBufferSize(l.uniforms.byteLength);
        checkRoles(tenant.name, op.path, fused, kernels);
        steps.push({
            path: op.path,
            reads: [...fused.inputs, ...fused.epilogueInputs.map(e => e.tensor)],
            writes: fused.output,
            aliasesInput: kernels.aliasesInput,
            scratch: kernels.buffers.filter(b => b.kind === 'scratch').map(b => ({ role: b.role, bytes: numel(b.shape) * dtypeBytes(b.dtype) })),
        });
        const used = kernels.launches[0]?.variant.variant;
        ops.push({
            fused, path: op.path, kind: op.kind, kernels, variant, signature,
            variantName: variant ?? (typeof used === 'string' ? used : undefined), variantSource: variant !== undefined ? 'tuned' : 'default',
            flops: [op, ...fused.fused].reduce((a, o) => a + o.flops, 0),
            // Fusion removes the intermediate's store and reload; count what the fused op moves.
            bytes: kernels.launches.reduce((a, l) => a + l.bytes, 0) || op.bytes,
            source: op.source,
        });
    }
    const memory = planMemory({ tensorBytes, steps, inputs: graph.inputs, outputs: graph.outputs });
    const totalBytes = weightBytes + memory.totalBytes + uniformBytes;
    if (options.limits.budgetBytes !== undefined && totalBytes > options.limits.budgetBytes) {
        throw new MemoryLimitError(
            `tenant ${tenant.name}: needs ${formatBytes(totalBytes)} (weights ${formatBytes(weightBytes)}, activations ${formatBytes(memory.totalBytes)} after reuse), ` +
            `more than the workload's device memory of ${formatBytes(options.limits.budgetBytes)}; raise device(memory: …) or shrink the model`, undefined, tenant.name);
    }
    return { tenant, ops, memory, weightBytes, uniformBytes, totalBytes };
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

/** Plans all tenants and checks their sum against the workload's memory budget. */
export function planWorkload(tenants: IrTenant[], optionsFor: (tenant: IrTenant) => PlanOptions, budgetBytes?: number): TenantPlan[] {
    const plans = tenants.map(t => planTenant(t, optionsFor(t)));
    const total = plans.reduce((a, p) => a + p.totalBytes, 0);
    if (budgetBytes !== undefined && total > budgetBytes) {
        const parts = plans.map(p => `${p.tenant.name} ${formatBytes(p.totalBytes)}`).join(', ');
        throw new MemoryLimitError(`the tenants together need ${formatBytes(total)} (${parts}), more than the workload's device memory of ${formatBytes(budgetBytes)}; raise device(memory: …) or remove a tenant`);
    }
    return plans;
}

/** Fan-in used to scale a weight's initial values (He init keeps activations finite). */
export function fanInOf(op: IrOp, buffer: LaunchBuffer): number {
    if (buffer.shape.length < 2) return 1;
    if (op.kind === 'conv2d' || op.kind === 'depthwise_conv2d') return numel(buffer.shape.slice(1));
    if (op.kind === 'embedding') return 2; // std 1: embeddings feed a norm, not a product
    return buffer.shape[0];
}

export type { KernelDescription };
