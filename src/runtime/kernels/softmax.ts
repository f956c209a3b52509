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
    expectInputs, expectOutputShape, fmtShape, fold1D, ident, numAttr, numel, u, unknownVariant, type BindingSpec,
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
    const lastDim = s.lastDim;
    const WG = 64;
    const dispatch = s.variant === 'workgroup_reduce' ? fold1D(rows, s.caps, s.where) : fold1D(Math.ceil(rows / WG), s.caps, s.where);
    const head = [
        declareBindings(specs),
        epilogueFn(s.epilogue),
    ];
    const rowBase = [
        `  let ro = row / ${u(inner)};`,
        `  let ri = row % ${u(inner)};`,
        `  let base = ro * ${u(L * inner)} + ri;`,
    ];
    let body: string[];
    if (s.variant === 'workgroup_reduce') {
        body = [
            `var<workgroup> part: array<f32, ${WG}>;`,
            `@compute @workgroup_size(${WG}, 1, 1)`,
            `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
            `  let rowRaw = wid.x + wid.y * ${u(dispatch[0])};`,
            `  let inRange = rowRaw < ${u(rows)};`,
            `  let row = min(rowRaw, ${u(rows - 1)});`,
            ...rowBase,
            `  var m = -3.4028234e38;`,
            `  for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) { m = max(m, ${X}[base + j * ${u(inner)}]); }`,
            `  part[lid.x] = m;`,
            treeReduce('max'),
            `  let mx = part[0];`,
            `  workgroupBarrier();`,
            `  var sum = 0.0;`,
            `  for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) { sum = sum + exp(${X}[base + j * ${u(inner)}] - mx); }`,
            `  part[lid.x] = sum;`,
            treeReduce('sum'),
            `  let inv = 1.0 / part[0];`,
            `  if (!inRange) { return; }`,
            `  for (var j = lid.x; j < ${u(L)}; j = j + ${u(WG)}) {`,
            `    let i = base + j * ${u(inner)};`,
            `    ${O}[i] = epilogue(exp(${X}[i] - mx) * inv, i, i % ${u(lastDim)});`,
            `  }`,
            '}',
        ];
    } else {
        body = [
            `@compute @workgroup_size(${WG}, 1, 1)`,
            `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
            `  let row = (wid.x + wid.y * ${u(dispatch[0])}) * ${u(WG)} + lid.x;`,
            `  if (row >= ${u(rows)}) { return; }`,
            ...rowBase,
            `  var m = -3.4028234e38;`,
            `  for (var j = 0u; j < ${u(L)}; j = j + 1u) { m = max(m, ${X}[base + j * ${u(inner)}]); }`,
            `  var sum = 0.0;`,
            `  for (var j = 0u; j < ${u(L)}; j = j + 1u) { sum = sum + exp(${X}[base + j * ${u(inner)}] - m); }`,
            `  let inv = 1.0 / sum;`,
            `  for (var j = 0u; j < ${u(L)}; j = j + 1u) {`,
            `    let i = base + j * ${u(inner)};`,
            `    ${O}[i] = epilogue(exp(${X}[i] - m) * inv, i, i % ${u(lastDim)});`,
            `  }`,
            '}',
        ];
    }
    const code = [...head, ...body].join('\n');
    const k: KernelDescription = {
        name: s.name,
        cacheKey: `softmax.${s.variant}|outer=${outer},L=${L},inner=${inner},roles=${s.inRole},${s.outRole}${epilogueKey(s.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: s.variant, workgroups: dispatch[0] * dispatch[1] },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
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
