/**
 * Validation checks, registered per AST type. Expensive work (shape inference of a model, a
 * tenant's instantiation, a workload's reading) runs once per workspace state in the cached
 * TenancyAnalyzer; these checks only turn its results into diagnostics.
 *
 * Adding checks: register another object with `services.validation.ValidationRegistry.register(
 * checks, thisArg, category)` next to `registerValidationChecks` below. The prediction diagnostics
 * (`slo-infeasible`, `overloaded`, `slo-at-risk`) are registered by prediction/ in the default
 * category: Langium 4.4 runs 'slow' checks on no language-server build, and the prediction
 * service computes each workload once and keeps it across unrelated edits. Each diagnostic
 * carries its IssueCodes code via `report()`.
 */
import { AstUtils, isReference, type AstNode, type FileSystemProvider, type LangiumDocument, type LangiumDocuments, type ValidationAcceptor, type ValidationChecks } from 'langium';
import { tooLargeIssues, type TenancyAnalyzer } from '../analysis/index.js';
import { formatBytes } from '../analysis/format.js';
import { modelCallsIn } from '../analysis/calls.js';
import { findOperator } from '../analysis/operators.js';
import type { AnalysisIssue, ModelAnalysis } from '../analysis/types.js';
import { constantInt, readWorkload, type WorkloadReading } from '../analysis/workload.js';
import {
    isInput, isLet, isModel, isOutput, isParam, isScheduleDecl,
    type Binding, type Call, type Document, type Model, type TenancyAstType, type Tenant, type Workload,
} from '../generated/ast.js';
import { bindingTable } from '../references/bindings.js';
import type { TenancyServices } from '../tenancy-module.js';
import { maxDocumentCharacters, type TenancyDocumentFactory } from '../workspace/document-factory.js';
import { importCycle, importsOf, importTargetProblem } from '../workspace/imports.js';
import { isZooUri, zooModelNames } from '../workspace/zoo-library.js';
import type { DeviceLimitsProvider } from './device-limits.js';
import { IssueCodes, type IssueCode } from './issue-codes.js';
import { RUNNABLE_SCHEDULES } from '../../runtime/schedule/policy.js';

/** Accepts a diagnostic with its stable code (LSP `code` and `data.code`). */
export function report(accept: ValidationAcceptor, severity: 'error' | 'warning' | 'info' | 'hint', code: IssueCode, message: string,
    info: { node: AstNode; property?: string; index?: number }): void {
    accept(severity, message, { ...info, code, data: { code } } as never);
}

function reportIssue(accept: ValidationAcceptor, issue: AnalysisIssue, suffix = ''): void {
    report(accept, issue.severity, issue.code, issue.message + suffix, { node: issue.node, property: issue.property, index: issue.index });
}

/** Statement keywords a tensor should not be named after (`output = …` is a let, not an output). */
const statementKeywords = new Set(['input', 'output', 'model', 'import', 'workload', 'tenant', 'repeat']);

/** Registers the Tenancy checks with the validation registry. */
export function registerValidationChecks(services: TenancyServices & { validation: { DeviceLimits: DeviceLimitsProvider } }): void {
    const validator = new TenancyValidator(services);
    const checks: ValidationChecks<TenancyAstType> = {
        Document: validator.checkDocument,
        Model: validator.checkModel,
        Workload: validator.checkWorkload,
        Tenant: validator.checkTenant,
    };
    services.validation.ValidationRegistry.register(checks, validator);
}

export class TenancyValidator {
    private readonly analyzer: TenancyAnalyzer;
    private readonly documents: LangiumDocuments;
    private readonly fileSystem: FileSystemProvider;
    private readonly factory: TenancyDocumentFactory;
    private readonly limits: DeviceLimitsProvider;
    private readonly workloads = new WeakMap<Workload, WorkloadReading>();

    constructor(services: TenancyServices & { validation: { DeviceLimits: DeviceLimitsProvider } }) {
        this.analyzer = services.analysis.Analyzer;
        this.documents = services.shared.workspace.LangiumDocuments;
        this.fileSystem = services.shared.workspace.FileSystemProvider;
        this.factory = services.shared.workspace.LangiumDocumentFactory as TenancyDocumentFactory;
        this.limits = services.validation.DeviceLimits;
    }

    /** A file too large to check; imports (unresolved, cycles), duplicate and shadowing model names, unused models. */
    checkDocument(doc: Document, accept: ValidationAcceptor): void {
        const document = AstUtils.getDocument(doc);
        const zoo = isZooUri(document.uri);
        const size = this.factory.oversizedText(document.uri);
        if (size !== undefined) {
            report(accept, 'error', IssueCodes.FileTooLarge, `this file has ${formatCharacters(size)}, more than the ${formatCharacters(maxDocumentCharacters)} a file may have to be checked; it is not checked and its models are not available to other files. Split it into files that import each other.`, { node: doc });
        }
        for (const node of doc.imports) {
            if (node.path === '') report(accept, 'error', IssueCodes.UnresolvedReference, 'the import names no file; write the path of a .tenancy file relative to this one: import "blocks.tenancy"', { node, property: 'path' });
        }
        for (const { node, uri } of importsOf(document)) {
            if (!this.documents.hasDocument(uri)) {
                const problem = importTargetProblem(uri, this.fileSystem) ?? 'could not be read';
                report(accept, 'error', IssueCodes.UnresolvedReference, `cannot import "${node.path}": ${uri.path} ${problem}; an import names a .tenancy file, relative to this file`, { node, property: 'path' });
                continue;
            }
            const importedSize = this.factory.oversizedText(uri);
            if (importedSize !== undefined) {
                report(accept, 'error', IssueCodes.UnresolvedReference, `"${node.path}" is not loaded: it has ${formatCharacters(importedSize)}, more than the ${formatCharacters(maxDocumentCharacters)} a file may have to be checked`, { node, property: 'path' });
                continue;
            }
            const cycle = importCycle(document, node, this.documents);
            if (cycle) report(accept, 'error', IssueCodes.ImportCycle, `import cycle: ${cycle.join(' → ')}; remove one of these imports`, { node, property: 'path' });
        }
        const seen = new Map<string, AstNode>();
        const zooNames = new Set(zooModelNames());
        for (const element of doc.elements) {
            if (!element.name) continue; // a name not typed yet: the syntax error says so
            const key = `${element.$type}:${element.name}`;
            if (seen.has(key)) {
                const first = seen.get(key)!.$cstNode?.range.start.line;
                report(accept, 'error', IssueCodes.DuplicateName, `${isModel(element) ? 'model' : 'workload'} '${element.name}' is already defined${first !== undefined ? ` on line ${first + 1}` : ''}`, { node: element, property: 'name' });
            } else seen.set(key, element);
            if (!isModel(element) || zoo) continue;
            if (findOperator(element.name)) {
                report(accept, 'error', IssueCodes.DuplicateName, `model '${element.name}' has the name of a built-in operator; calls to ${element.name}(…) would use the operator — rename the model`, { node: element, property: 'name' });
            } else if (zooNames.has(element.name)) {
                report(accept, 'hint', IssueCodes.ShadowedZooModel, `model '${element.name}' shadows the zoo model of the same name; calls in this workspace use this one`, { node: element, property: 'name' });
            }
            if (!this.isCalled(element)) {
                report(accept, 'hint', IssueCodes.Unused, `model '${element.name}' is not used by any tenant or model`, { node: element, property: 'name' });
            }
        }
    }

    /** Duplicate names, keyword names, unused tensors and the model's shape analysis. */
    checkModel(model: Model, accept: ValidationAcceptor): void {
        const zoo = isZooUri(AstUtils.getDocument(model).uri);
        const table = bindingTable(model);
        const declared = new Map<string, AstNode>();
        const declare = (name: string, node: AstNode, kind: string) => {
            const previous = declared.get(name);
            if (previous) {
                const what = isParam(previous) ? 'parameter' : isInput(previous) ? 'input' : 'dim variable';
                report(accept, 'error', IssueCodes.DuplicateName, `${kind} '${name}' has the name of a ${what} of ${model.name}; parameters, inputs and dim variables share one namespace`, { node, property: 'name' });
            } else declared.set(name, node);
        };
        for (const p of model.params) declare(p.name, p, 'parameter');
        for (const st of model.statements) {
            if (isInput(st)) {
                for (const d of table.dimVars) if (d.$container === st) declare(d.name, d, 'dim variable');
                declare(st.name, st, 'input');
            } else if (isLet(st) || isOutput(st)) {
                const previous = st.name !== undefined ? declared.get(st.name) : undefined;
                if (st.name !== undefined && previous && !isInput(previous)) {
                    report(accept, 'error', IssueCodes.DuplicateName, `'${st.name}' is a ${isParam(previous) ? 'parameter' : 'dim variable'} of ${model.name}; a tensor cannot rebind it`, { node: st, property: 'name' });
                }
            }
            if ((isLet(st) || isInput(st) || isOutput(st)) && st.name !== undefined && statementKeywords.has(st.name) && !zoo) {
                const hint = isLet(st) && st.name === 'output'
                    ? `'output = …' binds a tensor named output; it is not an output statement (write 'output name = …')`
                    : `tensor named '${st.name}' like the statement keyword; easy to misread — consider another name`;
                report(accept, 'hint', IssueCodes.KeywordName, hint, { node: st, property: 'name' });
            }
        }
        if (!zoo) this.checkUnusedTensors(model, accept);
        if (model.name && model.$cstNode && !model.statements.some(isOutput)) {
            report(accept, 'error', IssueCodes.Syntax, `model ${model.name} has no output; a model needs at least one: output name = …`, { node: model, property: 'name' });
        }
        this.checkRecursion(model, accept);
        const standalone = this.analyzer.standalone(model);
        // Recursion is reported on every call of a cycle by checkRecursion, not as the evaluator meets it.
        for (const issue of standalone.issues) if (issue.code !== IssueCodes.Recursion) reportIssue(accept, issue);
        // Errors that appear only with the parameters' defaults (e.g. a too-small default resolution).
        if (model.params.some(p => p.default !== undefined)) {
            const defaults = this.analyzer.atDefaults(model);
            const withDefaults = model.params.filter(p => p.default !== undefined).map(p => `${p.name} = ${p.default}`).join(', ');
            for (const issue of onlyIn(defaults, standalone)) reportIssue(accept, issue, ` (with the defaults ${withDefaults})`);
        }
    }

    /** Workload structure and arguments; too-large and out-of-memory across its tenants. */
    checkWorkload(workload: Workload, accept: ValidationAcceptor): void {
        const reading = this.reading(workload);
        for (const issue of reading.issues) reportIssue(accept, issue);
        this.checkScheduleRuns(workload, reading, accept);
        // What lowering would refuse, said here first (on the tenant or the workload line).
        const tooLarge = tooLargeIssues(workload, reading, t => this.analyzer.tenant(t));
        for (const issue of tooLarge) reportIssue(accept, issue);
        if (tooLarge.length > 0) return; // peak memory is walked op by op: not for these
        const limits = this.limits.current();
        const memory = reading.device.memoryBytes ?? limits.memoryBytes;
        if (memory === undefined) return;
        let total = 0;
        const parts: string[] = [];
        for (const t of reading.tenants) {
            const peak = this.analyzer.tenant(t.node)?.memory.peakBytes;
            if (peak === undefined) return; // a tenant with errors: its own diagnostics say why
            total += peak;
            parts.push(`${t.name} ${formatBytes(peak)}`);
        }
        if (total > memory) {
            const device = workload.members.find(m => m.$type === 'DeviceDecl');
            const source = reading.device.memoryBytes !== undefined ? 'device(memory: …)' : limits.source;
            report(accept, 'error', IssueCodes.OutOfMemory, `the tenants' peak memory ${formatBytes(total)} (${parts.join(', ')}) exceeds the ${formatBytes(memory)} of ${source}`,
                device ? { node: device } : { node: workload, property: 'name' });
        }
    }

    /**
     * `unsupported` on a schedule the language names but the runtime does not implement
     * (RUNNABLE_SCHEDULES): `tenancy check` accepts only what `tenancy run` runs.
     */
    private checkScheduleRuns(workload: Workload, reading: WorkloadReading, accept: ValidationAcceptor): void {
        const policy = reading.schedule.policy;
        if (RUNNABLE_SCHEDULES.includes(policy)) return;
        const decl = workload.members.find(isScheduleDecl);
        if (!decl) return;
        report(accept, 'error', IssueCodes.Unsupported,
            `schedule ${policy} is not implemented by the runtime, so tenancy run cannot run this workload; use one of ${RUNNABLE_SCHEDULES.join(', ')}`,
            { node: decl, property: 'policy' });
    }

    /** A tenant's model line: arguments, unbound dims, instance-only shape errors, buffer limits. */
    checkTenant(tenant: Tenant, accept: ValidationAcceptor): void {
        const prop = tenant.props.find(p => p.$type === 'ModelProp');
        if (!prop || prop.$type !== 'ModelProp') return;
        const call = prop.call;
        const model = call?.callee?.ref;
        if (!model || !isModel(model)) return; // unknown-op / unresolved: reported by linking
        let ok = true;
        const given = new Set<string>();
        for (const arg of call.args) {
            if (!arg.value) { ok = false; continue; } // incomplete text: a syntax error
            if (arg.name === undefined) {
                report(accept, 'error', IssueCodes.BadArgument, `a tenant's model takes parameters by name (${model.params.map(p => `${p.name}: …`).join(', ') || 'none'}), found a positional argument`, { node: arg });
                ok = false;
                continue;
            }
            const param = model.params.find(p => p.name === arg.name);
            if (!param) {
                report(accept, 'error', IssueCodes.BadArgument, `${model.name} has no parameter '${arg.name}'; expected ${model.params.map(p => p.name).join(', ') || 'no arguments'}`, { node: arg, property: 'name' });
                ok = false;
            } else if (given.has(arg.name)) {
                report(accept, 'error', IssueCodes.BadArgument, `parameter '${arg.name}' is given twice`, { node: arg, property: 'name' });
                ok = false;
            } else {
                const v = constantInt(arg.value);
                if (v === undefined || v < 1) {
                    report(accept, 'error', IssueCodes.BadArgument, `parameter '${arg.name}' of ${model.name} must be a positive integer, found ${arg.value.$cstNode?.text ?? '?'}`, { node: arg.value });
                    ok = false;
                }
            }
            given.add(arg.name);
        }
        const resolved = this.analyzer.tenantModel(tenant);
        if (!ok || !resolved) return;
        if (!this.checkRunnable(model, call, accept)) return;
        if (resolved.missing.length > 0) {
            report(accept, 'error', IssueCodes.BadArgument, `${model.name} needs ${resolved.missing.map(m => `'${m}'`).join(', ')} (no default); add ${resolved.missing.map(m => `${m}: …`).join(', ')}`, { node: call, property: 'callee' });
            return;
        }
        const instance = this.analyzer.instance(resolved.model, resolved.args);
        if (instance.unboundDims.length > 0) {
            report(accept, 'error', IssueCodes.UnboundDim, `${model.name} has input dims no parameter binds: ${instance.unboundDims.join(', ')}; a model run by a tenant needs every input dim from its parameters (it can be called as a block inside another model)`, { node: call, property: 'callee' });
            return;
        }
        const standalone = this.analyzer.standalone(model);
        if (standalone.issues.length > 0) return; // the model's own errors are reported in the model
        const args = [...resolved.args].map(([k, v]) => `${k}: ${v}`).join(', ');
        for (const issue of onlyIn(instance, standalone)) {
            const line = issue.node.$cstNode ? ` (line ${issue.node.$cstNode.range.start.line + 1} of ${AstUtils.getDocument(issue.node).uri.path.split('/').pop()})` : '';
            report(accept, 'error', issue.code, `with ${model.name}(${args}): ${issue.message}${line}`, { node: call, property: 'callee' });
            return;
        }
        if (this.checkOutputsComputed(model, instance, call, accept)) return;
        const largest = instance.memory.largestTensor;
        const limits = this.limits.current();
        if (largest && largest.bytes > limits.maxStorageBufferBindingSize) {
            const remedy = largest.weight ? 'use a smaller layer (fewer units, a smaller vocabulary)' : 'use a smaller batch, resolution or sequence';
            report(accept, 'error', IssueCodes.BufferTooLarge, `${largest.what} needs ${formatBytes(largest.bytes)}, more than the largest storage buffer binding ${formatBytes(limits.maxStorageBufferBindingSize)} (${limits.source}); ${remedy}, or run on a device whose profile allows more`, { node: call, property: 'callee' });
        }
    }

    /**
     * What the runtime cannot run, said before a run does (`unsupported`): its kernels compute in
     * f32 (ids in i32), so an f16 input, which makes every tensor after it f16, cannot run.
     * test/language-server/runnable.test.ts lowers and plans the accepted cases with the
     * runtime's kernels, and shows the planner refusing an f16 model.
     */
    private checkRunnable(model: Model, call: Call, accept: ValidationAcceptor): boolean {
        const f16 = model.statements.find(s => isInput(s) && s.dtype === 'f16');
        if (f16 && isInput(f16)) {
            const line = f16.$cstNode ? ` on line ${f16.$cstNode.range.start.line + 1}` : '';
            report(accept, 'error', IssueCodes.Unsupported, `${model.name} takes an f16 input (${f16.name}${line}); the runtime's kernels compute in f32, so it cannot run it — declare the input f32`, { node: call, property: 'callee' });
            return false;
        }
        // A model without outputs is an error in the model itself (checkModel), which blocks its tenants' runs too.
        return model.statements.some(isOutput);
    }

    /**
     * `unsupported` when an output of the tenant's model is one of its inputs unchanged (`output
     * y = x`, directly or through blocks that return their input): the runtime runs operators and
     * has none that produces it. Fine in a block called by another model, so judged per tenant.
     * True when reported.
     */
    private checkOutputsComputed(model: Model, instance: ModelAnalysis, call: Call, accept: ValidationAcceptor): boolean {
        const tensorOf = (s: AstNode) => {
            const value = instance.bindings.get(s as Binding);
            return value?.kind === 'tensor' ? value.tensor : undefined;
        };
        for (const output of model.statements.filter(isOutput)) {
            const tensor = tensorOf(output);
            if (!tensor || !instance.inputs.includes(tensor)) continue;
            const input = model.statements.find(s => isInput(s) && tensorOf(s) === tensor);
            const name = output.name ? `output ${output.name}` : 'output';
            const line = output.$cstNode ? ` (line ${output.$cstNode.range.start.line + 1})` : '';
            report(accept, 'error', IssueCodes.Unsupported,
                `${model.name}'s ${name}${line} is its input ${input && isInput(input) ? input.name : tensor.id} unchanged; the runtime runs a model's operators and none computes it — compute the output (output y = relu(x), …), or call ${model.name} as a block inside another model`,
                { node: call, property: 'callee' });
            return true;
        }
        return false;
    }

    /** `recursion` on each call to a model from which this model is reachable again (the call graph's cycles: no walk per model). */
    private checkRecursion(model: Model, accept: ValidationAcceptor): void {
        const graph = this.analyzer.callGraph();
        const component = graph.of(model).component;
        for (const call of modelCalls(model)) {
            const callee = call.callee.ref as Model;
            if (callee !== model && graph.of(callee).component !== component) continue;
            const path = graph.path(callee, model);
            if (path) report(accept, 'error', IssueCodes.Recursion, `recursion: ${[model.name, ...path.map(m => m.name)].join(' → ')}; a model cannot call itself, directly or through other models`, { node: call, property: 'callee' });
        }
    }

    /** The workload's reading, once per AST instance. */
    private reading(workload: Workload): WorkloadReading {
        let r = this.workloads.get(workload);
        if (!r) {
            r = readWorkload(workload);
            this.workloads.set(workload, r);
        }
        return r;
    }

    private checkUnusedTensors(model: Model, accept: ValidationAcceptor): void {
        const used = this.referenced(AstUtils.getDocument(model));
        for (const st of model.statements) {
            if ((isLet(st) || isInput(st)) && !used.has(st)) {
                report(accept, 'hint', IssueCodes.Unused, `${isInput(st) ? 'input' : 'tensor'} '${st.name}' is never used`, { node: st, property: 'name' });
            }
        }
    }

    /** The nodes a document's linked references point to (names inside a model resolve within it, so a tensor's uses are all in its own document). */
    private referenced(document: LangiumDocument): Set<AstNode> {
        return referenceTargets(document).all;
    }

    /** Whether any model or tenant in the workspace calls this model (one union of the documents' called models per workspace state). */
    private isCalled(model: Model): boolean {
        return this.analyzer.memo(this.documents, () => {
            const called = new Set<AstNode>();
            for (const doc of this.documents.all) for (const target of referenceTargets(doc).models) called.add(target);
            return called;
        }).has(model);
    }
}

// Per list of linked references (the linker makes a new list whenever it relinks a document), so
// an edit recomputes only the documents it relinked, not every document's targets.
const targetsByReferences = new WeakMap<object, { count: number; all: Set<AstNode>; models: Set<AstNode> }>();

/**
 * What a document's linked references point to, from the linker's list rather than a walk of
 * the AST; `models`: the Model targets (operator callees are not linked and names link to
 * bindings, so every Model target is a call's).
 */
function referenceTargets(document: LangiumDocument): { all: Set<AstNode>; models: Set<AstNode> } {
    const references = document.references;
    const cached = targetsByReferences.get(references);
    if (cached && cached.count === references.length) return cached;
    const entry = { count: references.length, all: new Set<AstNode>(), models: new Set<AstNode>() };
    for (const reference of references) {
        const target = isReference(reference) ? reference.ref : undefined;
        if (!target) continue;
        entry.all.add(target);
        if (isModel(target)) entry.models.add(target);
    }
    targetsByReferences.set(references, entry);
    return entry;
}

/** The calls of a model to other models (resolved). */
function modelCalls(model: Model): Call[] {
    return modelCallsIn(model).filter(call => call.callee.ref !== undefined && isModel(call.callee.ref));
}

/** Issues of `instance` that `base` does not have (same node and code). */
function onlyIn(instance: ModelAnalysis, base: ModelAnalysis): AnalysisIssue[] {
    return instance.issues.filter(i => !base.issues.some(b => b.node === i.node && b.code === i.code));
}

/** `2.1 M characters`. */
function formatCharacters(n: number): string {
    return n >= 1e6 ? `${(n / 1e6).toFixed(1)} M characters` : `${Math.round(n / 1e3)} k characters`;
}
