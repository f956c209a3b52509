/**
 * Winograd F(2×2, 3×3) for 3×3, stride-1, undilated, ungrouped conv2d (`winograd_<gemm variant>`):
 * each 2×2 output tile comes from a 4×4 input tile, and the 16 transformed planes are 16
 * GEMMs of F×C by C×tiles — 2.25× fewer multiplies than the direct product (16 per tile and
 * channel pair instead of 36). Four launches, all per run (the weights are ordinary weight
 * buffers, so their transform cannot be hoisted to compile time):
 *   1. U[e, f, c] = (G g[f, c] Gᵀ)[e]                       (weight transform, e = 4ξ + ν)
 *   2. V[n, e, c, t] = (Bᵀ d[n, c, tile t] B)[e]             (input transform, zero padding)
 *   3. Mt[n, e] = U[e] · V[n, e]                              (batched GEMM, any register-blocked variant)
 *   4. y[n, f, tile t] = Aᵀ Mt[n, ·, f, t] A, + bias/epilogue  (output transform)
 * Tiles per image T = ⌈Ho/2⌉·⌈Wo/2⌉, padded to Tp (a multiple of 4) so V and Mt rows load as vec4.
 * The weight transform costs 25·F·C memory operations per run, so it pays only when the image
 * is large relative to the channels (early ResNet layers); the tuner decides.
 */
import type { DeviceCaps, Epilogue, KernelDescription, LaunchBuffer } from './kernel.js';
import {
    KernelError, bindingList, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey, fold1D, lazyText, u, type BindingSpec,
} from './common.js';
import { gemmLaunches, parseGemmVariant } from './matmul.js';
import type { ConvGeometry } from './conv2d.js';

/** Whether a conv geometry can use the Winograd F(2×2, 3×3) variants. */
export function winogradApplies(g: ConvGeometry): boolean {
    return g.KH === 3 && g.KW === 3 && g.sh === 1 && g.sw === 1 && g.dh === 1 && g.dw === 1 && g.G === 1;
}

interface WinogradRequest {
    variantName: string;
    gemmVariant: string;
    geom: ConvGeometry;
    ownBias?: string;
    epilogue: readonly Epilogue[];
    caps: DeviceCaps;
    where: string;
}

const f32 = (x: number) => (Number.isInteger(x) ? `${x}.0` : String(x));
/** A linear combination in WGSL; terms with zero coefficients are dropped. */
const lin = (terms: [number, string][]) => terms.filter(([c]) => c !== 0).map(([c, s]) => c === 1 ? s : c === -1 ? `-${s}` : `${f32(c)} * ${s}`).join(' + ') || '0.0';

/** The launches and scratch buffers of a Winograd conv. */
export function winogradConv(r: WinogradRequest): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const g = r.geom;
    if (!winogradApplies(g)) {
        throw new KernelError(`${r.where}: variant '${r.variantName}' needs a 3×3, stride-1, undilated, ungrouped conv2d; this one has kernel [${g.KH}, ${g.KW}], stride [${g.sh}, ${g.sw}], dilation [${g.dh}, ${g.dw}], groups ${g.G}`);
    }
    const v = parseGemmVariant(r.gemmVariant);
    if (!v || v.kind !== 'regblock') {
        throw new KernelError(`${r.where}: variant '${r.variantName}': '${r.gemmVariant}' is not a register-blocked GEMM variant (use e.g. winograd_sg_8x4 or winograd_vec4_4x8)`);
    }
    const { N, C, F, H, W, Ho, Wo } = g;
    const th = Math.ceil(Ho / 2), tw = Math.ceil(Wo / 2), T = th * tw, Tp = Math.ceil(T / 4) * 4;
    const key = `N=${N},C=${C},F=${F},H=${H},W=${W},p=${g.pt},${g.pl},${g.pb},${g.pr}`;
    const name = `conv2d.${r.variantName}`;

    // 1. Weight transform: one invocation per (f, c); U = G g Gᵀ with G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1].
    const FC = F * C;
    const uDispatch = fold1D(Math.ceil(FC / 64), r.caps, r.where);
    const uSpecs: BindingSpec[] = [{ role: 'weight', access: 'read' }, { role: 'wino_u', access: 'read_write' }];
    const G = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]];
    const uCode = lazyText(() => {
        const uL: string[] = [
            declareBindings(uSpecs),
            `@compute @workgroup_size(64, 1, 1)`,
            `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
            `  let i = (wid.x + wid.y * ${u(uDispatch[0])}) * 64u + lid.x;`,
            `  if (i >= ${u(FC)}) { return; }`,
            `  let b = i * 9u;`,
        ];
        for (let k = 0; k < 9; k++) uL.push(`  let g${k} = t_weight[b + ${u(k)}];`);
        // tmp = G g (4×3), then U = tmp Gᵀ (4×4).
        for (let a = 0; a < 4; a++) for (let j = 0; j < 3; j++) uL.push(`  let q${a}_${j} = ${lin(G[a].map((c, k) => [c, `g${3 * k + j}`] as [number, string]))};`);
        for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) {
            uL.push(`  t_wino_u[${u((4 * a + b) * FC)} + i] = ${lin(G[b].map((c, j) => [c, `q${a}_${j}`] as [number, string]))};`);
        }
        uL.push('}');
        return uL.join('\n');
    });
    const uLaunch: KernelDescription = {
        name: `${name}.weights`, cacheKey: `conv.winograd_u|F=${F},C=${C}|d=${uDispatch.join('x')}`,
        variant: { variant: r.variantName, workgroups: uDispatch[0] * uDispatch[1] }, workgroupSize: [64, 1, 1],
        bindings: bindingList(uSpecs), wgsl: uCode, dispatch: uDispatch, flops: FC * 16 * 4, bytes: 4 * FC * 25,
    };
    checkLaunch(uLaunch, uSpecs, { weight: FC * 9, wino_u: 16 * FC }, r.caps);

    // 2. Input transform: one invocation per (n, c, 4 consecutive tiles), vec4 stores; Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1].
    const Tq = Tp / 4;
    const vItems = N * C * Tq;
    const vDispatch = fold1D(Math.ceil(vItems / 64), r.caps, r.where);
    const vSpecs: BindingSpec[] = [{ role: 'in0', access: 'read' }, { role: 'wino_v', access: 'read_write', elem: 'vec4<f32>' }];
    const BT = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]];
    const vCode = lazyText(() => {
        const vL: string[] = [
            declareBindings(vSpecs),
            `fn tile(plane: u32, t: u32) -> array<f32, 16> {`,
            `  var out: array<f32, 16>;`,
            `  if (t >= ${u(T)}) { return out; }`,
            `  let y0 = i32((t / ${u(tw)}) * 2u) - ${g.pt};`,
            `  let x0 = i32((t % ${u(tw)}) * 2u) - ${g.pl};`,
        ];
        for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) {
            vL.push(`  let ok${a}${b} = y0 + ${a} >= 0 && y0 + ${a} < ${H} && x0 + ${b} >= 0 && x0 + ${b} < ${W};`);
            vL.push(`  let d${a}${b} = select(0.0, t_in0[plane + select(0u, u32((y0 + ${a}) * ${W} + x0 + ${b}), ok${a}${b})], ok${a}${b});`);
        }
        // s = Bᵀ d (rows), then V = s B (columns): V[a][b] = Σ_j s[a][j]·Bᵀ[b][j].
        for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) vL.push(`  let s${a}${b} = ${lin(BT[a].map((c, k) => [c, `d${k}${b}`] as [number, string]))};`);
        for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) vL.push(`  out[${4 * a + b}] = ${lin(BT[b].map((c, j) => [c, `s${a}${j}`] as [number, string]))};`);
        vL.push('  return out;', '}');
        vL.push(
            `@compute @workgroup_size(64, 1, 1)`,
            `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
            `  let i = (wid.x + wid.y * ${u(vDispatch[0])}) * 64u + lid.x;`,
            `  if (i >= ${u(vItems)}) { return; }`,
            `  let q = i % ${u(Tq)};`,
            `  let c = (i / ${u(Tq)}) % ${u(C)};`,
            `  let n = i / ${u(Tq * C)};`,
            `  let plane = (n * ${u(C)} + c) * ${u(H * W)};`,
            `  let v0 = tile(plane, 4u * q);`, `  let v1 = tile(plane, 4u * q + 1u);`, `  let v2 = tile(plane, 4u * q + 2u);`, `  let v3 = tile(plane, 4u * q + 3u);`,
            // V layout [n, e, c, Tp] as vec4 along tiles.
            `  let o = (n * 16u * ${u(C)} + c) * ${u(Tq)} + q;`,
        );
        for (let e = 0; e < 16; e++) vL.push(`  t_wino_v[o + ${u(e * C * Tq)}] = vec4<f32>(v0[${e}], v1[${e}], v2[${e}], v3[${e}]);`);
        vL.push('}');
        return vL.join('\n');
    });
    const vLaunch: KernelDescription = {
        name: `${name}.input`, cacheKey: `conv.winograd_v|${key}|d=${vDispatch.join('x')}`,
        variant: { variant: r.variantName, workgroups: vDispatch[0] * vDispatch[1] }, workgroupSize: [64, 1, 1],
        bindings: bindingList(vSpecs), wgsl: vCode, dispatch: vDispatch, flops: N * C * Tp * 16 * 8, bytes: 4 * (N * C * H * W + 16 * N * C * Tp),
    };
    checkLaunch(vLaunch, vSpecs, { in0: N * C * H * W, wino_v: 16 * N * C * Tp }, r.caps);

    // 3. The 16 GEMMs per image: Mt[n, e] (F × Tp) = U[e] (F × C) · V[n, e] (C × Tp).
    const gemm = gemmLaunches({
        opName: 'conv2d', variantName: r.variantName, variant: v, M: F, N: Tp, K: C, batch: N * 16,
        outLead: [N, 16], aLead: [16], bLead: [N, 16], aRole: 'wino_u', bRole: 'wino_v', outRole: 'wino_m',
        epilogue: [], channel: 'row', partialRole: 'wino_partial', caps: r.caps, where: r.where,
    });

    // 4. Output transform: one invocation per (n, f, tile); Aᵀ = [1 1 1 0; 0 1 −1 −1].
    const oItems = N * F * T;
    const oDispatch = fold1D(Math.ceil(oItems / 64), r.caps, r.where);
    const oSpecs: BindingSpec[] = [{ role: 'wino_m', access: 'read' }];
    if (r.ownBias) oSpecs.push({ role: r.ownBias, access: 'read' });
    oSpecs.push(...epilogueBindings(r.epilogue), { role: 'out', access: 'read_write' });
    const AT = [[1, 1, 1, 0], [0, 1, -1, -1]];
    const oCode = lazyText(() => {
        const oL: string[] = [
            declareBindings(oSpecs),
            epilogueFn(r.epilogue, r.ownBias),
            `@compute @workgroup_size(64, 1, 1)`,
            `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
            `  let i = (wid.x + wid.y * ${u(oDispatch[0])}) * 64u + lid.x;`,
            `  if (i >= ${u(oItems)}) { return; }`,
            `  let t = i % ${u(T)};`,
            `  let f = (i / ${u(T)}) % ${u(F)};`,
            `  let n = i / ${u(T * F)};`,
            `  let base = (n * 16u * ${u(F)} + f) * ${u(Tp)} + t;`,
        ];
        for (let e = 0; e < 16; e++) oL.push(`  let m${e} = t_wino_m[base + ${u(e * F * Tp)}];`);
        // r = Aᵀ m (2×4), then Y = r A (2×2): Y[a][b] = Σ_j r[a][j]·Aᵀ[b][j].
        for (let a = 0; a < 2; a++) for (let j = 0; j < 4; j++) oL.push(`  let r${a}${j} = ${lin(AT[a].map((c, k) => [c, `m${4 * k + j}`] as [number, string]))};`);
        oL.push(`  let oy = (t / ${u(tw)}) * 2u;`, `  let ox = (t % ${u(tw)}) * 2u;`, `  let ob = (n * ${u(F)} + f) * ${u(Ho * Wo)};`);
        for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) {
            const guard = [Ho % 2 && a ? `oy + ${u(a)} < ${u(Ho)}` : '', Wo % 2 && b ? `ox + ${u(b)} < ${u(Wo)}` : ''].filter(Boolean);
            const st = `{ let o = ob + (oy + ${u(a)}) * ${u(Wo)} + ox + ${u(b)}; t_out[o] = epilogue(${lin(AT[b].map((c, j) => [c, `r${a}${j}`] as [number, string]))}, o, f); }`;
            oL.push(guard.length ? `  if (${guard.join(' && ')}) ${st}` : `  ${st}`);
        }
        oL.push('}');
        return oL.join('\n');
    });
    const oLaunch: KernelDescription = {
        name: `${name}.output`, cacheKey: `conv.winograd_o|${key}|bias=${r.ownBias ?? '-'}${epilogueKey(r.epilogue)}|d=${oDispatch.join('x')}`,
        variant: { variant: r.variantName, workgroups: oDispatch[0] * oDispatch[1] }, workgroupSize: [64, 1, 1],
        bindings: bindingList(oSpecs), wgsl: oCode, dispatch: oDispatch, flops: oItems * 40, bytes: 4 * (16 * N * F * Tp + N * F * Ho * Wo),
    };
    checkLaunch(oLaunch, oSpecs, { wino_m: 16 * N * F * Tp, out: N * F * Ho * Wo }, r.caps);

    return {
        launches: [uLaunch, vLaunch, ...gemm.launches, oLaunch],
        buffers: [
            { role: 'wino_u', kind: 'scratch', shape: [16, F, C], dtype: 'f32' },
            { role: 'wino_v', kind: 'scratch', shape: [N, 16, C, Tp], dtype: 'f32' },
            { role: 'wino_m', kind: 'scratch', shape: [N, 16, F, Tp], dtype: 'f32' },
            ...gemm.buffers,
        ],
    };
}
