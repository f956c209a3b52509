/**
 * Winograd F(2×2, 3×3) for 3×3, stride-1, undilated, ungrouped conv2d (`winograd_<gemm variant>`):
 * each 2×2 output tile comes from a 4×4 input tile, and the 16 transformed planes are 16
 * GEMMs of F×C by C×tiles — 2.25× fewer multiplies than the direct product (16 per tile and
 * channel pair instead of 36):
 *   U[e, f, c] = (G g[f, c] Gᵀ)[e]                       (weight transform, e = 4ξ + ν: on the host,
 *                                                          once, when the op is compiled — winogradWeights)
 *   1. V[n, e, c, t] = (Bᵀ d[n, c, tile t] B)[e]             (input transform, zero padding)
 *   2. Mt[n, e] = U[e] · V[n, e]                              (batched GEMM, any register-blocked variant)
 *   3. y[n, f, tile t] = Aᵀ Mt[n, ·, f, t] A, + bias/epilogue  (output transform)
 * Three launches per run. Tiles per image T = ⌈Ho/2⌉·⌈Wo/2⌉, padded to Tp (a multiple of 4) so V
 * and Mt rows load as vec4. The transforms of input and output cost memory passes of 16/4 of the
 * image per channel, so Winograd pays when the image is large relative to the channels (early
 * ResNet layers); the tuner decides.
 */
import type { DeviceCaps, Epilogue, KernelDescription, LaunchBuffer } from './kernel.js';
import {
    KernelError, bindingList, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey, f, grid1D, lazyText, main1D,
    u, unroll, wgsl, type BindingSpec,
} from './common.js';
import { gemmLaunches, type RegisterGemmVariant } from './matmul.js';
import type { ConvGeometry } from './conv2d.js';

/** Whether a conv geometry can use the Winograd F(2×2, 3×3) variants. */
export function winogradApplies(g: ConvGeometry): boolean {
    return g.KH === 3 && g.KW === 3 && g.sh === 1 && g.sw === 1 && g.dh === 1 && g.dw === 1 && g.G === 1;
}

/** The error for a Winograd variant asked of a conv it cannot compute. */
export function winogradMismatch(where: string, variantName: string, g: ConvGeometry): KernelError {
    return new KernelError(`${where}: variant '${variantName}' needs a 3×3, stride-1, undilated, ungrouped conv2d; this one has kernel [${g.KH}, ${g.KW}], stride [${g.sh}, ${g.sw}], dilation [${g.dh}, ${g.dw}], groups ${g.G}`);
}

/** The error for a Winograd variant whose GEMM part is not a register-blocked GEMM variant. */
export function notRegisterBlocked(where: string, variantName: string, gemmName: string): KernelError {
    return new KernelError(`${where}: variant '${variantName}': '${gemmName}' is not a register-blocked GEMM variant (use e.g. winograd_sg_8x4 or winograd_vec4_4x8)`);
}

interface WinogradRequest {
    variantName: string;
    /** The batched GEMM's variant (step 3). */
    gemm: RegisterGemmVariant;
    /** A geometry winogradApplies to. */
    geom: ConvGeometry;
    ownBias?: string;
    epilogue: readonly Epilogue[];
    caps: DeviceCaps;
    where: string;
}

/** A linear combination in WGSL; terms with zero coefficients are dropped. */
const lin = (terms: [number, string][]) => terms.filter(([c]) => c !== 0).map(([c, s]) => c === 1 ? s : c === -1 ? `-${s}` : `${f(c)} * ${s}`).join(' + ') || '0.0';

/**
 * U = G g Gᵀ for every filter f and channel c of g [F, C, 3, 3], stored [16, F, C] (plane
 * e = 4ξ + ν), with G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]: the batched GEMM's A operand.
 */
export function winogradWeights(F: number, C: number, g: Float32Array): Float32Array {
    if (g.length !== F * C * 9) throw new KernelError(`internal: Winograd weights of ${F}×${C} filters need ${F * C * 9} values, got ${g.length}`);
    const FC = F * C;
    const U = new Float32Array(16 * FC);
    const q = new Float64Array(12);
    for (let i = 0; i < FC; i++) {
        const b = 9 * i;
        // q = G g (4×3), then U = q Gᵀ (4×4).
        for (let j = 0; j < 3; j++) {
            const g0 = g[b + j], g1 = g[b + 3 + j], g2 = g[b + 6 + j];
            q[j] = g0;
            q[3 + j] = 0.5 * (g0 + g1 + g2);
            q[6 + j] = 0.5 * (g0 - g1 + g2);
            q[9 + j] = g2;
        }
        for (let a = 0; a < 4; a++) {
            const q0 = q[3 * a], q1 = q[3 * a + 1], q2 = q[3 * a + 2];
            U[(4 * a) * FC + i] = q0;
            U[(4 * a + 1) * FC + i] = 0.5 * (q0 + q1 + q2);
            U[(4 * a + 2) * FC + i] = 0.5 * (q0 - q1 + q2);
            U[(4 * a + 3) * FC + i] = q2;
        }
    }
    return U;
}

/** The launches and scratch buffers of a Winograd conv. */
export function winogradConv(r: WinogradRequest): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const g = r.geom;
    const { N, C, F, H, W, Ho, Wo } = g;
    const th = Math.ceil(Ho / 2), tw = Math.ceil(Wo / 2), T = th * tw, Tp = Math.ceil(T / 4) * 4;
    const key = `N=${N},C=${C},F=${F},H=${H},W=${W},p=${g.pt},${g.pl},${g.pb},${g.pr}`;
    const name = `conv2d.${r.variantName}`;

    // 1. Input transform: one invocation per (n, c, 4 consecutive tiles), vec4 stores; Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1].
    const Tq = Tp / 4;
    const vItems = N * C * Tq;
    const vGrid = grid1D(vItems, r.caps, r.where);
    const vSpecs: BindingSpec[] = [{ role: 'in0', access: 'read' }, { role: 'wino_v', access: 'read_write', elem: 'vec4<f32>' }];
    const BT = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]];
    // tile(): the 4×4 input tile d at tile t (zeros outside the image and past the last tile);
    // s = Bᵀ d (rows), then V = s B (columns): V[a][b] = Σ_j s[a][j]·Bᵀ[b][j]. V is stored
    // [n, e, c, Tp] as vec4s along the tiles.
    const vCode = lazyText(() => wgsl`
        ${declareBindings(vSpecs)}
        fn tile(plane: u32, t: u32) -> array<f32, 16> {
          var out: array<f32, 16>;
          if (t >= ${u(T)}) { return out; }
          let y0 = i32((t / ${u(tw)}) * 2u) - ${g.pt};
          let x0 = i32((t % ${u(tw)}) * 2u) - ${g.pl};
          ${unroll(4, a => unroll(4, b => wgsl`
            let ok${a}${b} = y0 + ${a} >= 0 && y0 + ${a} < ${H} && x0 + ${b} >= 0 && x0 + ${b} < ${W};
            let d${a}${b} = select(0.0, t_in0[plane + select(0u, u32((y0 + ${a}) * ${W} + x0 + ${b}), ok${a}${b})], ok${a}${b});`))}
          ${unroll(4, a => unroll(4, b => `let s${a}${b} = ${lin(BT[a].map((c, k) => [c, `d${k}${b}`]))};`))}
          ${unroll(4, a => unroll(4, b => `out[${4 * a + b}] = ${lin(BT[b].map((c, j) => [c, `s${a}${j}`]))};`))}
          return out;
        }
        ${main1D(vGrid, 'i', vItems)}
          let q = i % ${u(Tq)};
          let c = (i / ${u(Tq)}) % ${u(C)};
          let n = i / ${u(Tq * C)};
          let plane = (n * ${u(C)} + c) * ${u(H * W)};
          ${unroll(4, j => `let v${j} = tile(plane, 4u * q${j ? ` + ${u(j)}` : ''});`)}
          let o = (n * 16u * ${u(C)} + c) * ${u(Tq)} + q;
          ${unroll(16, e => `t_wino_v[o + ${u(e * C * Tq)}] = vec4<f32>(v0[${e}], v1[${e}], v2[${e}], v3[${e}]);`)}
        }`);
    const vLaunch: KernelDescription = {
        name: `${name}.input`, cacheKey: `conv.winograd_v|${key}|d=${vGrid.dispatch.join('x')}`,
        variant: { variant: r.variantName, workgroups: vGrid.dispatch[0] * vGrid.dispatch[1] }, workgroupSize: [vGrid.workgroupSize, 1, 1],
        bindings: bindingList(vSpecs), wgsl: vCode, dispatch: vGrid.dispatch, flops: N * C * Tp * 16 * 8, bytes: 4 * (N * C * H * W + 16 * N * C * Tp),
    };
    checkLaunch(vLaunch, vSpecs, { in0: N * C * H * W, wino_v: 16 * N * C * Tp }, r.caps);

    // 2. The 16 GEMMs per image: Mt[n, e] (F × Tp) = U[e] (F × C) · V[n, e] (C × Tp).
    const gemm = gemmLaunches({
        opName: 'conv2d', variantName: r.variantName, variant: r.gemm, M: F, N: Tp, K: C, batch: N * 16,
        outLead: [N, 16], aLead: [16], bLead: [N, 16], aRole: 'wino_u', bRole: 'wino_v', outRole: 'wino_m',
        epilogue: [], channel: 'row', partialRole: 'wino_partial', axes: { cols: 'rows', rows: 'channels' }, caps: r.caps, where: r.where,
    });

    // 3. Output transform: one invocation per (n, f, tile); Aᵀ = [1 1 1 0; 0 1 −1 −1].
    const oItems = N * F * T;
    const oGrid = grid1D(oItems, r.caps, r.where);
    const oSpecs: BindingSpec[] = [{ role: 'wino_m', access: 'read' }];
    if (r.ownBias) oSpecs.push({ role: r.ownBias, access: 'read' });
    oSpecs.push(...epilogueBindings(r.epilogue), { role: 'out', access: 'read_write' });
    const AT = [[1, 1, 1, 0], [0, 1, -1, -1]];
    // Y[a][b] = Σ_j r[a][j]·Aᵀ[b][j]; the last row/column of a tile past an odd edge is not stored.
    const store = (a: number, b: number) => {
        const guard = [Ho % 2 && a ? `oy + ${u(a)} < ${u(Ho)}` : '', Wo % 2 && b ? `ox + ${u(b)} < ${u(Wo)}` : ''].filter(Boolean);
        const st = `{ let o = ob + (oy + ${u(a)}) * ${u(Wo)} + ox + ${u(b)}; t_out[o] = epilogue(${lin(AT[b].map((c, j) => [c, `r${a}${j}`]))}, o, f); }`;
        return guard.length ? `if (${guard.join(' && ')}) ${st}` : st;
    };
    // r = Aᵀ m (2×4), then Y = r A (2×2).
    const oCode = lazyText(() => wgsl`
        ${declareBindings(oSpecs)}
        ${epilogueFn(r.epilogue, r.ownBias)}
        ${main1D(oGrid, 'i', oItems)}
          let t = i % ${u(T)};
          let f = (i / ${u(T)}) % ${u(F)};
          let n = i / ${u(T * F)};
          let base = (n * 16u * ${u(F)} + f) * ${u(Tp)} + t;
          ${unroll(16, e => `let m${e} = t_wino_m[base + ${u(e * F * Tp)}];`)}
          ${unroll(2, a => unroll(4, j => `let r${a}${j} = ${lin(AT[a].map((c, k) => [c, `m${4 * k + j}`]))};`))}
          let oy = (t / ${u(tw)}) * 2u;
          let ox = (t % ${u(tw)}) * 2u;
          let ob = (n * ${u(F)} + f) * ${u(Ho * Wo)};
          ${unroll(2, a => unroll(2, b => store(a, b)))}
        }`);
    const oLaunch: KernelDescription = {
        name: `${name}.output`, cacheKey: `conv.winograd_o|${key}|bias=${r.ownBias ?? '-'}${epilogueKey(r.epilogue)}|d=${oGrid.dispatch.join('x')}`,
        variant: { variant: r.variantName, workgroups: oGrid.dispatch[0] * oGrid.dispatch[1] }, workgroupSize: [oGrid.workgroupSize, 1, 1],
        bindings: bindingList(oSpecs), wgsl: oCode, dispatch: oGrid.dispatch, flops: oItems * 40, bytes: 4 * (16 * N * F * Tp + N * F * Ho * Wo),
    };
    checkLaunch(oLaunch, oSpecs, { wino_m: 16 * N * F * Tp, out: N * F * Ho * Wo }, r.caps);

    return {
        launches: [vLaunch, ...gemm.launches, oLaunch],
        buffers: [
            { role: 'wino_u', kind: 'weight', shape: [16, F, C], dtype: 'f32', derived: { from: 'weight', transform: 'winograd_f2x3' } },
            { role: 'wino_v', kind: 'scratch', shape: [N, 16, C, Tp], dtype: 'f32' },
            { role: 'wino_m', kind: 'scratch', shape: [N, 16, F, Tp], dtype: 'f32' },
            ...gemm.buffers,
        ],
    };
}
