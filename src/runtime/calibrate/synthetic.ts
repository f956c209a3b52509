/**
 * The synthetic ops calibration times: for every kernel family, a ladder of sizes (small to
 * large) built as IR ops and served by the real kernel generators, so the profile measures the
 * kernels the runtime will launch. Shapes here are deliberately not the zoo's (the accuracy
 * benchmark evaluates on zoo models: no fitting to the test set). Pure.
 */
import type { IrAttrs, IrGraph, IrOp, IrOpKind, IrTenant, IrWeight } from '../ir/types.js';
import { numel } from '../ir/types.js';
import { CAPPED_INTERFERENCE_WORKGROUPS } from '../predict/profile.js';

/** One op to time. */
export interface SyntheticCase {
    /** Human-readable shape, stored with the curve point. */
    shape: string;
    op: IrOp;
    inputShapes: number[][];
    outputShape: number[];
    variant?: string;
}

function op(kind: IrOpKind, attrs: IrAttrs, inputs: number): IrOp {
    return {
        path: `calibrate/${kind}`, kind, inputs: Array.from({ length: inputs }, (_, i) => `in${i}`), output: 'out',
        attrs, weights: [], flops: 0, bytes: 0,
    };
}

/** matmul [m, k] · [k, n]. */
export function matmulCase(m: number, k: number, n: number, variant?: string): SyntheticCase {
    return { shape: `matmul ${m}×${k}·${k}×${n}${variant ? ' ' + variant : ''}`, op: op('matmul', {}, 2), inputShapes: [[m, k], [k, n]], outputShape: [m, n], variant };
}

/** dense [m, k] → [m, n] (bias). */
export function denseCase(m: number, k: number, n: number, variant?: string): SyntheticCase {
    return { shape: `dense ${m}×${k}→${n}${variant ? ' ' + variant : ''}`, op: op('dense', { units: n, bias: true }, 1), inputShapes: [[m, k]], outputShape: [m, n], variant };
}

/** conv2d on [1, c, h, w] with f filters, k×k, stride s, "same"-style padding. */
export function convCase(c: number, hw: number, f: number, k: number, s = 1, variant?: string): SyntheticCase {
    const p = Math.floor(k / 2);
    const ho = Math.floor((hw + 2 * p - k) / s) + 1;
    return {
        shape: `conv2d ${c}×${hw}² → ${f}, ${k}×${k}/${s}${variant ? ' ' + variant : ''}`,
        op: op('conv2d', { filters: f, kernel: [k, k], stride: [s, s], padding: [p, p, p, p], dilation: [1, 1], groups: 1, bias: true }, 1),
        inputShapes: [[1, c, hw, hw]], outputShape: [1, f, ho, ho], variant,
    };
}

/** depthwise_conv2d 3×3, stride s, on [1, c, h, w]. */
export function depthwiseCase(c: number, hw: number, s = 1): SyntheticCase {
    const ho = Math.floor((hw + 2 - 3) / s) + 1;
    return {
        shape: `depthwise ${c}×${hw}², 3×3/${s}`,
        op: op('depthwise_conv2d', { kernel: [3, 3], stride: [s, s], padding: [1, 1, 1, 1], multiplier: 1 }, 1),
        inputShapes: [[1, c, hw, hw]], outputShape: [1, c, ho, ho],
    };
}

/** Self-attention over [1, seq, dim] with `heads` heads (qkv projection, scores, softmax, context, output projection). */
export function attentionCase(seq: number, dim: number, heads: number): SyntheticCase {
    return {
        shape: `attention ${seq}×${dim}, ${heads} heads`,
        op: op('attention', { heads, causal: false }, 1),
        inputShapes: [[1, seq, dim]], outputShape: [1, seq, dim],
    };
}

/** relu over n floats (reads and writes each once: the copy kernel). */
export function reluCase(n: number): SyntheticCase {
    return { shape: `relu ${n}`, op: op('relu', {}, 1), inputShapes: [[n]], outputShape: [n] };
}

/** add of two [n] tensors. */
export function addCase(n: number): SyntheticCase {
    return { shape: `add ${n}`, op: op('add', {}, 2), inputShapes: [[n], [n]], outputShape: [n] };
}

/** softmax over the last dim of [rows, cols]. */
export function softmaxCase(rows: number, cols: number): SyntheticCase {
    return { shape: `softmax ${rows}×${cols}`, op: op('softmax', { axis: 1 }, 1), inputShapes: [[rows, cols]], outputShape: [rows, cols] };
}

/** layer_norm over the last dim of [rows, cols]. */
export function layerNormCase(rows: number, cols: number): SyntheticCase {
    return { shape: `layer_norm ${rows}×${cols}`, op: op('layer_norm', {}, 1), inputShapes: [[rows, cols]], outputShape: [rows, cols] };
}

/** max_pool2d 2×2/2 on [1, c, hw, hw]. */
export function poolCase(c: number, hw: number): SyntheticCase {
    return {
        shape: `max_pool2d ${c}×${hw}², 2×2/2`,
        op: op('max_pool2d', { kernel: [2, 2], stride: [2, 2], padding: [0, 0, 0, 0] }, 1),
        inputShapes: [[1, c, hw, hw]], outputShape: [1, c, hw / 2, hw / 2],
    };
}

/** global_avg_pool on [1, c, hw, hw]. */
export function globalPoolCase(c: number, hw: number): SyntheticCase {
    return { shape: `global_avg_pool ${c}×${hw}²`, op: op('global_avg_pool', {}, 1), inputShapes: [[1, c, hw, hw]], outputShape: [1, c, 1, 1] };
}

/** embedding of [1, n] ids into a [vocab, dim] table (ids are whatever the input bits clamp to: a gather of rows). */
export function embeddingCase(n: number, vocab: number, dim: number): SyntheticCase {
    return { shape: `embedding ${n} of ${vocab}×${dim}`, op: op('embedding', { vocab, dim }, 1), inputShapes: [[1, n]], outputShape: [1, n, dim] };
}

/** transpose of [a, b]. */
export function transposeCase(a: number, b: number): SyntheticCase {
    return { shape: `transpose ${a}×${b}`, op: op('transpose', { perm: [1, 0] }, 1), inputShapes: [[a, b]], outputShape: [b, a] };
}

/**
 * The size ladders, labelled by the family they target (every launch lands in its own family:
 * plan.ts familyOf). Each ladder is timed as one request (calibrate.ts), so its cases run one
 * after another like a model's ops. The ladders span the shapes models have — square and
 * skinny GEMMs, short and long K, batch-1 denses, early (large map, few channels) and deep
 * (2–6² maps, hundreds of channels, split-K) convolutions, pointwise and strided ones — through
 * the generators' DEFAULT variants on this device, without being any evaluated model's shapes.
 * `quick` keeps the ends and the middle of each ladder.
 */
export function calibrationCases(quick: boolean): { family: string; cases: SyntheticCase[] }[] {
    const pick = <T>(xs: T[]): T[] => (quick ? xs.filter((_, i) => i === 0 || i === xs.length - 1 || i === xs.length >> 1) : xs);
    const dense = (shapes: number[][], variant?: string) => shapes.map(([m, k, n]) => denseCase(m, k, n, variant));
    return [
        // The generators' default GEMM (subgroup-broadcast where the device has a fixed subgroup size; split-K for few tiles and long K).
        { family: 'gemm (default)', cases: pick([64, 160, 320].map(n => matmulCase(n, n, n))) },
        { family: 'gemm (default, skinny)', cases: pick(dense([[8, 1000, 1000], [24, 640, 384], [12, 2500, 600], [20, 600, 2500], [48, 200, 1500], [40, 1600, 256], [128, 256, 512], [12, 3000, 64]])) },
        { family: 'gemm.vec4', cases: pick([48, 128, 256].map(n => matmulCase(n, n, n, 'vec4_4x8')).concat(dense([[8, 1000, 1000], [128, 256, 512], [24, 512, 1536], [48, 192, 576]], 'vec4_4x8'))) },
        // Batch-1 and batch-2 denses (classifier heads): below 8 rows the default is vec4_4x8 on 32-row tiles.
        { family: 'gemm.vec4 (few rows)', cases: pick(dense([[1, 96, 24], [4, 700, 200], [1, 300, 1500], [2, 1200, 600], [1, 2000, 400]])) },
        { family: 'gemm.sg', cases: pick([48, 128, 256].map(n => matmulCase(n, n, n, 'sg_8x4')).concat(dense([[8, 1000, 1000]], 'sg_8x4'))) },
        { family: 'gemm.wgmem', cases: pick([48, 96, 144]).map(n => matmulCase(n, n, n, 'wgmem_16x16')) },
        { family: 'gemm.capped', cases: pick([96, 224]).map(n => matmulCase(n, n, n, 'capped_4')) },
        { family: 'gemm.splitk', cases: pick([[4, 2048, 96], [8, 6000, 120]]).map(([m, k, n]) => denseCase(m, k, n, 'splitk_4')) },
        // Attention: its projections (vec4), per-head scores/context (attention.bmm) and softmax.
        { family: 'attention (composite)', cases: pick([[24, 192, 3], [48, 320, 5], [96, 96, 2], [40, 640, 10]]).map(([s_, d, h]) => attentionCase(s_, d, h)) },
        // Default convolutions: Winograd on larger maps, im2col + GEMM on small maps and strided ones, split-K on deep small maps.
        { family: 'conv2d (default, 3×3)', cases: pick([[8, 24, 16], [24, 40, 32], [48, 20, 96], [32, 48, 32], [40, 12, 96], [96, 10, 160], [160, 6, 200]]).map(([c, hw, f]) => convCase(c, hw, f, 3)) },
        { family: 'conv2d (default, strided)', cases: pick([[3, 72, 40, 7, 2], [3, 56, 24, 3, 2], [24, 28, 48, 3, 2], [48, 20, 80, 1, 2], [96, 12, 192, 3, 2], [160, 8, 320, 1, 2]]).map(([c, hw, f, k, st]) => convCase(c, hw, f, k, st)) },
        { family: 'conv2d (default, deep)', cases: pick([[240, 5, 400], [300, 3, 320], [448, 2, 480], [200, 4, 256]]).map(([c, hw, f]) => convCase(c, hw, f, 3)) },
        { family: 'conv2d (pointwise)', cases: pick([[24, 40, 120], [120, 20, 40], [40, 28, 200], [200, 10, 600], [480, 5, 120], [720, 3, 1000]]).map(([c, hw, f]) => convCase(c, hw, f, 1)) },
        { family: 'conv2d', cases: pick([[16, 28, 24], [40, 36, 48]]).map(([c, hw, f]) => convCase(c, hw, f, 3, 1, 'gemm_4x4')) },
        { family: 'conv2d.direct', cases: pick([[16, 24], [40, 48]]).map(([c, hw]) => convCase(c, hw, 2, 3)) },
        // Many channels on small maps too: deep layers of mobile networks are many tiny workgroups.
        { family: 'depthwise_conv2d', cases: pick([[24, 20, 1], [400, 5, 1], [72, 36, 1], [288, 12, 1], [128, 48, 1], [40, 60, 2], [200, 14, 2], [800, 4, 1]]).map(([c, hw, st]) => depthwiseCase(c, hw, st)) },
        { family: 'elementwise', cases: pick([1000, 5000, 24_000, 300_000, 2_000_000]).map(reluCase).concat(pick([3000, 20_000, 50_000, 900_000]).map(addCase)) },
        { family: 'reduction', cases: pick([[24, 100], [200, 300], [600, 500]]).map(([r, c]) => softmaxCase(r, c)).concat(pick([[10, 1000], [40, 300], [24, 640], [400, 500]]).map(([r, c]) => layerNormCase(r, c))) },
        { family: 'pool', cases: pick([[16, 36], [48, 84], [80, 20]]).map(([c, hw]) => poolCase(c, hw)) },
        // Down to a few planes: a small CNN's final pool has tens of planes, where the per-workgroup cost no longer fills a wave.
        { family: 'reduction (pool)', cases: pick([[10, 30], [24, 10], [48, 40], [700, 5], [300, 14], [1500, 2]]).map(([c, hw]) => globalPoolCase(c, hw)) },
        { family: 'copy', cases: pick([[100, 200], [40, 700], [700, 900]]).map(([a, b]) => transposeCase(a, b)) },
        { family: 'copy.gather', cases: pick([[20, 3000, 500], [48, 8000, 256], [100, 1000, 1024]]).map(([n, v, d]) => embeddingCase(n, v, d)) },
    ];
}

/** The kernels calibration co-runs to measure interference, by contention kind. */
export function interferenceKernels(): Record<'compute' | 'memory' | 'capped', SyntheticCase> {
    return {
        compute: matmulCase(256, 256, 256),
        memory: reluCase(2_097_152),
        capped: matmulCase(256, 256, 256, `capped_${CAPPED_INTERFERENCE_WORKGROUPS}`),
    };
}

/** A synthetic tenant's graph built op by op (the probes below): each op reads one tensor and writes a new one. */
function probeGraph(name: string, model: string, args: Record<string, number>) {
    const graph: IrGraph = { model, args, tensors: {}, inputs: [], outputs: [], ops: [] };
    const tensor = (id: string, shape: number[]) => { graph.tensors[id] = { id, dtype: 'f32', shape }; return id; };
    const add = (kind: IrOpKind, opName: string, input: string, outShape: number[], attrs: IrAttrs, weights: IrWeight[], flops: number): string => {
        const output = tensor(`${opName.replace(/[^A-Za-z0-9_]/g, '_')}_out`, outShape);
        const bytes = 4 * (numel(graph.tensors[input].shape) + weights.reduce((a, w) => a + numel(w.shape), 0) + numel(outShape));
        graph.ops.push({ path: `${name}/${model}/${opName}`, kind, inputs: [input], output, attrs, weights, flops, bytes });
        return output;
    };
    const relu = (opName: string, x: string) => add('relu', opName, x, graph.tensors[x].shape, {}, [], numel(graph.tensors[x].shape));
    const dense = (opName: string, x: string, units: number) => {
        const [rows, k] = graph.tensors[x].shape;
        return add('dense', opName, x, [rows, units], { units, bias: true },
            [{ name: 'weight', shape: [k, units], dtype: 'f32' }, { name: 'bias', shape: [units], dtype: 'f32' }], 2 * rows * k * units);
    };
    return { graph, tensor, add, relu, dense };
}

/**
 * A small CNN on a 1×3×40×40 image — a 3×3 stem to 12 channels, `blocks` pointwise 12→12
 * convolutions (each with a relu, fused by the compiler: one pass each), a global average pool
 * and a 12→10 dense — closed loop. Not any evaluated model's shape (the evaluation's small CNN is
 * 16 channels at 64² and 32²).
 */
function smallCnnProbe(name: string, blocks: number): IrTenant {
    const g = probeGraph(name, 'idle_probe', { blocks });
    const hw = 40, ch = 12;
    const conv = (opName: string, x: string, c: number, k: number) => g.add('conv2d', opName, x, [1, ch, hw, hw], {
        filters: ch, kernel: [k, k], stride: [1, 1], padding: Array(4).fill((k - 1) / 2), dilation: [1, 1], groups: 1, bias: false,
    }, [{ name: 'weight', shape: [ch, c, k, k], dtype: 'f32' }], 2 * ch * hw * hw * c * k * k);
    let x = g.tensor('image', [1, 3, hw, hw]);
    g.graph.inputs.push(x);
    x = g.relu('stem/relu', conv('stem/conv', x, 3, 3));
    for (let b = 0; b < blocks; b++) x = g.relu(`block.${b}/relu`, conv(`block.${b}/conv`, x, ch, 1));
    x = g.add('global_avg_pool', 'pool', x, [1, ch, 1, 1], {}, [], ch * hw * hw);
    x = g.add('flatten', 'flatten', x, [1, ch], {}, [], 0);
    x = g.dense('head', x, 10);
    g.graph.outputs.push(x);
    return { name, graph: g.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
}

/**
 * A whole synthetic tenant for the runtime-path idle measurement (calibrate.ts step 5c): the small
 * CNN probe (smallCnnProbe) run by the runtime's own phase loop. Two block counts give two pass
 * counts at short request lengths (3×3 blocks made the long request ~10 ms, and its queueing at
 * 20/s swamped the penalty).
 */
export function idleProbeTenant(blocks: number): IrTenant {
    return smallCnnProbe(`idle_probe_${blocks}`, blocks);
}

/**
 * The two tenants calibration co-runs through the runtime's path (calibrate.ts step 8,
 * corun-evidence.ts): a tenant of short kernels arriving at random beside a closed loop of long
 * ones — the small CNN probe with 4 blocks, Poisson at `ratePerSecond`, and a stack of four
 * 96×640→640 denses with relus (each ~20× one of the CNN's kernels on a software adapter), back
 * to back. How long the short kernels wait behind the long ones is what tells how long a kernel
 * holds the device while another waits (profile.ts corunQuantumMs): between kernels of similar
 * lengths, whole kernels and short turns predict alike. Neither is an evaluated model's shape.
 */
export function corunProbeTenants(ratePerSecond: number): [IrTenant, IrTenant] {
    const width = 640;
    const victim: IrTenant = { ...smallCnnProbe('corun_probe_short', 4), arrival: { kind: 'poisson', ratePerSecond } };
    const g = probeGraph('corun_probe_long', 'dense_stack', { layers: 4 });
    let x = g.tensor('features', [96, width]);
    g.graph.inputs.push(x);
    for (let l = 0; l < 4; l++) x = g.relu(`layer.${l}/relu`, g.dense(`layer.${l}/dense`, x, width));
    g.graph.outputs.push(x);
    const aggressor: IrTenant = { name: 'corun_probe_long', graph: g.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
    return [victim, aggressor];
}
