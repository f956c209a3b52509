/**
 * Data-driven kernel checking: build an IrOp, ask kernelsFor for a variant, run it on the GPU
 * with random inputs and compare with the TypeScript reference (relative error norm).
 */
import { expect } from 'vitest';
import type { IrAttrs, IrOp, IrOpKind } from '../../../src/runtime/ir/types.js';
import type { Epilogue } from '../../../src/runtime/kernels/kernel.js';
import { kernelsFor } from '../../../src/runtime/kernels/index.js';
import { runOpKernels, seededRandom } from '../../../src/runtime/gpu/harness.js';
import { applyEpilogue, referenceOp } from '../../../src/runtime/reference/index.js';
import { channelAxisFor } from '../../../src/runtime/kernels/common.js';
import type { KernelTestDevice } from '../gpu.js';
import { numel } from '../../../src/runtime/ir/types.js';

/** An op for tests. */
export function makeOp(kind: IrOpKind, attrs: IrAttrs = {}, nInputs = 1): IrOp {
    return {
        path: `test/${kind}`, kind, inputs: Array.from({ length: nInputs }, (_, i) => `t${i}`), output: 'y', attrs,
        weights: [], flops: 0, bytes: 0,
    };
}

export function randomArray(n: number, seed: number, scale = 1): Float32Array {
    const r = seededRandom(seed);
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = (2 * r() - 1) * scale;
    return a;
}

/** ‖gpu − ref‖ / max(‖ref‖, tiny). */
export function relErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
    let num = 0, den = 0;
    for (let i = 0; i < want.length; i++) { num += (got[i] - want[i]) ** 2; den += want[i] ** 2; }
    return Math.sqrt(num) / Math.max(Math.sqrt(den), 1e-30);
}

export interface CheckCase {
    op: IrOp;
    inputShapes: number[][];
    outputShape: number[];
    variant?: string;
    epilogue?: Epilogue[];
    /** Inputs given explicitly (e.g. i32 ids); others random. */
    inputs?: (Float32Array | Int32Array)[];
    tol?: number;
    seed?: number;
}

/** Runs one case on the GPU and asserts it matches the reference; returns the error. */
export async function checkCase(dev: KernelTestDevice, c: CheckCase): Promise<number> {
    const epilogue = c.epilogue ?? [];
    const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue, variant: c.variant, caps: dev.caps });
    const seed = c.seed ?? 7;
    const inputs = c.inputs ?? c.inputShapes.map((s, i) => randomArray(numel(s), seed + 101 * i));
    const outN = numel(c.outputShape);
    const extras: Record<string, Float32Array> = {};
    const chAxis = channelAxisFor(c.op.kind, c.outputShape.length);
    const C = c.outputShape.length ? c.outputShape[chAxis] : 1;
    for (const e of epilogue) {
        if (e.kind === 'bias') extras[e.tensor] = randomArray(C, seed + 3);
        if (e.kind === 'scale_shift') { extras[e.scale] = randomArray(C, seed + 4); extras[e.shift] = randomArray(C, seed + 5); }
        if (e.kind === 'add' || e.kind === 'mul') extras[e.tensor] = randomArray(outN, seed + 6);
    }
    const label = `${c.op.path}[${c.variant ?? 'default'}]`;
    const { output, weights } = await runOpKernels(dev.device, dev.pipelines, label, k, { inputs, extras, outputElements: outN, seed });
    const ref = referenceOp(c.op, inputs, c.inputShapes, weights);
    expect(ref.shape).toEqual(c.outputShape);
    applyEpilogue(ref.out, ref.shape, chAxis, epilogue, extras);
    let finite = true;
    for (let i = 0; i < output.length; i++) if (!Number.isFinite(output[i])) { finite = false; break; }
    expect(finite, `${label}: non-finite output`).toBe(true);
    const err = relErr(output, ref.out);
    expect(err, `${label}: relative error ${err.toExponential(2)} (kernels ${k.launches.map(l => l.name).join(', ')})`).toBeLessThan(c.tol ?? 1e-5);
    return err;
}
