/**
 * layer_norm over the last dim: one workgroup per row, two-pass (mean, then centred variance)
 * workgroup-memory reductions; weights gamma, beta [D]; eps 1e-5. The epilogue is fused into
 * the store. (Standalone batch_norm is an elementwise map: see elementwise.ts.)
 */
import type { KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, channelAxisFor, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn,
    epilogueKey, expectInputs, expectOutputShape, f, flatWorkgroupId, fmtShape, fold1D, lazyText, mainStart, numel, u,
    unknownVariant, wgsl, type BindingSpec,
} from './common.js';

/** layer_norm epsilon (PyTorch's default). */
export const LAYER_NORM_EPS = 1e-5;

/** Workgroup width of the row reductions (layer_norm, softmax, global_avg_pool). */
export const WG = 64;

/** WGSL that reduces `part` (a workgroup array of WG f32) to part[0]; all invocations must reach it. */
export function treeReduce(op: 'sum' | 'max'): string {
    const comb = op === 'sum' ? 'part[lid.x] + part[lid.x + w]' : 'max(part[lid.x], part[lid.x + w])';
    return wgsl`
        workgroupBarrier();
        for (var w = ${u(WG / 2)}; w > 0u; w = w >> 1u) {
          if (lid.x < w) { part[lid.x] = ${comb}; }
          workgroupBarrier();
        }`;
}

/** layer_norm(x): normalises the last dim. */
export function layerNormKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'workgroup_reduce') throw unknownVariant(op, req.variant, ['workgroup_reduce']);
    const x = req.inputShapes[0];
    if (x.length < 1) throw new KernelError(`${at(op)}: layer_norm needs rank ≥ 1, found ${fmtShape(x)}`);
    expectOutputShape(req, x);
    const D = x[x.length - 1];
    const rows = numel(x) / D;
    const dispatch = fold1D(rows, req.caps, at(op));
    const specs: BindingSpec[] = [
        { role: 'in0', access: 'read' }, { role: 'gamma', access: 'read' }, { role: 'beta', access: 'read' },
        ...epilogueBindings(req.epilogue), { role: 'out', access: 'read_write' },
    ];
    // One workgroup per row; a workgroup past the last row (folded dispatch) reduces the last
    // row again and skips the store, so every invocation reaches the barriers.
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(req.epilogue)}
        var<workgroup> part: array<f32, ${WG}>;
        ${mainStart([WG, 1, 1])}
          let row = ${flatWorkgroupId(dispatch)};
          let inRange = row < ${u(rows)};
          let base = min(row, ${u(rows - 1)}) * ${u(D)};
          var s = 0.0;
          for (var j = lid.x; j < ${u(D)}; j = j + ${u(WG)}) { s = s + t_in0[base + j]; }
          part[lid.x] = s;
          ${treeReduce('sum')}
          let mean = part[0] / ${f(D)};
          workgroupBarrier();
          var q = 0.0;
          for (var j = lid.x; j < ${u(D)}; j = j + ${u(WG)}) { let d = t_in0[base + j] - mean; q = q + d * d; }
          part[lid.x] = q;
          ${treeReduce('sum')}
          let rstd = inverseSqrt(part[0] / ${f(D)} + ${f(LAYER_NORM_EPS)});
          if (!inRange) { return; }
          for (var j = lid.x; j < ${u(D)}; j = j + ${u(WG)}) {
            let i = base + j;
            t_out[i] = epilogue((t_in0[i] - mean) * rstd * t_gamma[j] + t_beta[j], i, j);
          }
        }`);
    const total = numel(x);
    const k: KernelDescription = {
        name: 'layer_norm.workgroup_reduce',
        cacheKey: `layer_norm|rows=${rows},D=${D},ch=${channelAxisFor('layer_norm', x.length)}${epilogueKey(req.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: 'workgroup_reduce', workgroups: rows },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch,
        flops: 8 * total,
        bytes: 4 * (2 * total + 2 * D),
    };
    checkLaunch(k, specs, { in0: total, out: total, gamma: D, beta: D }, req.caps, WG * 4);
    return {
        launches: [k],
        buffers: [
            { role: 'gamma', kind: 'weight', shape: [D], dtype: 'f32', init: 'positive' },
            { role: 'beta', kind: 'weight', shape: [D], dtype: 'f32', init: 'normal' },
        ],
    };
}
