/**
 * embedding(ids, vocab, dim): a gather of table rows. ids are i32 (bound as array<i32>) and
 * clamped into [0, vocab − 1] so a bad id can never read outside the table.
 */
import type { KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    at, bindingList, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey, expectInputs,
    expectOutputShape, grid1D, lazyText, main1D, numAttr, numel, u, unknownVariant, wgsl, type BindingSpec,
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
    const grid = grid1D(total, req.caps, at(op));
    const specs: BindingSpec[] = [
        { role: 'in0', access: 'read', elem: 'i32' }, { role: 'weight', access: 'read' },
        ...epilogueBindings(req.epilogue), { role: 'out', access: 'read_write' },
    ];
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(req.epilogue)}
        ${main1D(grid, 'i', total)}
          let col = i % ${u(dim)};
          let id = u32(clamp(t_in0[i / ${u(dim)}], 0, ${vocab - 1}));
          t_out[i] = epilogue(t_weight[id * ${u(dim)} + col], i, col);
        }`);
    const k: KernelDescription = {
        name: 'embedding.copy',
        cacheKey: `embedding|ids=${ids.join('x')},vocab=${vocab},dim=${dim}${epilogueKey(req.epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: 'copy', workgroups: grid.groups },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: 0,
        bytes: 4 * (numel(ids) + 2 * total),
    };
    checkLaunch(k, specs, { in0: numel(ids), weight: vocab * dim, out: total }, req.caps);
    return { launches: [k], buffers: [{ role: 'weight', kind: 'weight', shape: [vocab, dim], dtype: 'f32', init: 'normal' }] };
}
