/**
 * GEMM generators for dense, matmul (batched, broadcasting leading dims) and the GEMM-shaped
 * parts of conv2d, attention and lstm. Variants trade parallelism for locality:
 * - `vec4_4x8`, `vec4_4x4`: register-blocked; each invocation keeps 4×8 (or 4×4) outputs in
 *   vec4 registers and streams A and B once per 4 k-steps (best on CPU-like adapters).
 * - `wgmem_16x16`, `wgmem_8x8`: the classic workgroup-memory tiled kernel, one output per
 *   invocation (what discrete GPUs like best; slow on lavapipe).
 * - `splitk_<S>`: K cut into S slices written to a scratch buffer, then a reduce launch that
 *   applies the epilogue — more parallelism for tall-skinny shapes (small M·N, large K).
 * - `capped_<W>`: the 4×8 register-blocked tiles, but at most W workgroups loop over all tiles
 *   (a persistent kernel), so the launch occupies only a chosen share of the device.
 * - `sg_<TM>x<TN>`: register-blocked like vec4_*, but the S lanes of a subgroup (S = the
 *   device's fixed subgroup size, workgroup S×8) share their TM rows of A: each lane loads one
 *   A element per row per S k-steps and `subgroupBroadcast` hands it to the others. On
 *   lavapipe every storage load costs about the same whatever its address (uniform loads are
 *   not cheaper), so cutting A's loads S-fold made 512³ 2–3× faster (measured: 16–18 vs
 *   6–7 GFLOP/s for vec4_4x8). Needs the `subgroups` feature with one fixed subgroup size.
 * - `sgrow_<TM>x<TN>`: sg_* where lane r loads row r's next S k-values as vec4s (TM = S rows,
 *   K a multiple of 4; otherwise it is sg_*): A's loads drop another 4× (measured +8–45% over
 *   sg_8x4 on lavapipe: 512³ 11.9 vs 8.2, 1024³ 21.3 vs 15.8 GFLOP/s, same run). The default.
 * - `sgsplitk_<S>`: sgrow_8x4 with K cut into S slices (as splitk_<S>).
 * Exact-fit shapes drop the bounds checks; other shapes clamp loads and guard stores.
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, KernelDescription, KernelRequest, LaunchBuffer, OpKernels } from './kernel.js';
import {
    KernelError, at, boolAttr, checkEpilogue, checkLaunch, declareBindings, bindingList, epilogueBindings,
    epilogueFn, epilogueKey, expectInputs, expectOutputShape, fmtShape, fold1D, intSuffix, numAttr, numel,
    lazyText, u, unknownVariant, type BindingSpec,
} from './common.js';

/** Named variants every GEMM-shaped op accepts (capped_<W> and splitk_<S> take any positive integer). */
export const GEMM_VARIANTS = ['vec4_4x8', 'vec4_4x4', 'wgmem_16x16', 'wgmem_8x8', 'splitk_4', 'capped_1', 'capped_4', 'capped_16', 'sgrow_8x4', 'sg_8x4', 'sg_4x4', 'sgsplitk_4'] as const;

/** True for variants that need subgroups of a fixed size (DeviceCaps.subgroupSize). */
export function needsSubgroups(variant: string): boolean {
    return /(?:^|_)sg(?:row|splitk)?_\d/.test(variant);
}

/** A parsed GEMM variant. */
export type GemmVariant =
    | { kind: 'regblock'; tm: number; tn: number; cap: number; splits: number; subgroup?: boolean; rowLoads?: boolean }
    | { kind: 'wgmem'; tile: number };

/** Parses a GEMM variant name; undefined if it is not one. */
export function parseGemmVariant(name: string): GemmVariant | undefined {
    const rb = /^vec4_(\d+)x(\d+)$/.exec(name);
    if (rb) {
        const tm = Number(rb[1]), tn = Number(rb[2]);
        if (tm >= 1 && tm <= 8 && (tn === 4 || tn === 8)) return { kind: 'regblock', tm, tn, cap: 0, splits: 1 };
        return undefined;
    }
    const sg = /^sg_(\d+)x(\d+)$/.exec(name);
    if (sg) {
        const tm = Number(sg[1]), tn = Number(sg[2]);
        if (tm >= 1 && tm <= 16 && (tn === 4 || tn === 8)) return { kind: 'regblock', tm, tn, cap: 0, splits: 1, subgroup: true };
        return undefined;
    }
    const sgr = /^sgrow_(\d+)x(\d+)$/.exec(name);
    if (sgr) {
        const tm = Number(sgr[1]), tn = Number(sgr[2]);
        if (tm >= 1 && tm <= 16 && (tn === 4 || tn === 8)) return { kind: 'regblock', tm, tn, cap: 0, splits: 1, subgroup: true, rowLoads: true };
        return undefined;
    }
    const sgs = intSuffix(name, 'sgsplitk');
    if (sgs !== undefined && sgs >= 2) return { kind: 'regblock', tm: 8, tn: 4, cap: 0, splits: sgs, subgroup: true, rowLoads: true };
    const wg = /^wgmem_(\d+)x(\d+)$/.exec(name);
    if (wg && wg[1] === wg[2]) return { kind: 'wgmem', tile: Number(wg[1]) };
    const cap = intSuffix(name, 'capped');
    if (cap !== undefined && cap >= 1) return { kind: 'regblock', tm: 4, tn: 8, cap, splits: 1 };
    const s = intSuffix(name, 'splitk');
    if (s !== undefined && s >= 2) return { kind: 'regblock', tm: 4, tn: 4, cap: 0, splits: s };
    return undefined;
}

/** One GEMM problem set: out[b] (M×N) = A[b] (M×K) · B[b] (K×N), row-major, then epilogue. */
export interface GemmConfig {
    /** Launch name prefix, e.g. "dense" → "dense.vec4_4x8". */
    opName: string;
    variantName: string;
    variant: GemmVariant;
    M: number;
    N: number;
    K: number;
    /** Number of problems (product of output leading dims). */
    batch: number;
    /** Leading dims of the output, A and B (right-aligned broadcasting; A/B dims 1 broadcast). */
    outLead: number[];
    aLead: number[];
    bLead: number[];
    aRole: string;
    bRole: string;
    outRole: string;
    /** The op's own bias role (dense/conv bias), added before `epilogue`. */
    ownBias?: string;
    epilogue: readonly Epilogue[];
    /** Which index the bias/scale channel is: the output column (dense) or row (conv as GEMM). */
    channel: 'col' | 'row';
    /** With channel 'row' and problems laid out [..., groups]: channel = row + (b % groups)·M (grouped conv). */
    channelGroups?: number;
    /** Role of the split-K scratch buffer (unique within the op). */
    partialRole?: string;
    /**
     * Row stride of B in elements (default N). im2col pads its rows to a multiple of 4 so the
     * register-blocked variants load B as vec4 (columns N…ldb−1 are zeros); regblock only.
     */
    ldb?: number;
    caps: DeviceCaps;
    where: string;
}

/** WGSL `fn <name>(b: u32) -> u32`: element offset of problem b in a broadcast operand. */
function batchOffsetFn(name: string, outLead: number[], lead: number[], matSize: number): string {
    const r = outLead.length;
    const padded = new Array<number>(r - lead.length).fill(1).concat(lead);
    if (padded.every((d, i) => d === outLead[i])) return `fn ${name}(b: u32) -> u32 { return b * ${u(matSize)}; }`;
    if (padded.every(d => d === 1)) return `fn ${name}(b: u32) -> u32 { _ = b; return 0u; }`;
    const lines = [`fn ${name}(b: u32) -> u32 {`, '  var r = b;', '  var o = 0u;'];
    let stride = matSize;
    for (let i = r - 1; i >= 0; i--) {
        if (padded[i] !== 1) lines.push(`  o = o + (r % ${u(outLead[i])}) * ${u(stride)};`);
        lines.push(`  r = r / ${u(outLead[i])};`);
        stride *= padded[i];
    }
    lines.push('  return o;', '}');
    return lines.join('\n');
}

function gemmKeyBase(c: GemmConfig): string {
    return `M=${c.M},N=${c.N},K=${c.K},ldb=${c.ldb ?? c.N},cg=${c.channelGroups ?? 1},lead=${c.outLead.join('x')}/${c.aLead.join('x')}/${c.bLead.join('x')},`
        + `roles=${c.aRole},${c.bRole},${c.outRole},bias=${c.ownBias ?? '-'},ch=${c.channel}${epilogueKey(c.epilogue)}`;
}

/** The launches (and scratch buffers) of one GEMM config. */
export function gemmLaunches(c: GemmConfig): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    if (c.M < 1 || c.N < 1 || c.K < 1) throw new KernelError(`${c.where}: GEMM dims must be ≥ 1, found M=${c.M} N=${c.N} K=${c.K}`);
    if (c.ldb !== undefined && (c.variant.kind !== 'regblock' || c.ldb < c.N)) throw new KernelError(`${c.where}: internal: a B row stride (${c.ldb}) needs a register-blocked variant and ldb ≥ N = ${c.N}`);
    return c.variant.kind === 'wgmem' ? wgmemGemm(c, c.variant.tile) : regblockGemm(c, c.variant);
}

function baseSpecs(c: GemmConfig, aElem: 'f32' | 'vec4<f32>', bElem: 'f32' | 'vec4<f32>'): BindingSpec[] {
    const specs: BindingSpec[] = [
        { role: c.aRole, access: 'read', elem: aElem },
        { role: c.bRole, access: 'read', elem: bElem },
    ];
    if (c.ownBias) specs.push({ role: c.ownBias, access: 'read', elem: 'f32' });
    return specs;
}

function operandElems(c: GemmConfig): Record<string, number> {
    const e: Record<string, number> = {};
    e[c.aRole] = numel(c.aLead) * c.M * c.K;
    e[c.bRole] = numel(c.bLead) * c.K * (c.ldb ?? c.N);
    e[c.outRole] = c.batch * c.M * c.N;
    return e;
}

function regblockGemm(c: GemmConfig, v: Extract<GemmVariant, { kind: 'regblock' }>): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const { M, N, K, batch } = c;
    const sg = v.subgroup === true;
    // Subgroup variants: one subgroup = one row of the workgroup (S lanes sharing their rows).
    const SG = sg ? c.caps.subgroupSize : undefined;
    if (sg && (SG === undefined || SG < 1 || SG > 64 || (SG & (SG - 1)) !== 0)) {
        throw new KernelError(`${c.where}: variant '${c.variantName}' needs the 'subgroups' feature with one fixed subgroup size (a power of two ≤ 64); this device has ${SG === undefined ? 'none' : `size ${SG}`}. Use vec4_4x8 instead`);
    }
    // Subgroup variants shrink the workgroup's rows of lanes for short M (a conv with 32 filters
    // would otherwise compute 64 rows, half of them clamped duplicates).
    const WGX = SG ?? 8, WGY = sg ? Math.min(8, 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(M / v.tm))))) : 8;
    const TM = v.tm, TN = v.tn, CV = TN / 4;
    const split = v.splits > 1;
    // Slice length KC is a multiple of 4 (of S for subgroup blocks) so vec4 loads stay aligned; S recomputed so no slice is empty.
    const kAlign = sg ? Math.max(4, WGX) : 4;
    const KC = split ? Math.ceil(K / Math.min(v.splits, Math.ceil(K / kAlign)) / kAlign) * kAlign : K;
    const S = split ? Math.ceil(K / KC) : 1;
    // Subgroup variants load A one element per lane (not vec4-aligned), except sgrow_*: lane r
    // loads row r's next S k-values as vec4s (needs TM = S rows and K a multiple of 4; else it
    // is plain sg_*).
    const rowLoads = sg && v.rowLoads === true && TM === WGX && K % 4 === 0 && WGX % 4 === 0;
    const LDB = c.ldb ?? N;
    const aVec = (!sg || rowLoads) && K % 4 === 0, bVec = LDB % 4 === 0, outVec = N % 4 === 0;
    const rowsExact = M % (WGY * TM) === 0;
    const colsExact = N % (WGX * TN) === 0;
    const tilesN = Math.ceil(N / (WGX * TN)), tilesM = Math.ceil(M / (WGY * TM));
    const totalTiles = tilesN * tilesM * batch * S;
    const cap = v.cap > 0 ? Math.min(v.cap, totalTiles) : 0;
    const partialRole = c.partialRole ?? 'partial';
    const storeRole = split ? partialRole : c.outRole;

    const specs = baseSpecs(c, aVec ? 'vec4<f32>' : 'f32', bVec ? 'vec4<f32>' : 'f32');
    if (!split) specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: storeRole, access: 'read_write', elem: outVec ? 'vec4<f32>' : 'f32' });
    const A = `t_${c.aRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const B = `t_${c.bRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const O = `t_${storeRole.replace(/[^A-Za-z0-9_]/g, '_')}`;

    const dispatch: [number, number, number] = cap > 0 ? [cap, 1, 1] : [tilesN, tilesM, batch * S];
    // The WGSL text is built when first asked for (compiling a kernel): planning and prediction read only the description.
    const buildCode = (): string => {
        const L: string[] = [];
        if (sg) L.push('enable subgroups;');
        L.push(declareBindings(specs));
        L.push(batchOffsetFn('a_off', c.outLead, c.aLead, M * K));
        L.push(batchOffsetFn('b_off', c.outLead, c.bLead, K * LDB));
        if (!split) L.push(epilogueFn(c.epilogue, c.ownBias));
        L.push(`fn mm_tile(b: u32, tr: u32, tc: u32, ks: u32, lx: u32, ly: u32) {`);
        L.push(`  let row0 = (tr * ${u(WGY)} + ly) * ${u(TM)};`);
        L.push(`  let col0 = (tc * ${u(WGX)} + lx) * ${u(TN)};`);
        L.push(`  let aBase = a_off(b);`, `  let bBase = b_off(b);`);
        // Clamp rows/cols for loads so every read stays in bounds; stores are guarded below.
        for (let r = 0; r < TM; r++) {
            L.push(rowsExact ? `  let ar${r} = aBase + (row0 + ${u(r)}) * ${u(K)};` : `  let ar${r} = aBase + min(row0 + ${u(r)}, ${u(M - 1)}) * ${u(K)};`);
        }
        for (let cv = 0; cv < CV; cv++) {
            if (colsExact) L.push(`  let bc${cv} = col0 + ${u(4 * cv)};`);
            else if (bVec) L.push(`  let bc${cv} = min(col0 + ${u(4 * cv)}, ${u(LDB - 4)});`);
            else L.push(`  let bc${cv} = col0 + ${u(4 * cv)};`);
        }
        for (let r = 0; r < TM; r++) for (let cv = 0; cv < CV; cv++) L.push(`  var acc${r}_${cv} = vec4<f32>(0.0);`);
        const loadB = (kExpr: string, cv: number): string => {
            if (bVec) return `${B}[(bBase + (${kExpr}) * ${u(LDB)} + bc${cv}) >> 2u]`;
            const idx = (j: number) => `${B}[bBase + (${kExpr}) * ${u(LDB)} + min(bc${cv} + ${u(j)}, ${u(N - 1)})]`;
            return `vec4<f32>(${idx(0)}, ${idx(1)}, ${idx(2)}, ${idx(3)})`;
        };
        const loadA4 = (r: number): string => aVec
            ? `${A}[(ar${r} + k) >> 2u]`
            : `vec4<f32>(${A}[ar${r} + k], ${A}[ar${r} + k + 1u], ${A}[ar${r} + k + 2u], ${A}[ar${r} + k + 3u])`;
        if (split) {
            L.push(`  let kBegin = ks * ${u(KC)};`, `  let kEnd = min(kBegin + ${u(KC)}, ${u(K)});`);
        } else {
            L.push(`  _ = ks;`, `  let kBegin = 0u;`, `  let kEnd = ${u(K)};`);
        }
        if (sg) {
            // Blocks of WGX k-steps: lane lx loads A[row][k + lx] for each of its rows; step kk
            // broadcasts lane kk's value, so each A element is loaded once per subgroup.
            L.push(`  let kEnd4 = kBegin + ((kEnd - kBegin) / ${u(WGX)}) * ${u(WGX)};`);
            if (rowLoads) L.push(rowsExact ? `  let arL = aBase + (row0 + lx) * ${u(K)};` : `  let arL = aBase + min(row0 + lx, ${u(M - 1)}) * ${u(K)};`);
            L.push(`  for (var k = kBegin; k < kEnd4; k = k + ${u(WGX)}) {`);
            if (rowLoads) for (let h = 0; h < WGX / 4; h++) L.push(`    let al${h} = ${A}[(arL + k + ${u(4 * h)}) >> 2u];`);
            else for (let r = 0; r < TM; r++) L.push(`    let a${r} = ${A}[ar${r} + k + lx];`);
            for (let kk = 0; kk < WGX; kk++) {
                for (let cv = 0; cv < CV; cv++) L.push(`    let b${kk}_${cv} = ${loadB(`k + ${u(kk)}`, cv)};`);
                for (let r = 0; r < TM; r++) {
                    L.push(rowLoads ? `    let s${kk}_${r} = subgroupBroadcast(al${kk >> 2}.${'xyzw'[kk & 3]}, ${u(r)});` : `    let s${kk}_${r} = subgroupBroadcast(a${r}, ${u(kk)});`);
                    for (let cv = 0; cv < CV; cv++) L.push(`    acc${r}_${cv} = acc${r}_${cv} + s${kk}_${r} * b${kk}_${cv};`);
                }
            }
            L.push('  }');
        } else {
            L.push(`  let kEnd4 = kBegin + ((kEnd - kBegin) / 4u) * 4u;`);
            L.push(`  for (var k = kBegin; k < kEnd4; k = k + 4u) {`);
            for (let r = 0; r < TM; r++) L.push(`    let a${r} = ${loadA4(r)};`);
            for (let kk = 0; kk < 4; kk++) for (let cv = 0; cv < CV; cv++) L.push(`    let b${kk}_${cv} = ${loadB(`k + ${u(kk)}`, cv)};`);
            for (let r = 0; r < TM; r++) for (let cv = 0; cv < CV; cv++) {
                L.push(`    acc${r}_${cv} = acc${r}_${cv} + a${r}.x * b0_${cv} + a${r}.y * b1_${cv} + a${r}.z * b2_${cv} + a${r}.w * b3_${cv};`);
            }
            L.push('  }');
        }
        if (K % kAlign !== 0 || split) {
            L.push(`  for (var k = kEnd4; k < kEnd; k = k + 1u) {`);
            for (let cv = 0; cv < CV; cv++) L.push(`    let b_${cv} = ${loadB('k', cv)};`);
            for (let r = 0; r < TM; r++) {
                L.push(`    let a${r} = ${aVec ? `${A}[(ar${r} + k) >> 2u][k & 3u]` : `${A}[ar${r} + k]`};`);
                for (let cv = 0; cv < CV; cv++) L.push(`    acc${r}_${cv} = acc${r}_${cv} + a${r} * b_${cv};`);
            }
            L.push('  }');
        }
        // Stores.
        L.push(split ? `  let oBase = (ks * ${u(batch)} + b) * ${u(M * N)};` : `  let oBase = b * ${u(M * N)};`);
        const rowCh = (c.channelGroups ?? 1) > 1 ? `row + (b % ${u(c.channelGroups!)}) * ${u(M)}` : 'row';
        const ch = (j: number) => c.channel === 'col' ? `col + ${u(j)}` : rowCh;
        for (let r = 0; r < TM; r++) {
            L.push(`  {`, `    let row = row0 + ${u(r)};`);
            for (let cv = 0; cv < CV; cv++) {
                L.push(`    {`, `      let col = col0 + ${u(4 * cv)};`, `      let i = oBase + row * ${u(N)} + col;`);
                const val = (j: number) => split ? `acc${r}_${cv}[${j}]` : `epilogue(acc${r}_${cv}[${j}], i + ${u(j)}, ${ch(j)})`;
                const guard: string[] = [];
                if (!rowsExact) guard.push(`row < ${u(M)}`);
                if (outVec) {
                    if (!colsExact) guard.push(`col < ${u(N)}`);
                    const st = `${O}[i >> 2u] = vec4<f32>(${val(0)}, ${val(1)}, ${val(2)}, ${val(3)});`;
                    L.push(guard.length ? `      if (${guard.join(' && ')}) { ${st} }` : `      ${st}`);
                } else {
                    for (let j = 0; j < 4; j++) {
                        const g = [...guard, `col + ${u(j)} < ${u(N)}`];
                        L.push(`      if (${g.join(' && ')}) { ${O}[i + ${u(j)}] = ${val(j)}; }`);
                    }
                }
                L.push('    }');
            }
            L.push('  }');
        }
        L.push('}');

        L.push(`@compute @workgroup_size(${WGX}, ${WGY}, 1)`);
        L.push(`fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`);
        if (cap > 0) {
            // Persistent loop: `cap` workgroups walk all tiles; the loop bound is workgroup-uniform.
            L.push(`  for (var t = wid.x; t < ${u(totalTiles)}; t = t + ${u(cap)}) {`);
            L.push(`    let tc = t % ${u(tilesN)};`, `    let tr = (t / ${u(tilesN)}) % ${u(tilesM)};`);
            L.push(`    let z = t / ${u(tilesN * tilesM)};`);
            L.push(`    mm_tile(z % ${u(batch)}, tr, tc, z / ${u(batch)}, lid.x, lid.y);`, '  }');
        } else {
            L.push(`  mm_tile(wid.z % ${u(batch)}, wid.y, wid.x, wid.z / ${u(batch)}, lid.x, lid.y);`);
        }
        L.push('}');
        return L.join('\n');
    };
    const code = lazyText(buildCode);
    const variantName = c.variantName;
    const name = `${c.opName}.${variantName}`;
    const flops = 2 * batch * M * N * K;
    const elems = operandElems(c);
    const launches: KernelDescription[] = [];
    const buffers: LaunchBuffer[] = [];
    const k1: KernelDescription = {
        name: split ? `${name}.partial` : name,
        cacheKey: `gemm.regblock|tm=${TM},tn=${TN},cap=${cap},S=${S},KC=${KC},sg=${sg ? WGX : 0},wgy=${WGY},rows=${rowLoads}|${gemmKeyBase(c)}|store=${storeRole}`,
        // gemmOutputs (additive, for the prediction model's tile padding, plan/launch.ts launchEffectiveFlops): the
        // useful outputs this launch computes — batch·M·N per K slice — whatever buffer it writes (Winograd's Mt, split-K's partials).
        variant: { variant: variantName, tileM: TM, tileN: TN, workgroups: cap > 0 ? cap : totalTiles, cap, splits: S, exactRows: rowsExact, exactCols: colsExact, gemmOutputs: S * batch * M * N, ...(sg ? { subgroupSize: WGX } : {}) },
        workgroupSize: [WGX, WGY, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch,
        flops,
        bytes: 4 * (elems[c.aRole] + elems[c.bRole] + (split ? S : 1) * batch * M * N),
    };
    if (split) elems[partialRole] = S * batch * M * N;
    checkLaunch(k1, specs, elems, c.caps);
    launches.push(k1);
    if (split) {
        buffers.push({ role: partialRole, kind: 'scratch', shape: [S, batch, M, N], dtype: 'f32' });
        launches.push(splitReduce(c, S, partialRole, name));
    }
    return { launches, buffers };
}

function splitReduce(c: GemmConfig, S: number, partialRole: string, name: string): KernelDescription {
    const total = c.batch * c.M * c.N;
    const WG = 64;
    const dispatch = fold1D(Math.ceil(total / WG), c.caps, c.where);
    const specs: BindingSpec[] = [{ role: partialRole, access: 'read', elem: 'f32' }];
    if (c.ownBias) specs.push({ role: c.ownBias, access: 'read', elem: 'f32' });
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: c.outRole, access: 'read_write', elem: 'f32' });
    const P = `t_${partialRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const O = `t_${c.outRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const G = c.channelGroups ?? 1;
    const chExpr = c.channel === 'col' ? `i % ${u(c.N)}`
        : G > 1 ? `(i / ${u(c.N)}) % ${u(c.M)} + ((i / ${u(c.M * c.N)}) % ${u(G)}) * ${u(c.M)}` : `(i / ${u(c.N)}) % ${u(c.M)}`;
    const code = [
        declareBindings(specs),
        epilogueFn(c.epilogue, c.ownBias),
        `@compute @workgroup_size(${WG}, 1, 1)`,
        `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
        `  let i = (wid.x + wid.y * ${u(dispatch[0])}) * ${u(WG)} + lid.x;`,
        `  if (i >= ${u(total)}) { return; }`,
        `  var s = 0.0;`,
        `  for (var p = 0u; p < ${u(S)}; p = p + 1u) { s = s + ${P}[p * ${u(total)} + i]; }`,
        `  ${O}[i] = epilogue(s, i, ${chExpr});`,
        '}',
    ].join('\n');
    const k: KernelDescription = {
        name: `${name}.reduce`,
        cacheKey: `gemm.splitk_reduce|S=${S},total=${total},M=${c.M},N=${c.N},cg=${c.channelGroups ?? 1},roles=${partialRole},${c.outRole},bias=${c.ownBias ?? '-'},ch=${c.channel}${epilogueKey(c.epilogue)}|d=${dispatch.join('x')}`,
        variant: { variant: c.variantName, splits: S },
        workgroupSize: [WG, 1, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch,
        flops: total * S,
        bytes: 4 * total * (S + 1),
    };
    checkLaunch(k, specs, { [partialRole]: S * total, [c.outRole]: total }, c.caps);
    return k;
}

function wgmemGemm(c: GemmConfig, T: number): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const { M, N, K, batch } = c;
    const specs = baseSpecs(c, 'f32', 'f32');
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: c.outRole, access: 'read_write', elem: 'f32' });
    const A = `t_${c.aRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const B = `t_${c.bRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const O = `t_${c.outRole.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const exactM = M % T === 0, exactN = N % T === 0, exactK = K % T === 0;
    const guardA = [exactM ? '' : `r < ${u(M)}`, exactK ? '' : `ka < ${u(K)}`].filter(Boolean).join(' && ');
    const guardB = [exactK ? '' : `kb < ${u(K)}`, exactN ? '' : `col < ${u(N)}`].filter(Boolean).join(' && ');
    const code = [
        declareBindings(specs),
        batchOffsetFn('a_off', c.outLead, c.aLead, M * K),
        batchOffsetFn('b_off', c.outLead, c.bLead, K * N),
        epilogueFn(c.epilogue, c.ownBias),
        `var<workgroup> As: array<array<f32, ${T}>, ${T}>;`,
        `var<workgroup> Bs: array<array<f32, ${T}>, ${T}>;`,
        `@compute @workgroup_size(${T}, ${T}, 1)`,
        `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`,
        `  let b = wid.z;`,
        `  let r = wid.y * ${u(T)} + lid.y;`,
        `  let col = wid.x * ${u(T)} + lid.x;`,
        `  let aBase = a_off(b);`, `  let bBase = b_off(b);`,
        `  var acc = 0.0;`,
        `  for (var k0 = 0u; k0 < ${u(K)}; k0 = k0 + ${u(T)}) {`,
        `    let ka = k0 + lid.x;`,
        `    let kb = k0 + lid.y;`,
        guardA ? `    As[lid.y][lid.x] = select(0.0, ${A}[aBase + min(r, ${u(M - 1)}) * ${u(K)} + min(ka, ${u(K - 1)})], ${guardA});`
            : `    As[lid.y][lid.x] = ${A}[aBase + r * ${u(K)} + ka];`,
        guardB ? `    Bs[lid.y][lid.x] = select(0.0, ${B}[bBase + min(kb, ${u(K - 1)}) * ${u(N)} + min(col, ${u(N - 1)})], ${guardB});`
            : `    Bs[lid.y][lid.x] = ${B}[bBase + kb * ${u(N)} + col];`,
        `    workgroupBarrier();`,
        `    for (var kk = 0u; kk < ${u(T)}; kk = kk + 1u) { acc = acc + As[lid.y][kk] * Bs[kk][lid.x]; }`,
        `    workgroupBarrier();`,
        `  }`,
        exactM && exactN ? '' : `  if (r >= ${u(M)} || col >= ${u(N)}) { return; }`,
        `  let i = b * ${u(M * N)} + r * ${u(N)} + col;`,
        `  ${O}[i] = epilogue(acc, i, ${c.channel === 'col' ? 'col' : (c.channelGroups ?? 1) > 1 ? `r + (b % ${u(c.channelGroups!)}) * ${u(M)}` : 'r'});`,
        '}',
    ].join('\n');
    const elems = operandElems(c);
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `gemm.wgmem|T=${T}|${gemmKeyBase(c)}`,
        variant: { variant: c.variantName, tile: T, workgroups: Math.ceil(N / T) * Math.ceil(M / T) * batch, exactRows: exactM, exactCols: exactN },
        workgroupSize: [T, T, 1],
        bindings: bindingList(specs),
        wgsl: () => code,
        dispatch: [Math.ceil(N / T), Math.ceil(M / T), batch],
        flops: 2 * batch * M * N * K,
        bytes: 4 * (elems[c.aRole] + elems[c.bRole] + elems[c.outRole]),
    };
    checkLaunch(k, specs, elems, c.caps, 2 * T * T * 4);
    return { launches: [k], buffers: [] };
}

/**
 * Picks a default GEMM variant for a shape (the compiler's tuning cache overrides it): the
 * subgroup-broadcast tiles when the device has a fixed subgroup size and there are rows to
 * share, split-K when there are too few tiles to keep the device busy.
 */
export function defaultGemmVariant(M: number, N: number, K: number, batch: number, caps?: DeviceCaps): string {
    const sg = caps?.subgroupSize !== undefined && M >= 8;
    const tiles = sg ? Math.ceil(M / 64) * Math.ceil(N / (4 * caps!.subgroupSize!)) * batch : Math.ceil(M / 32) * Math.ceil(N / 64) * batch;
    if (tiles < 4 && K >= 1024) return sg ? 'sgsplitk_4' : 'splitk_4';
    return sg ? 'sgrow_8x4' : 'vec4_4x8';
}

function resolveVariant(op: IrOp, name: string | undefined, M: number, N: number, K: number, batch: number, caps: DeviceCaps): [string, GemmVariant] {
    const vname = name ?? defaultGemmVariant(M, N, K, batch, caps);
    const v = parseGemmVariant(vname);
    if (!v) throw unknownVariant(op, vname, [...GEMM_VARIANTS, 'vec4_<1..8>x<4|8>', 'sg_<1..16>x<4|8>', 'sgrow_<1..16>x<4|8>', 'capped_<W>', 'splitk_<S>', 'sgsplitk_<S>', 'wgmem_<T>x<T>']);
    return [vname, v];
}

/** Weight and scratch roles of dense: weight [k, units], bias [units] when attrs.bias. */
export function denseKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 1);
    checkEpilogue(op, req.epilogue);
    const x = req.inputShapes[0];
    if (x.length < 1) throw new KernelError(`${at(op)}: dense needs an input of rank ≥ 1, found ${fmtShape(x)}`);
    const K = x[x.length - 1];
    const units = numAttr(op, 'units');
    const hasBias = boolAttr(op, 'bias', true);
    expectOutputShape(req, [...x.slice(0, -1), units]);
    const M = numel(x.slice(0, -1));
    const [vname, v] = resolveVariant(op, req.variant, M, units, K, 1, req.caps);
    const g = gemmLaunches({
        opName: op.kind, variantName: vname, variant: v, M, N: units, K, batch: 1, outLead: [], aLead: [], bLead: [],
        aRole: 'in0', bRole: 'weight', outRole: 'out', ownBias: hasBias ? 'bias' : undefined, epilogue: req.epilogue,
        channel: 'col', caps: req.caps, where: at(op),
    });
    const buffers: LaunchBuffer[] = [{ role: 'weight', kind: 'weight', shape: [K, units], dtype: 'f32', init: 'normal' }];
    if (hasBias) buffers.push({ role: 'bias', kind: 'weight', shape: [units], dtype: 'f32', init: 'normal' });
    return { launches: g.launches, buffers: [...buffers, ...g.buffers] };
}

/** Broadcast of leading dims (NumPy rules), with a clear error. */
export function broadcastLead(op: IrOp, a: number[], b: number[]): number[] {
    const r = Math.max(a.length, b.length);
    const out: number[] = [];
    for (let i = 0; i < r; i++) {
        const da = a[a.length - r + i] ?? 1, db = b[b.length - r + i] ?? 1;
        if (da !== db && da !== 1 && db !== 1) {
            throw new KernelError(`${at(op)}: leading dims ${fmtShape(a)} and ${fmtShape(b)} do not broadcast (dim ${i}: ${da} vs ${db})`);
        }
        out.push(Math.max(da, db));
    }
    return out;
}

/** matmul: a [..., m, k] · b [..., k, n] → [..., m, n], leading dims broadcast. */
export function matmulKernels(req: KernelRequest): OpKernels {
    const { op } = req;
    expectInputs(req, 2);
    checkEpilogue(op, req.epilogue);
    const [a, b] = req.inputShapes;
    if (a.length < 2 || b.length < 2) throw new KernelError(`${at(op)}: matmul needs inputs of rank ≥ 2, found ${fmtShape(a)} and ${fmtShape(b)}`);
    const M = a[a.length - 2], K = a[a.length - 1], K2 = b[b.length - 2], N = b[b.length - 1];
    if (K !== K2) throw new KernelError(`${at(op)}: inner dims differ: a ${fmtShape(a)} has k = ${K}, b ${fmtShape(b)} has k = ${K2}`);
    const aLead = a.slice(0, -2), bLead = b.slice(0, -2);
    const outLead = broadcastLead(op, aLead, bLead);
    expectOutputShape(req, [...outLead, M, N]);
    const batch = numel(outLead);
    const [vname, v] = resolveVariant(op, req.variant, M, N, K, batch, req.caps);
    const g = gemmLaunches({
        opName: op.kind, variantName: vname, variant: v, M, N, K, batch, outLead, aLead, bLead,
        aRole: 'in0', bRole: 'in1', outRole: 'out', epilogue: req.epilogue, channel: 'col', caps: req.caps, where: at(op),
    });
    return { launches: g.launches, buffers: g.buffers };
}
