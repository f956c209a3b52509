/**
 * Pooling: max_pool2d / avg_pool2d (direct, one output per invocation; avg divides by the
 * number of in-bounds taps, i.e. excludes padding) and global_avg_pool: `workgroup_reduce` (one
 * workgroup per (n, c) plane with a workgroup-memory tree reduction) or `direct` (one invocation
 * per plane, summing it in a loop); the default by plane size (defaultGlobalPoolVariant).
 */
import type { KernelDescription, KernelRequest, OpKernels } from './kernel.js';
import {
    KernelError, at, bindingList, checkEpilogue, checkLaunch, declareBindings, epilogueBindings, epilogueFn, epilogueKey,
    expectInputs, expectOutputShape, f, flatWorkgroupId, fmtShape, fold1D, grid1D, lazyText, main1D, mainStart, tupleAttr, u,
    unknownVariant, wgsl, type BindingSpec,
} from './common.js';
// global_avg_pool reduces a plane like layer_norm reduces a row: same width, same tree.
import { WG as REDUCE_WG, treeReduce } from './norm.js';

/** max_pool2d, avg_pool2d: attrs kernel, stride, padding (4-tuple). */
export function poolKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    if (req.variant !== undefined && req.variant !== 'direct') throw unknownVariant(op, req.variant, ['direct']);
    const x = req.inputShapes[0];
    if (x.length !== 4) throw new KernelError(`${at(op)}: expected an input [n, c, h, w], found ${fmtShape(x)}`);
    const [N, C, H, W] = x;
    const [KH, KW] = tupleAttr(op, 'kernel', 2);
    const [sh, sw] = tupleAttr(op, 'stride', 2, [KH, KW]);
    const [pt, pl, pb, pr] = tupleAttr(op, 'padding', 4, [0, 0, 0, 0]);
    if (pt >= KH || pb >= KH || pl >= KW || pr >= KW) {
        throw new KernelError(`${at(op)}: padding [${pt}, ${pl}, ${pb}, ${pr}] must be smaller than the kernel [${KH}, ${KW}] (else a window can lie wholly in the padding)`);
    }
    const Ho = Math.floor((H + pt + pb - KH) / sh) + 1, Wo = Math.floor((W + pl + pr - KW) / sw) + 1;
    if (Ho < 1 || Wo < 1) throw new KernelError(`${at(op)}: input ${fmtShape(x)} is smaller than the kernel [${KH}, ${KW}]`);
    expectOutputShape(req, [N, C, Ho, Wo]);
    const isMax = op.kind === 'max_pool2d';
    const total = N * C * Ho * Wo;
    const grid = grid1D(total, req.caps, at(op));
    const specs: BindingSpec[] = [{ role: 'in0', access: 'read' }, ...epilogueBindings(req.epilogue), { role: 'out', access: 'read_write' }];
    // avg divides by the taps inside the image (padding excluded).
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(req.epilogue)}
        ${main1D(grid, 'i', total)}
          let ox = i % ${u(Wo)};
          let oy = (i / ${u(Wo)}) % ${u(Ho)};
          let plane = i / ${u(Ho * Wo)};
          let base = plane * ${u(H * W)};
          let y0 = i32(oy * ${u(sh)}) - ${pt};
          let x0 = i32(ox * ${u(sw)}) - ${pl};
          ${isMax ? 'var acc = -3.4028234e38;' : 'var acc = 0.0;'}
          var cnt = 0u;
          for (var ky = 0; ky < ${KH}; ky = ky + 1) {
            let y = y0 + ky;
            if (y < 0 || y >= ${H}) { continue; }
            for (var kx = 0; kx < ${KW}; kx = kx + 1) {
              let x = x0 + kx;
              if (x < 0 || x >= ${W}) { continue; }
              let v = t_in0[base + u32(y) * ${u(W)} + u32(x)];
              ${isMax ? 'acc = max(acc, v);' : 'acc = acc + v;'}
              cnt = cnt + 1u;
            }
          }
          ${isMax ? '_ = cnt;' : 'acc = acc / f32(max(cnt, 1u));'}
          t_out[i] = epilogue(acc, i, (i / ${u(Ho * Wo)}) % ${u(C)});
        }`);
    const k: KernelDescription = {
        name: `${op.kind}.direct`,
        cacheKey: `pool.${isMax ? 'max' : 'avg'}|x=${x.join('x')},k=${KH}x${KW},s=${sh}x${sw},p=${pt},${pl},${pb},${pr}${epilogueKey(req.epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: 'direct', workgroups: grid.groups },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: total * KH * KW,
        // Every window's reads as issued: overlapping windows (ResNet's 3×3/2) read most inputs more than once, and on
        // lavapipe a load costs about the same wherever it hits; the output written. A 2×2/2 pool reads its input once.
        bytes: 4 * (total * KH * KW + total),
    };
    checkLaunch(k, specs, { in0: N * C * H * W, out: total }, req.caps);
    return { launches: [k], buffers: [] };
}

export const GLOBAL_POOL_VARIANTS = ['workgroup_reduce', 'direct'] as const;
type GlobalPoolVariant = typeof GLOBAL_POOL_VARIANTS[number];

/** Planes of at most this many pixels are summed by one invocation each. */
export const GLOBAL_POOL_DIRECT_PIXELS = 1024;

/**
 * The global_avg_pool variant an op gets untuned: `direct` on planes of at most 1,024 pixels
 * (every CNN's final pool), else `workgroup_reduce`. A workgroup of 64 lanes reducing a 3×3 plane
 * has 9 lanes busy and then the six barriers of its tree: on lavapipe mobilenet_v2's final pool
 * (1,280 planes of 3×3) took 1.96 ms that way and 0.08 ms one invocation per plane; 512 planes of
 * 7×7 0.90 against 0.16, 256 of 28×28 0.61 against 0.24, 16 of 32×32 0.15 against 0.13. Past
 * that the tree keeps a few huge planes parallel (3 planes of 224×224: 0.23 against 0.40 ms),
 * which a GPU with thousands of lanes needs sooner (medians of 9, BENCHMARKS.md "Global average pools").
 */
export function defaultGlobalPoolVariant(planePixels: number): GlobalPoolVariant {
    return planePixels <= GLOBAL_POOL_DIRECT_PIXELS ? 'direct' : 'workgroup_reduce';
}

/** global_avg_pool: [n, c, h, w] → [n, c, 1, 1]. */
export function globalAvgPoolKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    if (x.length !== 4) throw new KernelError(`${at(op)}: expected an input [n, c, h, w], found ${fmtShape(x)}`);
    const [N, C, H, W] = x;
    expectOutputShape(req, [N, C, 1, 1]);
    const HW = H * W, planes = N * C;
    const variant = req.variant ?? defaultGlobalPoolVariant(HW);
    if (!(GLOBAL_POOL_VARIANTS as readonly string[]).includes(variant)) throw unknownVariant(op, variant, GLOBAL_POOL_VARIANTS);
    const specs: BindingSpec[] = [{ role: 'in0', access: 'read' }, ...epilogueBindings(req.epilogue), { role: 'out', access: 'read_write' }];
    const common = {
        bindings: bindingList(specs),
        flops: N * C * HW,
        bytes: 4 * (N * C * HW + planes),
    };
    if (variant === 'direct') {
        const grid = grid1D(planes, req.caps, at(op));
        const code = lazyText(() => wgsl`
            ${declareBindings(specs)}
            ${epilogueFn(req.epilogue)}
            ${main1D(grid, 'plane', planes)}
              let base = plane * ${u(HW)};
              var s = 0.0;
              for (var j = 0u; j < ${u(HW)}; j = j + 1u) { s = s + t_in0[base + j]; }
              t_out[plane] = epilogue(s / ${f(HW)}, plane, plane % ${u(C)});
            }`);
        const k: KernelDescription = {
            ...common,
            name: 'global_avg_pool.direct',
            cacheKey: `pool.global_avg.direct|x=${x.join('x')}${epilogueKey(req.epilogue)}|d=${grid.dispatch.join('x')}`,
            variant: { variant: 'direct', workgroups: grid.groups },
            workgroupSize: [grid.workgroupSize, 1, 1],
            wgsl: code,
            dispatch: grid.dispatch,
        };
        checkLaunch(k, specs, { in0: N * C * HW, out: planes }, req.caps);
        return { launches: [k], buffers: [] };
    }
    const dispatch = fold1D(planes, req.caps, at(op));
    // One workgroup per plane (as layer_norm's rows: past the last plane, reduce it again and skip the store).
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(req.epilogue)}
        var<workgroup> part: array<f32, ${REDUCE_WG}>;
        ${mainStart([REDUCE_WG, 1, 1])}
          let plane = ${flatWorkgroupId(dispatch)};
          let inRange = plane < ${u(planes)};
          let base = min(plane, ${u(planes - 1)}) * ${u(HW)};
          var s = 0.0;
          for (var j = lid.x; j < ${u(HW)}; j = j + ${u(REDUCE_WG)}) { s = s + t_in0[base + j]; }
          part[lid.x] = s;
          ${treeReduce('sum')}
          if (lid.x == 0u && inRange) { t_out[plane] = epilogue(part[0] / ${f(HW)}, plane, plane % ${u(C)}); }
        }`);
    const k: KernelDescription = {
        ...common,
        name: 'global_avg_pool.workgroup_reduce',
        cacheKey: `pool.global_avg|x=${x.join('x')}${epilogueKey(req.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: 'workgroup_reduce', workgroups: planes },
        workgroupSize: [REDUCE_WG, 1, 1],
        wgsl: code,
        dispatch,
    };
    checkLaunch(k, specs, { in0: N * C * HW, out: planes }, req.caps, REDUCE_WG * 4);
    return { launches: [k], buffers: [] };
}
