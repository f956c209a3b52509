/**
 * Plain TypeScript reference implementations of every IR operator (float64 accumulation),
 * with the same weight layouts, conventions and epilogues as src/runtime/kernels (see its
 * index.ts). Slow and simple on purpose: the kernels are tested against these.
 */
import type { IrOp } from '../ir/types.js';
import type { Epilogue } from '../kernels/kernel.js';
import { numel } from '../ir/types.js';

type Arr = ArrayLike<number>;


function strides(s: readonly number[]): number[] {
    const r = new Array<number>(s.length).fill(1);
    for (let i = s.length - 2; i >= 0; i--) r[i] = r[i + 1] * s[i + 1];
    return r;
}

function attrNum(op: IrOp, name: string, fallback?: number): number {
    const v = op.attrs[name];
    if (typeof v === 'number') return v;
    if (fallback !== undefined) return fallback;
    throw new Error(`reference: ${op.path}: attribute '${name}' missing`);
}

function attrTuple(op: IrOp, name: string, n: number, fallback: number[]): number[] {
    const v = op.attrs[name];
    if (typeof v === 'number') return new Array<number>(n).fill(v);
    if (Array.isArray(v)) return v;
    return fallback;
}

/** Activation functions (gelu: tanh approximation, as the kernels). */
export const ACT: Record<string, (x: number) => number> = {
    relu: x => Math.max(x, 0),
    relu6: x => Math.min(Math.max(x, 0), 6),
    gelu: x => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x))),
    sigmoid: x => 1 / (1 + Math.exp(-x)),
    tanh: x => Math.tanh(x),
    silu: x => x / (1 + Math.exp(-x)),
};

/** NumPy broadcast of two shapes. */
export function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
    const r = Math.max(a.length, b.length);
    const out: number[] = [];
    for (let i = 0; i < r; i++) {
        const da = a[a.length - r + i] ?? 1, db = b[b.length - r + i] ?? 1;
        if (da !== db && da !== 1 && db !== 1) throw new Error(`reference: shapes [${a}] and [${b}] do not broadcast`);
        out.push(Math.max(da, db));
    }
    return out;
}

/** Index into a broadcast input for a flat output index. */
function bcastIndex(i: number, out: readonly number[], inp: readonly number[]): number {
    const r = out.length;
    const padded = new Array<number>(r - inp.length).fill(1).concat(inp);
    const s = strides(padded);
    let o = 0, rem = i;
    for (let d = r - 1; d >= 0; d--) {
        const idx = rem % out[d];
        rem = Math.floor(rem / out[d]);
        if (padded[d] !== 1) o += idx * s[d];
    }
    return o;
}

/** Applies an epilogue (and an optional own bias) in place; channel index per flat index. */
export function applyEpilogue(y: Float64Array, outShape: readonly number[], channelAxis: number, epilogue: readonly Epilogue[],
    tensors: Record<string, Arr>, ownBias?: Arr): void {
    const cs = outShape.length ? strides(outShape)[channelAxis] : 1, cc = outShape.length ? outShape[channelAxis] : 1;
    for (let i = 0; i < y.length; i++) {
        const c = Math.floor(i / cs) % cc;
        let x = y[i];
        if (ownBias) x += ownBias[c];
        for (const e of epilogue) {
            if (e.kind === 'bias') x += tensors[e.tensor][c];
            else if (e.kind === 'scale_shift') x = x * tensors[e.scale][c] + tensors[e.shift][c];
            else if (e.kind === 'activation') x = ACT[e.fn](x);
            else if (e.kind === 'add') x += tensors[e.tensor][i];
            else if (e.kind === 'mul') x *= tensors[e.tensor][i];
        }
        y[i] = x;
    }
}

/** out[b] = A[b]·B[b] with broadcast leading dims. */
export function matmulRef(a: Arr, aShape: number[], b: Arr, bShape: number[]): { out: Float64Array; shape: number[] } {
    const M = aShape[aShape.length - 2], K = aShape[aShape.length - 1], N = bShape[bShape.length - 1];
    const lead = broadcastShape(aShape.slice(0, -2), bShape.slice(0, -2));
    const batch = numel(lead);
    const out = new Float64Array(batch * M * N);
    const aLead = aShape.slice(0, -2), bLead = bShape.slice(0, -2);
    for (let z = 0; z < batch; z++) {
        const ao = bcastIndex(z, lead, aLead) * M * K, bo = bcastIndex(z, lead, bLead) * K * N;
        for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) {
            let s = 0;
            for (let k = 0; k < K; k++) s += a[ao + m * K + k] * b[bo + k * N + n];
            out[(z * M + m) * N + n] = s;
        }
    }
    return { out, shape: [...lead, M, N] };
}

function conv(op: IrOp, x: Arr, xs: number[], w: Arr, depthwise: boolean): { out: Float64Array; shape: number[] } {
    const [N, C, H, W] = xs;
    const [KH, KW] = attrTuple(op, 'kernel', 2, [1, 1]);
    const [sh, sw] = attrTuple(op, 'stride', 2, [1, 1]);
    const [pt, pl, pb, pr] = attrTuple(op, 'padding', 4, [0, 0, 0, 0]);
    const [dh, dw] = depthwise ? [1, 1] : attrTuple(op, 'dilation', 2, [1, 1]);
    const F = depthwise ? C * attrNum(op, 'multiplier', 1) : attrNum(op, 'filters');
    const G = depthwise ? C : attrNum(op, 'groups', 1);
    const Cg = C / G, Fg = F / G;
    const Ho = Math.floor((H + pt + pb - dh * (KH - 1) - 1) / sh) + 1, Wo = Math.floor((W + pl + pr - dw * (KW - 1) - 1) / sw) + 1;
    const out = new Float64Array(N * F * Ho * Wo);
    for (let n = 0; n < N; n++) for (let f = 0; f < F; f++) {
        const g = Math.floor(f / Fg);
        for (let oy = 0; oy < Ho; oy++) for (let ox = 0; ox < Wo; ox++) {
            let s = 0;
            for (let c = 0; c < Cg; c++) for (let ky = 0; ky < KH; ky++) {
                const y = oy * sh - pt + ky * dh;
                if (y < 0 || y >= H) continue;
                for (let kx = 0; kx < KW; kx++) {
                    const xx = ox * sw - pl + kx * dw;
                    if (xx < 0 || xx >= W) continue;
                    s += w[((f * Cg + c) * KH + ky) * KW + kx] * x[((n * C + g * Cg + c) * H + y) * W + xx];
                }
            }
            out[((n * F + f) * Ho + oy) * Wo + ox] = s;
        }
    }
    return { out, shape: [N, F, Ho, Wo] };
}

function pool(op: IrOp, x: Arr, xs: number[]): { out: Float64Array; shape: number[] } {
    const [N, C, H, W] = xs;
    const [KH, KW] = attrTuple(op, 'kernel', 2, [1, 1]);
    const [sh, sw] = attrTuple(op, 'stride', 2, [KH, KW]);
    const [pt, pl, pb, pr] = attrTuple(op, 'padding', 4, [0, 0, 0, 0]);
    const Ho = Math.floor((H + pt + pb - KH) / sh) + 1, Wo = Math.floor((W + pl + pr - KW) / sw) + 1;
    const isMax = op.kind === 'max_pool2d';
    const out = new Float64Array(N * C * Ho * Wo);
    for (let p = 0; p < N * C; p++) for (let oy = 0; oy < Ho; oy++) for (let ox = 0; ox < Wo; ox++) {
        let acc = isMax ? -Infinity : 0, cnt = 0;
        for (let ky = 0; ky < KH; ky++) for (let kx = 0; kx < KW; kx++) {
            const y = oy * sh - pt + ky, xx = ox * sw - pl + kx;
            if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
            const v = x[(p * H + y) * W + xx];
            acc = isMax ? Math.max(acc, v) : acc + v;
            cnt++;
        }
        out[(p * Ho + oy) * Wo + ox] = isMax ? acc : acc / Math.max(cnt, 1);
    }
    return { out, shape: [N, C, Ho, Wo] };
}

function softmaxAxis(x: Arr, shape: number[], axis: number): Float64Array {
    const outer = numel(shape.slice(0, axis)), L = shape[axis], inner = numel(shape.slice(axis + 1));
    const out = new Float64Array(numel(shape));
    for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) {
        const base = o * L * inner + i;
        let m = -Infinity;
        for (let j = 0; j < L; j++) m = Math.max(m, x[base + j * inner]);
        let s = 0;
        for (let j = 0; j < L; j++) s += Math.exp(x[base + j * inner] - m);
        for (let j = 0; j < L; j++) out[base + j * inner] = Math.exp(x[base + j * inner] - m) / s;
    }
    return out;
}

function lstm(op: IrOp, x: Arr, xs: number[], w: Record<string, Arr>): Float64Array {
    const [B, S, I] = xs;
    const Hd = attrNum(op, 'hidden'), layers = attrNum(op, 'layers', 1);
    const sig = (v: number) => 1 / (1 + Math.exp(-v));
    let input: Arr = x, inDim = I;
    let seq = new Float64Array(0);
    for (let l = 0; l < layers; l++) {
        const wih = w[`w_ih.${l}`], whh = w[`w_hh.${l}`], bias = w[`b.${l}`];
        const G = 4 * Hd;
        seq = new Float64Array(B * S * Hd);
        for (let b = 0; b < B; b++) {
            const h = new Float64Array(Hd), c = new Float64Array(Hd);
            for (let t = 0; t < S; t++) {
                const gates = new Float64Array(G);
                for (let g = 0; g < G; g++) {
                    let s = bias[g];
                    for (let k = 0; k < inDim; k++) s += input[(b * S + t) * inDim + k] * wih[k * G + g];
                    for (let k = 0; k < Hd; k++) s += h[k] * whh[k * G + g];
                    gates[g] = s;
                }
                for (let j = 0; j < Hd; j++) {
                    c[j] = sig(gates[Hd + j]) * c[j] + sig(gates[j]) * Math.tanh(gates[2 * Hd + j]);
                    h[j] = sig(gates[3 * Hd + j]) * Math.tanh(c[j]);
                    seq[(b * S + t) * Hd + j] = h[j];
                }
            }
        }
        input = seq;
        inDim = Hd;
    }
    return seq;
}

function attention(op: IrOp, x: Arr, xs: number[], w: Record<string, Arr>): Float64Array {
    const [B, S, D] = xs;
    const H = attrNum(op, 'heads'), causal = op.attrs.causal === true, dh = D / H;
    const qkv = matmulRef(x, [B * S, D], w.w_qkv, [D, 3 * D]).out;
    for (let i = 0; i < qkv.length; i++) qkv[i] += w.b_qkv[i % (3 * D)];
    const ctx = new Float64Array(B * S * D);
    const scale = 1 / Math.sqrt(dh);
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < S; i++) {
        const sc = new Float64Array(S);
        let m = -Infinity;
        for (let j = 0; j < S; j++) {
            if (causal && j > i) { sc[j] = -Infinity; continue; }
            let s = 0;
            for (let t = 0; t < dh; t++) s += qkv[(b * S + i) * 3 * D + h * dh + t] * qkv[(b * S + j) * 3 * D + D + h * dh + t];
            sc[j] = s * scale;
            m = Math.max(m, sc[j]);
        }
        let sum = 0;
        for (let j = 0; j < S; j++) { sc[j] = Math.exp(sc[j] - m); sum += sc[j]; }
        for (let t = 0; t < dh; t++) {
            let s = 0;
            for (let j = 0; j < S; j++) s += sc[j] / sum * qkv[(b * S + j) * 3 * D + 2 * D + h * dh + t];
            ctx[(b * S + i) * D + h * dh + t] = s;
        }
    }
    const out = matmulRef(ctx, [B * S, D], w.w_out, [D, D]).out;
    for (let i = 0; i < out.length; i++) out[i] += w.b_out[i % D];
    return out;
}

/**
 * The reference result of one op (before any epilogue): inputs positional, weights by role.
 * Returns the output in float64 and its shape.
 */
export function referenceOp(op: IrOp, inputs: Arr[], inputShapes: number[][], weights: Record<string, Arr>): { out: Float64Array; shape: number[] } {
    const x = inputs[0], xs = inputShapes[0];
    const same = (f: (v: number, i: number) => number) => ({ out: Float64Array.from({ length: numel(xs) }, (_, i) => f(x[i], i)), shape: xs });
    switch (op.kind) {
        case 'dense': {
            const units = attrNum(op, 'units'), K = xs[xs.length - 1];
            const r = matmulRef(x, [numel(xs) / K, K], weights.weight, [K, units]);
            if (op.attrs.bias !== false) for (let i = 0; i < r.out.length; i++) r.out[i] += weights.bias[i % units];
            return { out: r.out, shape: [...xs.slice(0, -1), units] };
        }
        case 'matmul': return matmulRef(x, xs, inputs[1], inputShapes[1]);
        case 'conv2d': case 'depthwise_conv2d': {
            const r = conv(op, x, xs, weights.weight, op.kind === 'depthwise_conv2d');
            if (op.kind === 'conv2d' && op.attrs.bias !== false) {
                const P = r.shape[2] * r.shape[3], F = r.shape[1];
                for (let i = 0; i < r.out.length; i++) r.out[i] += weights.bias[Math.floor(i / P) % F];
            }
            return r;
        }
        case 'max_pool2d': case 'avg_pool2d': return pool(op, x, xs);
        case 'global_avg_pool': {
            const [N, C, H, W] = xs;
            const out = new Float64Array(N * C);
            for (let p = 0; p < N * C; p++) { let s = 0; for (let j = 0; j < H * W; j++) s += x[p * H * W + j]; out[p] = s / (H * W); }
            return { out, shape: [N, C, 1, 1] };
        }
        case 'batch_norm': {
            const C = xs[1], inner = numel(xs.slice(2));
            return same((v, i) => {
                const c = Math.floor(i / inner) % C;
                return (v - weights.mean[c]) / Math.sqrt(weights.var[c] + 1e-5) * weights.gamma[c] + weights.beta[c];
            });
        }
        case 'layer_norm': {
            const D = xs[xs.length - 1], out = new Float64Array(numel(xs));
            for (let r = 0; r < out.length / D; r++) {
                let m = 0; for (let j = 0; j < D; j++) m += x[r * D + j]; m /= D;
                let v = 0; for (let j = 0; j < D; j++) v += (x[r * D + j] - m) ** 2; v /= D;
                for (let j = 0; j < D; j++) out[r * D + j] = (x[r * D + j] - m) / Math.sqrt(v + 1e-5) * weights.gamma[j] + weights.beta[j];
            }
            return { out, shape: xs };
        }
        case 'relu': case 'relu6': case 'gelu': case 'sigmoid': case 'tanh': case 'silu': return same(v => ACT[op.kind](v));
        case 'add': case 'mul': {
            const shape = broadcastShape(xs, inputShapes[1]);
            const out = new Float64Array(numel(shape));
            for (let i = 0; i < out.length; i++) {
                const a = x[bcastIndex(i, shape, xs)], b = inputs[1][bcastIndex(i, shape, inputShapes[1])];
                out[i] = op.kind === 'add' ? a + b : a * b;
            }
            return { out, shape };
        }
        case 'softmax': return { out: softmaxAxis(x, xs, attrNum(op, 'axis', xs.length - 1)), shape: xs };
        case 'reshape': return { out: Float64Array.from(x), shape: op.attrs.shape as number[] };
        case 'flatten': return { out: Float64Array.from(x), shape: [xs[0], numel(xs.slice(1))] };
        case 'transpose': {
            const perm = op.attrs.perm as number[];
            const shape = perm.map(p => xs[p]), os = strides(shape), is = strides(xs);
            const out = new Float64Array(numel(xs));
            for (let i = 0; i < out.length; i++) {
                let rem = i, src = 0;
                for (let d = 0; d < shape.length; d++) { const idx = Math.floor(rem / os[d]); rem %= os[d]; src += idx * is[perm[d]]; }
                out[i] = x[src];
            }
            return { out, shape };
        }
        case 'concat': {
            const axis = attrNum(op, 'axis', 1);
            const Lout = inputShapes.reduce((a, s) => a + s[axis], 0);
            const shape = xs.map((d, k) => (k === axis ? Lout : d));
            const outer = numel(xs.slice(0, axis)), inner = numel(xs.slice(axis + 1));
            const out = new Float64Array(numel(shape));
            let off = 0;
            inputs.forEach((t, k) => {
                const L = inputShapes[k][axis];
                for (let o = 0; o < outer; o++) for (let a = 0; a < L; a++) for (let i = 0; i < inner; i++) {
                    out[(o * Lout + off + a) * inner + i] = t[(o * L + a) * inner + i];
                }
                off += L;
            });
            return { out, shape };
        }
        case 'embedding': {
            const vocab = attrNum(op, 'vocab'), dim = attrNum(op, 'dim');
            const out = new Float64Array(numel(xs) * dim);
            for (let r = 0; r < numel(xs); r++) {
                const id = Math.min(Math.max(x[r], 0), vocab - 1);
                for (let j = 0; j < dim; j++) out[r * dim + j] = weights.weight[id * dim + j];
            }
            return { out, shape: [...xs, dim] };
        }
        case 'attention': return { out: attention(op, x, xs, weights), shape: xs };
        case 'lstm': return { out: lstm(op, x, xs, weights), shape: [xs[0], xs[1], attrNum(op, 'hidden')] };
    }
}
