/**
 * Elementwise generators: activations, broadcasting add/mul (NumPy rules), standalone
 * batch_norm (inference), and the in-place epilogue launch used by ops that cannot fuse one
 * into their own store. Each invocation handles 4 consecutive output elements.
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    ACTIVATION_WGSL, KernelError, at, bindingList, channelAxisFor, checkEpilogue, checkLaunch, declareBindings,
    epilogueBindings, epilogueFn, epilogueKey, expectInputs, expectOutputShape, flatInvocationId, fmtShape, grid1D, ident,
    lazyText, mainStart, numel, stridesOf, u, unknownVariant, wgsl, type BindingSpec,
} from './common.js';
import { broadcastLead } from './matmul.js';

/** One input of a map kernel. */
export interface MapInput {
    role: string;
    shape: number[];
}

/** A map kernel: out[i] = epilogue(expr(x0, x1, …, c)). */
export interface MapConfig {
    name: string;
    /** Extra text for the cache key (everything in `expr` and `extraBindings` that changes code). */
    key: string;
    inputs: MapInput[];
    outShape: number[];
    /** WGSL expression over `x0`, `x1`, … (the broadcast input values) and `c` (channel). */
    expr: string;
    /** Read-only per-channel (or other) bindings the expression uses, by role. */
    extraBindings?: BindingSpec[];
    extraElems?: Record<string, number>;
    epilogue: readonly Epilogue[];
    channelAxis: number;
    /** Read x0 from `out` and write back in place (the standalone epilogue launch). */
    inPlace?: boolean;
    outRole?: string;
    caps: DeviceCaps;
    where: string;
    flopsPerElement: number;
}

/** WGSL `fn idx_<k>(i: u32) -> u32` mapping an output flat index to a broadcast input's index. */
function broadcastIndexFn(name: string, inShape: number[], outShape: number[]): string {
    const r = outShape.length;
    const padded = new Array<number>(r - inShape.length).fill(1).concat(inShape);
    if (numel(inShape) === numel(outShape)) return `fn ${name}(i: u32) -> u32 { return i; }`;
    if (numel(inShape) === 1) return `fn ${name}(i: u32) -> u32 { _ = i; return 0u; }`;
    const inStrides = stridesOf(padded);
    // Walk the output's dims from the innermost; the input's broadcast dims (1) add nothing.
    const steps: string[] = [];
    for (let d = r - 1; d >= 0; d--) {
        if (padded[d] !== 1) steps.push(`o = o + (r % ${u(outShape[d])}) * ${u(inStrides[d])};`);
        if (d > 0) steps.push(`r = r / ${u(outShape[d])};`);
    }
    return wgsl`
        fn ${name}(i: u32) -> u32 {
          var r = i;
          var o = 0u;
          ${steps.join('\n')}
          return o;
        }`;
}

const PER_INV = 4;
const WG = 64;

/** Builds one map launch. */
export function mapKernel(m: MapConfig): KernelDescription {
    const total = numel(m.outShape);
    const outRole = m.outRole ?? 'out';
    const specs: BindingSpec[] = [];
    if (!m.inPlace) for (const inp of m.inputs) specs.push({ role: inp.role, access: 'read', elem: 'f32' });
    specs.push(...(m.extraBindings ?? []));
    for (const e of epilogueBindings(m.epilogue)) if (!specs.some(s => s.role === e.role)) specs.push(e);
    specs.push({ role: outRole, access: 'read_write', elem: 'f32' });
    const grid = grid1D(Math.ceil(total / PER_INV), m.caps, m.where, WG);
    // Exact fit: every invocation of every workgroup has PER_INV elements, so no guard.
    const exact = total % (PER_INV * WG) === 0 && grid.dispatch[0] * grid.dispatch[1] === grid.groups;
    const C = m.outShape.length ? m.outShape[m.channelAxis] : 1;
    const cStride = m.outShape.length ? stridesOf(m.outShape)[m.channelAxis] : 1;
    const O = ident(outRole);
    const inputs = m.inPlace ? [] : m.inputs;
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(m.epilogue)}
        ${inputs.map((inp, k) => broadcastIndexFn(`idx_${k}`, inp.shape, m.outShape)).join('\n')}
        ${mainStart([WG, 1, 1])}
          let base = (${flatInvocationId(grid)}) * ${u(PER_INV)};
          for (var j = 0u; j < ${u(PER_INV)}; j = j + 1u) {
            let i = base + j;
            ${exact ? '' : `if (i >= ${u(total)}) { return; }`}
            let c = (i / ${u(cStride)}) % ${u(C)};
            ${m.inPlace ? `let x0 = ${O}[i];` : inputs.map((inp, k) => `let x${k} = ${ident(inp.role)}[idx_${k}(i)];`).join('\n')}
            ${O}[i] = epilogue(${m.expr}, i, c);
          }
        }`);
    const elems: Record<string, number> = { [outRole]: total, ...(m.extraElems ?? {}) };
    for (const inp of inputs) elems[inp.role] = numel(inp.shape);
    const k: KernelDescription = {
        name: m.name,
        cacheKey: `map|${m.key}|in=${m.inputs.map(i => `${i.role}:${i.shape.join('x')}`).join(';')}|out=${m.outShape.join('x')}|ch=${m.channelAxis}|inplace=${!!m.inPlace}${epilogueKey(m.epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: 'map4', elementsPerInvocation: PER_INV, exact },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: total * (m.flopsPerElement + m.epilogue.length),
        bytes: 4 * (total + (m.inPlace ? total : m.inputs.reduce((s, i) => s + numel(i.shape), 0))),
    };
    checkLaunch(k, specs, elems, m.caps);
    return k;
}

/** The in-place launch applying an epilogue to an op's finished output (for ops that do not fuse). */
export function epilogueLaunch(op: IrOp, outShape: number[], epilogue: readonly Epilogue[], caps: DeviceCaps): KernelDescription {
    return mapKernel({
        name: `${op.kind}.epilogue`, key: 'epilogue', inputs: [{ role: 'out', shape: outShape }], outShape, expr: 'x0',
        epilogue, channelAxis: channelAxisFor(op.kind, outShape.length), inPlace: true, caps, where: at(op), flopsPerElement: 0,
    });
}

const FLOPS: Record<string, number> = { relu: 1, relu6: 2, gelu: 8, sigmoid: 4, tanh: 4, silu: 5 };

/** relu, relu6, gelu, sigmoid, tanh, silu. */
export function activationKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'map4') throw unknownVariant(op, req.variant, ['map4']);
    const x = req.inputShapes[0];
    expectOutputShape(req, x);
    const expr = ACTIVATION_WGSL[op.kind].replace(/\bx\b/g, 'x0');
    return {
        launches: [mapKernel({
            name: `${op.kind}.map4`, key: op.kind, inputs: [{ role: 'in0', shape: x }], outShape: x, expr,
            epilogue: req.epilogue, channelAxis: channelAxisFor(op.kind, x.length), caps: req.caps, where: at(op),
            flopsPerElement: FLOPS[op.kind] ?? 1,
        })],
        buffers: [],
    };
}

/** add / mul with NumPy broadcasting. */
export function binaryKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 2);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'map4') throw unknownVariant(op, req.variant, ['map4']);
    const [a, b] = req.inputShapes;
    let out: number[];
    try {
        out = broadcastLead(op, a, b);
    } catch {
        throw new KernelError(`${at(op)}: shapes ${fmtShape(a)} and ${fmtShape(b)} do not broadcast (NumPy rules: trailing dims equal or 1)`);
    }
    expectOutputShape(req, out);
    return {
        launches: [mapKernel({
            name: `${op.kind}.map4`, key: op.kind, inputs: [{ role: 'in0', shape: a }, { role: 'in1', shape: b }], outShape: out,
            expr: op.kind === 'add' ? 'x0 + x1' : 'x0 * x1', epilogue: req.epilogue,
            channelAxis: channelAxisFor(op.kind, out.length), caps: req.caps, where: at(op), flopsPerElement: 1,
        })],
        buffers: [],
    };
}

/** batch_norm epsilon (inference, as PyTorch/Keras default 1e-5). */
export const BATCH_NORM_EPS = 1e-5;

/** Standalone inference batch_norm over channel dim 1: weights gamma, beta, mean, var [C]. */
export function batchNormKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'map4') throw unknownVariant(op, req.variant, ['map4']);
    const x = req.inputShapes[0];
    if (x.length < 2) throw new KernelError(`${at(op)}: batch_norm needs rank ≥ 2 (channel dim 1), found ${fmtShape(x)}`);
    expectOutputShape(req, x);
    const C = x[1];
    const roles = ['gamma', 'beta', 'mean', 'var'];
    const extra: BindingSpec[] = roles.map(role => ({ role, access: 'read', elem: 'f32' }));
    return {
        launches: [mapKernel({
            name: 'batch_norm.map4', key: 'batch_norm', inputs: [{ role: 'in0', shape: x }], outShape: x,
            expr: `(x0 - ${ident('mean')}[c]) * inverseSqrt(${ident('var')}[c] + ${BATCH_NORM_EPS}) * ${ident('gamma')}[c] + ${ident('beta')}[c]`,
            extraBindings: extra, extraElems: Object.fromEntries(roles.map(r => [r, C])),
            epilogue: req.epilogue, channelAxis: 1, caps: req.caps, where: at(op), flopsPerElement: 4,
        })],
        buffers: [
            { role: 'gamma', kind: 'weight', shape: [C], dtype: 'f32', init: 'positive' },
            { role: 'beta', kind: 'weight', shape: [C], dtype: 'f32', init: 'normal' },
            { role: 'mean', kind: 'weight', shape: [C], dtype: 'f32', init: 'normal' },
            { role: 'var', kind: 'weight', shape: [C], dtype: 'f32', init: 'positive' },
        ],
    };
}
