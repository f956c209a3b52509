/**
 * Layout ops: reshape and flatten alias their input (no launch, no copy) unless an epilogue
 * must be applied; transpose and concat are copy kernels (one launch per concat input, each
 * writing its slice of the output).
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, channelAxisFor, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn,
    epilogueKey, expectInputs, expectOutputShape, fmtShape, grid1D, ident, lazyText, main1D, numAttr, numel, stridesOf, u,
    unknownVariant, wgsl, type BindingSpec,
} from './common.js';
import { mapKernel } from './elementwise.js';

/** reshape / flatten: the output aliases input 0. */
export function reshapeKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    let expected: number[];
    if (op.kind === 'flatten') {
        if (x.length < 2) throw new KernelError(`${at(op)}: flatten needs rank ≥ 2, found ${fmtShape(x)}`);
        expected = [x[0], numel(x.slice(1))];
    } else {
        const s = op.attrs.shape;
        if (!Array.isArray(s) || s.some(d => !Number.isInteger(d) || d < 1)) {
            throw new KernelError(`${at(op)}: attribute 'shape' must be a list of positive integers (no -1 left after lowering), found ${JSON.stringify(s)}`);
        }
        if (numel(s) !== numel(x)) throw new KernelError(`${at(op)}: cannot reshape ${fmtShape(x)} (${numel(x)} elements) to ${fmtShape(s)} (${numel(s)} elements)`);
        expected = s;
    }
    expectOutputShape(req, expected);
    if (req.variant !== undefined && req.variant !== 'alias') throw unknownVariant(op, req.variant, ['alias']);
    if (req.epilogue.length === 0) return { launches: [], buffers: [], aliasesInput: true };
    // An epilogue needs a store: copy with the epilogue applied (no alias).
    return {
        launches: [mapKernel({
            name: `${op.kind}.copy`, key: 'copy', inputs: [{ role: 'in0', shape: [numel(x)] }], outShape: expected, expr: 'x0',
            epilogue: req.epilogue, channelAxis: channelAxisFor(op.kind, expected.length), caps: req.caps, where: at(op), flopsPerElement: 0,
        })],
        buffers: [],
    };
}

/**
 * A copy launch over the source's elements: out[dst(j)] = epilogue(in[j]). `dstFn` is WGSL
 * text defining `fn dst(j: u32) -> u32`.
 */
function copyLaunch(name: string, key: string, srcRole: string, srcCount: number, outCount: number, dstFn: string,
    epilogue: readonly Epilogue[], chStride: number, chCount: number, caps: DeviceCaps, where: string): KernelDescription {
    const grid = grid1D(srcCount, caps, where);
    const specs: BindingSpec[] = [{ role: srcRole, access: 'read' }, ...epilogueBindings(epilogue), { role: 'out', access: 'read_write' }];
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(epilogue)}
        ${dstFn}
        ${main1D(grid, 'j', srcCount)}
          let i = dst(j);
          t_out[i] = epilogue(${ident(srcRole)}[j], i, (i / ${u(chStride)}) % ${u(chCount)});
        }`);
    const k: KernelDescription = {
        name,
        cacheKey: `${key}${epilogueKey(epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: 'copy', workgroups: grid.groups },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: 0,
        bytes: 8 * srcCount,
    };
    checkLaunch(k, specs, { [srcRole]: srcCount, out: outCount }, caps);
    return k;
}

function epilogueChannel(op: IrOp, out: number[]): [number, number] {
    if (out.length === 0) return [1, 1];
    const ax = channelAxisFor(op.kind, out.length);
    return [stridesOf(out)[ax], out[ax]];
}

/** transpose(x, perm). */
export function transposeKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'copy') throw unknownVariant(op, req.variant, ['copy']);
    const x = req.inputShapes[0];
    const perm = op.attrs.perm;
    if (!Array.isArray(perm) || perm.length !== x.length || [...perm].sort((a, b) => a - b).some((p, i) => p !== i)) {
        throw new KernelError(`${at(op)}: perm ${JSON.stringify(perm)} is not a permutation of 0 … ${x.length - 1} (input ${fmtShape(x)})`);
    }
    const out = perm.map(p => x[p]);
    expectOutputShape(req, out);
    const outStrides = stridesOf(out);
    // stride in the output of each input dim
    const dstStride = new Array<number>(x.length).fill(0);
    perm.forEach((p, d) => { dstStride[p] = outStrides[d]; });
    // Walk the input's dims from the innermost, each adding its place in the output.
    const steps: string[] = [];
    for (let d = x.length - 1; d >= 0; d--) {
        steps.push(`o = o + (r % ${u(x[d])}) * ${u(dstStride[d])};`);
        if (d > 0) steps.push(`r = r / ${u(x[d])};`);
    }
    const dst = wgsl`
        fn dst(j: u32) -> u32 {
          var r = j;
          var o = 0u;
          ${steps.join('\n')}
          return o;
        }`;
    const [cs, cc] = epilogueChannel(op, out);
    return {
        launches: [copyLaunch('transpose.copy', `transpose|x=${x.join('x')},perm=${perm.join(',')}`, 'in0', numel(x), numel(out),
            dst, req.epilogue, cs, cc, req.caps, at(op))],
        buffers: [],
    };
}

/** concat(t0, t1, …, axis): one copy launch per input. */
export function concatKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'copy') throw unknownVariant(op, req.variant, ['copy']);
    const shapes = req.inputShapes;
    if (shapes.length < 1) throw new KernelError(`${at(op)}: concat needs at least one input`);
    const r = shapes[0].length;
    const axis = numAttr(op, 'axis', 1);
    if (!Number.isInteger(axis) || axis < 0 || axis >= r) throw new KernelError(`${at(op)}: concat axis ${axis} is out of range for rank ${r}`);
    for (const [i, s] of shapes.entries()) {
        if (s.length !== r || s.some((d, k) => k !== axis && d !== shapes[0][k])) {
            throw new KernelError(`${at(op)}: input ${i} has shape ${fmtShape(s)}; expected ${fmtShape(shapes[0])} except on axis ${axis}`);
        }
    }
    const Lout = shapes.reduce((a, s) => a + s[axis], 0);
    const out = shapes[0].map((d, k) => (k === axis ? Lout : d));
    expectOutputShape(req, out);
    const inner = numel(out.slice(axis + 1));
    const [cs, cc] = epilogueChannel(op, out);
    let off = 0;
    const launches = shapes.map((s, i) => {
        const Li = s[axis];
        const dst = wgsl`
            fn dst(j: u32) -> u32 {
              let inner = j % ${u(inner)};
              let a = (j / ${u(inner)}) % ${u(Li)};
              let outer = j / ${u(inner * Li)};
              return (outer * ${u(Lout)} + ${u(off)} + a) * ${u(inner)} + inner;
            }`;
        const k = copyLaunch(`concat.copy.${i}`, `concat|in=${s.join('x')},axis=${axis},off=${off},Lout=${Lout},role=in${i}`, `in${i}`,
            numel(s), numel(out), dst, req.epilogue, cs, cc, req.caps, at(op));
        off += Li;
        return k;
    });
    return { launches, buffers: [] };
}
