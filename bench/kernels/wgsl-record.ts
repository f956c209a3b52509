/**
 * Records what every kernel generator produces — for every op kind, every listed variant plus
 * parametric and invalid spellings, a representative set of shapes (exact and non-exact tile
 * fits), epilogues and device caps — so that a refactor of the generators can be checked to
 * change nothing: names, cache keys, variant records, bindings, dispatch, flops, bytes,
 * uniforms, buffers, errors and the WGSL (normalised: `//` comments stripped, whitespace runs
 * collapsed, blank lines dropped). Pure: no GPU.
 *
 *   node bench/bundle-and-run.mjs bench/kernels/wgsl-record.ts --out A.json
 *   node bench/bundle-and-run.mjs bench/kernels/wgsl-record.ts --out B.json --compare A.json
 *
 * With --compare, prints every record that differs (for WGSL, the first differing lines) and
 * exits 1 if any does. With --raw, the WGSL is recorded as generated (not normalised).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { DEFAULT_CAPS, kernelsFor, variantsFor } from '../../src/runtime/kernels/index.js';
import type { DeviceCaps, Epilogue } from '../../src/runtime/kernels/kernel.js';
import type { IrAttrs, IrOp, IrOpKind } from '../../src/runtime/ir/types.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const outPath = option('--out');
const comparePath = option('--compare');
const raw = args.includes('--raw');
if (!outPath) {
    console.error('usage: wgsl-record.ts --out FILE [--compare BASELINE] [--raw]');
    process.exit(64);
}

function op(kind: IrOpKind, attrs: IrAttrs = {}, nInputs = 1): IrOp {
    return { path: `record/${kind}`, kind, inputs: Array.from({ length: nInputs }, (_, i) => `t${i}`), output: 'y', attrs, weights: [], flops: 0, bytes: 0 };
}

interface Shape { inputShapes: number[][]; outputShape: number[]; attrs?: IrAttrs; nInputs?: number }

const conv = (x: number[], filters: number, kernel: number[], stride: number[], padding: number[], dilation: number[], groups: number, bias: boolean): Shape => {
    const ho = Math.floor((x[2] + padding[0] + padding[2] - dilation[0] * (kernel[0] - 1) - 1) / stride[0]) + 1;
    const wo = Math.floor((x[3] + padding[1] + padding[3] - dilation[1] * (kernel[1] - 1) - 1) / stride[1]) + 1;
    return { inputShapes: [x], outputShape: [x[0], filters, ho, wo], attrs: { filters, kernel, stride, padding, dilation, groups, bias } };
};
const depthwise = (x: number[], kernel: number[], stride: number[], padding: number[], multiplier: number): Shape => {
    const ho = Math.floor((x[2] + padding[0] + padding[2] - kernel[0]) / stride[0]) + 1;
    const wo = Math.floor((x[3] + padding[1] + padding[3] - kernel[1]) / stride[1]) + 1;
    return { inputShapes: [x], outputShape: [x[0], x[1] * multiplier, ho, wo], attrs: { kernel, stride, padding, multiplier } };
};
const pool = (x: number[], kernel: number[], stride: number[], padding: number[]): Shape => {
    const ho = Math.floor((x[2] + padding[0] + padding[2] - kernel[0]) / stride[0]) + 1;
    const wo = Math.floor((x[3] + padding[1] + padding[3] - kernel[1]) / stride[1]) + 1;
    return { inputShapes: [x], outputShape: [x[0], x[1], ho, wo], attrs: { kernel, stride, padding } };
};
const mm = (a: number[], b: number[], out: number[]): Shape => ({ inputShapes: [a, b], outputShape: out, nInputs: 2 });
const same = (x: number[], attrs: IrAttrs = {}): Shape => ({ inputShapes: [x], outputShape: x, attrs });

const SHAPES: Record<IrOpKind, Shape[]> = {
    matmul: [
        mm([1, 1], [1, 1], [1, 1]), mm([5, 3], [3, 7], [5, 7]), mm([33, 17], [17, 65], [33, 65]), mm([64, 64], [64, 64], [64, 64]),
        mm([32, 96], [96, 128], [32, 128]), mm([3, 257], [257, 10], [3, 10]), mm([70, 12], [12, 36], [70, 36]),
        mm([128, 1024], [1024, 16], [128, 16]), mm([256, 256], [256, 256], [256, 256]), mm([128, 256], [256, 64], [128, 64]),
        mm([2, 1, 9, 12], [3, 12, 20], [2, 3, 9, 20]), mm([4, 6, 5], [4, 5, 7], [4, 6, 7]), mm([6, 8], [4, 8, 12], [4, 6, 12]),
        mm([3, 64, 64], [3, 64, 64], [3, 64, 64]),
    ],
    dense: [
        { inputShapes: [[2, 4]], outputShape: [2, 8], attrs: { units: 8, bias: true } },
        { inputShapes: [[2, 7, 30]], outputShape: [2, 7, 21], attrs: { units: 21, bias: true } },
        { inputShapes: [[1, 40]], outputShape: [1, 64], attrs: { units: 64 } },
        { inputShapes: [[1, 3000]], outputShape: [1, 16], attrs: { units: 16, bias: true } },
        { inputShapes: [[20, 16]], outputShape: [20, 36], attrs: { units: 36, bias: false } },
        { inputShapes: [[128, 768]], outputShape: [128, 256], attrs: { units: 256, bias: true } },
    ],
    conv2d: [
        conv([1, 3, 11, 13], 8, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, true),
        conv([2, 6, 9, 10], 9, [3, 2], [2, 1], [0, 1, 1, 0], [1, 2], 3, false),
        conv([1, 16, 7, 7], 12, [1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 1, true),
        conv([1, 5, 12, 12], 7, [5, 5], [3, 3], [2, 2, 2, 2], [2, 2], 1, true),
        conv([1, 40, 6, 6], 36, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 4, true),
        conv([2, 96, 5, 6], 70, [1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 1, true),
        conv([1, 32, 8, 8], 64, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, false),
        conv([1, 64, 56, 56], 64, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, false),
        conv([1, 512, 7, 7], 512, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, false),
        conv([1, 256, 14, 14], 64, [1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 1, true),
        conv([1, 3, 32, 32], 16, [7, 7], [2, 2], [3, 3, 3, 3], [1, 1], 1, true),
        conv([1, 2, 5, 5], 4, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, true),
        conv([1, 8, 9, 9], 16, [3, 3], [1, 1], [0, 0, 0, 0], [1, 1], 1, true),
    ],
    depthwise_conv2d: [
        depthwise([1, 32, 14, 14], [3, 3], [1, 1], [1, 1, 1, 1], 1),
        depthwise([1, 8, 7, 9], [3, 3], [2, 2], [0, 1, 1, 0], 2),
        depthwise([2, 16, 8, 8], [5, 5], [1, 1], [2, 2, 2, 2], 1),
    ],
    max_pool2d: [pool([1, 2, 4, 4], [2, 2], [2, 2], [0, 0, 0, 0]), pool([1, 3, 7, 9], [3, 3], [2, 2], [1, 1, 1, 1])],
    avg_pool2d: [pool([1, 2, 4, 4], [2, 2], [2, 2], [0, 0, 0, 0]), pool([2, 3, 7, 9], [3, 3], [2, 2], [1, 1, 1, 1])],
    global_avg_pool: [
        { inputShapes: [[1, 2, 4, 4]], outputShape: [1, 2, 1, 1] },
        { inputShapes: [[2, 64, 7, 7]], outputShape: [2, 64, 1, 1] },
    ],
    batch_norm: [same([1, 2, 4, 4]), same([2, 3, 5]), same([4, 64, 8, 8])],
    layer_norm: [same([3, 8]), same([2, 5, 100])],
    relu: [same([5]), same([2, 3, 16, 16]), same([16, 1024, 1024])],
    relu6: [same([5]), same([2, 3, 16, 16])],
    gelu: [same([5]), same([2, 3, 16, 16])],
    sigmoid: [same([5]), same([7, 13])],
    tanh: [same([5]), same([7, 13])],
    silu: [same([5]), same([7, 13])],
    add: [
        mm([2, 3], [3], [2, 3]), mm([2, 3, 4], [2, 1, 4], [2, 3, 4]), mm([1, 64, 8, 8], [1, 64, 8, 8], [1, 64, 8, 8]),
        mm([1], [5, 1], [5, 1]),
    ],
    mul: [mm([2, 3], [3], [2, 3]), mm([4, 1, 6], [5, 1], [4, 5, 6])],
    softmax: [same([2, 3], { axis: 1 }), same([2, 100], { axis: 1 }), same([2, 5, 7], { axis: 1 }), same([4, 70]), same([3, 128, 2], { axis: 1 })],
    reshape: [{ inputShapes: [[2, 3]], outputShape: [3, 2], attrs: { shape: [3, 2] } }, { inputShapes: [[1, 4, 2, 2]], outputShape: [1, 16], attrs: { shape: [1, 16] } }],
    flatten: [{ inputShapes: [[2, 3, 2]], outputShape: [2, 6] }, { inputShapes: [[1, 64, 3, 3]], outputShape: [1, 576] }],
    transpose: [
        { inputShapes: [[2, 3]], outputShape: [3, 2], attrs: { perm: [1, 0] } },
        { inputShapes: [[2, 3, 4, 5]], outputShape: [2, 4, 5, 3], attrs: { perm: [0, 2, 3, 1] } },
    ],
    concat: [
        { inputShapes: [[2, 3], [1, 3]], outputShape: [3, 3], attrs: { axis: 0 }, nInputs: 2 },
        { inputShapes: [[1, 4, 3, 3], [1, 2, 3, 3], [1, 5, 3, 3]], outputShape: [1, 11, 3, 3], attrs: { axis: 1 }, nInputs: 3 },
    ],
    embedding: [
        { inputShapes: [[2, 3]], outputShape: [2, 3, 4], attrs: { vocab: 10, dim: 4 } },
        { inputShapes: [[1, 7]], outputShape: [1, 7, 33], attrs: { vocab: 100, dim: 33 } },
    ],
    attention: [
        { inputShapes: [[1, 4, 8]], outputShape: [1, 4, 8], attrs: { heads: 2, causal: true } },
        { inputShapes: [[2, 70, 64]], outputShape: [2, 70, 64], attrs: { heads: 4, causal: false } },
    ],
    lstm: [
        { inputShapes: [[1, 3, 5]], outputShape: [1, 3, 4], attrs: { hidden: 4, layers: 2 } },
        { inputShapes: [[2, 4, 6]], outputShape: [2, 4, 8], attrs: { hidden: 8, layers: 3 } },
        { inputShapes: [[1, 2, 16]], outputShape: [1, 2, 70], attrs: { hidden: 70, layers: 1 } },
    ],
};

const GEMM_EXTRA = ['splitk_3', 'splitk_8', 'capped_3', 'capped_2', 'vec4_2x4', 'vec4_8x8', 'vec4_1x4', 'sg_3x4', 'sg_16x8', 'sgsplitk_3', 'sgsplitk_2', 'sgrow_4x4', 'sgrow_16x8', 'sgrow_8x8', 'wgmem_8x8', 'wgmem_4x4', 'wgmem_32x32',
    'vec4_9x9', 'vec4_4x5', 'wgmem_8x4', 'splitk_1', 'capped_0', 'sgsplitk_1', 'bogus'];
const EXTRA: Partial<Record<IrOpKind, string[]>> = {
    matmul: GEMM_EXTRA, dense: GEMM_EXTRA, attention: ['splitk_3', 'capped_3', 'wgmem_8x8', 'sgrow_4x4', 'bogus'], lstm: ['splitk_3', 'capped_3', 'wgmem_8x8', 'sgrow_4x4', 'bogus'],
    conv2d: ['gemm_1x4', 'gemm_2x8', 'gemm_8x8', 'gemm_3x4', 'gemm_4x5', 'capped_1', 'capped_7', 'capped_0', 'im2col_wgmem_8x8', 'im2col_splitk_2', 'im2col_capped_2', 'im2col_sgsplitk_2',
        'im2col_vec4_2x4', 'im2col_bogus', 'pointwise_splitk_3', 'pointwise_wgmem_8x8', 'pointwise_capped_3', 'pointwise_bogus', 'winograd_splitk_2', 'winograd_wgmem_8x8',
        'winograd_capped_3', 'winograd_vec4_4x4', 'winograd_sgsplitk_2', 'winograd_bogus', 'bogus'],
    depthwise_conv2d: ['gemm_4x4', 'bogus'],
    softmax: ['bogus'], relu: ['bogus'], add: ['bogus'], batch_norm: ['bogus'], reshape: ['bogus'], transpose: ['bogus'], concat: ['bogus'],
    embedding: ['bogus'], layer_norm: ['bogus'], max_pool2d: ['bogus'], global_avg_pool: ['bogus'],
};

const EPILOGUES: [string, Epilogue[]][] = [
    ['none', []],
    ['relu', [{ kind: 'activation', fn: 'relu' }]],
    ['bias+gelu', [{ kind: 'bias', tensor: 'extra_bias' }, { kind: 'activation', fn: 'gelu' }]],
    ['ss+relu6', [{ kind: 'scale_shift', scale: 'bn_scale', shift: 'bn_shift' }, { kind: 'activation', fn: 'relu6' }]],
    ['sigmoid+add', [{ kind: 'activation', fn: 'sigmoid' }, { kind: 'add', tensor: 'residual' }]],
    ['tanh+mul+silu', [{ kind: 'activation', fn: 'tanh' }, { kind: 'mul', tensor: 'gate' }, { kind: 'activation', fn: 'silu' }]],
];

const CAPS: [string, DeviceCaps][] = [
    ['default', DEFAULT_CAPS],
    ['sg8', { ...DEFAULT_CAPS, subgroupSize: 8 }],
    ['sg32-big', {
        ...DEFAULT_CAPS, subgroupSize: 32, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024,
        maxComputeWorkgroupStorageSize: 32768, maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 32,
    }],
    // Folds 1-D dispatches over y (and refuses large z).
    ['sg16-fold', { ...DEFAULT_CAPS, subgroupSize: 16, maxComputeWorkgroupsPerDimension: 7 }],
    ['sg4-small', { ...DEFAULT_CAPS, subgroupSize: 4, maxStorageBuffersPerShaderStage: 4, maxStorageBufferBindingSize: 1 << 20, maxComputeWorkgroupStorageSize: 1024 }],
];

/** `//` comments stripped, whitespace runs collapsed, blank lines dropped. */
function normalise(wgsl: string): string {
    return wgsl.split('\n').map(l => l.replace(/\/\/.*$/, '').replace(/\s+/g, ' ').trim()).filter(l => l.length > 0).join('\n');
}

const texts: Record<string, string> = {};
function textId(wgsl: string): string {
    const n = raw ? wgsl : normalise(wgsl);
    const id = createHash('sha256').update(n).digest('hex').slice(0, 16);
    texts[id] = n;
    return id;
}

const records: Record<string, unknown> = {};
let launchCount = 0;
for (const kind of Object.keys(SHAPES) as IrOpKind[]) {
    SHAPES[kind].forEach((shape, si) => {
        const theOp = op(kind, shape.attrs ?? {}, shape.nInputs ?? shape.inputShapes.length);
        const variants: (string | undefined)[] = [undefined, ...variantsFor(theOp), ...(EXTRA[kind] ?? [])];
        variants.forEach((variant, vi) => {
            // Every epilogue on a kind's first shape; elsewhere none plus one chosen in rotation.
            const epis = si === 0 ? EPILOGUES : [EPILOGUES[0], EPILOGUES[1 + (vi + si) % (EPILOGUES.length - 1)]];
            for (const [capsName, caps] of CAPS) for (const [epiName, epilogue] of epis) {
                const key = `${kind}#${si} ${JSON.stringify(shape.inputShapes)} ${variant ?? '(default)'} caps=${capsName} epi=${epiName}`;
                try {
                    const k = kernelsFor({ op: theOp, inputShapes: shape.inputShapes, outputShape: shape.outputShape, epilogue, variant, caps });
                    launchCount += k.launches.length;
                    records[key] = {
                        aliasesInput: k.aliasesInput ?? false,
                        buffers: k.buffers,
                        launches: k.launches.map(l => ({
                            name: l.name, cacheKey: l.cacheKey, variant: l.variant, workgroupSize: l.workgroupSize, bindings: l.bindings,
                            uniforms: l.uniforms ? Array.from(l.uniforms) : undefined, dispatch: l.dispatch, flops: l.flops, bytes: l.bytes,
                            wgsl: textId(l.wgsl()),
                        })),
                    };
                } catch (e) {
                    records[key] = { error: `${(e as Error).name}: ${(e as Error).message}` };
                }
            }
        });
    });
}

writeFileSync(outPath, JSON.stringify({ records, texts }));
const errors = Object.values(records).filter(r => (r as { error?: string }).error).length;
console.error(`wgsl-record: ${Object.keys(records).length} requests (${errors} refused), ${launchCount} launches, ${Object.keys(texts).length} distinct WGSL texts → ${outPath}`);

if (comparePath) {
    const base = JSON.parse(readFileSync(comparePath, 'utf8')) as { records: Record<string, unknown>; texts: Record<string, string> };
    let differ = 0;
    const wgslDiffs = new Map<string, string>();
    for (const key of new Set([...Object.keys(base.records), ...Object.keys(records)])) {
        const a = base.records[key], b = records[key];
        if (a === undefined || b === undefined) { differ++; console.log(`${key}: only in ${a === undefined ? 'new' : 'baseline'}`); continue; }
        const aj = JSON.stringify(a), bj = JSON.stringify(b);
        if (aj === bj) continue;
        differ++;
        const al = (a as { launches?: { wgsl: string }[] }).launches, bl = (b as { launches?: { wgsl: string }[] }).launches;
        const strip = (r: unknown) => JSON.stringify(r, (k, v) => (k === 'wgsl' ? undefined : v));
        if (al && bl && strip(a) === strip(b)) {
            al.forEach((l, i) => {
                if (l.wgsl === bl[i].wgsl) return;
                const pair = `${l.wgsl}→${bl[i].wgsl}`;
                if (!wgslDiffs.has(pair)) wgslDiffs.set(pair, key);
                console.log(`${key}: launch ${i} WGSL differs (${pair})`);
            });
        } else if (al && bl && al.length === bl.length && strip({ ...(a as object), launches: [] }) === strip({ ...(b as object), launches: [] })) {
            // Same launches and buffers: name the fields that differ, launch by launch.
            al.forEach((l, i) => {
                const m = bl[i] as unknown as Record<string, unknown>, o = l as unknown as Record<string, unknown>;
                for (const field of new Set([...Object.keys(o), ...Object.keys(m)])) {
                    if (JSON.stringify(o[field]) !== JSON.stringify(m[field])) console.log(`${key}: launch ${i} ${field}: ${JSON.stringify(o[field])} → ${JSON.stringify(m[field])}`);
                }
            });
        } else {
            console.log(`${key}:\n  baseline ${aj.slice(0, 600)}\n  new      ${bj.slice(0, 600)}`);
        }
    }
    for (const [pair, key] of wgslDiffs) {
        const [x, y] = pair.split('→');
        const xl = base.texts[x].split('\n'), yl = texts[y].split('\n');
        let i = 0;
        while (i < xl.length && xl[i] === yl[i]) i++;
        console.log(`\n-- first WGSL difference ${pair} (first seen in ${key}), line ${i + 1}:`);
        for (let j = i; j < Math.min(i + 4, Math.max(xl.length, yl.length)); j++) console.log(`  - ${xl[j] ?? '∅'}\n  + ${yl[j] ?? '∅'}`);
    }
    console.error(differ === 0 ? `wgsl-record: identical to ${comparePath}` : `wgsl-record: ${differ} requests differ from ${comparePath} (${wgslDiffs.size} distinct WGSL changes)`);
    process.exit(differ === 0 ? 0 : 1);
}
