/**
 * conv2d (grouped, strided, dilated, padded; NCHW, OIHW weights) and depthwise_conv2d.
 * Variants:
 * - `gemm_<TM>x<TN>` implicit GEMM: each invocation keeps TM filters × TN output pixels in
 *   registers and gathers the input patch on the fly (no im2col buffer).
 * - `capped_<W>`: gemm_4x4 tiles walked by at most W workgroups (a persistent loop).
 * - `direct`: one output per invocation (best for tiny channel counts).
 * - `pointwise_<gemm variant>`: 1×1, stride 1, no padding, groups 1 → a plain GEMM
 *   weight [F, C] · x[n] [C, H·W] using the matmul generators.
 * - `im2col_<gemm variant>`: an im2col launch into a scratch buffer [n, groups, Cg·KH·KW, Ho·Wo]
 *   then the GEMM weight[g] · cols[n, g] (trades memory traffic for the fast GEMM kernels).
 * - `winograd_<gemm variant>`: Winograd F(2×2, 3×3) for 3×3 stride-1 convs (./winograd.ts).
 * depthwise_conv2d: `pix4` (4 output pixels per invocation) and `direct`; the default by map
 * size (defaultDepthwiseVariant).
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, boolAttr, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn,
    epilogueKey, expectInputs, expectOutputShape, fmtShape, grid1D, intSuffix, lazyText, main1D, mainStart, numAttr, tupleAttr,
    u, unknownVariant, unroll, wgsl, type BindingSpec,
} from './common.js';
import { GEMM_VARIANTS, gemmLaunches, gemmVariantName, parseGemmVariant, type GemmVariant, type RegisterGemmVariant } from './matmul.js';
import { notRegisterBlocked, winogradApplies, winogradConv, winogradMismatch } from './winograd.js';

export const CONV_VARIANTS = ['gemm_4x4', 'gemm_8x4', 'gemm_4x8', 'direct', 'capped_4', 'capped_16', 'im2col_vec4_4x8', 'im2col_vec4_4x4', 'im2col_sgrow_8x4', 'im2col_sg_8x4', 'im2col_sg_4x4', 'im2col_sgsplitk_4'] as const;
export const DEPTHWISE_VARIANTS = ['pix4', 'direct'] as const;
/** Winograd F(2×2, 3×3) variants (3×3, stride 1, undilated, ungrouped convs only; see ./winograd.ts). */
export const WINOGRAD_VARIANTS = ['winograd_sgrow_8x4', 'winograd_sg_8x4', 'winograd_vec4_4x8'] as const;

/** True for a conv2d whose attributes allow the Winograd variants (3×3, stride 1, dilation 1, groups 1). */
export function isWinogradShape(op: IrOp): boolean {
    if (op.kind !== 'conv2d') return false;
    const k = op.attrs.kernel, s = op.attrs.stride ?? 1, d = op.attrs.dilation ?? 1, g = op.attrs.groups ?? 1;
    const all = (v: unknown, x: number) => (typeof v === 'number' ? v === x : Array.isArray(v) && v.every(e => e === x));
    return all(k, 3) && all(s, 1) && all(d, 1) && g === 1;
}

/** Concrete geometry of one convolution. */
export interface ConvGeometry {
    N: number; C: number; H: number; W: number;
    F: number; G: number; Cg: number; Fg: number;
    KH: number; KW: number; sh: number; sw: number;
    pt: number; pl: number; pb: number; pr: number;
    dh: number; dw: number; Ho: number; Wo: number;
}

/** Reads and checks conv2d / depthwise_conv2d attributes against the input shape. */
export function convGeometry(op: IrOp, x: number[]): ConvGeometry {
    if (x.length !== 4) throw new KernelError(`${at(op)}: expected an input [n, c, h, w], found ${fmtShape(x)}`);
    const [N, C, H, W] = x;
    const [KH, KW] = tupleAttr(op, 'kernel', 2);
    const [sh, sw] = tupleAttr(op, 'stride', 2, [1, 1]);
    const [pt, pl, pb, pr] = tupleAttr(op, 'padding', 4, [0, 0, 0, 0]);
    let F: number, G: number, dh = 1, dw = 1;
    if (op.kind === 'depthwise_conv2d') {
        const mult = numAttr(op, 'multiplier', 1);
        F = C * mult;
        G = C;
    } else {
        F = numAttr(op, 'filters');
        G = numAttr(op, 'groups', 1);
        [dh, dw] = tupleAttr(op, 'dilation', 2, [1, 1]);
    }
    if ([KH, KW, sh, sw, dh, dw, F, G].some(v => v < 1) || [pt, pl, pb, pr].some(v => v < 0)) {
        throw new KernelError(`${at(op)}: kernel, stride, dilation, filters and groups must be ≥ 1 and padding ≥ 0; found kernel [${KH}, ${KW}], stride [${sh}, ${sw}], dilation [${dh}, ${dw}], padding [${pt}, ${pl}, ${pb}, ${pr}], filters ${F}, groups ${G}`);
    }
    if (C % G !== 0 || F % G !== 0) throw new KernelError(`${at(op)}: channels ${C} and filters ${F} must both be divisible by groups ${G}`);
    const Ho = Math.floor((H + pt + pb - dh * (KH - 1) - 1) / sh) + 1;
    const Wo = Math.floor((W + pl + pr - dw * (KW - 1) - 1) / sw) + 1;
    if (Ho < 1 || Wo < 1) throw new KernelError(`${at(op)}: input ${fmtShape(x)} is smaller than the (dilated) kernel [${KH}, ${KW}] after padding: output would be ${Ho}×${Wo}`);
    return { N, C, H, W, F, G, Cg: C / G, Fg: F / G, KH, KW, sh, sw, pt, pl, pb, pr, dh, dw, Ho, Wo };
}

/** True for a 1×1, stride-1, unpadded, ungrouped conv2d (a plain GEMM). */
export function isPointwise(op: IrOp): boolean {
    if (op.kind !== 'conv2d') return false;
    const k = op.attrs.kernel, s = op.attrs.stride ?? 1, p = op.attrs.padding ?? 0, d = op.attrs.dilation ?? 1, g = op.attrs.groups ?? 1;
    const all = (v: unknown, x: number) => (typeof v === 'number' ? v === x : Array.isArray(v) && v.every(e => e === x));
    return all(k, 1) && all(s, 1) && all(p, 0) && all(d, 1) && g === 1;
}

/**
 * A conv2d variant as the generators use it: parsed from its name once, where a request
 * enters (parseConvVariant), and named again only to label launches (convVariantName).
 */
export type ConvVariant =
    | { family: 'gemm'; tm: number; tn: number }
    | { family: 'capped'; workgroups: number }
    | { family: 'direct' }
    | { family: 'im2col'; gemm: GemmVariant }
    | { family: 'pointwise'; gemm: GemmVariant }
    | { family: 'winograd'; gemm: RegisterGemmVariant };

/** Parses a conv2d variant name; undefined if it is not one. */
export function parseConvVariant(name: string): ConvVariant | undefined {
    const gm = /^gemm_(\d+)x(\d+)$/.exec(name);
    if (gm) {
        const tm = Number(gm[1]), tn = Number(gm[2]);
        return [1, 2, 4, 8].includes(tm) && [4, 8].includes(tn) ? { family: 'gemm', tm, tn } : undefined;
    }
    const cap = intSuffix(name, 'capped');
    if (cap !== undefined) return cap >= 1 ? { family: 'capped', workgroups: cap } : undefined;
    if (name === 'direct') return { family: 'direct' };
    const composite = /^(im2col|pointwise|winograd)_(.*)$/.exec(name);
    const gemm = composite ? parseGemmVariant(composite[2]) : undefined;
    if (!composite || !gemm) return undefined;
    if (composite[1] === 'winograd') return gemm.family === 'wgmem' || gemm.family === 'kdot' ? undefined : { family: 'winograd', gemm };
    return { family: composite[1] as 'im2col' | 'pointwise', gemm };
}

/** The name of a conv2d variant (the inverse of parseConvVariant). */
export function convVariantName(v: ConvVariant): string {
    switch (v.family) {
        case 'gemm': return `gemm_${v.tm}x${v.tn}`;
        case 'capped': return `capped_${v.workgroups}`;
        case 'direct': return 'direct';
        case 'im2col': case 'pointwise': case 'winograd': return `${v.family}_${gemmVariantName(v.gemm)}`;
    }
}

/** depthwise_conv2d variants: `pix4` (4 output pixels per invocation) and `direct`. */
type DepthwiseVariant = typeof DEPTHWISE_VARIANTS[number];

function isDepthwiseVariant(name: string): name is DepthwiseVariant {
    return (DEPTHWISE_VARIANTS as readonly string[]).includes(name);
}

/** Output pixels of one channel that one pix4 workgroup covers (64 invocations × 4). */
const PIX4_WORKGROUP_PIXELS = 256;

/**
 * The depthwise variant an op gets untuned: pix4 where a channel's map fills at least one of its
 * workgroups, else direct. A pix4 workgroup covers 256 pixels of one channel, so on a small map
 * most of its invocations idle, and on lavapipe an idle invocation costs about what a busy one
 * does: at 960 channels of 3×3, pix4 ran 960 workgroups of 3 busy invocations in 2.5 ms,
 * direct (one pixel per invocation, every invocation busy) 0.21 ms; at 576 of 6×6 1.6 against
 * 0.35 ms; at 192 of 12×12 0.61 against 0.44; at 16×16 the two were even; at 48×48 pix4 was
 * ahead by a quarter to a third (medians of 9, BENCHMARKS.md "Depthwise convolutions on small maps").
 */
export function defaultDepthwiseVariant(outputPixels: number): DepthwiseVariant {
    return outputPixels >= PIX4_WORKGROUP_PIXELS ? 'pix4' : 'direct';
}

function geomKey(g: ConvGeometry): string {
    return `N=${g.N},C=${g.C},H=${g.H},W=${g.W},F=${g.F},G=${g.G},k=${g.KH}x${g.KW},s=${g.sh}x${g.sw},p=${g.pt},${g.pl},${g.pb},${g.pr},d=${g.dh}x${g.dw}`;
}

interface ConvCommon {
    opName: string;
    variantName: string;
    geom: ConvGeometry;
    ownBias?: string;
    epilogue: readonly Epilogue[];
    caps: DeviceCaps;
    where: string;
}

function convSpecs(c: ConvCommon, outElem: 'f32' | 'vec4<f32>'): BindingSpec[] {
    const specs: BindingSpec[] = [{ role: 'in0', access: 'read', elem: 'f32' }, { role: 'weight', access: 'read', elem: 'f32' }];
    if (c.ownBias) specs.push({ role: c.ownBias, access: 'read', elem: 'f32' });
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: 'out', access: 'read_write', elem: outElem });
    return specs;
}

function convElems(g: ConvGeometry): Record<string, number> {
    return { in0: g.N * g.C * g.H * g.W, weight: g.F * g.Cg * g.KH * g.KW, out: g.N * g.F * g.Ho * g.Wo };
}

function convFlops(g: ConvGeometry): number {
    return 2 * g.N * g.F * g.Ho * g.Wo * g.Cg * g.KH * g.KW;
}

function convBytes(g: ConvGeometry): number {
    const e = convElems(g);
    return 4 * (e.in0 + e.weight + e.out);
}

/** An implicit GEMM's tiling: TM filters × TN pixels per invocation, WGX × WGY invocations, at most `cap` workgroups (0: one per tile). */
interface ConvTiling { tm: number; tn: number; wgx: number; wgy: number; cap: number }

/**
 * Implicit GEMM: per (image, group) an Fg × (Ho·Wo) output, K = Cg·KH·KW. Invocation (lx, ly)
 * of a WGX×WGY workgroup owns TM filters × TN pixels.
 */
function implicitGemm(c: ConvCommon, t: ConvTiling): KernelDescription {
    const g = c.geom;
    const { tm: TM, tn: TN, wgx: WGX, wgy: WGY } = t;
    const P = g.Ho * g.Wo, K = g.Cg * g.KH * g.KW, HW = g.H * g.W;
    const CV = TN / 4;
    const tilesN = Math.ceil(P / (WGX * TN)), tilesM = Math.ceil(g.Fg / (WGY * TM));
    const Z = g.N * g.G;
    const total = tilesN * tilesM * Z;
    const cap = t.cap > 0 ? Math.min(t.cap, total) : 0;
    const rowsExact = g.Fg % (WGY * TM) === 0, colsExact = P % (WGX * TN) === 0;
    const outVec = P % 4 === 0;
    const specs = convSpecs(c, outVec ? 'vec4<f32>' : 'f32');
    // Pixels and filters past the edges are clamped for the loads; the stores are guarded.
    const pixel = (j: number) => (colsExact ? `p0 + ${u(j)}` : `min(p0 + ${u(j)}, ${u(P - 1)})`);
    const filter = (i: number) => (rowsExact ? `f0 + ${u(i)}` : `min(f0 + ${u(i)}, ${u(g.Fg - 1)})`);
    const value = (i: number, cv: number, j: number) => `epilogue(acc${i}_${cv}[${j}], i + ${u(j)}, ch)`;
    const store = (i: number, cv: number): string => {
        const guard: string[] = rowsExact ? [] : [`f < ${u(g.Fg)}`];
        if (!outVec) return unroll(4, j => `if (${[...guard, `p + ${u(j)} < ${u(P)}`].join(' && ')}) { t_out[i + ${u(j)}] = ${value(i, cv, j)}; }`);
        if (!colsExact) guard.push(`p < ${u(P)}`);
        const st = `t_out[i >> 2u] = vec4<f32>(${value(i, cv, 0)}, ${value(i, cv, 1)}, ${value(i, cv, 2)}, ${value(i, cv, 3)});`;
        return guard.length ? `if (${guard.join(' && ')}) { ${st} }` : st;
    };
    const stores = () => unroll(TM, i => wgsl`
        {
          let f = f0 + ${u(i)};
          let ch = grp * ${u(g.Fg)} + f;
          let ob = (n * ${u(g.F)} + ch) * ${u(P)};
          ${unroll(CV, cv => wgsl`
            {
              let p = p0 + ${u(4 * cv)};
              let i = ob + p;
              ${store(i, cv)}
            }`)}
        }`);
    // Persistent loop: `cap` workgroups walk all tiles.
    const persistentLoop = () => wgsl`
        for (var t = wid.x; t < ${u(total)}; t = t + ${u(cap)}) {
          conv_tile(t / ${u(tilesN * tilesM)}, (t / ${u(tilesN)}) % ${u(tilesM)}, t % ${u(tilesN)}, lid.x, lid.y);
        }`;
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(c.epilogue, c.ownBias)}
        fn conv_tile(z: u32, tr: u32, tc: u32, lx: u32, ly: u32) {
          let n = z / ${u(g.G)};
          let grp = z % ${u(g.G)};
          let f0 = (tr * ${u(WGY)} + ly) * ${u(TM)};
          let p0 = (tc * ${u(WGX)} + lx) * ${u(TN)};
          ${unroll(TN, j => wgsl`
            let pp${j} = ${pixel(j)};
            let iy${j} = i32((pp${j} / ${u(g.Wo)}) * ${u(g.sh)}) - ${g.pt};
            let ix${j} = i32((pp${j} % ${u(g.Wo)}) * ${u(g.sw)}) - ${g.pl};`)}
          ${unroll(TM, i => `let wr${i} = (grp * ${u(g.Fg)} + ${filter(i)}) * ${u(K)};`)}
          let xBase = (n * ${u(g.C)} + grp * ${u(g.Cg)}) * ${u(HW)};
          ${unroll(TM, i => unroll(CV, cv => `var acc${i}_${cv} = vec4<f32>(0.0);`))}
          for (var ci = 0u; ci < ${u(g.Cg)}; ci = ci + 1u) {
            let xc = xBase + ci * ${u(HW)};
            for (var ky = 0u; ky < ${u(g.KH)}; ky = ky + 1u) {
              ${unroll(TN, j => wgsl`
                let y${j} = iy${j} + i32(ky * ${u(g.dh)});
                let yok${j} = y${j} >= 0 && y${j} < ${g.H};
                let xr${j} = xc + select(0u, u32(y${j}), yok${j}) * ${u(g.W)};`)}
              for (var kx = 0u; kx < ${u(g.KW)}; kx = kx + 1u) {
                let kk = (ci * ${u(g.KH)} + ky) * ${u(g.KW)} + kx;
                ${unroll(TN, j => wgsl`
                  let x${j} = ix${j} + i32(kx * ${u(g.dw)});
                  let ok${j} = yok${j} && x${j} >= 0 && x${j} < ${g.W};
                  let v${j} = select(0.0, t_in0[xr${j} + select(0u, u32(x${j}), ok${j})], ok${j});`)}
                ${unroll(CV, cv => `let xv${cv} = vec4<f32>(v${4 * cv}, v${4 * cv + 1}, v${4 * cv + 2}, v${4 * cv + 3});`)}
                ${unroll(TM, i => wgsl`
                  let w${i} = t_weight[wr${i} + kk];
                  ${unroll(CV, cv => `acc${i}_${cv} = acc${i}_${cv} + w${i} * xv${cv};`)}`)}
              }
            }
          }
          ${stores()}
        }
        ${mainStart([WGX, WGY, 1])}
          ${cap > 0 ? persistentLoop() : 'conv_tile(wid.z, wid.y, wid.x, lid.x, lid.y);'}
        }`);
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `conv.implicit_gemm|tm=${TM},tn=${TN},wg=${WGX}x${WGY},cap=${cap}|${geomKey(g)}|bias=${c.ownBias ?? '-'}${epilogueKey(c.epilogue)}`,
        variant: { variant: c.variantName, tileM: TM, tileN: TN, workgroups: cap > 0 ? cap : total, cap, exactRows: rowsExact, exactCols: colsExact },
        workgroupSize: [WGX, WGY, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: cap > 0 ? [cap, 1, 1] : [tilesN, tilesM, Z],
        flops: convFlops(g),
        bytes: convBytes(g),
        // Tiles of output pixels (x: bands of output rows), filters (y) and images (z, ungrouped);
        // a persistent (capped) kernel has no grid to cut.
        ...(cap > 0 ? {} : { grid: convGrid(g) }),
    };
    checkLaunch(k, specs, convElems(g), c.caps);
    return k;
}

/** The grid axes of an implicit GEMM conv, with what each cut leaves whole: cutting pixels or images re-reads the weights, cutting filters the input. */
function convGrid(g: ConvGeometry): KernelDescription['grid'] {
    const e = convElems(g);
    return {
        rows: { dim: 0, sharedBytes: 4 * e.weight },
        ...(g.Fg > 1 ? { channels: { dim: 1 as const, sharedBytes: 4 * e.in0 } } : {}),
        ...(g.G === 1 ? { batch: { dim: 2 as const, sharedBytes: 4 * e.weight } } : {}),
    };
}

/** Direct convolution: one output element per invocation. */
function directConv(c: ConvCommon): KernelDescription {
    const g = c.geom;
    const P = g.Ho * g.Wo, K = g.Cg * g.KH * g.KW, HW = g.H * g.W;
    const total = g.N * g.F * P;
    const grid = grid1D(total, c.caps, c.where);
    const specs = convSpecs(c, 'f32');
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(c.epilogue, c.ownBias)}
        ${main1D(grid, 'i', total)}
          let p = i % ${u(P)};
          let ch = (i / ${u(P)}) % ${u(g.F)};
          let n = i / ${u(P * g.F)};
          let grp = ch / ${u(g.Fg)};
          let iy0 = i32((p / ${u(g.Wo)}) * ${u(g.sh)}) - ${g.pt};
          let ix0 = i32((p % ${u(g.Wo)}) * ${u(g.sw)}) - ${g.pl};
          let xBase = (n * ${u(g.C)} + grp * ${u(g.Cg)}) * ${u(HW)};
          let wBase = ch * ${u(K)};
          var acc = 0.0;
          for (var ci = 0u; ci < ${u(g.Cg)}; ci = ci + 1u) {
            for (var ky = 0u; ky < ${u(g.KH)}; ky = ky + 1u) {
              let y = iy0 + i32(ky * ${u(g.dh)});
              if (y < 0 || y >= ${g.H}) { continue; }
              for (var kx = 0u; kx < ${u(g.KW)}; kx = kx + 1u) {
                let x = ix0 + i32(kx * ${u(g.dw)});
                if (x < 0 || x >= ${g.W}) { continue; }
                acc = acc + t_weight[wBase + (ci * ${u(g.KH)} + ky) * ${u(g.KW)} + kx] * t_in0[xBase + ci * ${u(HW)} + u32(y) * ${u(g.W)} + u32(x)];
              }
            }
          }
          t_out[i] = epilogue(acc, i, ch);
        }`);
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `conv.direct|${geomKey(g)}|bias=${c.ownBias ?? '-'}${epilogueKey(c.epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: c.variantName, workgroups: grid.groups },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: convFlops(g),
        bytes: convBytes(g),
    };
    checkLaunch(k, specs, convElems(g), c.caps);
    return k;
}

/**
 * im2col: cols[n, g, k, p] = x[n, g·Cg + c, iy, ix] (0 in the padding), k = (c, ky, kx); rows
 * are `Pp` ≥ Ho·Wo long (columns past Ho·Wo are 0) so the GEMM can load them as vec4.
 */
function im2colLaunch(c: ConvCommon, Pp: number): KernelDescription {
    const g = c.geom;
    const P = g.Ho * g.Wo, Kg = g.Cg * g.KH * g.KW, HW = g.H * g.W;
    const total = g.N * g.G * Kg * Pp;
    // With padded rows each invocation writes 4 consecutive columns as one vec4 (stores and
    // index arithmetic amortised 4×; measured ~2× faster on lavapipe than one element each).
    const V = Pp % 4 === 0 ? 4 : 1;
    const items = total / V;
    const grid = grid1D(items, c.caps, c.where);
    const specs: BindingSpec[] = [{ role: 'in0', access: 'read' }, { role: 'cols', access: 'read_write', elem: V === 4 ? 'vec4<f32>' : 'f32' }];
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${main1D(grid, 'i', items)}
          let pBase = (i % ${u(Pp / V)}) * ${u(V)};
          let kk = (i / ${u(Pp / V)}) % ${u(Kg)};
          let z = i / ${u((Pp / V) * Kg)};
          let n = z / ${u(g.G)};
          let grp = z % ${u(g.G)};
          let ci = kk / ${u(g.KH * g.KW)};
          let ky = (kk / ${u(g.KW)}) % ${u(g.KH)};
          let kx = kk % ${u(g.KW)};
          let plane = (n * ${u(g.C)} + grp * ${u(g.Cg)} + ci) * ${u(HW)};
          ${unroll(V, j => wgsl`
            let p${j} = pBase + ${u(j)};
            let y${j} = i32((p${j} / ${u(g.Wo)}) * ${u(g.sh)} + ky * ${u(g.dh)}) - ${g.pt};
            let x${j} = i32((p${j} % ${u(g.Wo)}) * ${u(g.sw)} + kx * ${u(g.dw)}) - ${g.pl};
            let ok${j} = ${Pp > P ? `p${j} < ${u(P)} && ` : ''}y${j} >= 0 && y${j} < ${g.H} && x${j} >= 0 && x${j} < ${g.W};
            let v${j} = select(0.0, t_in0[plane + select(0u, u32(y${j}) * ${u(g.W)} + u32(x${j}), ok${j})], ok${j});`)}
          t_cols[i] = ${V === 4 ? 'vec4<f32>(v0, v1, v2, v3)' : 'v0'};
        }`);
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}.im2col`,
        cacheKey: `conv.im2col|${geomKey(g)}|Pp=${Pp},V=${V}|d=${grid.dispatch.join('x')}`,
        variant: { variant: c.variantName, workgroups: grid.groups },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: 0,
        bytes: 4 * (2 * total),
    };
    checkLaunch(k, specs, { in0: g.N * g.C * HW, cols: total }, c.caps);
    return k;
}

/**
 * Output pixels per image up to which a conv with a long K (≥ KDOT_MIN_K) runs its GEMM as
 * kdot_8 (lanes split K): deep layers on 2×2 and 3×3 maps. A register tile there is 32 pixels
 * wide for 4 or 9 real ones. Medians on lavapipe, im2col or pointwise GEMM before / after:
 * 512→512 3×3 @2² 4.80 / 1.46 ms, 256→512 3×3/2 @4² 2.50 / 0.91, 320→1280 1×1 @3² 1.59 / 1.24;
 * at 16 pixels (256→256 3×3 @4²) kdot was slower (2.23 against 1.55), and at K = 160 even.
 */
const KDOT_PIXELS = 9;
const KDOT_MIN_K = 256;

function defaultConvVariant(g: ConvGeometry, pointwise: boolean, caps: DeviceCaps): ConvVariant {
    const sg = caps.subgroupSize !== undefined && g.Fg >= 8;
    const sgrow: GemmVariant = { family: 'sgrow', tm: 8, tn: 4 }, vec4: GemmVariant = { family: 'vec4', tm: 4, tn: 8 };
    const kdot: GemmVariant = { family: 'kdot', rows: 8 };
    const fewPixels = g.Ho * g.Wo <= KDOT_PIXELS && g.Cg * g.KH * g.KW >= KDOT_MIN_K && g.Fg >= 8;
    if (pointwise) return { family: 'pointwise', gemm: fewPixels ? kdot : sg ? sgrow : vec4 };
    if (g.Fg < 4) return { family: 'direct' };
    // Winograd F(2,3) measured ~1.8× over im2col + sg GEMM on lavapipe for 3×3 stride-1 convs on
    // maps ≥ 14² (64→64 @56², 128→128 @28²); on 7² maps the two are even (128→128 1.27 / 1.04 ms,
    // 512→512 10.6 / 10.9 with the filters transformed on the host), so im2col keeps them.
    const P = g.Ho * g.Wo;
    const tiles = Math.ceil(g.Ho / 2) * Math.ceil(g.Wo / 2);
    const winoBytes = 4 * g.N * 16 * Math.max(g.C, g.F) * Math.ceil(tiles / 4) * 4;
    if (sg && winogradApplies(g) && P >= 196 && winoBytes <= caps.maxStorageBufferBindingSize) return { family: 'winograd', gemm: { family: 'sgrow', tm: 8, tn: 4 } };
    // im2col + GEMM measured fastest on lavapipe for other 3×3 convs; fall back when cols would not fit.
    const colsBytes = 4 * g.N * g.C * g.KH * g.KW * Math.ceil(P / 4) * 4;
    if (g.Fg >= 16 && colsBytes <= caps.maxStorageBufferBindingSize) {
        if (fewPixels) return { family: 'im2col', gemm: kdot };
        if (!sg) return { family: 'im2col', gemm: vec4 };
        // Few output tiles and a long K (deep layers on small maps): split K for parallelism.
        return { family: 'im2col', gemm: g.Fg * P <= 512 * 64 && g.Cg * g.KH * g.KW >= 2048 ? { family: 'sgsplitk', splits: 4 } : sgrow };
    }
    return { family: 'gemm', tm: 4, tn: 8 };
}

function pointwiseMismatch(op: IrOp, name: string, g: ConvGeometry): KernelError {
    return new KernelError(`${at(op)}: variant '${name}' needs a 1×1, stride-1, unpadded, ungrouped conv2d; this one has kernel [${g.KH}, ${g.KW}], stride [${g.sh}, ${g.sw}], groups ${g.G}`);
}

/**
 * The conv2d variant a request names (or the default for its geometry), checked against the
 * geometry. A bad name is explained by what its prefix asks for: a Winograd or pointwise name
 * on a conv that cannot take one says so before saying that its GEMM part is unknown.
 */
function resolveConvVariant(op: IrOp, name: string | undefined, g: ConvGeometry, pointwise: boolean, caps: DeviceCaps): ConvVariant {
    if (name === undefined) return defaultConvVariant(g, pointwise, caps);
    const v = parseConvVariant(name);
    const family = v?.family ?? /^(winograd|pointwise)_/.exec(name)?.[1];
    if (family === 'winograd' && !winogradApplies(g)) throw winogradMismatch(at(op), name, g);
    if (family === 'pointwise' && !pointwise) throw pointwiseMismatch(op, name, g);
    if (v) return v;
    if (family === 'winograd') throw notRegisterBlocked(at(op), name, name.slice('winograd_'.length));
    throw unknownVariant(op, name, pointwise ? [...CONV_VARIANTS, ...GEMM_VARIANTS.map(v => `pointwise_${v}`)] : [...CONV_VARIANTS, ...(isWinogradShape(op) ? WINOGRAD_VARIANTS : [])]);
}

/** conv2d: weight [filters, c/groups, kh, kw], bias [filters] when attrs.bias. */
export function conv2dKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const g = convGeometry(op, req.inputShapes[0]);
    expectOutputShape(req, [g.N, g.F, g.Ho, g.Wo]);
    const hasBias = boolAttr(op, 'bias', true);
    const variant = resolveConvVariant(op, req.variant, g, isPointwise(op), req.caps);

    const variantName = convVariantName(variant);
    const ownBias = hasBias ? 'bias' : undefined;
    const common: ConvCommon = { opName: 'conv2d', variantName, geom: g, ownBias, epilogue: req.epilogue, caps: req.caps, where: at(op) };
    const buffers: LaunchBuffer[] = [{ role: 'weight', kind: 'weight', shape: [g.F, g.Cg, g.KH, g.KW], dtype: 'f32', init: 'normal' }];
    if (hasBias) buffers.push({ role: 'bias', kind: 'weight', shape: [g.F], dtype: 'f32', init: 'normal' });
    switch (variant.family) {
        case 'gemm': return { launches: [implicitGemm(common, { tm: variant.tm, tn: variant.tn, wgx: 8, wgy: 8, cap: 0 })], buffers };
        case 'capped': return { launches: [implicitGemm(common, { tm: 4, tn: 4, wgx: 8, wgy: 8, cap: variant.workgroups })], buffers };
        case 'direct': return { launches: [directConv(common)], buffers };
        case 'winograd': {
            const w = winogradConv({ variantName, gemm: variant.gemm, geom: g, ownBias, epilogue: req.epilogue, caps: req.caps, where: at(op) });
            return { launches: w.launches, buffers: [...buffers, ...w.buffers] };
        }
        case 'im2col': {
            const P = g.Ho * g.Wo, Kg = g.Cg * g.KH * g.KW;
            // Register-blocked GEMMs read cols as vec4: pad its rows to a multiple of 4.
            const Pp = variant.gemm.family !== 'wgmem' ? Math.ceil(P / 4) * 4 : P;
            const cols = im2colLaunch(common, Pp);
            const gl = gemmLaunches({
                opName: 'conv2d', variantName, variant: variant.gemm, M: g.Fg, N: P, K: Kg, batch: g.N * g.G, ...(Pp !== P ? { ldb: Pp } : {}),
                outLead: [g.N, g.G], aLead: [g.G], bLead: [g.N, g.G], aRole: 'weight', bRole: 'cols', outRole: 'out',
                ownBias, epilogue: req.epilogue, channel: 'row', channelGroups: g.G, partialRole: 'partial',
                axes: { cols: 'rows', rows: 'channels', ...(g.G === 1 ? { problems: 'batch' as const } : {}) }, caps: req.caps, where: at(op),
            });
            return { launches: [cols, ...gl.launches], buffers: [...buffers, { role: 'cols', kind: 'scratch', shape: [g.N, g.G, Kg, Pp], dtype: 'f32' }, ...gl.buffers] };
        }
        case 'pointwise': {
            const gl = gemmLaunches({
                opName: 'conv2d', variantName, variant: variant.gemm, M: g.F, N: g.H * g.W, K: g.C, batch: g.N,
                outLead: [g.N], aLead: [], bLead: [g.N], aRole: 'weight', bRole: 'in0', outRole: 'out',
                ownBias, epilogue: req.epilogue, channel: 'row', axes: { cols: 'rows', rows: 'channels', problems: 'batch' }, caps: req.caps, where: at(op),
            });
            return { launches: gl.launches, buffers: [...buffers, ...gl.buffers] };
        }
    }
}

/** depthwise_conv2d: weight [c·multiplier, 1, kh, kw], no bias. */
export function depthwiseKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const g = convGeometry(op, req.inputShapes[0]);
    expectOutputShape(req, [g.N, g.F, g.Ho, g.Wo]);
    const variant = req.variant ?? defaultDepthwiseVariant(g.Ho * g.Wo);
    if (!isDepthwiseVariant(variant)) throw unknownVariant(op, variant, DEPTHWISE_VARIANTS);

    const common: ConvCommon = { opName: 'depthwise_conv2d', variantName: variant, geom: g, epilogue: req.epilogue, caps: req.caps, where: at(op) };
    const buffers: LaunchBuffer[] = [{ role: 'weight', kind: 'weight', shape: [g.F, 1, g.KH, g.KW], dtype: 'f32', init: 'normal' }];
    // pix4: one filter per invocation, 4 pixels, 64 invocations along the pixels.
    const launch = variant === 'pix4' ? implicitGemm(common, { tm: 1, tn: 4, wgx: 64, wgy: 1, cap: 0 }) : directConv(common);
    return { launches: [launch], buffers };
}
