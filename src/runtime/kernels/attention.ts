/**
 * attention(x [b, s, d], heads, causal): a composite of five launches over scratch buffers:
 *   1. qkv [b, s, 3d] = x · w_qkv + b_qkv               (GEMM, the request's GEMM variant)
 *   2. scores [b, h, s, s] = q·kᵀ / √dh, causal: −∞ where key > query   (strided batched GEMM)
 *   3. probs = softmax(scores) over the last axis
 *   4. ctx [b, s, d] (heads merged) = probs · v           (strided batched GEMM)
 *   5. out = ctx · w_out + b_out, then the request's epilogue (GEMM)
 * Head hh of q, k and v is columns hh·dh … of the q, k and v thirds of qkv.
 */
import type { DeviceCaps, KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, boolAttr, checkEpilogue, checkLaunch, declareBindings, expectInputs, expectOutputShape,
    f, fmtShape, ident, lazyText, mainStart, numAttr, u, unroll, wgsl, type BindingSpec,
} from './common.js';
import { defaultGemmVariant, gemmLaunches, gemmVariantName, parseGemmVariant, GEMM_VARIANTS } from './matmul.js';
import { softmaxLaunch } from './softmax.js';

/** Strided operand: element (z, r, c) at (z / zDiv)·zsHi + (z % zDiv)·zsLo + r·rs + c·cs + base. */
interface Strided {
    role: string;
    base: number;
    zsHi: number;
    zsLo: number;
    rs: number;
    cs: number;
    elems: number;
}

interface StridedGemm {
    name: string;
    /** Problems z = 0 … Z−1, decomposed as (z / zDiv, z % zDiv). */
    Z: number;
    zDiv: number;
    M: number;
    N: number;
    K: number;
    a: Strided;
    b: Strided;
    out: Strided;
    scale: number;
    causal: boolean;
    caps: DeviceCaps;
}

/** Register-blocked (4×4 per invocation) batched GEMM over arbitrarily strided operands. */
function stridedGemm(g: StridedGemm): KernelDescription {
    const WGX = 8, WGY = 8, T = 4;
    const specs: BindingSpec[] = [{ role: g.a.role, access: 'read' }];
    if (g.b.role !== g.a.role) specs.push({ role: g.b.role, access: 'read' });
    specs.push({ role: g.out.role, access: 'read_write' });
    const A = ident(g.a.role), B = ident(g.b.role), O = ident(g.out.role);
    const off = (s: Strided) => `${u(s.base)} + (z / ${u(g.zDiv)}) * ${u(s.zsHi)} + (z % ${u(g.zDiv)}) * ${u(s.zsLo)}`;
    // Scaled scores; with a causal mask, keys after the query get the lowest f32 (softmax weight 0).
    const value = (r: number, c: number) => (g.causal
        ? `select(acc${r}[${c}] * ${f(g.scale)}, -3.4028234e38, n0 + ${u(c)} > m0 + ${u(r)})`
        : `acc${r}[${c}] * ${f(g.scale)}`);
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${mainStart([WGX, WGY, 1])}
          let z = wid.z;
          let m0 = (wid.y * ${u(WGY)} + lid.y) * ${u(T)};
          let n0 = (wid.x * ${u(WGX)} + lid.x) * ${u(T)};
          let aOff = ${off(g.a)};
          let bOff = ${off(g.b)};
          let oOff = ${off(g.out)};
          ${unroll(T, r => `let ar${r} = aOff + min(m0 + ${u(r)}, ${u(g.M - 1)}) * ${u(g.a.rs)};`)}
          ${unroll(T, c => `let bc${c} = bOff + min(n0 + ${u(c)}, ${u(g.N - 1)}) * ${u(g.b.cs)};`)}
          ${unroll(T, r => `var acc${r} = vec4<f32>(0.0);`)}
          for (var k = 0u; k < ${u(g.K)}; k = k + 1u) {
            let bv = vec4<f32>(${[0, 1, 2, 3].map(c => `${B}[bc${c} + k * ${u(g.b.rs)}]`).join(', ')});
            ${unroll(T, r => `acc${r} = acc${r} + ${A}[ar${r} + k * ${u(g.a.cs)}] * bv;`)}
          }
          ${unroll(T, r => unroll(T, c => `if (m0 + ${u(r)} < ${u(g.M)} && n0 + ${u(c)} < ${u(g.N)}) { ${O}[oOff + (m0 + ${u(r)}) * ${u(g.out.rs)} + (n0 + ${u(c)}) * ${u(g.out.cs)}] = ${value(r, c)}; }`))}
        }`);
    const sk = (s: Strided) => `${s.role}@${s.base}:${s.zsHi},${s.zsLo},${s.rs},${s.cs}`;
    const k: KernelDescription = {
        name: g.name,
        cacheKey: `strided_gemm|Z=${g.Z}/${g.zDiv},M=${g.M},N=${g.N},K=${g.K},a=${sk(g.a)},b=${sk(g.b)},o=${sk(g.out)},scale=${g.scale},causal=${g.causal}`,
        variant: { variant: 'regblock_4x4' },
        workgroupSize: [WGX, WGY, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: [Math.ceil(g.N / (WGX * T)), Math.ceil(g.M / (WGY * T)), g.Z],
        flops: 2 * g.Z * g.M * g.N * g.K,
        bytes: 4 * (g.Z * (g.M * g.K + g.K * g.N + g.M * g.N)),
    };
    checkLaunch(k, specs, { [g.a.role]: g.a.elems, [g.b.role]: g.b.elems, [g.out.role]: g.out.elems }, g.caps);
    return k;
}

/** attention: weights w_qkv [d, 3d], b_qkv [3d], w_out [d, d], b_out [d]. */
export function attentionKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    if (x.length !== 3) throw new KernelError(`${at(op)}: attention expects x [b, s, d], found ${fmtShape(x)}`);
    const [Bn, S, D] = x;
    const H = numAttr(op, 'heads');
    const causal = boolAttr(op, 'causal', false);
    if (!Number.isInteger(H) || H < 1 || D % H !== 0) throw new KernelError(`${at(op)}: d = ${D} must be divisible by heads = ${H}`);
    expectOutputShape(req, x);
    const dh = D / H;
    const M = Bn * S;
    const variant = req.variant === undefined ? defaultGemmVariant(M, D, D, 1) : parseGemmVariant(req.variant);
    if (!variant) throw new KernelError(`${at(op)}: unknown variant '${req.variant}'; attention takes a GEMM variant for its projections: ${GEMM_VARIANTS.join(', ')}`);
    const variantName = gemmVariantName(variant);
    const where = at(op);
    const qkvElems = M * 3 * D, scoreElems = Bn * H * S * S;
    const qkv = gemmLaunches({
        opName: 'attention.qkv', variantName, variant, M, N: 3 * D, K: D, batch: 1, outLead: [], aLead: [], bLead: [],
        aRole: 'in0', bRole: 'w_qkv', outRole: 'qkv', ownBias: 'b_qkv', epilogue: [], channel: 'col',
        partialRole: 'qkv_partial', axes: { cols: 'channels', rows: 'rows' }, caps: req.caps, where,
    });
    const scores = stridedGemm({
        name: 'attention.scores', Z: Bn * H, zDiv: H, M: S, N: S, K: dh,
        a: { role: 'qkv', base: 0, zsHi: S * 3 * D, zsLo: dh, rs: 3 * D, cs: 1, elems: qkvElems },
        b: { role: 'qkv', base: D, zsHi: S * 3 * D, zsLo: dh, rs: 1, cs: 3 * D, elems: qkvElems },
        out: { role: 'scores', base: 0, zsHi: H * S * S, zsLo: S * S, rs: S, cs: 1, elems: scoreElems },
        scale: 1 / Math.sqrt(dh), causal, caps: req.caps,
    });
    const probs = softmaxLaunch({
        name: `attention.softmax`, outer: Bn * H * S, L: S, inner: 1, lastDim: S, variant: S >= 64 ? 'workgroup_reduce' : 'thread_row',
        inRole: 'scores', outRole: 'probs', epilogue: [], caps: req.caps, where,
    });
    const ctx = stridedGemm({
        name: 'attention.context', Z: Bn * H, zDiv: H, M: S, N: dh, K: S,
        a: { role: 'probs', base: 0, zsHi: H * S * S, zsLo: S * S, rs: S, cs: 1, elems: scoreElems },
        b: { role: 'qkv', base: 2 * D, zsHi: S * 3 * D, zsLo: dh, rs: 3 * D, cs: 1, elems: qkvElems },
        out: { role: 'ctx', base: 0, zsHi: S * D, zsLo: dh, rs: D, cs: 1, elems: M * D },
        scale: 1, causal: false, caps: req.caps,
    });
    const proj = gemmLaunches({
        opName: 'attention.out', variantName, variant, M, N: D, K: D, batch: 1, outLead: [], aLead: [], bLead: [],
        aRole: 'ctx', bRole: 'w_out', outRole: 'out', ownBias: 'b_out', epilogue: req.epilogue, channel: 'col',
        partialRole: 'out_partial', axes: { cols: 'channels', rows: 'rows' }, caps: req.caps, where,
    });
    const buffers: LaunchBuffer[] = [
        { role: 'w_qkv', kind: 'weight', shape: [D, 3 * D], dtype: 'f32', init: 'normal' },
        { role: 'b_qkv', kind: 'weight', shape: [3 * D], dtype: 'f32', init: 'normal' },
        { role: 'w_out', kind: 'weight', shape: [D, D], dtype: 'f32', init: 'normal' },
        { role: 'b_out', kind: 'weight', shape: [D], dtype: 'f32', init: 'normal' },
        { role: 'qkv', kind: 'scratch', shape: [Bn, S, 3 * D], dtype: 'f32' },
        { role: 'scores', kind: 'scratch', shape: [Bn, H, S, S], dtype: 'f32' },
        { role: 'probs', kind: 'scratch', shape: [Bn, H, S, S], dtype: 'f32' },
        { role: 'ctx', kind: 'scratch', shape: [Bn, S, D], dtype: 'f32' },
        ...qkv.buffers, ...proj.buffers,
    ];
    return { launches: [...qkv.launches, scores, probs, ctx, ...proj.launches], buffers };
}
