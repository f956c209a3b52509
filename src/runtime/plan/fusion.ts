/**
 * Fusion pass on one tenant's graph (pure, on shapes): a batch_norm right after a convolution
 * is folded into it (a per-channel scale/shift computed at compile time from the norm's seeded
 * parameters), and activations and same-shape residual add/mul are fused into the producer's
 * epilogue — each only when the intermediate tensor has no other consumer and is not a graph
 * output. Everything else stays one op per IR op.
 */
import type { IrGraph, IrOp, IrOpKind } from '../ir/types.js';
import type { Epilogue } from '../kernels/kernel.js';

/** One op of the plan: an IR op plus what was fused into it. */
export interface FusedOp {
    /** The producer; its path names the fused op in reports. */
    op: IrOp;
    /** The ops folded into this one, in order. */
    fused: IrOp[];
    /** The producer's inputs, bound as roles in0…inN. */
    inputs: string[];
    /** Tensors an add/mul epilogue reads, bound under their role (e.g. "residual0"). */
    epilogueInputs: { role: string; tensor: string }[];
    /** The tensor finally written (the last fused op's output). */
    output: string;
    epilogue: Epilogue[];
    /** Batch norms folded into a scale_shift epilogue, with the compiler-filled buffer roles. */
    foldedNorms: { norm: IrOp; scaleRole: string; shiftRole: string }[];
}

/** Kinds whose kernels take an epilogue (src/runtime/kernels/kernel.ts KernelRequest.epilogue). */
export const epilogueProducers: ReadonlySet<IrOpKind> = new Set(['dense', 'matmul', 'conv2d', 'depthwise_conv2d']);
const activations = new Set(['relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu']);
const convolutions = new Set(['conv2d', 'depthwise_conv2d']);

export interface FusionOptions {
    /** Turn fusion off (one plan op per IR op) to measure its effect or isolate a kernel. */
    enabled?: boolean;
    /** Which producer kinds may take an epilogue (default epilogueProducers). */
    producers?: ReadonlySet<IrOpKind>;
}

/** Groups a graph's ops into fused ops, preserving topological order. */
export function fuseGraph(graph: IrGraph, options: FusionOptions = {}): FusedOp[] {
    const enabled = options.enabled ?? true;
    const producers = options.producers ?? epilogueProducers;
    const ops = graph.ops;
    if (!enabled) return ops.map(op => ({ op, fused: [], inputs: [...op.inputs], epilogueInputs: [], output: op.output, epilogue: [], foldedNorms: [] }));
    // Per tensor: how many times ops read it, and the first op that does (a single use has a single consumer).
    const uses = new Map<string, number>();
    const firstConsumer = new Map<string, number>();
    const producedAt = new Map<string, number>();
    for (let i = 0; i < ops.length; i++) {
        for (const id of ops[i].inputs) {
            const n = uses.get(id);
            uses.set(id, (n ?? 0) + 1);
            if (n === undefined) firstConsumer.set(id, i);
        }
        producedAt.set(ops[i].output, i);
    }
    const sameShape = (a: string, b: string) => {
        const x = graph.tensors[a].shape, y = graph.tensors[b].shape;
        return x.length === y.length && x.every((d, i) => d === y[i]);
    };

    const absorbed = new Uint8Array(ops.length);
    const result: FusedOp[] = [];
    for (let index = 0; index < ops.length; index++) {
        if (absorbed[index]) continue;
        const op = ops[index];
        const fusedOp: FusedOp = { op, fused: [], inputs: [...op.inputs], epilogueInputs: [], output: op.output, epilogue: [], foldedNorms: [] };
        result.push(fusedOp);
        if (!producers.has(op.kind)) continue;
        for (;;) {
            const current = fusedOp.output;
            if (graph.outputs.includes(current) || uses.get(current) !== 1) break;
            const ci = firstConsumer.get(current)!;
            const consumer = ops[ci];
            if (!sameShape(consumer.output, current)) break;
            if (consumer.kind === 'batch_norm' && convolutions.has(op.kind) && fusedOp.epilogue.length === 0) {
                const n = fusedOp.foldedNorms.length;
                const scaleRole = `bn${n}.scale`, shiftRole = `bn${n}.shift`;
                fusedOp.epilogue.push({ kind: 'scale_shift', scale: scaleRole, shift: shiftRole });
                fusedOp.foldedNorms.push({ norm: consumer, scaleRole, shiftRole });
            } else if (activations.has(consumer.kind)) {
                fusedOp.epilogue.push({ kind: 'activation', fn: consumer.kind as Extract<Epilogue, { kind: 'activation' }>['fn'] });
            } else if (consumer.kind === 'add' || consumer.kind === 'mul') {
                const other = consumer.inputs[0] === current ? consumer.inputs[1] : consumer.inputs[0];
                // The operand must exist when the producer runs (it runs at the producer's position).
                const otherAt = producedAt.get(other);
                if (!sameShape(other, current) || (otherAt !== undefined && otherAt >= index)) break;
                // Kernel roles in0…/out are the op's own; epilogue operands get their own names.
                const role = `residual${fusedOp.epilogueInputs.length}`;
                fusedOp.epilogueInputs.push({ role, tensor: other });
                fusedOp.epilogue.push({ kind: consumer.kind, tensor: role });
            } else {
                break;
            }
            fusedOp.fused.push(consumer);
            fusedOp.output = consumer.output;
            absorbed[ci] = 1;
        }
    }
    return result;
}
