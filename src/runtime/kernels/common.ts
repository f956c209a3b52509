/**
 * Shared pieces of the kernel generators: errors, shape arithmetic, binding declarations,
 * epilogue WGSL, dispatch folding and the checks against DeviceCaps. Pure: no GPUDevice.
 */
import { formatBytes } from '../../protocol/units.js';
import type { IrOp } from '../ir/types.js';
import type { BindingAccess, DeviceCaps, Epilogue, KernelDescription, KernelRequest } from './kernel.js';

/** A request the generators cannot serve (bad shapes, unknown variant, device too small). */
export class KernelError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'KernelError';
    }
}

/** Product of dims, for the generators beside their other helpers (one definition: ir/types.ts). */
export { numel } from '../ir/types.js';

/** Row-major strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
    const s = new Array<number>(shape.length).fill(1);
    for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
    return s;
}

/** `where` prefix for error messages: the op path and kind. */
export function at(op: IrOp): string {
    return `${op.path} (${op.kind})`;
}

export function fmtShape(shape: readonly number[]): string {
    return `[${shape.join(', ')}]`;
}

/** WGSL literal for an unsigned constant. */
export function u(n: number): string {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new KernelError(`internal: ${n} is not a u32`);
    return `${n}u`;
}

/** WGSL literal for an f32 constant (always with a decimal point or exponent). */
export function f(x: number): string {
    if (!Number.isFinite(x)) throw new KernelError(`internal: ${x} is not a finite f32`);
    const s = String(x);
    return /[.e]/.test(s) ? s : `${s}.0`;
}

/** A WGSL identifier for a buffer role ("w_ih.0" → "t_w_ih_0"). */
export function ident(role: string): string {
    return 't_' + role.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Element type a binding is declared with in WGSL. */
export type WgslElem = 'f32' | 'vec4<f32>' | 'i32' | 'u32';

export interface BindingSpec {
    role: string;
    access: BindingAccess;
    /** Element type of the runtime-sized array (storage) — ignored for uniforms. */
    elem?: WgslElem;
    /** WGSL struct type name for a uniform binding. */
    uniformType?: string;
}

/** WGSL declarations for group 0 in binding order. */
export function declareBindings(specs: readonly BindingSpec[]): string {
    return specs.map((b, i) => {
        if (b.access === 'uniform') return `@group(0) @binding(${i}) var<uniform> ${ident(b.role)}: ${b.uniformType ?? 'Params'};`;
        const mode = b.access === 'read' ? 'read' : 'read_write';
        return `@group(0) @binding(${i}) var<storage, ${mode}> ${ident(b.role)}: array<${b.elem ?? 'f32'}>;`;
    }).join('\n');
}

/** A kernel's WGSL text built on first use: planning and prediction read descriptions, only compiling reads the text. */
export function lazyText(build: () => string): () => string {
    let text: string | undefined;
    return () => (text ??= build());
}

/**
 * Tagged template for WGSL written as WGSL: the template's lines are taken flush left, a line
 * that holds only an empty value (`${cond ? '…' : ''}` on a line of its own) is dropped, and so
 * are the blank lines the template opens and closes with. Values go in as they are, so nested
 * templates are not re-indented: only the compiler reads the text, and indenting it was a
 * measurable share of the time to build it.
 */
export function wgsl(strings: TemplateStringsArray, ...values: readonly (string | number)[]): string {
    let t = compiledTemplates.get(strings);
    if (!t) compiledTemplates.set(strings, t = compileTemplate(strings));
    let text = t.parts[0];
    for (let i = 0; i < values.length; i++) {
        const value = values[i];
        let next = t.parts[i + 1];
        if (value === '' && t.alone[i]) {
            // Drop the line: its line break after it, or before it on the last line.
            if (next.startsWith('\n')) next = next.slice(1);
            else if (text.endsWith('\n')) text = text.slice(0, -1);
        } else {
            text += value;
        }
        text += next;
    }
    return text;
}

/** A template's static text, prepared once per call site: the parts between values, flush left, and whether each value is alone on its line. */
interface CompiledTemplate { parts: string[]; alone: boolean[] }

const compiledTemplates = new WeakMap<TemplateStringsArray, CompiledTemplate>();

const VALUE = '\u0000';

function compileTemplate(strings: TemplateStringsArray): CompiledTemplate {
    const lines = strings.join(VALUE).split('\n').map(l => l.trim());
    if (lines.length > 1 && lines[0] === '') lines.shift();
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const alone: boolean[] = [];
    for (const line of lines) {
        const count = line.split(VALUE).length - 1;
        for (let k = 0; k < count; k++) alone.push(line === VALUE);
    }
    return { parts: lines.join('\n').split(VALUE), alone };
}

/** An unrolled loop: the lines (or blocks) `body(0)` … `body(count − 1)`, one after another. */
export function unroll(count: number, body: (i: number) => string): string {
    let text = '';
    for (let i = 0; i < count; i++) text += (i ? '\n' : '') + body(i);
    return text;
}

/**
 * The entry point's header; its body follows and ends with `}`. Every kernel names the
 * builtins alike: `wid` (workgroup id) and `lid` (local invocation id).
 */
export function mainStart(workgroupSize: readonly [number, number, number]): string {
    return wgsl`
        @compute @workgroup_size(${workgroupSize.join(', ')})
        fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {`;
}

/** A 1-D launch: `groups` workgroups of `workgroupSize` invocations, folded over x and y by fold1D. */
export interface Grid1D {
    workgroupSize: number;
    groups: number;
    dispatch: [number, number, number];
}

/** The 1-D launch covering `items` invocations (rounded up to whole workgroups). */
export function grid1D(items: number, caps: DeviceCaps, where: string, workgroupSize = 64): Grid1D {
    const groups = Math.ceil(items / workgroupSize);
    return { workgroupSize, groups, dispatch: fold1D(groups, caps, where) };
}

/** WGSL expression: the flat workgroup index of a dispatch folded by fold1D. */
export function flatWorkgroupId(dispatch: readonly [number, number, number]): string {
    return `wid.x + wid.y * ${u(dispatch[0])}`;
}

/** WGSL expression: the flat invocation index of a 1-D launch. */
export function flatInvocationId(grid: Grid1D): string {
    return `(${flatWorkgroupId(grid.dispatch)}) * ${u(grid.workgroupSize)} + lid.x`;
}

/**
 * The shared prologue of a 1-D launch: the entry point, `let <index>` = the flat invocation
 * index, and a guard that returns past `count` (the invocations of the last, partial workgroup).
 */
export function main1D(grid: Grid1D, index: string, count: number): string {
    return wgsl`
        ${mainStart([grid.workgroupSize, 1, 1])}
          let ${index} = ${flatInvocationId(grid)};
          if (${index} >= ${u(count)}) { return; }`;
}

/** The contract's binding list (role + access) from specs. */
export function bindingList(specs: readonly BindingSpec[]): KernelDescription['bindings'] {
    return specs.map(b => ({ role: b.role, access: b.access }));
}

/** WGSL text of every activation, by name. gelu is the tanh approximation (as in GPT-2/BERT code). */
export const ACTIVATION_WGSL: Record<string, string> = {
    relu: 'max(x, 0.0)',
    relu6: 'clamp(x, 0.0, 6.0)',
    // tanh argument clamped: some WGSL backends compute tanh through exp and overflow to NaN.
    gelu: '0.5 * x * (1.0 + tanh(clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -15.0, 15.0)))',
    sigmoid: '1.0 / (1.0 + exp(-x))',
    tanh: 'tanh(clamp(x, -15.0, 15.0))',
    silu: 'x / (1.0 + exp(-x))',
};

export type ActivationName = 'relu' | 'relu6' | 'gelu' | 'sigmoid' | 'tanh' | 'silu';
export const ACTIVATIONS: readonly ActivationName[] = ['relu', 'relu6', 'gelu', 'sigmoid', 'tanh', 'silu'];

/** Roles of the extra buffers an epilogue reads, in order of first use. */
export function epilogueRoles(epilogue: readonly Epilogue[]): string[] {
    const roles: string[] = [];
    const add = (r: string) => { if (!roles.includes(r)) roles.push(r); };
    for (const e of epilogue) {
        if (e.kind === 'bias' || e.kind === 'add' || e.kind === 'mul') add(e.tensor);
        else if (e.kind === 'scale_shift') { add(e.scale); add(e.shift); }
    }
    return roles;
}

/** Binding specs for the epilogue's tensors (read-only f32 arrays). */
export function epilogueBindings(epilogue: readonly Epilogue[]): BindingSpec[] {
    return epilogueRoles(epilogue).map(role => ({ role, access: 'read' as const, elem: 'f32' as const }));
}

/** A short, stable text for cache keys. */
export function epilogueKey(epilogue: readonly Epilogue[]): string {
    if (epilogue.length === 0) return '';
    return '|epi:' + epilogue.map(e => {
        switch (e.kind) {
            case 'bias': return `bias(${e.tensor})`;
            case 'scale_shift': return `ss(${e.scale},${e.shift})`;
            case 'activation': return e.fn;
            case 'add': return `add(${e.tensor})`;
            case 'mul': return `mul(${e.tensor})`;
        }
    }).join(',');
}

/**
 * `fn epilogue(v: f32, i: u32, c: u32) -> f32`: v the accumulated value, i its flat output
 * index, c its channel. `ownBias` (the op's own bias role, e.g. dense bias) is added first.
 */
export function epilogueFn(epilogue: readonly Epilogue[], ownBias?: string): string {
    return wgsl`
        fn epilogue(v: f32, i: u32, c: u32) -> f32 {
          var x = v;
          ${ownBias ? `x = x + ${ident(ownBias)}[c];` : ''}
          ${epilogue.map(epilogueStep).join('\n')}
          _ = i; _ = c;
          return x;
        }`;
}

/** One epilogue step as a WGSL statement on `x`. */
function epilogueStep(e: Epilogue): string {
    switch (e.kind) {
        case 'bias': return `x = x + ${ident(e.tensor)}[c];`;
        case 'scale_shift': return `x = x * ${ident(e.scale)}[c] + ${ident(e.shift)}[c];`;
        case 'activation': return `x = ${ACTIVATION_WGSL[e.fn]};`;
        case 'add': return `x = x + ${ident(e.tensor)}[i];`;
        case 'mul': return `x = x * ${ident(e.tensor)}[i];`;
    }
}

/** Checks that every epilogue entry is well-formed (roles given, activation known). */
export function checkEpilogue(op: IrOp, epilogue: readonly Epilogue[]): void {
    for (const e of epilogue) {
        if (e.kind === 'activation' && !(e.fn in ACTIVATION_WGSL)) {
            throw new KernelError(`${at(op)}: unknown epilogue activation '${String(e.fn)}'; expected one of ${ACTIVATIONS.join(', ')}`);
        }
        const roles = e.kind === 'scale_shift' ? [e.scale, e.shift] : e.kind === 'activation' ? [] : [e.tensor];
        for (const r of roles) {
            if (typeof r !== 'string' || r.length === 0) throw new KernelError(`${at(op)}: epilogue '${e.kind}' needs a tensor role name, found ${JSON.stringify(r)}`);
            if (r === 'out' || /^in\d+$/.test(r)) throw new KernelError(`${at(op)}: epilogue role '${r}' clashes with the op's own input/output roles; name it e.g. 'residual'`);
        }
    }
}

/**
 * Splits a 1-D workgroup count over x and y so that neither exceeds the device limit.
 * WGSL recovers the linear id as `wid.x + wid.y * dispatch[0]`.
 */
export function fold1D(groups: number, caps: DeviceCaps, where: string): [number, number, number] {
    const max = caps.maxComputeWorkgroupsPerDimension;
    if (groups <= max) return [Math.max(1, groups), 1, 1];
    const y = Math.ceil(groups / max);
    if (y > max) throw new KernelError(`${where}: needs ${groups} workgroups, more than this device can dispatch (${max}×${max})`);
    return [Math.ceil(groups / y), y, 1];
}

/** Checks a workgroup size against the device. */
export function checkWorkgroup(name: string, wg: [number, number, number], caps: DeviceCaps): void {
    const inv = wg[0] * wg[1] * wg[2];
    if (inv > caps.maxComputeInvocationsPerWorkgroup) {
        throw new KernelError(`${name} needs ${inv} invocations per workgroup; this device allows ${caps.maxComputeInvocationsPerWorkgroup}`);
    }
    const lim = [caps.maxComputeWorkgroupSizeX, caps.maxComputeWorkgroupSizeY, caps.maxComputeWorkgroupSizeZ];
    for (let i = 0; i < 3; i++) {
        if (wg[i] > lim[i]) throw new KernelError(`${name} needs workgroup size ${'xyz'[i]} = ${wg[i]}; this device allows ${lim[i]}`);
    }
}

/** Checks workgroup storage use against the device. */
export function checkWorkgroupStorage(name: string, bytes: number, caps: DeviceCaps): void {
    if (bytes > caps.maxComputeWorkgroupStorageSize) {
        throw new KernelError(`${name} needs ${formatBytes(bytes)} workgroup storage; this device allows ${formatBytes(caps.maxComputeWorkgroupStorageSize)}`);
    }
}

/** Checks a dispatch size against the device. */
export function checkDispatch(name: string, d: [number, number, number], caps: DeviceCaps): void {
    for (let i = 0; i < 3; i++) {
        if (d[i] > caps.maxComputeWorkgroupsPerDimension) {
            throw new KernelError(`${name} dispatches ${d[i]} workgroups along ${'xyz'[i]}; this device allows ${caps.maxComputeWorkgroupsPerDimension}`);
        }
    }
}

/** Checks the number of storage bindings and each buffer's size (elements × 4 bytes). */
export function checkBuffers(name: string, specs: readonly BindingSpec[], elems: Record<string, number>, caps: DeviceCaps): void {
    const storage = specs.filter(s => s.access !== 'uniform').length;
    if (storage > caps.maxStorageBuffersPerShaderStage) {
        throw new KernelError(`${name} binds ${storage} storage buffers; this device allows ${caps.maxStorageBuffersPerShaderStage} per shader stage`);
    }
    for (const s of specs) {
        const n = elems[s.role];
        if (n === undefined) continue;
        const bytes = n * 4;
        if (bytes > caps.maxStorageBufferBindingSize) {
            throw new KernelError(`${name}: buffer '${s.role}' needs ${bytes} bytes; this device binds at most ${caps.maxStorageBufferBindingSize} bytes per storage buffer`);
        }
    }
}

/** Runs every device check for a finished launch. */
export function checkLaunch(k: KernelDescription, specs: readonly BindingSpec[], elems: Record<string, number>, caps: DeviceCaps, workgroupBytes = 0): void {
    checkWorkgroup(k.name, k.workgroupSize, caps);
    checkDispatch(k.name, k.dispatch, caps);
    checkBuffers(k.name, specs, elems, caps);
    if (workgroupBytes > 0) checkWorkgroupStorage(k.name, workgroupBytes, caps);
}

/** Reads a numeric attribute, with a clear error when it is missing or of the wrong kind. */
export function numAttr(op: IrOp, name: string, fallback?: number): number {
    const v = op.attrs[name];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new KernelError(`${at(op)}: attribute '${name}' must be a number, found ${JSON.stringify(v)}`);
    }
    return v;
}

/** Reads a boolean attribute (default when missing). */
export function boolAttr(op: IrOp, name: string, fallback: boolean): boolean {
    const v = op.attrs[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw new KernelError(`${at(op)}: attribute '${name}' must be true or false, found ${JSON.stringify(v)}`);
    return v;
}

/** Reads a numeric tuple attribute of a given length. */
export function tupleAttr(op: IrOp, name: string, length: number, fallback?: number[]): number[] {
    let v = op.attrs[name];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v === 'number') v = new Array<number>(length).fill(v);
    if (!Array.isArray(v) || v.length !== length || v.some(x => typeof x !== 'number' || !Number.isInteger(x))) {
        throw new KernelError(`${at(op)}: attribute '${name}' must be ${length} integers, found ${JSON.stringify(v)}`);
    }
    return v;
}

/** Checks the number of inputs. */
export function expectInputs(req: KernelRequest, n: number): void {
    if (req.inputShapes.length !== n) {
        throw new KernelError(`${at(req.op)}: expected ${n} input${n === 1 ? '' : 's'}, found ${req.inputShapes.length}`);
    }
}

/** Checks the output shape the compiler computed against the one the kernel computes. */
export function expectOutputShape(req: KernelRequest, expected: readonly number[]): void {
    const got = req.outputShape;
    if (got.length !== expected.length || got.some((d, i) => d !== expected[i])) {
        throw new KernelError(`${at(req.op)}: output shape ${fmtShape(got)} does not match the shape this op computes, ${fmtShape(expected)}`);
    }
}


/**
 * Parses "name_<int>" variant names (e.g. "capped_8", "splitk_4"); returns undefined if
 * the name does not have that prefix.
 */
export function intSuffix(variant: string, prefix: string): number | undefined {
    const m = new RegExp(`^${prefix}_(\\d+)$`).exec(variant);
    return m ? Number(m[1]) : undefined;
}

/** Error for an unknown variant name, listing the valid ones. */
export function unknownVariant(op: IrOp, variant: string, valid: readonly string[]): KernelError {
    return new KernelError(`${at(op)}: unknown variant '${variant}'; this op supports ${valid.join(', ')}`);
}

/** Axis of the "channel" an epilogue's bias/scale index refers to, for an op's output. */
export function channelAxisFor(kind: IrOp['kind'], rank: number): number {
    const nchw = ['conv2d', 'depthwise_conv2d', 'max_pool2d', 'avg_pool2d', 'global_avg_pool', 'batch_norm'];
    if (nchw.includes(kind) && rank >= 2) return 1;
    return Math.max(0, rank - 1);
}
