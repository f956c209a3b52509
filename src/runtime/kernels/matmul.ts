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
 * - `kdot_<R>`: few columns (N ≤ 16): each workgroup owns R rows of A and every column, its 64
 *   lanes split K, and a tree in workgroup memory sums them. A conv's deep layers on small maps
 *   (512 filters × 4 pixels, K = 4608) are such GEMMs: a register tile 32 columns wide computes
 *   8× the outputs it keeps there, and here A's rows stream once, in order, as vec4s.
 * Exact-fit shapes drop the bounds checks; other shapes clamp loads and guard stores.
 */
import type { IrOp } from '../ir/types.js';
import type { DeviceCaps, Epilogue, GridAxis, KernelDescription, KernelRequest, LaunchBuffer, OpKernels, SplitAxis } from './kernel.js';
import {
    KernelError, at, boolAttr, checkEpilogue, checkLaunch, declareBindings, bindingList, epilogueBindings, epilogueFn,
    epilogueKey, expectInputs, expectOutputShape, fmtShape, grid1D, ident, intSuffix, lazyText, main1D, mainStart, numAttr,
    numel, u, unknownVariant, unroll, wgsl, type BindingSpec,
} from './common.js';

/**
 * Named variants every GEMM-shaped op accepts (capped_<W> and splitk_<S> take any positive
 * integer). kdot_<1|2|4|8> is not among them: it takes GEMMs of at most 16 columns.
 */
export const GEMM_VARIANTS = ['vec4_4x8', 'vec4_4x4', 'wgmem_16x16', 'wgmem_8x8', 'splitk_4', 'capped_1', 'capped_4', 'capped_16', 'sgrow_8x4', 'sg_8x4', 'sg_4x4', 'sgsplitk_4'] as const;

/**
 * A GEMM variant as the generators use it: parsed from its name once, where a request enters
 * (parseGemmVariant), and named again only to label launches (gemmVariantName).
 */
export type GemmVariant =
    | { family: 'vec4'; tm: number; tn: number }
    | { family: 'sg'; tm: number; tn: number }
    | { family: 'sgrow'; tm: number; tn: number }
    | { family: 'capped'; workgroups: number }
    | { family: 'splitk'; splits: number }
    | { family: 'sgsplitk'; splits: number }
    | { family: 'wgmem'; tile: number }
    | { family: 'kdot'; rows: number };

/** The variants that keep a register tile per invocation: every family but wgmem and kdot. */
export type RegisterGemmVariant = Exclude<GemmVariant, { family: 'wgmem' | 'kdot' }>;

/** Parses a GEMM variant name; undefined if it is not one. */
export function parseGemmVariant(name: string): GemmVariant | undefined {
    const tiles = /^(vec4|sg|sgrow)_(\d+)x(\d+)$/.exec(name);
    if (tiles) {
        const family = tiles[1] as 'vec4' | 'sg' | 'sgrow', tm = Number(tiles[2]), tn = Number(tiles[3]);
        const maxRows = family === 'vec4' ? 8 : 16;
        return tm >= 1 && tm <= maxRows && (tn === 4 || tn === 8) ? { family, tm, tn } : undefined;
    }
    const sgSplits = intSuffix(name, 'sgsplitk');
    if (sgSplits !== undefined) return sgSplits >= 2 ? { family: 'sgsplitk', splits: sgSplits } : undefined;
    const kdot = intSuffix(name, 'kdot');
    if (kdot !== undefined) return KDOT_ROWS.includes(kdot) ? { family: 'kdot', rows: kdot } : undefined;
    const wg = /^wgmem_(\d+)x(\d+)$/.exec(name);
    if (wg) return wg[1] === wg[2] ? { family: 'wgmem', tile: Number(wg[1]) } : undefined;
    const cap = intSuffix(name, 'capped');
    if (cap !== undefined) return cap >= 1 ? { family: 'capped', workgroups: cap } : undefined;
    const splits = intSuffix(name, 'splitk');
    if (splits !== undefined) return splits >= 2 ? { family: 'splitk', splits } : undefined;
    return undefined;
}

/** The name of a GEMM variant (the inverse of parseGemmVariant). */
export function gemmVariantName(v: GemmVariant): string {
    switch (v.family) {
        case 'vec4': case 'sg': case 'sgrow': return `${v.family}_${v.tm}x${v.tn}`;
        case 'capped': return `capped_${v.workgroups}`;
        case 'splitk': case 'sgsplitk': return `${v.family}_${v.splits}`;
        case 'wgmem': return `wgmem_${v.tile}x${v.tile}`;
        case 'kdot': return `kdot_${v.rows}`;
    }
}

/** True for the variants that share loads across a subgroup (need DeviceCaps.subgroupSize). */
function usesSubgroups(v: GemmVariant): boolean {
    return v.family === 'sg' || v.family === 'sgrow' || v.family === 'sgsplitk';
}

/** True for variant names (of any op: `im2col_sg_8x4`, `winograd_sgrow_8x4`, …) that need subgroups of a fixed size. */
export function needsSubgroups(variant: string): boolean {
    const gemm = parseGemmVariant(variant.replace(/^(?:im2col|pointwise|winograd)_/, ''));
    return gemm !== undefined && usesSubgroups(gemm);
}

/**
 * How a register-blocked variant computes: TM×TN outputs per invocation, at most `cap`
 * workgroups (0: one per tile), K cut into `splits` slices; with `subgroup`, lanes share their
 * A loads by broadcast, and with `rowLoads` each lane loads a row's next k-values as vec4s.
 */
interface RegisterTiling { tm: number; tn: number; cap: number; splits: number; subgroup: boolean; rowLoads: boolean }

function registerTiling(v: RegisterGemmVariant): RegisterTiling {
    switch (v.family) {
        case 'vec4': return { tm: v.tm, tn: v.tn, cap: 0, splits: 1, subgroup: false, rowLoads: false };
        case 'sg': return { tm: v.tm, tn: v.tn, cap: 0, splits: 1, subgroup: true, rowLoads: false };
        case 'sgrow': return { tm: v.tm, tn: v.tn, cap: 0, splits: 1, subgroup: true, rowLoads: true };
        case 'capped': return { tm: 4, tn: 8, cap: v.workgroups, splits: 1, subgroup: false, rowLoads: false };
        case 'splitk': return { tm: 4, tn: 4, cap: 0, splits: v.splits, subgroup: false, rowLoads: false };
        case 'sgsplitk': return { tm: 8, tn: 4, cap: 0, splits: v.splits, subgroup: true, rowLoads: true };
    }
}

/** One GEMM problem set: out[b] (M×N) = A[b] (M×K) · B[b] (K×N), row-major, then epilogue. */
export interface GemmConfig {
    /** Launch name prefix, e.g. "dense" → "dense.vec4_4x8". */
    opName: string;
    /** The op's variant name, for launch names and records (a conv's "im2col_vec4_4x8"). */
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
    /**
     * The op axes the GEMM's columns (N), rows (M) and problems cover, for splitting the op into
     * chunks of its tile grid (./slice.ts); an axis left out is not split along. Absent: none.
     */
    axes?: { cols?: SplitAxis; rows?: SplitAxis; problems?: SplitAxis };
    caps: DeviceCaps;
    where: string;
}

/**
 * The grid axes of a GEMM launch whose workgroups are tiles (x: column tiles, y: row tiles, z:
 * problems unless K is split), with the operand each cut leaves whole: cutting rows re-reads B
 * in every chunk, cutting columns A, cutting problems the operands that broadcast over them.
 */
function gemmGrid(c: GemmConfig, kSplit: boolean): KernelDescription['grid'] {
    if (!c.axes) return undefined;
    const aBytes = 4 * numel(c.aLead) * c.M * c.K, bBytes = 4 * numel(c.bLead) * c.K * (c.ldb ?? c.N);
    const grid: Partial<Record<SplitAxis, GridAxis>> = {};
    if (c.axes.cols) grid[c.axes.cols] = { dim: 0, sharedBytes: aBytes };
    if (c.axes.rows) grid[c.axes.rows] = { dim: 1, sharedBytes: bBytes };
    if (c.axes.problems && !kSplit) grid[c.axes.problems] = { dim: 2, sharedBytes: (numel(c.aLead) === 1 ? aBytes : 0) + (numel(c.bLead) === 1 ? bBytes : 0) };
    return grid;
}

/** WGSL `fn <name>(b: u32) -> u32`: element offset of problem b in a broadcast operand. */
function batchOffsetFn(name: string, outLead: number[], lead: number[], matSize: number): string {
    const r = outLead.length;
    const padded = new Array<number>(r - lead.length).fill(1).concat(lead);
    if (padded.every((d, i) => d === outLead[i])) return `fn ${name}(b: u32) -> u32 { return b * ${u(matSize)}; }`;
    if (padded.every(d => d === 1)) return `fn ${name}(b: u32) -> u32 { _ = b; return 0u; }`;
    // Walk the output's leading dims from the innermost; the operand's broadcast dims (1) add nothing.
    const steps: string[] = [];
    let stride = matSize;
    for (let i = r - 1; i >= 0; i--) {
        if (padded[i] !== 1) steps.push(`o = o + (r % ${u(outLead[i])}) * ${u(stride)};`);
        steps.push(`r = r / ${u(outLead[i])};`);
        stride *= padded[i];
    }
    return wgsl`
        fn ${name}(b: u32) -> u32 {
          var r = b;
          var o = 0u;
          ${steps.join('\n')}
          return o;
        }`;
}

/**
 * The WGSL a GEMM kernel opens with: the subgroups extension when it uses it, its bindings, the
 * offsets of problem b in A and B (`a_off`, `b_off`; B's rows `ldb` apart) and, when it applies
 * one, the epilogue.
 */
function gemmPrelude(c: GemmConfig, specs: readonly BindingSpec[], ldb: number, subgroups: boolean, epilogue: boolean): string {
    return wgsl`
        ${subgroups ? 'enable subgroups;' : ''}
        ${declareBindings(specs)}
        ${batchOffsetFn('a_off', c.outLead, c.aLead, c.M * c.K)}
        ${batchOffsetFn('b_off', c.outLead, c.bLead, c.K * ldb)}
        ${epilogue ? epilogueFn(c.epilogue, c.ownBias) : ''}`;
}

/** The cache key's part for the problem; `epilogue` false for a launch that does not apply it (split-K's partial products). */
function gemmKeyBase(c: GemmConfig, epilogue = true): string {
    return `M=${c.M},N=${c.N},K=${c.K},ldb=${c.ldb ?? c.N},cg=${c.channelGroups ?? 1},lead=${c.outLead.join('x')}/${c.aLead.join('x')}/${c.bLead.join('x')},`
        + `roles=${c.aRole},${c.bRole},${c.outRole},bias=${c.ownBias ?? '-'},ch=${c.channel}${epilogue ? epilogueKey(c.epilogue) : ''}`;
}

/** The launches (and scratch buffers) of one GEMM config. */
export function gemmLaunches(c: GemmConfig): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    if (c.M < 1 || c.N < 1 || c.K < 1) throw new KernelError(`${c.where}: GEMM dims must be ≥ 1, found M=${c.M} N=${c.N} K=${c.K}`);
    if (c.ldb !== undefined && (c.variant.family === 'wgmem' || c.ldb < c.N)) throw new KernelError(`${c.where}: internal: a B row stride (${c.ldb}) needs a register-blocked variant and ldb ≥ N = ${c.N}`);
    if (c.variant.family === 'wgmem') return wgmemGemm(c, c.variant.tile);
    if (c.variant.family === 'kdot') return kdotGemm(c, c.variant.rows);
    return regblockGemm(c, registerTiling(c.variant));
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

/** WGSL expression: the bias/scale channel of output (row, col) of problem b. */
function channelExpr(c: GemmConfig, col: string, row: string): string {
    if (c.channel === 'col') return col;
    return (c.channelGroups ?? 1) > 1 ? `${row} + (b % ${u(c.channelGroups!)}) * ${u(c.M)}` : row;
}

/**
 * Register-blocked GEMM. Invocation (lx, ly) of workgroup (tc, tr, z) owns rows row0 … row0+TM−1
 * and columns col0 … col0+TN−1 of problem z % batch (K slice z / batch when split) and keeps
 * them in TM × TN/4 vec4 accumulators.
 */
function regblockGemm(c: GemmConfig, v: RegisterTiling): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const { M, N, K, batch } = c;
    const sg = v.subgroup;
    // Subgroup variants: one subgroup = one row of the workgroup (S lanes sharing their rows).
    const SG = sg ? c.caps.subgroupSize : undefined;
    if (sg && (SG === undefined || SG < 1 || SG > 64 || (SG & (SG - 1)) !== 0)) {
        throw new KernelError(`${c.where}: variant '${c.variantName}' needs the 'subgroups' feature with one fixed subgroup size (a power of two ≤ 64); this device has ${SG === undefined ? 'none' : `size ${SG}`}. Use vec4_4x8 instead`);
    }
    // The workgroup's rows of lanes shrink for short M: at 8 rows a batch-1 dense on vec4_4x8
    // computed 32 rows for its one (clamped duplicates, each lane reloading the same B columns),
    // and a conv with 32 filters on sg_8x4 64 rows for its 32.
    const WGX = SG ?? 8, WGY = Math.min(8, 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(M / v.tm)))));
    const TM = v.tm, TN = v.tn, CV = TN / 4;
    const split = v.splits > 1;
    // Slice length KC is a multiple of 4 (of S for subgroup blocks) so vec4 loads stay aligned; S recomputed so no slice is empty.
    const kAlign = sg ? Math.max(4, WGX) : 4;
    const KC = split ? Math.ceil(K / Math.min(v.splits, Math.ceil(K / kAlign)) / kAlign) * kAlign : K;
    const S = split ? Math.ceil(K / KC) : 1;
    // Subgroup variants load A one element per lane (not vec4-aligned), except rowLoads: lane r
    // loads row r's next S k-values as vec4s (needs TM = S rows and K a multiple of 4; else it
    // is plain sg_*).
    const aVecIfAligned = !sg || (v.rowLoads && TM === WGX && WGX % 4 === 0);
    const rowLoads = sg && aVecIfAligned && K % 4 === 0;
    const LDB = c.ldb ?? N;
    const aVec = aVecIfAligned && K % 4 === 0, bVec = LDB % 4 === 0, outVec = N % 4 === 0;
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
    const A = ident(c.aRole), B = ident(c.bRole), O = ident(storeRole);

    // Loads clamp rows and columns so every read stays in bounds; stores are guarded.
    const aRow = (row: string) => (rowsExact ? `(${row})` : `min(${row}, ${u(M - 1)})`);
    const bCol = (cv: number) => (!colsExact && bVec ? `min(col0 + ${u(4 * cv)}, ${u(LDB - 4)})` : `col0 + ${u(4 * cv)}`);
    const loadB = (k: string, cv: number): string => {
        if (bVec) return `${B}[(bBase + (${k}) * ${u(LDB)} + bc${cv}) >> 2u]`;
        const column = (j: number) => `${B}[bBase + (${k}) * ${u(LDB)} + min(bc${cv} + ${u(j)}, ${u(N - 1)})]`;
        return `vec4<f32>(${column(0)}, ${column(1)}, ${column(2)}, ${column(3)})`;
    };
    const loadA4 = (r: number): string => aVec
        ? `${A}[(ar${r} + k) >> 2u]`
        : `vec4<f32>(${A}[ar${r} + k], ${A}[ar${r} + k + 1u], ${A}[ar${r} + k + 2u], ${A}[ar${r} + k + 3u])`;
    const kSlice = split
        ? wgsl`
            let kBegin = ks * ${u(KC)};
            let kEnd = min(kBegin + ${u(KC)}, ${u(K)});`
        : wgsl`
            _ = ks;
            let kBegin = 0u;
            let kEnd = ${u(K)};`;
    // Blocks of 4 k-steps, each lane loading its own rows of A as vec4s.
    const vec4Loop = () => wgsl`
        let kEnd4 = kBegin + ((kEnd - kBegin) / 4u) * 4u;
        for (var k = kBegin; k < kEnd4; k = k + 4u) {
          ${unroll(TM, r => `let a${r} = ${loadA4(r)};`)}
          ${unroll(4, kk => unroll(CV, cv => `let b${kk}_${cv} = ${loadB(`k + ${u(kk)}`, cv)};`))}
          ${unroll(TM, r => unroll(CV, cv => `acc${r}_${cv} = acc${r}_${cv} + a${r}.x * b0_${cv} + a${r}.y * b1_${cv} + a${r}.z * b2_${cv} + a${r}.w * b3_${cv};`))}
        }`;
    // Blocks of WGX k-steps: lane lx loads A[row][k + lx] for each of its rows (or, rowLoads,
    // row lx's WGX k-values); step kk broadcasts lane kk's value, so each A element is loaded
    // once per subgroup.
    const broadcast = (kk: number, r: number) => (rowLoads ? `subgroupBroadcast(al${kk >> 2}.${'xyzw'[kk & 3]}, ${u(r)})` : `subgroupBroadcast(a${r}, ${u(kk)})`);
    const subgroupLoop = () => wgsl`
        let kEnd4 = kBegin + ((kEnd - kBegin) / ${u(WGX)}) * ${u(WGX)};
        ${rowLoads ? `let arL = aBase + ${aRow('row0 + lx')} * ${u(K)};` : ''}
        for (var k = kBegin; k < kEnd4; k = k + ${u(WGX)}) {
          ${rowLoads ? unroll(WGX / 4, h => `let al${h} = ${A}[(arL + k + ${u(4 * h)}) >> 2u];`) : unroll(TM, r => `let a${r} = ${A}[ar${r} + k + lx];`)}
          ${unroll(WGX, kk => wgsl`
            ${unroll(CV, cv => `let b${kk}_${cv} = ${loadB(`k + ${u(kk)}`, cv)};`)}
            ${unroll(TM, r => wgsl`
              let s${kk}_${r} = ${broadcast(kk, r)};
              ${unroll(CV, cv => `acc${r}_${cv} = acc${r}_${cv} + s${kk}_${r} * b${kk}_${cv};`)}`)}`)}
        }`;
    // The k-steps left after the blocks (K not a multiple of the block, or a K slice's end), to a bound the compiler
    // cannot read (as wgmem's tiles; no buffer holds 2³¹ elements, so the xor is kEnd): lavapipe unrolled up to 7 of
    // them, each a copy of the tile's FMAs and loads, and compiled dense 16×767→767 (sgrow_8x4) in 2.3–3.4 s against
    // 1.0 s at 768 (BENCHMARKS.md, "A GEMM's tail over K rolled").
    const tailLoop = () => wgsl`
        let kTail = kEnd ^ (arrayLength(&${A}) & 0x80000000u);
        for (var k = kEnd4; k < kTail; k = k + 1u) {
          ${unroll(CV, cv => `let b_${cv} = ${loadB('k', cv)};`)}
          ${unroll(TM, r => wgsl`
            let a${r} = ${aVec ? `${A}[(ar${r} + k) >> 2u][k & 3u]` : `${A}[ar${r} + k]`};
            ${unroll(CV, cv => `acc${r}_${cv} = acc${r}_${cv} + a${r} * b_${cv};`)}`)}
        }`;
    const value = (r: number, cv: number, j: number) => split
        ? `acc${r}_${cv}[${j}]`
        : `epilogue(acc${r}_${cv}[${j}], i + ${u(j)}, ${channelExpr(c, `col + ${u(j)}`, 'row')})`;
    const store = (r: number, cv: number): string => {
        const guard = rowsExact ? [] : [`row < ${u(M)}`];
        if (!outVec) return unroll(4, j => `if (${[...guard, `col + ${u(j)} < ${u(N)}`].join(' && ')}) { ${O}[i + ${u(j)}] = ${value(r, cv, j)}; }`);
        if (!colsExact) guard.push(`col < ${u(N)}`);
        const st = `${O}[i >> 2u] = vec4<f32>(${value(r, cv, 0)}, ${value(r, cv, 1)}, ${value(r, cv, 2)}, ${value(r, cv, 3)});`;
        return guard.length ? `if (${guard.join(' && ')}) { ${st} }` : st;
    };
    const stores = () => unroll(TM, r => wgsl`
        {
          let row = row0 + ${u(r)};
          ${unroll(CV, cv => wgsl`
            {
              let col = col0 + ${u(4 * cv)};
              let i = oBase + row * ${u(N)} + col;
              ${store(r, cv)}
            }`)}
        }`);
    // Persistent loop: `cap` workgroups walk all tiles; the loop bound is workgroup-uniform.
    const persistentLoop = () => wgsl`
        for (var t = wid.x; t < ${u(totalTiles)}; t = t + ${u(cap)}) {
          let tc = t % ${u(tilesN)};
          let tr = (t / ${u(tilesN)}) % ${u(tilesM)};
          let z = t / ${u(tilesN * tilesM)};
          mm_tile(z % ${u(batch)}, tr, tc, z / ${u(batch)}, lid.x, lid.y);
        }`;

    const code = lazyText(() => wgsl`
        ${gemmPrelude(c, specs, LDB, sg, !split)}
        fn mm_tile(b: u32, tr: u32, tc: u32, ks: u32, lx: u32, ly: u32) {
          let row0 = (tr * ${u(WGY)} + ly) * ${u(TM)};
          let col0 = (tc * ${u(WGX)} + lx) * ${u(TN)};
          let aBase = a_off(b);
          let bBase = b_off(b);
          ${unroll(TM, r => `let ar${r} = aBase + ${aRow(`row0 + ${u(r)}`)} * ${u(K)};`)}
          ${unroll(CV, cv => `let bc${cv} = ${bCol(cv)};`)}
          ${unroll(TM, r => unroll(CV, cv => `var acc${r}_${cv} = vec4<f32>(0.0);`))}
          ${kSlice}
          ${sg ? subgroupLoop() : vec4Loop()}
          ${K % kAlign !== 0 || split ? tailLoop() : ''}
          let oBase = ${split ? `(ks * ${u(batch)} + b) * ${u(M * N)}` : `b * ${u(M * N)}`};
          ${stores()}
        }
        ${mainStart([WGX, WGY, 1])}
          ${cap > 0 ? persistentLoop() : `mm_tile(wid.z % ${u(batch)}, wid.y, wid.x, wid.z / ${u(batch)}, lid.x, lid.y);`}
        }`);
    const name = `${c.opName}.${c.variantName}`;
    const elems = operandElems(c);
    const launches: KernelDescription[] = [];
    const buffers: LaunchBuffer[] = [];
    const tiles: KernelDescription = {
        name: split ? `${name}.partial` : name,
        cacheKey: `gemm.regblock|tm=${TM},tn=${TN},cap=${cap},S=${S},KC=${KC},sg=${sg ? WGX : 0},wgy=${WGY},rows=${rowLoads}|${gemmKeyBase(c, !split)}|store=${storeRole}`,
        // gemmOutputs: the useful outputs this launch computes (batch·M·N per K slice) whatever buffer it writes
        // (Winograd's Mt, split-K's partials), for the prediction model's tile padding (plan/launch.ts launchEffectiveFlops);
        // ldbBytes: B's row stride, for its alignment (plan/launch.ts strideAlignmentOf); scalarLoads: the operands its
        // rows' lengths leave to single-float loads where the variant loads vec4s (plan/launch.ts scalarLoadsOf).
        variant: {
            variant: c.variantName, tileM: TM, tileN: TN, workgroups: cap > 0 ? cap : totalTiles, cap, splits: S, exactRows: rowsExact, exactCols: colsExact,
            gemmOutputs: S * batch * M * N, ldbBytes: 4 * LDB, scalarLoads: (aVecIfAligned && K % 4 !== 0 ? 1 : 0) + (bVec ? 0 : 1), ...(sg ? { subgroupSize: WGX } : {}),
        },
        workgroupSize: [WGX, WGY, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: cap > 0 ? [cap, 1, 1] : [tilesN, tilesM, batch * S],
        flops: 2 * batch * M * N * K,
        bytes: 4 * (elems[c.aRole] + elems[c.bRole] + (split ? S : 1) * batch * M * N),
        // A persistent (capped) kernel walks every tile from each workgroup: no grid to cut.
        ...(cap > 0 ? {} : { grid: gemmGrid(c, split) }),
    };
    if (split) elems[partialRole] = S * batch * M * N;
    checkLaunch(tiles, specs, elems, c.caps);
    launches.push(tiles);
    if (split) {
        buffers.push({ role: partialRole, kind: 'scratch', shape: [S, batch, M, N], dtype: 'f32' });
        launches.push(splitReduce(c, S, partialRole, name));
    }
    return { launches, buffers };
}

/** Split-K's second launch: sums the S partial products of each output and applies the epilogue. */
function splitReduce(c: GemmConfig, S: number, partialRole: string, name: string): KernelDescription {
    const total = c.batch * c.M * c.N;
    const grid = grid1D(total, c.caps, c.where);
    const specs: BindingSpec[] = [{ role: partialRole, access: 'read', elem: 'f32' }];
    if (c.ownBias) specs.push({ role: c.ownBias, access: 'read', elem: 'f32' });
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: c.outRole, access: 'read_write', elem: 'f32' });
    const G = c.channelGroups ?? 1;
    const channel = c.channel === 'col' ? `i % ${u(c.N)}`
        : G > 1 ? `(i / ${u(c.N)}) % ${u(c.M)} + ((i / ${u(c.M * c.N)}) % ${u(G)}) * ${u(c.M)}` : `(i / ${u(c.N)}) % ${u(c.M)}`;
    const code = lazyText(() => wgsl`
        ${declareBindings(specs)}
        ${epilogueFn(c.epilogue, c.ownBias)}
        ${main1D(grid, 'i', total)}
          var s = 0.0;
          for (var p = 0u; p < ${u(S)}; p = p + 1u) { s = s + ${ident(partialRole)}[p * ${u(total)} + i]; }
          ${ident(c.outRole)}[i] = epilogue(s, i, ${channel});
        }`);
    const k: KernelDescription = {
        name: `${name}.reduce`,
        cacheKey: `gemm.splitk_reduce|S=${S},total=${total},M=${c.M},N=${c.N},cg=${c.channelGroups ?? 1},roles=${partialRole},${c.outRole},bias=${c.ownBias ?? '-'},ch=${c.channel}${epilogueKey(c.epilogue)}|d=${grid.dispatch.join('x')}`,
        variant: { variant: c.variantName, splits: S },
        workgroupSize: [grid.workgroupSize, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: grid.dispatch,
        flops: total * S,
        bytes: 4 * total * (S + 1),
    };
    checkLaunch(k, specs, { [partialRole]: S * total, [c.outRole]: total }, c.caps);
    return k;
}

/** Rows per workgroup kdot_<R> takes, and the most columns it computes (its accumulators: R × ⌈N/4⌉ vec4 per lane). */
const KDOT_ROWS = [1, 2, 4, 8];
export const KDOT_MAX_COLUMNS = 16;

/**
 * Few-column GEMM (`kdot_<R>`, N ≤ 16). Workgroup (x, b) owns rows x·R … x·R+R−1 of problem b
 * and all N columns; of its L lanes, lane l takes k-steps 4l, 4l + 4L, … (one vec4 of each row
 * of A per step, consecutive lanes reading consecutive addresses), so A streams once and no
 * lane computes a column it drops. The lanes' partial sums are added (subgroupAdd, or a tree in
 * workgroup memory) and the lanes take turns applying the epilogue and storing the R·N outputs.
 */
function kdotGemm(c: GemmConfig, R: number): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const { M, N, K, batch } = c;
    if (N > KDOT_MAX_COLUMNS) throw new KernelError(`${c.where}: variant '${c.variantName}' computes at most ${KDOT_MAX_COLUMNS} columns per row; this GEMM has ${N} (M=${M} N=${N} K=${K}). Use sgrow_8x4 or vec4_4x8`);
    // One subgroup per workgroup where the device has a fixed subgroup size (its lanes sum with
    // subgroupAdd, no barrier: on lavapipe kdot_8 on 512→512 3×3 @2² took 1.46 ms so, 1.65–1.84
    // with 8 lanes summed by a tree, 5.05 with 64), else up to 64 lanes summed by a tree in
    // workgroup memory (R·⌈N/4⌉ vec4 per lane).
    const SG = c.caps.subgroupSize;
    const useSubgroup = SG !== undefined && SG >= 4 && SG <= 64 && (SG & (SG - 1)) === 0;
    const CV = Math.ceil(N / 4), LDB = c.ldb ?? N, slots = R * CV;
    let L = 64;
    while (L > 4 && 16 * slots * L > c.caps.maxComputeWorkgroupStorageSize) L /= 2;
    if (useSubgroup) L = SG;
    const aVec = K % 4 === 0, bVec = LDB % 4 === 0;
    const specs = baseSpecs(c, aVec ? 'vec4<f32>' : 'f32', bVec ? 'vec4<f32>' : 'f32');
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: c.outRole, access: 'read_write', elem: 'f32' });
    const A = ident(c.aRole), B = ident(c.bRole), O = ident(c.outRole);
    const rowsExact = M % R === 0;
    // Rows of B as vec4s where its stride allows (the last vec4's slack columns are never stored);
    // else a float per column, none past N (a pointwise conv on 3×3: 9 loads a k-step, not 12).
    const loadB = (k: string, cv: number): string => {
        if (bVec) return `${B}[(bBase + (${k}) * ${u(LDB)}) / 4u + ${u(cv)}]`;
        const column = (j: number) => 4 * cv + j < N ? `${B}[bBase + (${k}) * ${u(LDB)} + ${u(4 * cv + j)}]` : '0.0';
        return `vec4<f32>(${column(0)}, ${column(1)}, ${column(2)}, ${column(3)})`;
    };
    const loop = aVec
        ? wgsl`
            for (var k = 4u * lid.x; k < ${u(K)}; k = k + ${u(4 * L)}) {
              ${unroll(R, r => `let a${r} = ${A}[(ar${r} + k) / 4u];`)}
              ${unroll(4, kk => unroll(CV, cv => `let b${kk}_${cv} = ${loadB(`k + ${u(kk)}`, cv)};`))}
              ${unroll(R, r => unroll(CV, cv => `acc${r}_${cv} = acc${r}_${cv} + a${r}.x * b0_${cv} + a${r}.y * b1_${cv} + a${r}.z * b2_${cv} + a${r}.w * b3_${cv};`))}
            }`
        : wgsl`
            for (var k = lid.x; k < ${u(K)}; k = k + ${u(L)}) {
              ${unroll(CV, cv => `let b_${cv} = ${loadB('k', cv)};`)}
              ${unroll(R, r => unroll(CV, cv => `acc${r}_${cv} = acc${r}_${cv} + ${A}[ar${r} + k] * b_${cv};`))}
            }`;
    const store = (value: string) => wgsl`
        let i = b * ${u(M * N)} + row * ${u(N)} + col;
        ${O}[i] = epilogue(${value}, i, ${channelExpr(c, 'col', 'row')});`;
    // Slot o < 4·slots holds output (row0 + o / 4⌈N/4⌉, o % 4⌈N/4⌉) when it is one.
    const guard = `${rowsExact ? '' : `row < ${u(M)} && `}col < ${u(N)}`;
    // Every lane holds every sum after subgroupAdd; lane l stores outputs l, l + L, … (output o: row o / N, column o % N).
    // A loop over a private array, not a store unrolled per output: lavapipe compiled the unrolled
    // form (72 guarded stores at R = 8, N = 9) in 3.5–5.3 s a pipeline, this one in 1.5–1.9 s, and
    // ran it no slower (BENCHMARKS.md, "kdot's stores in a loop").
    const summed = `sums[(o / ${u(N)}) * ${u(CV)} + col / 4u][col % 4u]`;
    const subgroupSum = () => wgsl`
        var sums: array<vec4<f32>, ${slots}>;
        ${unroll(R, r => unroll(CV, cv => `sums[${u(r * CV + cv)}] = subgroupAdd(acc${r}_${cv});`))}
        for (var o = lid.x; o < ${u(R * N)}; o = o + ${u(L)}) {
          let row = row0 + o / ${u(N)};
          let col = o % ${u(N)};
          ${rowsExact ? store(summed) : wgsl`
          if (row < ${u(M)}) {
            ${store(summed)}
          }`}
        }`;
    const treeSum = () => wgsl`
        ${unroll(R, r => unroll(CV, cv => `partial[${u((r * CV + cv) * L)} + lid.x] = acc${r}_${cv};`))}
        workgroupBarrier();
        for (var s = ${u(L / 2)}; s > 0u; s = s / 2u) {
          if (lid.x < s) {
            for (var slot = 0u; slot < ${u(slots)}; slot = slot + 1u) {
              partial[slot * ${u(L)} + lid.x] = partial[slot * ${u(L)} + lid.x] + partial[slot * ${u(L)} + lid.x + s];
            }
          }
          workgroupBarrier();
        }
        for (var o = lid.x; o < ${u(slots * 4)}; o = o + ${u(L)}) {
          let row = row0 + o / ${u(CV * 4)};
          let col = o % ${u(CV * 4)};
          if (${guard}) {
            ${store(`partial[(o / 4u) * ${u(L)}][col % 4u]`)}
          }
        }`;
    const code = lazyText(() => wgsl`
        ${gemmPrelude(c, specs, LDB, useSubgroup, true)}
        ${useSubgroup ? '' : `var<workgroup> partial: array<vec4<f32>, ${slots * L}>;`}
        ${mainStart([L, 1, 1])}
          let b = wid.y;
          let row0 = wid.x * ${u(R)};
          let aBase = a_off(b);
          let bBase = b_off(b);
          ${unroll(R, r => `let ar${r} = aBase + ${rowsExact ? `(row0 + ${u(r)})` : `min(row0 + ${u(r)}, ${u(M - 1)})`} * ${u(K)};`)}
          ${unroll(R, r => unroll(CV, cv => `var acc${r}_${cv} = vec4<f32>(0.0);`))}
          ${loop}
          ${useSubgroup ? subgroupSum() : treeSum()}
        }`);
    const elems = operandElems(c);
    const tilesM = Math.ceil(M / R);
    const grid: Partial<Record<SplitAxis, GridAxis>> = {};
    if (c.axes?.rows) grid[c.axes.rows] = { dim: 0, sharedBytes: 4 * numel(c.bLead) * K * LDB };
    if (c.axes?.problems) grid[c.axes.problems] = { dim: 1, sharedBytes: numel(c.aLead) === 1 ? 4 * M * K : 0 };
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `gemm.kdot|R=${R},L=${L},sg=${useSubgroup ? 1 : 0}|${gemmKeyBase(c)}`,
        // paddedOutputs: the outputs its accumulators compute (rows in blocks of R, columns in vec4s) against gemmOutputs, the
        // useful ones (plan/launch.ts launchEffectiveFlops): 9 columns cost as 12.
        variant: {
            variant: c.variantName, rows: R, workgroups: tilesM * batch, exactRows: rowsExact, ldbBytes: 4 * LDB, scalarLoads: (aVec ? 0 : 1) + (bVec ? 0 : 1),
            gemmOutputs: batch * M * N, paddedOutputs: batch * tilesM * R * 4 * CV,
        },
        workgroupSize: [L, 1, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: [tilesM, batch, 1],
        flops: 2 * batch * M * N * K,
        bytes: 4 * (elems[c.aRole] + elems[c.bRole] + elems[c.outRole]),
        grid,
    };
    checkLaunch(k, specs, elems, c.caps, useSubgroup ? 0 : 16 * slots * L);
    return { launches: [k], buffers: [] };
}

/** Workgroup-memory tiled GEMM: a T×T workgroup stages T×T tiles of A and B, one output per invocation. */
function wgmemGemm(c: GemmConfig, T: number): { launches: KernelDescription[]; buffers: LaunchBuffer[] } {
    const { M, N, K, batch } = c;
    const specs = baseSpecs(c, 'f32', 'f32');
    specs.push(...epilogueBindings(c.epilogue));
    specs.push({ role: c.outRole, access: 'read_write', elem: 'f32' });
    const A = ident(c.aRole), B = ident(c.bRole), O = ident(c.outRole);
    const exactM = M % T === 0, exactN = N % T === 0, exactK = K % T === 0;
    // Past the edges the tiles hold zeros (clamped loads, selected away).
    const guardA = [exactM ? '' : `r < ${u(M)}`, exactK ? '' : `ka < ${u(K)}`].filter(Boolean).join(' && ');
    const guardB = [exactK ? '' : `kb < ${u(K)}`, exactN ? '' : `col < ${u(N)}`].filter(Boolean).join(' && ');
    const loadA = guardA ? `select(0.0, ${A}[aBase + min(r, ${u(M - 1)}) * ${u(K)} + min(ka, ${u(K - 1)})], ${guardA})` : `${A}[aBase + r * ${u(K)} + ka]`;
    const loadB = guardB ? `select(0.0, ${B}[bBase + min(kb, ${u(K - 1)}) * ${u(N)} + min(col, ${u(N - 1)})], ${guardB})` : `${B}[bBase + kb * ${u(N)} + col]`;
    const code = lazyText(() => wgsl`
        ${gemmPrelude(c, specs, N, false, true)}
        var<workgroup> As: array<array<f32, ${T}>, ${T}>;
        var<workgroup> Bs: array<array<f32, ${T}>, ${T}>;
        ${mainStart([T, T, 1])}
          let b = wid.z;
          let r = wid.y * ${u(T)} + lid.y;
          let col = wid.x * ${u(T)} + lid.x;
          let aBase = a_off(b);
          let bBase = b_off(b);
          var acc = 0.0;
          // K's tiles, a bound the compiler cannot read (no buffer holds 2³¹ elements, so the xor is K):
          // lavapipe unrolls a loop of known count, barriers and all, and compiled K = 144 in 6 s
          // instead of 0.2 s. Rolled, it runs 1.3× slower there, on a variant already 5–30× slower
          // than the register-tiled ones (BENCHMARKS.md, "wgmem's tile loop rolled").
          let kEnd = ${u(K)} ^ (arrayLength(&${A}) & 0x80000000u);
          for (var k0 = 0u; k0 < kEnd; k0 = k0 + ${u(T)}) {
            let ka = k0 + lid.x;
            let kb = k0 + lid.y;
            As[lid.y][lid.x] = ${loadA};
            Bs[lid.y][lid.x] = ${loadB};
            workgroupBarrier();
            for (var kk = 0u; kk < ${u(T)}; kk = kk + 1u) { acc = acc + As[lid.y][kk] * Bs[kk][lid.x]; }
            workgroupBarrier();
          }
          ${exactM && exactN ? '' : `if (r >= ${u(M)} || col >= ${u(N)}) { return; }`}
          let i = b * ${u(M * N)} + r * ${u(N)} + col;
          ${O}[i] = epilogue(acc, i, ${channelExpr(c, 'col', 'r')});
        }`);
    const elems = operandElems(c);
    const k: KernelDescription = {
        name: `${c.opName}.${c.variantName}`,
        cacheKey: `gemm.wgmem|T=${T}|${gemmKeyBase(c)}`,
        variant: { variant: c.variantName, tile: T, workgroups: Math.ceil(N / T) * Math.ceil(M / T) * batch, exactRows: exactM, exactCols: exactN },
        workgroupSize: [T, T, 1],
        bindings: bindingList(specs),
        wgsl: code,
        dispatch: [Math.ceil(N / T), Math.ceil(M / T), batch],
        flops: 2 * batch * M * N * K,
        bytes: 4 * (elems[c.aRole] + elems[c.bRole] + elems[c.outRole]),
        grid: gemmGrid(c, false),
    };
    checkLaunch(k, specs, elems, c.caps, 2 * T * T * 4);
    return { launches: [k], buffers: [] };
}

/**
 * Picks a default GEMM variant for a shape (the compiler's tuning cache overrides it): the
 * subgroup-broadcast tiles when the device has a fixed subgroup size and there are rows to
 * share, split-K when there are too few tiles to keep the device busy.
 */
export function defaultGemmVariant(M: number, N: number, K: number, batch: number, caps?: DeviceCaps): GemmVariant {
    const sg = caps?.subgroupSize !== undefined && M >= 8;
    const tiles = sg ? Math.ceil(M / 64) * Math.ceil(N / (4 * caps!.subgroupSize!)) * batch : Math.ceil(M / 32) * Math.ceil(N / 64) * batch;
    if (tiles < 4 && K >= 1024) return sg ? { family: 'sgsplitk', splits: 4 } : { family: 'splitk', splits: 4 };
    if (sg) return { family: 'sgrow', tm: 8, tn: 4 };
    // One or two rows (a batch-1 or batch-2 dense: classifier heads, GEMVs): tiles of as many rows,
    // so no lane computes a clamped duplicate row. On lavapipe 1×1280→1000 took 0.71 ms on 1-row
    // tiles, 0.93 on 4-row ones, and 2×1183→283 0.43 on 2-row tiles against 0.71.
    return { family: 'vec4', tm: M <= 1 ? 1 : M <= 2 ? 2 : 4, tn: 8 };
}

/** The requested GEMM variant (a name from the request, parsed here), or the default for the shape. */
function resolveVariant(op: IrOp, name: string | undefined, M: number, N: number, K: number, batch: number, caps: DeviceCaps): GemmVariant {
    if (name === undefined) return defaultGemmVariant(M, N, K, batch, caps);
    const v = parseGemmVariant(name);
    if (!v) throw unknownVariant(op, name, [...GEMM_VARIANTS, 'vec4_<1..8>x<4|8>', 'sg_<1..16>x<4|8>', 'sgrow_<1..16>x<4|8>', 'capped_<W>', 'splitk_<S>', 'sgsplitk_<S>', 'wgmem_<T>x<T>', 'kdot_<1|2|4|8> (at most 16 columns)']);
    return v;
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
    const variant = resolveVariant(op, req.variant, M, units, K, 1, req.caps);
    const g = gemmLaunches({
        opName: op.kind, variantName: gemmVariantName(variant), variant, M, N: units, K, batch: 1, outLead: [], aLead: [], bLead: [],
        aRole: 'in0', bRole: 'weight', outRole: 'out', ownBias: hasBias ? 'bias' : undefined, epilogue: req.epilogue,
        channel: 'col', axes: { cols: 'channels', rows: 'rows' }, caps: req.caps, where: at(op),
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
    const variant = resolveVariant(op, req.variant, M, N, K, batch, req.caps);
    const g = gemmLaunches({
        opName: op.kind, variantName: gemmVariantName(variant), variant, M, N, K, batch, outLead, aLead, bLead,
        aRole: 'in0', bRole: 'in1', outRole: 'out', epilogue: req.epilogue, channel: 'col',
        axes: { cols: 'channels', rows: 'rows', problems: 'batch' }, caps: req.caps, where: at(op),
    });
    return { launches: g.launches, buffers: g.buffers };
}
