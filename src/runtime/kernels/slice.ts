/**
 * A launch cut into chunks of its workgroup grid: GACER's sliced kernels, in WebGPU. GACER
 * splits a large operator into chunks so that another tenant's kernels can run between them;
 * CUDA does it with kernels launched over parts of the grid on streams. WebGPU cannot preempt a
 * dispatch, but each chunk here is a dispatch of its own over a range of the grid's workgroups
 * along one dimension (rows, output channels or batch: KernelDescription.grid), so a queue
 * submission boundary can sit between two chunks and the driver can run another queue's work
 * there. The chunks run the same code: the kernel's workgroup ids are offset by the chunk's
 * origin, read from a uniform (one pipeline for every chunk; a bind group per chunk). Pure.
 */
import { KernelError, mainStart, wgsl } from './common.js';
import type { KernelDescription, SplitAxis } from './kernel.js';

/** The role of the uniform holding a chunk's grid origin. */
export const CHUNK_ORIGIN_ROLE = 'chunk_origin';

/** The largest number of chunks a launch can be cut into along an axis (0: it cannot). */
export function maxChunks(k: KernelDescription, axis: SplitAxis): number {
    const g = k.grid?.[axis];
    return g ? k.dispatch[g.dim] : 0;
}

/** The workgroup range [start, end) of chunk j of n along a grid dimension of `size` workgroups (sizes differ by at most one). */
export function chunkRange(size: number, j: number, n: number): [number, number] {
    return [Math.floor(j * size / n), Math.floor((j + 1) * size / n)];
}

/**
 * The launch as `chunks` launches along `axis`, in order; each computes the outputs of its range
 * of the grid and together they compute what the launch does. Throws when the launch has no
 * grid along the axis or fewer workgroups than chunks.
 */
export function sliceLaunch(k: KernelDescription, axis: SplitAxis, chunks: number): KernelDescription[] {
    const g = k.grid?.[axis];
    if (!g) throw new KernelError(`${k.name}: its workgroup grid does not cover the ${axis} axis; it cannot be split along it`);
    const size = k.dispatch[g.dim];
    if (!Number.isInteger(chunks) || chunks < 1 || chunks > size) {
        throw new KernelError(`${k.name}: ${chunks} chunks along ${axis} need 1 to ${size} (its workgroups along that axis)`);
    }
    if (k.bindings.some(b => b.access === 'uniform')) throw new KernelError(`${k.name}: internal: a launch with its own uniform cannot be split`);
    const header = mainStart(k.workgroupSize);
    const binding = k.bindings.length;
    const code = () => {
        const text = k.wgsl();
        const parts = text.split(header);
        if (parts.length !== 2) throw new KernelError(`${k.name}: internal: its WGSL has ${parts.length - 1} entry points written by mainStart; a chunk needs exactly one`);
        return parts[0] + wgsl`
            struct ChunkOrigin { origin: vec4<u32> }
            @group(0) @binding(${binding}) var<uniform> t_${CHUNK_ORIGIN_ROLE}: ChunkOrigin;
            @compute @workgroup_size(${k.workgroupSize.join(', ')})
            fn main(@builtin(workgroup_id) chunk_wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
              let wid = chunk_wid + t_${CHUNK_ORIGIN_ROLE}.origin.xyz;` + parts[1];
    };
    let text: string | undefined;
    const shared = () => (text ??= code());
    const bindings = [...k.bindings, { role: CHUNK_ORIGIN_ROLE, access: 'uniform' as const }];
    return Array.from({ length: chunks }, (_, j) => {
        const [start, end] = chunkRange(size, j, chunks);
        const dispatch: [number, number, number] = [...k.dispatch];
        dispatch[g.dim] = end - start;
        const origin = new Uint32Array(4);
        origin[g.dim] = start;
        const f = (end - start) / size;
        return {
            ...k,
            cacheKey: `${k.cacheKey}|chunked`,
            bindings,
            uniforms: origin,
            wgsl: shared,
            dispatch,
            flops: k.flops * f,
            bytes: g.sharedBytes + (k.bytes - g.sharedBytes) * f,
            grid: undefined,
        };
    });
}
