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
    /** The numbers it was built from and how: calibration builds more cases of its kind from them (refine.ts). Absent: none. */
    kind?: CaseKind;
}

/**
 * The numbers a ladder case was built from (e.g. channels, map size and stride of a depthwise
 * convolution), the builder that made it, and which of the numbers are kept rather than
 * interpolated when calibration builds a case between two of a kind (a stride, a kernel size, a
 * head count).
 */
export interface CaseKind {
    /** Cases are of one kind when their builders share this name. */
    name: string;
    params: readonly number[];
    build(params: readonly number[]): SyntheticCase;
    /** Indices into params of the numbers kept, not interpolated. */
    fixed: readonly number[];
}

/** A builder of cases from numbers whose cases remember their kind (CaseKind): `make` builds the op, `fixed` as CaseKind.fixed. */
function kindOf(name: string, make: (params: number[]) => SyntheticCase, fixed: readonly number[] = []): (params: readonly number[]) => SyntheticCase {
    const build = (params: readonly number[]): SyntheticCase => ({ ...make([...params]), kind: { name, params: [...params], build, fixed } });
    return build;
}

/** A ladder: the family it targets (a label with a space when it is not one family's name) and its cases. */
export interface Ladder {
    family: string;
    cases: SyntheticCase[];
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

/** max_pool2d on [1, c, hw, hw]: 2×2/2 (hw even), or k×k/2 with padding (k − 1) / 2 for odd k (ResNet's 3×3/2). */
export function poolCase(c: number, hw: number, k = 2): SyntheticCase {
    const p = k % 2 ? (k - 1) / 2 : 0;
    const ho = Math.floor((hw + 2 * p - k) / 2) + 1;
    return {
        shape: `max_pool2d ${c}×${hw}², ${k}×${k}/2`,
        op: op('max_pool2d', { kernel: [k, k], stride: [2, 2], padding: [p, p, p, p] }, 1),
        inputShapes: [[1, c, hw, hw]], outputShape: [1, c, ho, ho],
    };
}

/** global_avg_pool on [1, c, hw, hw]. */
export function globalPoolCase(c: number, hw: number): SyntheticCase {
    return { shape: `global_avg_pool ${c}×${hw}²`, op: op('global_avg_pool', {}, 1), inputShapes: [[1, c, hw, hw]], outputShape: [1, c, 1, 1] };
}

/** embedding of [1, n] ids into a [vocab, dim] table (measure.ts draws the ids across the table, as a run does). */
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
export function calibrationCases(quick: boolean): Ladder[] {
    const pick = <T>(xs: T[]): T[] => (quick ? xs.filter((_, i) => i === 0 || i === xs.length - 1 || i === xs.length >> 1) : xs);
    const square = (variant?: string) => kindOf(`matmul${variant ? ' ' + variant : ''}`, ([n]) => matmulCase(n, n, n, variant));
    const dense = (variant?: string) => kindOf(`dense${variant ? ' ' + variant : ''}`, ([m, k, n]) => denseCase(m, k, n, variant));
    const conv = (k: number, variant?: string) => kindOf(`conv2d ${k}×${k}${variant ? ' ' + variant : ''}`, ([c, hw, f]) => convCase(c, hw, f, k, 1, variant));
    type Part = [(params: readonly number[]) => SyntheticCase, number[][]];
    // `quick` picks from the whole ladder; ladderOfParts from each part (elementwise: relus and adds).
    const ladder = (family: string, ...parts: Part[]): Ladder => ({ family, cases: pick(parts.flatMap(([build, params]) => params.map(build))) });
    const ladderOfParts = (family: string, ...parts: Part[]): Ladder => ({ family, cases: parts.flatMap(([build, params]) => pick(params).map(build)) });
    return [
        // The generators' default GEMM (subgroup-broadcast where the device has a fixed subgroup size; split-K for few tiles and long K).
        // A size not a multiple of 4 loads A and B a float at a time (plan/launch.ts scalarLoadsOf): 226³ ran at a third of 160³'s FLOP rate.
        ladder('gemm (default)', [square(), [[64], [160], [226], [320]]]),
        // Odd and power-of-two widths alike: a B row stride aligned to 1–4 KB walks few cache sets (plan/launch.ts strideAlignmentOf).
        // A width not a multiple of 4 (a 10-class head) loads B a float at a time: 32×512→10 took 1.3–1.6× as long as 32×512→12.
        ladder('gemm (default, skinny)', [dense(), [[8, 1000, 1000], [24, 640, 384], [12, 2500, 600], [20, 600, 2500], [48, 200, 1500], [16, 1024, 768], [40, 1600, 256], [128, 256, 512], [32, 2048, 1024], [16, 640, 2560], [12, 3000, 64], [24, 700, 10]]]),
        ladder('gemm.vec4', [square('vec4_4x8'), [[48], [102], [128], [256]]], [dense('vec4_4x8'), [[8, 1000, 1000], [128, 256, 512], [24, 512, 1536], [48, 192, 576]]]),
        // Batch-1 to batch-4 denses (classifier heads): below 8 rows the default is vec4 on tiles of 1, 2 or 4 rows.
        ladder('gemm.vec4 (few rows)', [dense(), [[1, 96, 24], [4, 700, 200], [1, 300, 1500], [2, 1200, 600], [1, 2000, 400]]]),
        ladder('gemm.sg', [square('sg_8x4'), [[48], [128], [256]]], [dense('sg_8x4'), [[8, 1000, 1000]]]),
        ladder('gemm.wgmem', [square('wgmem_16x16'), [[48], [96], [144]]]),
        ladder('gemm.capped', [square('capped_4'), [[96], [224]]]),
        ladder('gemm.splitk', [dense('splitk_4'), [[4, 2048, 96], [8, 6000, 120]]]),
        // Attention: its projections (vec4), per-head scores/context (attention.bmm) and softmax. The width is a multiple of the
        // heads; one (174) is not a multiple of 4, so its projections load single floats (1.6–1.9× the time per FLOP of 248's).
        ladder('attention (composite)', [kindOf('attention', ([s, d, h]) => attentionCase(s, Math.max(1, Math.round(d / h)) * h, h)), [[24, 192, 3], [48, 320, 5], [96, 96, 2], [68, 174, 3], [40, 640, 10]]]),
        // Default convolutions: Winograd on larger maps, im2col + GEMM on small maps and strided ones, split-K on deep small maps.
        ladder('conv2d (default, 3×3)', [conv(3), [[8, 24, 16], [24, 40, 32], [48, 20, 96], [32, 48, 32], [40, 12, 96], [96, 10, 160], [96, 6, 256], [160, 6, 200], [192, 3, 512]]]),
        ladder('conv2d (default, strided)', [kindOf('conv2d strided', ([c, hw, f, k, st]) => convCase(c, hw, f, k, st), [3, 4]),
            [[3, 72, 40, 7, 2], [3, 56, 24, 3, 2], [24, 28, 48, 3, 2], [48, 20, 80, 1, 2], [96, 12, 192, 3, 2], [160, 8, 320, 1, 2]]]),
        // Deep layers on 4–5² maps run split-K; on 2–3² maps (up to 9 pixels, K ≥ 256: kernels/conv2d.ts KDOT_PIXELS) kdot,
        // whose time per FLOP grows with K where filters are few (pointwise 960→160 on 3×3: 0.64 ms, against 0.40 read off
        // points of many filters and a short K), so both ends are sampled.
        ladder('conv2d (default, deep)', [conv(3), [[240, 5, 400], [352, 4, 300], [600, 4, 160], [200, 4, 256]]]),
        ladder('gemm.kdot', [kindOf('conv2d few pixels', ([c, hw, f, k, st]) => convCase(c, hw, f, k, st), [3, 4]),
            [[96, 2, 256, 3, 1], [300, 3, 320, 3, 1], [448, 2, 480, 3, 1], [200, 6, 600, 3, 2], [480, 4, 288, 1, 2], [640, 2, 384, 1, 1], [560, 3, 900, 1, 1],
                [400, 3, 1100, 1, 1], [256, 3, 480, 1, 1], [1000, 3, 120, 1, 1], [720, 3, 200, 1, 1], [800, 2, 80, 1, 1]]]),
        ladder('conv2d (pointwise)', [conv(1), [[24, 40, 120], [120, 20, 40], [40, 28, 200], [200, 10, 600], [480, 5, 120], [720, 3, 1000]]]),
        ladder('conv2d', [conv(3, 'gemm_4x4'), [[16, 28, 24], [40, 36, 48]]]),
        ladder('conv2d.direct', [kindOf('conv2d direct', ([c, hw]) => convCase(c, hw, 2, 3)), [[16, 24], [40, 48]]]),
        // Many channels on small maps too: deep layers of mobile networks are many tiny workgroups.
        // Maps of 16×16 outputs or more run pix4 (a workgroup of 256 pixels of one channel); smaller ones direct (kernels/conv2d.ts defaultDepthwiseVariant).
        ladder('depthwise_conv2d', [kindOf('depthwise', ([c, hw, st]) => depthwiseCase(c, hw, st), [2]),
            [[24, 20, 1], [16, 32, 1], [72, 36, 1], [200, 28, 1], [128, 48, 1], [40, 60, 2], [24, 72, 2]]]),
        ladder('depthwise_conv2d.direct', [kindOf('depthwise', ([c, hw, st]) => depthwiseCase(c, hw, st), [2]),
            [[400, 5, 1], [120, 9, 1], [288, 12, 1], [200, 14, 2], [800, 4, 1], [640, 2, 1], [48, 8, 1], [160, 10, 2]]]),
        ladderOfParts('elementwise', [kindOf('relu', ([n]) => reluCase(n)), [[1000], [5000], [24_000], [300_000], [2_000_000]]], [kindOf('add', ([n]) => addCase(n)), [[3000], [20_000], [50_000], [900_000]]]),
        // A layer norm's rows are its workgroups: rows from a few to ~100 at like bytes, so the waves fit sees where
        // a wave ends (with 10, 24, 40 and 400 rows it put the step at 12, and a 16×768 norm at twice a 12×900 one).
        ladderOfParts('reduction', [kindOf('softmax', ([r, c]) => softmaxCase(r, c)), [[24, 100], [200, 300], [600, 500]]],
            [kindOf('layer_norm', ([r, c]) => layerNormCase(r, c)), [[10, 1000], [40, 300], [24, 640], [400, 500], [6, 1600], [14, 880], [20, 700], [32, 384], [80, 100]]]),
        // 2×2/2 windows on even maps, and overlapping 3×3/2 ones (each input read about 2.25 times).
        ladder('pool', [kindOf('max_pool2d', ([c, hw]) => poolCase(c, 2 * Math.max(1, Math.round(hw / 2)))), [[16, 36], [48, 84], [80, 20]]],
            [kindOf('max_pool2d 3×3/2', ([c, hw]) => poolCase(c, hw, 3)), [[24, 40], [96, 22], [40, 66]]]),
        // Planes of up to 1,024 pixels are summed one per invocation (kernels/pool.ts defaultGlobalPoolVariant): from one
        // workgroup (a small CNN's final pool, tens of planes) to tens; larger planes a workgroup each, down to a few planes.
        ladder('reduction (pool)', [kindOf('global_avg_pool', ([c, hw]) => globalPoolCase(c, hw)), [[48, 40], [12, 64], [6, 100], [24, 48]]]),
        ladder('reduction.pool.direct', [kindOf('global_avg_pool', ([c, hw]) => globalPoolCase(c, hw)), [[10, 30], [24, 10], [700, 5], [300, 14], [1500, 2], [90, 20], [4000, 3]]]),
        ladder('copy', [kindOf('transpose', ([a, b]) => transposeCase(a, b)), [[100, 200], [40, 700], [700, 900]]]),
        ladder('copy.gather', [kindOf('embedding', ([n, v, d]) => embeddingCase(n, v, d)), [[20, 3000, 500], [48, 8000, 256], [100, 1000, 1024]]]),
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
 * 16 channels at 64² and 32²). With `pointwiseStem` the image has 12 channels and the stem is a
 * pointwise 12→12 convolution like the blocks: the request's first pass and its later ones run
 * the same kernel, so their difference is what being first costs (runtime-idle.ts).
 */
function smallCnnProbe(name: string, blocks: number, pointwiseStem = false): IrTenant {
    const g = probeGraph(name, 'idle_probe', { blocks });
    const hw = 40, ch = 12;
    const conv = (opName: string, x: string, c: number, k: number) => g.add('conv2d', opName, x, [1, ch, hw, hw], {
        filters: ch, kernel: [k, k], stride: [1, 1], padding: Array(4).fill((k - 1) / 2), dilation: [1, 1], groups: 1, bias: false,
    }, [{ name: 'weight', shape: [ch, c, k, k], dtype: 'f32' }], 2 * ch * hw * hw * c * k * k);
    let x = g.tensor('image', [1, pointwiseStem ? ch : 3, hw, hw]);
    g.graph.inputs.push(x);
    x = g.relu('stem/relu', pointwiseStem ? conv('stem/conv', x, ch, 1) : conv('stem/conv', x, 3, 3));
    for (let b = 0; b < blocks; b++) x = g.relu(`block.${b}/relu`, conv(`block.${b}/conv`, x, ch, 1));
    x = g.add('global_avg_pool', 'pool', x, [1, ch, 1, 1], {}, [], ch * hw * hw);
    x = g.add('flatten', 'flatten', x, [1, ch], {}, [], 0);
    x = g.dense('head', x, 10);
    g.graph.outputs.push(x);
    return { name, graph: g.graph, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
}

/**
 * A whole synthetic tenant for the runtime-path idle measurement (calibrate.ts step 5b): the small
 * CNN probe (smallCnnProbe) run by the runtime's own phase loop. Two block counts give two pass
 * counts at short request lengths (3×3 blocks made the long request ~10 ms, and its queueing at
 * 20/s swamped the penalty). Its stem is pointwise, the blocks' kernel, so the same trials tell
 * what a request's first pass costs beyond a later one (profile.ts firstPassMs).
 */
export function idleProbeTenant(blocks: number): IrTenant {
    return smallCnnProbe(`idle_probe_${blocks}`, blocks, true);
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
