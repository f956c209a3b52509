/**
 * softmax over any axis, viewing x as [outer, L, inner] (L the axis length). Variants:
 * - `workgroup_reduce`: one workgroup of 64 per (outer, inner) row, max and sum reduced in
 *   workgroup memory (long rows).
 * - `thread_row`: one invocation per row, three sequential passes (short rows, many rows).
 * The epilogue is fused into the store.
 */
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey,
    expectInputs, expectOutputShape, flatWorkgroupId, fmtShape, grid1D, ident, lazyText, main1D, mainStart, numAttr, numel, u,
    unknownVariant, wgsl, type BindingSpec,
} from './common.js';
import { treeReduce } from './norm.js';

export const SOFTMAX_VARIANTS = ['workgroup_reduce', 'thread_row'] as const;

/** A softmax launch over a [outer, L, inner] view of `inRole`, written to `outRole`. */
export interface SoftmaxConfig {
    name: string;
    outer: number;
    L: number;
    inner: number;
    /** Size of the output's last dim (the epilogue's channel). */
    lastDim: number;
    variant: 'workgroup_reduce' | 'thread_row';
    inRole: string;
    outRole: string;
    epilogue: readonly Epilogue[];
    caps: DeviceCaps;
    where: string;
}

/** Builds one softmax launch (also used by attention on its scores). */
export function softmaxLaunch(s: SoftmaxConfig): KernelDescription {
    const { outer, L, inner } = s;
    const rows = outer * inner;
    const total = rows * L;
    const specs: BindingSpec[] = [{ role: s.inRole, access: 'read' }, ...epilogueBindings(s.epilogue), { role: s.outRole, access: 'read_write' }];
    const X = ident(s.inRole), O = ident(s.outRole);
    const WG = 64;
    const wide = s.variant === 'workgroup_reduce';
    // workgroup_reduce: a workgroup per row; thread_row: an invocation per row.
    const grid = grid1D(wide ? rows * WG : rows, s.caps, s.where, WG);
    const dispatch = grid.dispatch;
    // Row `row` of the [outer, L, inner] view starts at `base`; its elements are `inner` apart.
    const rowBase = wgsl`
        let ro = row / ${u(inner)};
        let ri = row % ${u(inner)};
        let base = ro * ${u(L * inner)} + ri;`;
    const store = (max: string, inv: string) => `${O}[i] = epilogue(exp(${X}[i] - ${max}) * ${inv}, i, i % ${u(s.lastDim)});`;
    // One workgroup per row: max, then sum of exponentials, reduced in workgroup memory. A
    // workgroup past the last row (folded dispatch) reduces the last row again and skips the
    // store, so every invocation reaches the barriers.
    const workgroupRow = () => wgsl`
        var<workgroup> part: array<f32, ${WG}>;
        ${mainStart([WG, 1, 1])}
          let rowRaw = ${flatWorkgroupId(dispatch)};
          let inRange = rowRaw < ${u(rows)};
          let row = min(rowRaw, ${u(rows - 1)});
          ${rowBase}
          var m = -3.4028234e38;
          for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) { m = max(m, ${X}[base + j * ${u(inner)}]); }
          part[lid.x] = m;
          ${treeReduce('max')}
          let mx = part[0];
          workgroupBarrier();
          var sum = 0.0;
          for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) { sum = sum + exp(${X}[base + j * ${u(inner)}] - mx); }
          part[lid.x] = sum;
          ${treeReduce('sum')}
          let inv = 1.0 / part[0];
          if (!inRange) { return; }
          for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) {
            let i = base + j * ${u(inner)};
            ${store('mx', 'inv')}
          }
        }`;
    // One invocation per row, three passes over it.
    const threadRow = () => wgsl`
        ${main1D(grid, 'row', rows)}
          ${rowBase}
          var m = -3.4028234e38;
          for (var j = 0u; j < ${u(L)}; j = j + 1u) { m = max(m, ${X}[base + j * ${u(inner)}]); }
          var sum = 0.0;
          for (var j = 0u; j < ${u(L)}; j = j + 1u) { sum = sum + exp(${X}[base + j * ${u(inner)}] - m); }
          let inv = 1.0 / sum;
          for (var j = 0u; j < ${u(L)}; j = j + 1u) {
            let i = base + j * ${u(inner)};
            ${store('m', 'inv')}
          }
        }`;
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(s.epilogue)}
        ${wide ? workgroupRow() : threadRow()}`);
    const k: KernelDescription = {
        name: s.name,
        cacheKey: `softmax.${s.variant}|outer=${outer},L=${L},inner=${inner},roles=${s.inRole},${s.outRole}${epilogueKey(s.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: s.variant, workgroups: dispatch[0] * dispatch[1] },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch,
        flops: 5 * total,
        bytes: 8 * total,
    };
    checkLaunch(k, specs, { [s.inRole]: total, [s.outRole]: total }, s.caps, s.variant === 'workgroup_reduce' ? WG * 4 : 0);
    return k;
}

/** softmax(x, axis). */
export function softmaxKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    expectOutputShape(req, x);
    const axis = numAttr(op, 'axis', x.length - 1);
    if (!Number.isInteger(axis) || axis < 0 || axis >= x.length) {
        throw new KernelError(`${at(op)}: softmax axis ${axis} is out of range for ${fmtShape(x)} (expected 0 … ${x.length - 1})`);
    }
    const outer = numel(x.slice(0, axis)), L = x[axis], inner = numel(x.slice(axis + 1));
    const vname = req.variant ?? (L >= 64 ? 'workgroup_reduce' : 'thread_row');
    if (vname !== 'workgroup_reduce' && vname !== 'thread_row') throw unknownVariant(op, vname, SOFTMAX_VARIANTS);
    return {
        launches: [softmaxLaunch({ name: `softmax.${vname}`, outer, L, inner, lastDim: x[x.length - 1], variant: vname, inRole: 'in0', outRole: 'out', epilogue: req.epilogue, caps: req.caps, where: at(op) })],
        buffers: [],
    };
}
