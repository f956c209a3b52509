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
 * depthwise_conv2d: `pix4` (4 output pixels per invocation) and `direct`.
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, boolAttr, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn,
    epilogueKey, expectInputs, expectOutputShape, fmtShape, fold1D, intSuffix, numAttr, tupleAttr, u, unknownVariant,
    type BindingSpec,
} from './common.js';
import { GEMM_VARIANTS, gemmLaunches, parseGemmVariant } from './matmul.js';
import { winogradApplies, winogradConv } from './winograd.js';

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

/**
 * Implicit GEMM: per (image, group) an Fg × (Ho·Wo) output, K = Cg·KH·KW. Invocation (lx, ly)
 * of a WGX×WGY workgroup owns TM filters × TN pixels.
 */
function implicitGemm(c: ConvCommon, TM: number, TN: number, WGX: number, WGY: number, capReq: number): KernelDescription {
    const g = c.geom;
    const P = g.Ho * g.Wo, K = g.Cg * g.KH * g.KW, HW = g.H * g.W;
    const CV = TN / 4;
    const tilesN = Math.ceil(P / (WGX * TN)), tilesM = Math.ceil(g.Fg / (WGY * TM));
    const Z = g.N * g.G;
    const total = tilesN * tilesM * Z;
    const cap = capReq > 0 ? Math.min(capReq, total) : 0;
    const rowsExact = g.Fg % (WGY * TM) === 0, colsExact = P % (WGX * TN) === 0;
    const outVec = P % 4 === 0;
    const specs = convSpecs(c, outVec ? 'vec4<f32>' : 'f32');
    const L: string[] = [declareBindings(specs), epilogueFn(c.epilogue, c.ownBias)];
    L.push(`fn conv_tile(z: u32, tr: u32, tc: u32, lx: u32, ly: u32) {`);
    L.push(`  let n = z / ${u(g.G)};`, `  let grp = z % ${u(g.G)};`);
    L.push(`  let f0 = (tr * ${u(WGY)} + ly) * ${u(TM)};`, `  let p0 = (tc * ${u(WGX)} + lx) * ${u(TN)};`);
    for (let j = 0; j < TN; j++) {
        L.push(`  let pp${j} = ${colsExact ? `p0 + ${u(j)}` : `min(p0 + ${u(j)}, ${u(P - 1)})`};`);
        L.push(`  let iy${j} = i32((pp${j} / ${u(g.Wo)}) * ${u(g.sh)}) - ${g.pt};`);
        L.push(`  let ix${j} = i32((pp${j} % ${u(g.Wo)}) * ${u(g.sw)}) - ${g.pl};`);
    }
    for (let i = 0; i < TM; i++) {
        const f = rowsExact ? `f0 + ${u(i)}` : `min(f0 + ${u(i)}, ${u(g.Fg - 1)})`;
        L.push(`  let wr${i} = (grp * ${u(g.Fg)} + ${f}) * ${u(K)};`);
    }
    L.push(`  let xBase = (n * ${u(g.C)} + grp * ${u(g.Cg)}) * ${u(HW)};`);
    for (let i = 0; i < TM; i++) for (let cv = 0; cv < CV; cv++) L.push(`  var acc${i}_${cv} = vec4<f32>(0.0);`);
    L.push(`  for (var ci = 0u; ci < ${u(g.Cg)}; ci = ci + 1u) {`);
    L.push(`    let xc = xBase + ci * ${u(HW)};`);
    L.push(`    for (var ky = 0u; ky < ${u(g.KH)}; ky = ky + 1u) {`);
    for (let j = 0; j < TN; j++) {
        L.push(`      let y${j} = iy${j} + i32(ky * ${u(g.dh)});`);
        L.push(`      let yok${j} = y${j} >= 0 && y${j} < ${g.H};`);
        L.push(`      let xr${j} = xc + select(0u, u32(y${j}), yok${j}) * ${u(g.W)};`);
    }
    L.push(`      for (var kx = 0u; kx < ${u(g.KW)}; kx = kx + 1u) {`);
    L.push(`        let kk = (ci * ${u(g.KH)} + ky) * ${u(g.KW)} + kx;`);
    for (let j = 0; j < TN; j++) {
        L.push(`        let x${j} = ix${j} + i32(kx * ${u(g.dw)});`);
        L.push(`        let ok${j} = yok${j} && x${j} >= 0 && x${j} < ${g.W};`);
        L.push(`        let v${j} = select(0.0, t_in0[xr${j} + select(0u, u32(x${j}), ok${j})], ok${j});`);
    }
    for (let cv = 0; cv < CV; cv++) L.push(`        let xv${cv} = vec4<f32>(v${4 * cv}, v${4 * cv + 1}, v${4 * cv + 2}, v${4 * cv + 3});`);
    for (let i = 0; i < TM; i++) {
        L.push(`        let w${i} = t_weight[wr${i} + kk];`);
        for (let cv = 0; cv < CV; cv++) L.push(`        acc${i}_${cv} = acc${i}_${cv} + w${i} * xv${cv};`);
    }
    L.push('      }', '    }', '  }');
    for (let i = 0; i < TM; i++) {
        L.push(`  {`, `    let f = f0 + ${u(i)};`, `    let ch = grp * ${u(g.Fg)} + f;`, `    let ob = (n * ${u(g.F)} + ch) * ${u(P)};`);
        for (let cv = 0; cv < CV; cv++) {
            L.push(`    {`, `      let p = p0 + ${u(4 * cv)};`, `      let i = ob + p;`);
            const val = (j: number) => `epilogue(acc${i}_${cv}[${j}], i + ${u(j)}, ch)`;
            const guard: string[] = rowsExact ? [] : [`f < ${u(g.Fg)}`];
            if (outVec) {
                if (!colsExact) guard.push(`p < ${u(P)}`);
                const st = `t_out[i >> 2u] = vec4<f32>(${val(0)}, ${val(1)}, ${val(2)}, ${val(3)});`;
                L.push(guard.length ? `      if (${guard.join(' && ')}) { ${st} }` : `      ${st}`);
            } else {
                for (let j = 0; j < 4; j++) L.push(`      if (${[...guard, `p + ${u(j)} < ${u(P)}`].join(' && ')}) { t_out[i + ${u(j)}] = ${val(j)}; }`);
            }
            L.push('    }');
        }
        L.push('  }');
    }
    L.push('}');
    L.push(`@compute @workgroup_size(${WGX}, ${WGY}, 1)`);
    L.push(`fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`);
    let dispatch: [number, number, number];
    if (cap > 0) {
        L.push(`  for (var t = wid.x; t < ${u(total)}; t = t + ${u(cap)}) {`);
        L.push(`    conv_tile(t / ${u(tilesN * tilesM)}, (t / ${u(tilesN)}) % ${u(tilesM)}, t % ${u(tilesN)}, lid.x, lid.y);`, '  }');
        dispatch = [cap, 1, 1];
    } else {
        L.push(`  conv_tile(wid.z, wid.y, wid.x, lid.x, lid.y);`);
        dispatch = [tilesN, tilesM, Z];
    }
    L.push('}');
    const code = L.join('\n');
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `conv.implicit_gemm|tm=${TM},tn=${TN},wg=${WGX}x${WGY},cap=${cap}|${geomKey(g)}|bias=${c.ownBias ?? '-'}${epilogueKey(c.epilogue)}`,
        variant: { variant: c.variantName, tileM: TM, tileN: TN, workgroups: cap > 0 ? cap : total, cap, exactRows: rowsExact, exactCols: colsExact },
        workgroupSize: [WGX, WGY, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch,
        flops: convFlops(g),
        bytes: convBytes(g),
    };
    checkLaunch(k, specs, convElems(g), c.caps);
    return k;
}

/** Direct convolution: one output element per invocation. */
function directConv(c: ConvCommon): KernelDescription {
    const g = c.geom;
    const P = g.Ho * g.Wo, K = g.Cg * g.KH * g.KW, HW = g.H * g.W;
    const total = g.N * g.F * P;
    const WG = 64;
    const groups = Math.ceil(total / WG);
    const dispatch = fold1D(groups, c.caps, c.where);
    const specs = convSpecs(c, 'f32');
    const code = [
        declareBindings(specs),
        epilogueFn(c.epilogue, c.ownBias),
        `@compute @workgroup_size(${WG}, 1, 1)`,
        `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
        `  let i = (wid.x + wid.y * ${u(dispatch[0])}) * ${u(WG)} + lid.x;`,
        `  if (i >= ${u(total)}) { return; }`,
        `  let p = i % ${u(P)};`,
        `  let ch = (i / ${u(P)}) % ${u(g.F)};`,
        `  let n = i / ${u(P * g.F)};`,
        `  let grp = ch / ${u(g.Fg)};`,
        `  let iy0 = i32((p / ${u(g.Wo)}) * ${u(g.sh)}) - ${g.pt};`,
        `  let ix0 = i32((p % ${u(g.Wo)}) * ${u(g.sw)}) - ${g.pl};`,
        `  let xBase = (n * ${u(g.C)} + grp * ${u(g.Cg)}) * ${u(HW)};`,
        `  let wBase = ch * ${u(K)};`,
        `  var acc = 0.0;`,
        `  for (var ci = 0u; ci < ${u(g.Cg)}; ci = ci + 1u) {`,
        `    for (var ky = 0u; ky < ${u(g.KH)}; ky = ky + 1u) {`,
        `      let y = iy0 + i32(ky * ${u(g.dh)});`,
        `      if (y < 0 || y >= ${g.H}) { continue; }`,
        `      for (var kx = 0u; kx < ${u(g.KW)}; kx = kx + 1u) {`,
        `        let x = ix0 + i32(kx * ${u(g.dw)});`,
        `        if (x < 0 || x >= ${g.W}) { continue; }`,
        `        acc = acc + t_weight[wBase + (ci * ${u(g.KH)} + ky) * ${u(g.KW)} + kx] * t_in0[xBase + ci * ${u(HW)} + u32(y) * ${u(g.W)} + u32(x)];`,
        '      }', '    }', '  }',
        `  t_out[i] = epilogue(acc, i, ch);`,
        '}',
    ].join('\n');
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `conv.direct|${geomKey(g)}|bias=${c.ownBias ?? '-'}${epilogueKey(c.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: c.variantName, workgroups: groups },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch,
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
    const WG = 64;
    const groups = Math.ceil(items / WG);
    const dispatch = fold1D(groups, c.caps, c.where);
    const specs: BindingSpec[] = [{ role: 'in0', access: 'read' }, { role: 'cols', access: 'read_write', elem: V === 4 ? 'vec4<f32>' : 'f32' }];
    const L: string[] = [
        declareBindings(specs),
        `@compute @workgroup_size(${WG}, 1, 1)`,
        `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
        `  let i = (wid.x + wid.y * ${u(dispatch[0])}) * ${u(WG)} + lid.x;`,
        `  if (i >= ${u(items)}) { return; }`,
        `  let pBase = (i % ${u(Pp / V)}) * ${u(V)};`,
        `  let kk = (i / ${u(Pp / V)}) % ${u(Kg)};`,
        `  let z = i / ${u((Pp / V) * Kg)};`,
        `  let n = z / ${u(g.G)};`,
        `  let grp = z % ${u(g.G)};`,
        `  let ci = kk / ${u(g.KH * g.KW)};`,
        `  let ky = (kk / ${u(g.KW)}) % ${u(g.KH)};`,
        `  let kx = kk % ${u(g.KW)};`,
        `  let plane = (n * ${u(g.C)} + grp * ${u(g.Cg)} + ci) * ${u(HW)};`,
    ];
    for (let j = 0; j < V; j++) {
        L.push(`  let p${j} = pBase + ${u(j)};`);
        L.push(`  let y${j} = i32((p${j} / ${u(g.Wo)}) * ${u(g.sh)} + ky * ${u(g.dh)}) - ${g.pt};`);
        L.push(`  let x${j} = i32((p${j} % ${u(g.Wo)}) * ${u(g.sw)} + kx * ${u(g.dw)}) - ${g.pl};`);
        L.push(`  let ok${j} = ${Pp > P ? `p${j} < ${u(P)} && ` : ''}y${j} >= 0 && y${j} < ${g.H} && x${j} >= 0 && x${j} < ${g.W};`);
        L.push(`  let v${j} = select(0.0, t_in0[plane + select(0u, u32(y${j}) * ${u(g.W)} + u32(x${j}), ok${j})], ok${j});`);
    }
    L.push(V === 4 ? `  t_cols[i] = vec4<f32>(v0, v1, v2, v3);` : `  t_cols[i] = v0;`, '}');
    const code = L.join('\n');
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}.im2col`,
        cacheKey: `conv.im2col|${geomKey(g)}|Pp=${Pp},V=${V}|d=${dispatch.join('x')}`,
        variant: { variant: c.variantName, workgroups: groups },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch,
        flops: 0,
        bytes: 4 * (2 * total),
    };
    checkLaunch(k, specs, { in0: g.N * g.C * HW, cols: total }, c.caps);
    return k;
}

function defaultConvVariant(g: ConvGeometry, pointwise: boolean, caps: DeviceCaps): string {
    const sg = caps.subgroupSize !== undefined && g.Fg >= 8;
    if (pointwise) return sg ? 'pointwise_sgrow_8x4' : 'pointwise_vec4_4x8';
    if (g.Fg < 4) return 'direct';
    // Winograd F(2,3) measured ~1.8× over im2col + sg GEMM on lavapipe for 3×3 stride-1 convs on
    // maps ≥ 14² (64→64 @56², 128→128 @28²); on 7² maps its per-run weight transform eats the gain.
    const P = g.Ho * g.Wo;
    const tiles = Math.ceil(g.Ho / 2) * Math.ceil(g.Wo / 2);
    const winoBytes = 4 * g.N * 16 * Math.max(g.C, g.F) * Math.ceil(tiles / 4) * 4;
    if (sg && winogradApplies(g) && P >= 196 && winoBytes <= caps.maxStorageBufferBindingSize) return 'winograd_sgrow_8x4';
    // im2col + GEMM measured fastest on lavapipe for other 3×3 convs; fall back when cols would not fit.
    const colsBytes = 4 * g.N * g.C * g.KH * g.KW * Math.ceil(P / 4) * 4;
    if (g.Fg >= 16 && colsBytes <= caps.maxStorageBufferBindingSize) {
        if (!sg) return 'im2col_vec4_4x8';
        // Few output tiles and a long K (deep layers on small maps): split K for parallelism.
        return g.Fg * P <= 512 * 64 && g.Cg * g.KH * g.KW >= 2048 ? 'im2col_sgsplitk_4' : 'im2col_sgrow_8x4';
    }
    return 'gemm_4x8';
}

/** conv2d: weight [filters, c/groups, kh, kw], bias [filters] when attrs.bias. */
export function conv2dKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const g = convGeometry(op, req.inputShapes[0]);
    expectOutputShape(req, [g.N, g.F, g.Ho, g.Wo]);
    const hasBias = boolAttr(op, 'bias', true);
    const pointwise = isPointwise(op);
    const vname = req.variant ?? defaultConvVariant(g, pointwise, req.caps);
    const common: ConvCommon = { opName: 'conv2d', variantName: vname, geom: g, ownBias: hasBias ? 'bias' : undefined, epilogue: req.epilogue, caps: req.caps, where: at(op) };
    const buffers: LaunchBuffer[] = [{ role: 'weight', kind: 'weight', shape: [g.F, g.Cg, g.KH, g.KW], dtype: 'f32', init: 'normal' }];
    if (hasBias) buffers.push({ role: 'bias', kind: 'weight', shape: [g.F], dtype: 'f32', init: 'normal' });
    const valid = pointwise ? [...CONV_VARIANTS, ...GEMM_VARIANTS.map(v => `pointwise_${v}`)] : [...CONV_VARIANTS, ...(isWinogradShape(op) ? WINOGRAD_VARIANTS : [])];
    const gm = /^gemm_(\d+)x(\d+)$/.exec(vname);
    const cap = intSuffix(vname, 'capped');
    if (gm) {
        const TM = Number(gm[1]), TN = Number(gm[2]);
        if (![1, 2, 4, 8].includes(TM) || ![4, 8].includes(TN)) throw unknownVariant(op, vname, valid);
        return { launches: [implicitGemm(common, TM, TN, 8, 8, 0)], buffers };
    }
    if (cap !== undefined && cap >= 1) return { launches: [implicitGemm(common, 4, 4, 8, 8, cap)], buffers };
    if (vname === 'direct') return { launches: [directConv(common)], buffers };
    if (vname.startsWith('winograd_')) {
        const w = winogradConv({ variantName: vname, gemmVariant: vname.slice('winograd_'.length), geom: g, ownBias: common.ownBias, epilogue: req.epilogue, caps: req.caps, where: at(op) });
        return { launches: w.launches, buffers: [...buffers, ...w.buffers] };
    }
    if (vname.startsWith('im2col_')) {
        const v = parseGemmVariant(vname.slice('im2col_'.length));
        if (!v) throw unknownVariant(op, vname, valid);
        const P = g.Ho * g.Wo, Kg = g.Cg * g.KH * g.KW;
        // Register-blocked GEMMs read cols as vec4: pad its rows to a multiple of 4.
        const Pp = v.kind === 'regblock' ? Math.ceil(P / 4) * 4 : P;
        const cols = im2colLaunch(common, Pp);
        const gl = gemmLaunches({
            opName: 'conv2d', variantName: vname, variant: v, M: g.Fg, N: P, K: Kg, batch: g.N * g.G, ...(Pp !== P ? { ldb: Pp } : {}),
            outLead: [g.N, g.G], aLead: [g.G], bLead: [g.N, g.G], aRole: 'weight', bRole: 'cols', outRole: 'out',
            ownBias: common.ownBias, epilogue: req.epilogue, channel: 'row', channelGroups: g.G, partialRole: 'partial', caps: req.caps, where: at(op),
        });
        return { launches: [cols, ...gl.launches], buffers: [...buffers, { role: 'cols', kind: 'scratch', shape: [g.N, g.G, Kg, Pp], dtype: 'f32' }, ...gl.buffers] };
    }
    if (vname.startsWith('pointwise_')) {
        const inner = vname.slice('pointwise_'.length);
        const v = parseGemmVariant(inner);
        if (!pointwise) throw new KernelError(`${at(op)}: variant '${vname}' needs a 1×1, stride-1, unpadded, ungrouped conv2d; this one has kernel [${g.KH}, ${g.KW}], stride [${g.sh}, ${g.sw}], groups ${g.G}`);
        if (!v) throw unknownVariant(op, vname, valid);
        const P = g.H * g.W;
        const gl = gemmLaunches({
            opName: 'conv2d', variantName: vname, variant: v, M: g.F, N: P, K: g.C, batch: g.N,
            outLead: [g.N], aLead: [], bLead: [g.N], aRole: 'weight', bRole: 'in0', outRole: 'out',
            ownBias: common.ownBias, epilogue: req.epilogue, channel: 'row', caps: req.caps, where: at(op),
        });
        return { launches: gl.launches, buffers: [...buffers, ...gl.buffers] };
    }
    throw unknownVariant(op, vname, valid);
}

/** depthwise_conv2d: weight [c·multiplier, 1, kh, kw], no bias. */
export function depthwiseKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const g = convGeometry(op, req.inputShapes[0]);
    expectOutputShape(req, [g.N, g.F, g.Ho, g.Wo]);
    const vname = req.variant ?? 'pix4';
    const common: ConvCommon = { opName: 'depthwise_conv2d', variantName: vname, geom: g, epilogue: req.epilogue, caps: req.caps, where: at(op) };
    const buffers: LaunchBuffer[] = [{ role: 'weight', kind: 'weight', shape: [g.F, 1, g.KH, g.KW], dtype: 'f32', init: 'normal' }];
    // pix4: one filter per invocation, 4 pixels, 64 invocations along the pixels.
    if (vname === 'pix4') return { launches: [implicitGemm(common, 1, 4, 64, 1, 0)], buffers };
    if (vname === 'direct') return { launches: [directConv(common)], buffers };
    throw unknownVariant(op, vname, DEPTHWISE_VARIANTS);
}
