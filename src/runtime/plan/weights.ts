/**
 * The data a run computes on: weights and graph inputs are deterministic functions of the
 * benchmark seed (./random.ts), so two runs of one workload, solo and co-run, and fusion on or
 * off compute the same function. He-scaled normals keep activations finite through deep models.
 * Pure: the GPU compiler (src/runtime/gpu/compile.ts) uploads what these return.
 */
import type { IrGraph, IrOp } from '../ir/types.js';
import { numel } from '../ir/types.js';
import type { LaunchBuffer } from '../kernels/kernel.js';
import type { Random } from './random.js';

const BN_EPS = 1e-5;

/** Fan-in used to scale a weight's initial values (He init keeps activations finite). */
export function fanInOf(op: IrOp, buffer: LaunchBuffer): number {
    if (buffer.shape.length < 2) return 1;
    if (op.kind === 'conv2d' || op.kind === 'depthwise_conv2d') return numel(buffer.shape.slice(1));
    if (op.kind === 'embedding') return 2; // std 1: embeddings feed a norm, not a product
    return buffer.shape[0];
}

/** Fills a weight per its init hint, scaled by the op's fan-in (He init for matrices, small values for vectors). */
export function initWeightValues(op: IrOp, buffer: LaunchBuffer, random: Random): Float32Array {
    const n = numel(buffer.shape);
    const values = new Float32Array(n);
    const fanIn = fanInOf(op, buffer);
    const matrix = buffer.shape.length >= 2;
    switch (buffer.init ?? 'normal') {
        case 'zeros': break;
        case 'ones': values.fill(1); break;
        case 'positive': for (let i = 0; i < n; i++) values[i] = 0.5 + random.next(); break;
        case 'uniform': {
            const a = matrix ? Math.sqrt(6 / fanIn) : 0.1;
            for (let i = 0; i < n; i++) values[i] = (2 * random.next() - 1) * a;
            break;
        }
        case 'normal': {
            const std = matrix ? Math.sqrt(2 / fanIn) : 0.1;
            for (let i = 0; i < n; i++) values[i] = random.normal() * std;
            break;
        }
    }
    return values;
}

/**
 * A batch norm folded into its convolution: y = (x − mean)/√(var + ε)·γ + β as x·scale + shift,
 * from the norm's seeded parameters — the same streams and init hints as the unfused batch_norm
 * kernel's weights, so fusion on and off compute the same function.
 */
export function foldedNormValues(norm: IrOp, channels: number, random: Random): { scale: Float32Array; shift: Float32Array } {
    const param = (name: string, init: LaunchBuffer['init']) =>
        initWeightValues(norm, { role: name, kind: 'weight', shape: [channels], dtype: 'f32', init }, random.fork(`weight/${norm.path}/${name}`));
    const gamma = param('gamma', 'positive'), beta = param('beta', 'normal'), mean = param('mean', 'normal'), variance = param('var', 'positive');
    const scale = new Float32Array(channels), shift = new Float32Array(channels);
    for (let i = 0; i < channels; i++) {
        scale[i] = gamma[i] / Math.sqrt(variance[i] + BN_EPS);
        shift[i] = beta[i] - mean[i] * scale[i];
    }
    return { scale, shift };
}

/** n ids drawn uniformly from [0, range): what an embedding gathers in a run (and in calibration: calibrate/measure.ts). */
export function randomIds(n: number, range: number, random: Random): Int32Array {
    return Int32Array.from({ length: n }, () => random.int(range));
}

/** Seeded data for a graph input: N(0, 1) floats, or ids in the consuming embedding's vocabulary. */
export function graphInputValues(graph: IrGraph, id: string, random: Random): Float32Array | Int32Array {
    const t = graph.tensors[id];
    const n = numel(t.shape);
    if (t.dtype === 'i32') {
        const consumer = graph.ops.find(o => o.inputs.includes(id) && o.kind === 'embedding');
        return randomIds(n, consumer ? Number(consumer.attrs.vocab) : 2, random);
    }
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = random.normal();
    return values;
}
