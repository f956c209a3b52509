/**
 * embedding(ids, vocab, dim): a gather of table rows. ids are i32 (bound as array<i32>) and
 * clamped into [0, vocab − 1] so a bad id can never read outside the table.
 */
import type { KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    at, bindingList, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey, expectInputs,
    expectOutputShape, fold1D, numAttr, numel, u, unknownVariant, type BindingSpec,
} from './common.js';

/** embedding: weight [vocab, dim]. */
export function embeddingKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'copy') throw unknownVariant(op, req.variant, ['copy']);
    const ids = req.inputShapes[0];
    const vocab = numAttr(op, 'vocab'), dim = numAttr(op, 'dim');
    const out = [...ids, dim];
    expectOutputShape(req, out);
    const total = numel(out);
    const WG = 64;
    const groups = Math.ceil(total / WG);
    const dispatch = fold1D(groups, req.caps, at(op));
    const specs: BindingSpec[] = [
        { role: 'in0', access: 'read', elem: 'i32' }, { role: 'weight', access: 'read' },
        ...epilogueBindings(req.epilogue), { role: 'out', access: 'read_write' },
    ];
    const code = [
        declareBindings(specs),
        epilogueFn(req.epilogue),
        `@compute @workgroup_size(${WG}, 1, 1)`,
        `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
        `  let i = (wid.x + wid.y * ${u(dispatch[0])}) * ${u(WG)} + lid.x;`,
        `  if (i >= ${u(total)}) { return; }`,
        `  let col = i % ${u(dim)};`,
        `  let id = u32(clamp(t_in0[i / ${u(dim)}], 0, ${vocab - 1}));`,
        `  t_out[i] = epilogue(t_weight[id * ${u(dim)} + col], i, col);`,
        '}',
    ].join('\n');
    const k: KernelDescription = {
        name: 'embedding.copy',
        cacheKey: `embedding|ids=${ids.join('x')},vocab=${vocab},dim=${dim}${epilogueKey(req.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: 'copy', workgroups: groups },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch,
        flops: 0,
        bytes: 4 * (numel(ids) + 2 * total),
    };
    checkLaunch(k, specs, { in0: numel(ids), weight: vocab * dim, out: total }, req.caps);
    return { launches: [k], buffers: [{ role: 'weight', kind: 'weight', shape: [vocab, dim], dtype: 'f32', init: 'normal' }] };
}
