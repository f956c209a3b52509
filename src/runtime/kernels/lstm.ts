/**
 * lstm(x [b, s, i], hidden, layers): per layer l
 *   1. gx [b, s, 4h] = x_l · w_ih.l + b.l              (one GEMM over all time steps)
 *   2. s step launches (t = 0 … s−1, passed as a uniform): for each (batch, unit j)
 *        gates = gx[b, t] + h_{t−1} · w_hh.l   (columns i | f | g | o, each h wide)
 *        c = σ(f)·c + σ(i)·tanh(g);  h_t = σ(o)·tanh(c)        (h_{−1} = c_{−1} = 0)
 * Layer outputs alternate between scratch hseq0/hseq1; the last layer writes "out". An epilogue
 * is applied by a final in-place launch (the recurrence reads the raw h).
 */
import type { KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, checkEpilogue, checkLaunch, declareBindings, expectInputs, expectOutputShape, fmtShape,
    ident, lazyText, mainStart, numAttr, u, wgsl, type BindingSpec,
} from './common.js';
import { defaultGemmVariant, gemmLaunches, gemmVariantName, parseGemmVariant, GEMM_VARIANTS } from './matmul.js';
import { epilogueLaunch } from './elementwise.js';

/** lstm: weights w_ih.l [in_l, 4h], w_hh.l [h, 4h], b.l [4h] for each layer l. */
export function lstmKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    if (x.length !== 3) throw new KernelError(`${at(op)}: lstm expects x [b, s, i], found ${fmtShape(x)}`);
    const [Bn, S, I] = x;
    const Hd = numAttr(op, 'hidden');
    const layers = numAttr(op, 'layers', 1);
    if (!Number.isInteger(Hd) || Hd < 1 || !Number.isInteger(layers) || layers < 1) {
        throw new KernelError(`${at(op)}: hidden and layers must be positive integers, found hidden ${Hd}, layers ${layers}`);
    }
    expectOutputShape(req, [Bn, S, Hd]);
    const M = Bn * S;
    const variant = req.variant === undefined ? defaultGemmVariant(M, 4 * Hd, I, 1) : parseGemmVariant(req.variant);
    if (!variant) throw new KernelError(`${at(op)}: unknown variant '${req.variant}'; lstm takes a GEMM variant for its input projections: ${GEMM_VARIANTS.join(', ')}`);
    const variantName = gemmVariantName(variant);
    const where = at(op);
    const launches: KernelDescription[] = [];
    const buffers: LaunchBuffer[] = [];
    for (let l = 0; l < layers; l++) {
        const inDim = l === 0 ? I : Hd;
        buffers.push(
            { role: `w_ih.${l}`, kind: 'weight', shape: [inDim, 4 * Hd], dtype: 'f32', init: 'normal' },
            { role: `w_hh.${l}`, kind: 'weight', shape: [Hd, 4 * Hd], dtype: 'f32', init: 'normal' },
            { role: `b.${l}`, kind: 'weight', shape: [4 * Hd], dtype: 'f32', init: 'normal' },
        );
    }
    buffers.push({ role: 'gx', kind: 'scratch', shape: [Bn, S, 4 * Hd], dtype: 'f32' });
    buffers.push({ role: 'c', kind: 'scratch', shape: [Bn, Hd], dtype: 'f32' });
    if (layers > 1) buffers.push({ role: 'hseq0', kind: 'scratch', shape: [Bn, S, Hd], dtype: 'f32' });
    if (layers > 2) buffers.push({ role: 'hseq1', kind: 'scratch', shape: [Bn, S, Hd], dtype: 'f32' });
    for (let l = 0; l < layers; l++) {
        const inRole = l === 0 ? 'in0' : `hseq${(l - 1) % 2}`;
        const outRole = l === layers - 1 ? 'out' : `hseq${l % 2}`;
        const g = gemmLaunches({
            opName: `lstm.input_proj.${l}`, variantName, variant, M, N: 4 * Hd, K: l === 0 ? I : Hd, batch: 1,
            outLead: [], aLead: [], bLead: [], aRole: inRole, bRole: `w_ih.${l}`, outRole: 'gx', ownBias: `b.${l}`,
            epilogue: [], channel: 'col', partialRole: 'gx_partial', caps: req.caps, where,
        });
        launches.push(...g.launches);
        for (const b of g.buffers) if (!buffers.some(x => x.role === b.role)) buffers.push(b);
        for (let t = 0; t < S; t++) launches.push(stepLaunch(l, t, Bn, S, Hd, outRole, req));
    }
    if (req.epilogue.length > 0) launches.push(epilogueLaunch(op, [Bn, S, Hd], req.epilogue, req.caps));
    return { launches, buffers };
}

function stepLaunch(l: number, t: number, Bn: number, S: number, Hd: number, hRole: string, req: KernelRequest): KernelDescription {
    const WG = 64;
    const specs: BindingSpec[] = [
        { role: 'gx', access: 'read' }, { role: `w_hh.${l}`, access: 'read' }, { role: hRole, access: 'read_write' },
        { role: 'c', access: 'read_write' }, { role: 'step', access: 'uniform', uniformType: 'Step' },
    ];
    const W = ident(`w_hh.${l}`), Hs = ident(hRole);
    const G = 4 * Hd;
    const code = lazyText(() => wgsl`
        struct Step { t: u32, pad0: u32, pad1: u32, pad2: u32 }
        ${declareBindings(specs)}
        fn sigm(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }
        fn tanh_c(x: f32) -> f32 { return tanh(clamp(x, -15.0, 15.0)); }
        ${mainStart([WG, 1, 1])}
          let j = wid.x * ${u(WG)} + lid.x;
          let b = wid.y;
          if (j >= ${u(Hd)}) { return; }
          let t = t_step.t;
          let gb = (b * ${u(S)} + t) * ${u(G)};
          var gi = t_gx[gb + j];
          var gf = t_gx[gb + ${u(Hd)} + j];
          var gg = t_gx[gb + ${u(2 * Hd)} + j];
          var go = t_gx[gb + ${u(3 * Hd)} + j];
          var cPrev = 0.0;
          if (t > 0u) {
            let hb = (b * ${u(S)} + t - 1u) * ${u(Hd)};
            for (var k = 0u; k < ${u(Hd)}; k = k + 1u) {
              let h = ${Hs}[hb + k];
              let wr = k * ${u(G)} + j;
              gi = gi + h * ${W}[wr];
              gf = gf + h * ${W}[wr + ${u(Hd)}];
              gg = gg + h * ${W}[wr + ${u(2 * Hd)}];
              go = go + h * ${W}[wr + ${u(3 * Hd)}];
            }
            cPrev = t_c[b * ${u(Hd)} + j];
          }
          let cNew = sigm(gf) * cPrev + sigm(gi) * tanh_c(gg);
          t_c[b * ${u(Hd)} + j] = cNew;
          ${Hs}[(b * ${u(S)} + t) * ${u(Hd)} + j] = sigm(go) * tanh_c(cNew);
        }`);
    const k: KernelDescription = {
        name: `lstm.step.${l}`,
        cacheKey: `lstm.step|B=${Bn},S=${S},H=${Hd},w=w_hh.${l},h=${hRole}`,
        variant: { variant: 'step', t },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        uniforms: new Uint32Array([t, 0, 0, 0]),
        wgsl: code,
        dispatch: [Math.ceil(Hd / WG), Bn, 1],
        flops: 2 * Bn * Hd * G + 10 * Bn * Hd,
        bytes: 4 * (Hd * G + Bn * (G + 3 * Hd)),
    };
    checkLaunch(k, specs, { gx: Bn * S * G, [`w_hh.${l}`]: Hd * G, [hRole]: Bn * S * Hd, c: Bn * Hd }, req.caps);
    return k;
}
