/**
 * Reading a workload: device, tenants (model, arrival, slos, priority), schedule and benchmark
 * resolved to the IR's values with the defaults of docs/language.md#workloads, plus every problem found on the way
 * (`bad-argument`, `duplicate-name`). One reading serves the validator (which reports the
 * issues) and lowering (which uses the values), so the two never disagree.
 */
import type { AstNode } from 'langium';
import type {
    IrArrival, IrBenchmark, IrDevicePreference, IrPercentile, IrPriority, IrSchedule, IrSlo,
} from '../../runtime/ir/types.js';
import {
    ARRIVAL_KINDS as arrivalKinds, DEVICE_PREFERENCES as devicePreferences, PRIORITIES as priorities,
    SCHEDULE_POLICIES as policies, SLO_PERCENTILES as percentiles,
} from '../../runtime/ir/vocabulary.js';
import {
    isArrivalProp, isBenchmarkDecl, isBinaryExpr, isBoolLit, isDecimalLit, isDeviceDecl, isIntLit, isModelProp, isNameRef,
    isNegation, isPriorityProp, isQuantityLit, isScheduleDecl, isSloProp, isStringLit, isTenant, isTuple,
    type Expression, type ModelProp, type NamedArg, type Tenant, type Workload,
} from '../generated/ast.js';
import { IssueCodes } from '../validation/issue-codes.js';
import { parseQuantity, quantityKindText, type QuantityKind } from './quantities.js';
import type { AnalysisIssue } from './types.js';

/** One tenant as read. */
export interface TenantReading {
    node: Tenant;
    name: string;
    model?: ModelProp;
    arrival: IrArrival;
    slos: (IrSlo & { node: AstNode })[];
    priority: IrPriority;
}

/** A workload as read, with defaults applied. */
export interface WorkloadReading {
    device: { preference: IrDevicePreference; memoryBytes?: number };
    tenants: TenantReading[];
    schedule: IrSchedule;
    benchmark: IrBenchmark;
    issues: AnalysisIssue[];
}

/** Benchmark settings; `repetitions` is the earlier name of `rounds`. */
export const benchmarkSettings = ['duration', 'warmup', 'rounds', 'budget', 'min_requests', 'requests', 'seed', 'repetitions'] as const;

/** What an argument accepts. */
/** `orZero`: a quantity that may be 0 (a think time, a warm-up); others must be more than 0. */
type ArgKind = { quantity: QuantityKind; orZero?: boolean } | 'positive-int' | 'non-negative-int' | 'int-or-auto' | { words: readonly string[] };

interface ArgSpec {
    kind: ArgKind;
    required?: boolean;
}

/** Expected-value text for messages. */
function kindText(kind: ArgKind): string {
    if (kind === 'positive-int') return 'a positive integer';
    if (kind === 'non-negative-int') return 'a non-negative integer';
    if (kind === 'int-or-auto') return 'a positive integer or auto';
    if ('quantity' in kind) return quantityKindText(kind.quantity);
    return kind.words.join(' or ');
}

/** Why a value is not of a kind: "must be a time (…), found rate 2/s", or "must be more than 0, found 0ms" for a quantity of the right kind. */
function mismatch(kind: ArgKind, e: Expression): string {
    if (typeof kind === 'object' && 'quantity' in kind && isQuantityLit(e) && parseQuantity(e.value)?.kind === kind.quantity) return `must be more than 0, found ${e.value}`;
    return `must be ${kindText(kind)}, found ${describeExpression(e)}`;
}

/** The source text of an expression (for "found …"). */
function text(e: AstNode): string {
    return e.$cstNode?.text ?? '?';
}

/** A workload argument's value: number, word, quantity; undefined when of the wrong kind. */
function readValue(e: Expression, kind: ArgKind): number | string | undefined {
    if (kind === 'positive-int' || kind === 'non-negative-int' || kind === 'int-or-auto') {
        if (isIntLit(e)) return kind === 'non-negative-int' || e.value > 0 ? e.value : undefined;
        if (kind === 'int-or-auto' && isNameRef(e) && e.ref.$refText === 'auto') return 'auto';
        return undefined;
    }
    if ('quantity' in kind) {
        if (!isQuantityLit(e)) return undefined;
        const q = parseQuantity(e.value);
        return q && q.kind === kind.quantity && (q.value > 0 || (kind.orZero && q.value === 0)) ? q.value : undefined;
    }
    if (isNameRef(e) && kind.words.includes(e.ref.$refText)) return e.ref.$refText;
    return undefined;
}

/** Reads `name: value` arguments against a spec; unknown, repeated, missing or wrong-kind → bad-argument. */
function readArgs(what: string, args: readonly NamedArg[], spec: Record<string, ArgSpec>, at: AstNode, property: string, issues: AnalysisIssue[]): Map<string, number | string> {
    const out = new Map<string, number | string>();
    const allowed = Object.keys(spec);
    const expected = allowed.length === 0 ? 'no arguments' : allowed.map(n => `${n}: ${kindText(spec[n].kind)}`).join(', ');
    for (const arg of args) {
        if (!arg.value) continue; // incomplete text: the syntax error says what is missing
        const s = spec[arg.name];
        if (!s) {
            issues.push(bad(`${what} has no argument '${arg.name}'; expected ${expected}`, arg, 'name'));
            continue;
        }
        if (out.has(arg.name)) {
            issues.push(bad(`argument '${arg.name}' of ${what} is given twice`, arg, 'name'));
            continue;
        }
        const value = readValue(arg.value, s.kind);
        if (value === undefined) {
            issues.push(bad(`${what}: '${arg.name}' ${mismatch(s.kind, arg.value)}`, arg.value));
            out.set(arg.name, NaN);
            continue;
        }
        out.set(arg.name, value);
    }
    for (const [name, s] of Object.entries(spec)) {
        if (s.required && !out.has(name)) issues.push(bad(`${what} needs argument '${name}: ${kindText(s.kind)}'`, at, property));
    }
    return out;
}

/** "quantity 20/s", "integer 3", "word none" — what a workload value is. */
export function describeExpression(e: Expression): string {
    if (isQuantityLit(e)) {
        const q = parseQuantity(e.value);
        return q ? `${q.kind} ${e.value}` : e.value;
    }
    if (isIntLit(e)) return `integer ${e.value}`;
    if (isDecimalLit(e)) return `number ${e.value}`;
    if (isNameRef(e)) return `'${e.ref.$refText}'`;
    if (isStringLit(e)) return `string "${e.value}"`;
    if (isBoolLit(e)) return `boolean ${e.value}`;
    if (isNegation(e)) return `number ${text(e)}`;
    if (isTuple(e)) return `tuple ${text(e)}`;
    if (isBinaryExpr(e)) return `expression ${text(e)}`;
    return text(e);
}

function bad(message: string, node: AstNode, property?: string): AnalysisIssue {
    return { code: IssueCodes.BadArgument, severity: 'error', message, node, property };
}

function oneOf<T extends string>(word: string, words: readonly T[]): T | undefined {
    return (words as readonly string[]).includes(word) ? word as T : undefined;
}

/** Reads a workload (never throws; problems are in `issues`). */
export function readWorkload(workload: Workload): WorkloadReading {
    const issues: AnalysisIssue[] = [];
    const reading: WorkloadReading = {
        device: { preference: 'auto' },
        tenants: [],
        schedule: { policy: 'concurrent' },
        benchmark: { durationMs: 5000, warmupMs: 1000, seed: 0 },
        issues,
    };
    const seen = new Map<string, AstNode>();
    const once = (key: string, node: AstNode, what: string): boolean => {
        if (seen.has(key)) {
            issues.push(bad(`${what} is given more than once in ${named('workload', workload.name)}; keep one`, node));
            return false;
        }
        seen.set(key, node);
        return true;
    };
    const tenantNames = new Set<string>();
    for (const member of workload.members) {
        if (isDeviceDecl(member)) {
            if (!once('device', member, 'device')) continue;
            const preference = oneOf(member.kind, devicePreferences);
            if (!preference && member.kind !== undefined) issues.push(bad(`unknown device '${member.kind}'; expected ${devicePreferences.join(', ')}`, member, 'kind'));
            const args = readArgs(`device ${member.kind}`, member.args, { memory: { kind: { quantity: 'memory' } } }, member, 'kind', issues);
            reading.device = { preference: preference ?? 'auto' };
            const memory = args.get('memory');
            if (typeof memory === 'number' && !Number.isNaN(memory)) reading.device.memoryBytes = memory;
        } else if (isScheduleDecl(member)) {
            if (!once('schedule', member, 'schedule')) continue;
            reading.schedule = readSchedule(member.policy, member.args, member, issues);
        } else if (isBenchmarkDecl(member)) {
            if (!once('benchmark', member, 'benchmark')) continue;
            const settings = new Set<string>();
            for (const setting of member.settings) {
                if (!setting.value) continue;
                const key = oneOf(setting.key, benchmarkSettings);
                if (!key) {
                    if (setting.key !== undefined) issues.push(bad(`unknown benchmark setting '${setting.key}'; expected ${benchmarkSettings.join(', ')}`, setting, 'key'));
                    continue;
                }
                if (settings.has(key)) {
                    issues.push(bad(`benchmark setting '${key}' is given more than once`, setting, 'key'));
                    continue;
                }
                settings.add(key);
                const kind: ArgKind = key === 'duration' || key === 'budget' ? { quantity: 'time' } : key === 'warmup' ? { quantity: 'time', orZero: true } : key === 'seed' ? 'non-negative-int' : 'positive-int';
                const value = key === 'warmup' && isIntLit(setting.value) && setting.value.value === 0 ? 0 : readValue(setting.value, kind);
                if (typeof value !== 'number') {
                    issues.push(bad(`benchmark ${key} ${mismatch(kind, setting.value)}`, setting.value));
                    continue;
                }
                if (key === 'duration') reading.benchmark.durationMs = value;
                else if (key === 'warmup') reading.benchmark.warmupMs = value;
                else if (key === 'seed') reading.benchmark.seed = value;
                else if (key === 'requests') reading.benchmark.requests = value;
                else if (key === 'budget') reading.benchmark.budgetMs = value;
                else if (key === 'min_requests') reading.benchmark.minRequests = value;
                else reading.benchmark.rounds = value;
            }
        } else if (isTenant(member)) {
            if (member.name && tenantNames.has(member.name)) {
                issues.push({ code: IssueCodes.DuplicateName, severity: 'error', message: `tenant '${member.name}' is defined more than once in ${named('workload', workload.name)}`, node: member, property: 'name' });
            }
            tenantNames.add(member.name);
            reading.tenants.push(readTenant(member, issues));
        }
    }
    if (reading.tenants.length === 0) {
        issues.push(bad(`${named('workload', workload.name)} has no tenant; add one: tenant name { model … }`, workload, 'name'));
    }
    return reading;
}

function readSchedule(policyWord: string, args: readonly NamedArg[], node: AstNode, issues: AnalysisIssue[]): IrSchedule {
    const policy = oneOf(policyWord, policies);
    if (!policy) {
        if (policyWord !== undefined) issues.push(bad(`unknown schedule '${policyWord}'; expected ${policies.join(', ')}`, node, 'policy'));
        return { policy: 'concurrent' };
    }
    const what = `schedule ${policy}`;
    const num = (v: number | string | undefined, fallback: number | 'auto'): number | 'auto' =>
        v === undefined || (typeof v === 'number' && Number.isNaN(v)) ? fallback : v === 'auto' ? 'auto' : Number(v);
    switch (policy) {
        case 'sequential': case 'concurrent': case 'auto':
            readArgs(what, args, {}, node, 'policy', issues);
            return { policy };
        case 'layer_block': {
            const a = readArgs(what, args, { size: { kind: 'int-or-auto' } }, node, 'policy', issues);
            return { policy, size: num(a.get('size'), 'auto') };
        }
        case 'regulated': {
            const a = readArgs(what, args, { split: { kind: 'int-or-auto' }, sync: { kind: { words: ['auto', 'none'] } } }, node, 'policy', issues);
            const sync = a.get('sync');
            return { policy, split: num(a.get('split'), 'auto'), sync: sync === 'none' ? 'none' : 'auto' };
        }
        case 'co_tuned': {
            const a = readArgs(what, args, { variants: { kind: 'positive-int', required: true } }, node, 'policy', issues);
            const v = a.get('variants');
            return { policy, variants: typeof v === 'number' && !Number.isNaN(v) ? v : 1 };
        }
    }
}

function readTenant(tenant: Tenant, issues: AnalysisIssue[]): TenantReading {
    const reading: TenantReading = { node: tenant, name: tenant.name, arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], priority: 'normal' };
    let arrivalSeen = false;
    let prioritySeen = false;
    let modelLineTyped = false;
    for (const prop of tenant.props) {
        if (isModelProp(prop)) {
            if (!prop.call) { modelLineTyped = true; continue; } // `model` with no call yet: the syntax error says what is missing
            if (reading.model) issues.push(bad(`${named('tenant', tenant.name)} has more than one model line; a tenant runs exactly one model`, prop));
            else reading.model = prop;
        } else if (isArrivalProp(prop)) {
            if (arrivalSeen) { issues.push(bad(`${named('tenant', tenant.name)} has more than one arrival line; keep one`, prop)); continue; }
            arrivalSeen = true;
            const kind = oneOf(prop.kind, arrivalKinds);
            if (!kind) { if (prop.kind !== undefined) issues.push(bad(`unknown arrival '${prop.kind}'; expected ${arrivalKinds.join(', ')}`, prop, 'kind')); continue; }
            const what = `arrival ${kind}`;
            if (kind === 'poisson') {
                const a = readArgs(what, prop.args, { rate: { kind: { quantity: 'rate' }, required: true } }, prop, 'kind', issues);
                reading.arrival = { kind, ratePerSecond: validNumber(a.get('rate'), 1) };
            } else if (kind === 'closed') {
                const a = readArgs(what, prop.args, { clients: { kind: 'positive-int', required: true }, think: { kind: { quantity: 'time', orZero: true } } }, prop, 'kind', issues);
                reading.arrival = { kind, clients: validNumber(a.get('clients'), 1), thinkMs: validNumber(a.get('think'), 0) };
            } else {
                const a = readArgs(what, prop.args, { every: { kind: { quantity: 'time' }, required: true } }, prop, 'kind', issues);
                reading.arrival = { kind, everyMs: validNumber(a.get('every'), 1000) };
            }
        } else if (isSloProp(prop)) {
            if (!prop.value) continue;
            const percentile = oneOf(prop.percentile, percentiles);
            if (!percentile) { if (prop.percentile !== undefined) issues.push(bad(`unknown percentile '${prop.percentile}'; expected ${percentiles.join(', ')}`, prop, 'percentile')); continue; }
            const ms = readValue(prop.value, { quantity: 'time' });
            if (typeof ms !== 'number') { issues.push(bad(`slo ${percentile} must be ${quantityKindText('time')}, found ${describeExpression(prop.value)}`, prop.value)); continue; }
            if (reading.slos.some(s => s.percentile === percentile)) {
                issues.push(bad(`${named('tenant', tenant.name)} has more than one slo for ${percentile}; keep one per percentile`, prop, 'percentile'));
                continue;
            }
            reading.slos.push({ percentile: percentile as IrPercentile, ms, node: prop });
        } else if (isPriorityProp(prop)) {
            if (prioritySeen) { issues.push(bad(`${named('tenant', tenant.name)} has more than one priority line; keep one`, prop)); continue; }
            prioritySeen = true;
            const level = oneOf(prop.level, priorities);
            if (!level) { if (prop.level !== undefined) issues.push(bad(`unknown priority '${prop.level}'; expected ${priorities.join(', ')}`, prop, 'level')); continue; }
            reading.priority = level;
        }
    }
    if (!reading.model && !modelLineTyped) issues.push(bad(`${named('tenant', tenant.name)} has no model line; add: model <name>(…)`, tenant, 'name'));
    return reading;
}

function validNumber(v: number | string | undefined, fallback: number): number {
    return typeof v === 'number' && !Number.isNaN(v) ? v : fallback;
}

/** The integer an expression denotes when it is built from integer literals only (`8`, `2 * 4`). */
export function constantInt(e: Expression): number | undefined {
    if (isIntLit(e)) return e.value;
    if (isBinaryExpr(e)) {
        const a = constantInt(e.left);
        const b = constantInt(e.right);
        if (a === undefined || b === undefined) return undefined;
        switch (e.operator) {
            case '+': return a + b;
            case '-': return a - b;
            case '*': return a * b;
            case '/': return b !== 0 && a % b === 0 ? a / b : undefined;
        }
    }
    return undefined;
}

/** `workload w`, or `this workload` while its name is not typed yet. */
function named(kind: 'workload' | 'tenant', name: string | undefined): string {
    return name ? `${kind} ${name}` : `this ${kind}`;
}
