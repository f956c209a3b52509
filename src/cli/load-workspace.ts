/**
 * Loading .tenancy files for the CLI: a Langium workspace on the real file system with the
 * files given, everything they import (transitively) and the built-in zoo; per-file
 * diagnostics formatted as `tenancy check` prints them; lowering a workload by name to IR.
 * `tenancy check`, `ir`, `run` and `predict` all read files through here.
 */
import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { AstUtils, URI, type AstNode, type LangiumDocument } from 'langium';
import { NodeFileSystem } from 'langium/node';
import type { Diagnostic, Position, Range } from 'vscode-languageserver';
import type { WorkloadIR } from '../runtime/ir/types.js';
import { modelsReached } from '../language-server/analysis/calls.js';
import { isDocument, isModel, isSweepDecl, isWorkload, type Workload } from '../language-server/generated/ast.js';
import { readSweepBlock, type SweepBlock } from '../language-server/analysis/sweep.js';
import { lowerWorkload } from '../language-server/lower.js';
import { createTenancyServices, type TenancyServices } from '../language-server/tenancy-module.js';
import { IssueCodes } from '../language-server/validation/issue-codes.js';
import { isZooUri } from '../language-server/workspace/zoo-library.js';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** One diagnostic, positions 1-based as printed. */
export interface CheckDiagnostic {
    /** The file as the user would write it (relative to the working directory when inside it). */
    file: string;
    uri: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    severity: Severity;
    code: string;
    message: string;
}

/** A workload found in the loaded files. */
export interface WorkloadEntry {
    name: string;
    file: string;
    node: Workload;
}

/** Bad input that is not a diagnostic: an unreadable file, a missing or ambiguous workload, a file with errors. */
export class WorkspaceInputError extends Error {
    constructor(message: string, readonly diagnostics: CheckDiagnostic[] = []) {
        super(message);
        this.name = 'WorkspaceInputError';
    }
}

/** The loaded workspace. */
export interface LoadedWorkspace {
    services: TenancyServices;
    /** The documents of the files given, in order. */
    documents: LangiumDocument[];
    /** Diagnostics of every loaded user file (given or imported; never the zoo), sorted by file and position. */
    diagnostics: CheckDiagnostic[];
    /** Number of error diagnostics. */
    errorCount: number;
    /** Workloads of the given files (or of one of them). */
    workloads(file?: string): WorkloadEntry[];
    /**
     * Lowers a workload to IR. Without a name the file must hold exactly one workload. Throws
     * WorkspaceInputError when the workload or a model it runs has errors, or the name is
     * missing/ambiguous.
     */
    lower(workload?: string, file?: string): WorkloadIR;
    /**
     * The `sweep { … }` block of a given file, as the validator read it (undefined: the file has
     * none). Throws WorkspaceInputError when a sweep block of the file has errors.
     */
    sweep(file: string): SweepBlock | undefined;
}

const severities: Record<number, Severity> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

/** `file:line:col severity code message` (1-based line and column). */
export function formatDiagnostic(d: CheckDiagnostic): string {
    return `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`;
}

/**
 * Loads, links and validates the files (and their imports and the zoo). With `predictions: false`
 * the checks predict nothing (no schedule simulation; no `slo-at-risk`, `overloaded` or
 * `slo-infeasible`): for a caller that needs only the IR, or predicts the workloads itself.
 */
export async function loadWorkspace(files: readonly string[], options: { cwd?: string; predictions?: boolean } = {}): Promise<LoadedWorkspace> {
    const cwd = options.cwd ?? process.cwd();
    const { shared, Tenancy } = createTenancyServices(NodeFileSystem);
    // No editor job computes schedule comparisons here (none in the background either: the process would run it before
    // exiting): each prediction simulates its workload's schedule itself.
    Tenancy.prediction.Predictions.configure({ schedules: () => undefined });
    Tenancy.prediction.ScheduleHints.enabled = false;
    Tenancy.prediction.Predictions.enabled = options.predictions ?? true;
    const documents: LangiumDocument[] = [];
    for (const file of files) {
        const path = resolve(cwd, file);
        if (!existsSync(path)) throw new WorkspaceInputError(`${file}: no such file`);
        if (!statSync(path).isFile()) throw new WorkspaceInputError(`${file}: not a file`);
        if (!path.endsWith('.tenancy')) throw new WorkspaceInputError(`${file}: expected a .tenancy file`);
        documents.push(await shared.workspace.LangiumDocuments.getOrCreateDocument(URI.file(path)));
    }
    await shared.workspace.DocumentBuilder.build(documents, { validation: true });
    const display = (uri: URI): string => {
        if (uri.scheme !== 'file') return uri.toString();
        const rel = relative(cwd, uri.fsPath);
        return rel.startsWith('..') ? uri.fsPath : rel;
    };
    const diagnostics: CheckDiagnostic[] = [];
    for (const doc of shared.workspace.LangiumDocuments.all) {
        if (isZooUri(doc.uri)) continue;
        for (const d of doc.diagnostics ?? []) diagnostics.push(toCheckDiagnostic(d, display(doc.uri), doc.uri.toString()));
    }
    const order = new Map(documents.map((d, i) => [d.uri.toString(), i]));
    diagnostics.sort((a, b) => (order.get(a.uri) ?? 1e9) - (order.get(b.uri) ?? 1e9) || a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
    const errorCount = diagnostics.filter(d => d.severity === 'error').length;

    const workloads = (file?: string): WorkloadEntry[] => {
        const docs = file === undefined ? documents : documents.filter(d => d.uri.fsPath === resolve(cwd, file));
        return docs.flatMap(doc => {
            const root = doc.parseResult.value;
            return isDocument(root) ? root.elements.filter(isWorkload).map(node => ({ name: node.name, file: display(doc.uri), node })) : [];
        });
    };

    const lower = (name?: string, file?: string): WorkloadIR => {
        const candidates = workloads(file);
        const listed = candidates.map(w => `${w.name} (${w.file})`).join(', ');
        let entry: WorkloadEntry | undefined;
        if (name === undefined) {
            if (candidates.length === 0) throw new WorkspaceInputError(`${file ?? files.join(', ')}: no workload to lower; add one: workload name { tenant … }`);
            if (candidates.length > 1) throw new WorkspaceInputError(`more than one workload; choose one with --workload: ${listed}`);
            entry = candidates[0];
        } else {
            const matches = candidates.filter(w => w.name === name);
            if (matches.length === 0) throw new WorkspaceInputError(`no workload named '${name}'; workloads: ${listed || 'none'}`);
            if (matches.length > 1) throw new WorkspaceInputError(`workload '${name}' is defined in more than one file: ${matches.map(m => m.file).join(', ')}`);
            entry = matches[0];
        }
        const errors = blockingErrors(entry.node, diagnostics);
        if (errors.length > 0) {
            throw new WorkspaceInputError(`workload ${entry.name} has ${errors.length} error${errors.length === 1 ? '' : 's'} in its tenants or the models they run; fix ${errors.length === 1 ? 'it' : 'them'} first (tenancy check):\n${errors.map(formatDiagnostic).join('\n')}`, errors);
        }
        return lowerWorkload(entry.node, Tenancy.analysis.Analyzer);
    };

    const sweep = (file: string): SweepBlock | undefined => {
        const doc = documents.find(d => d.uri.fsPath === resolve(cwd, file));
        const root = doc?.parseResult.value;
        const blocks = isDocument(root) ? root.elements.filter(isSweepDecl) : [];
        if (blocks.length === 0) return undefined;
        const errors = blocks.flatMap(block => errorsInside(block, diagnostics));
        if (errors.length > 0) {
            throw new WorkspaceInputError(`the sweep block of ${display(doc!.uri)} has ${errors.length} error${errors.length === 1 ? '' : 's'}; fix ${errors.length === 1 ? 'it' : 'them'} first (tenancy check):\n${errors.map(formatDiagnostic).join('\n')}`, errors);
        }
        return readSweepBlock(blocks[0]).block;
    };

    return { services: Tenancy, documents, diagnostics, errorCount, workloads, lower, sweep };
}

/** Loads one file and lowers one workload (by name, or the only one); its checks predict nothing (the caller has the IR to predict, or run). */
export async function loadWorkloadIr(file: string, workload?: string): Promise<WorkloadIR> {
    const workspace = await loadWorkspace([file], { predictions: false });
    return workspace.lower(workload, file);
}

/** Loads one file and lowers every workload in it (throws at the first workload with errors); its checks predict nothing. */
export async function loadAllWorkloadIrs(file: string): Promise<WorkloadIR[]> {
    const workspace = await loadWorkspace([file], { predictions: false });
    return workspace.workloads(file).map(w => workspace.lower(w.name, file));
}

/**
 * The errors that stop a workload's lowering: those inside the workload, inside a model it runs
 * (directly or through other models, in any file), and faults of its own file (a file too large
 * to check, an internal error). An error in another workload or in a model it does not use does
 * not: one broken workload does not block the others of its file.
 */
function blockingErrors(workload: Workload, diagnostics: readonly CheckDiagnostic[]): CheckDiagnostic[] {
    const regions = [workload, ...modelsReached(workload).filter(isModel)].flatMap(node => {
        const range = node.$cstNode?.range;
        return range ? [{ uri: AstUtils.getDocument(node).uri.toString(), range }] : [];
    });
    const file = AstUtils.getDocument(workload).uri.toString();
    const inside = (d: CheckDiagnostic, r: { uri: string; range: Range }) => d.uri === r.uri
        && before(r.range.start, { line: d.line - 1, character: d.column - 1 }) && before({ line: d.endLine - 1, character: d.endColumn - 1 }, r.range.end);
    return diagnostics.filter(d => d.severity === 'error'
        && (regions.some(r => inside(d, r)) || (d.uri === file && (d.code === IssueCodes.FileTooLarge || d.code === IssueCodes.InternalError))));
}

/** The error diagnostics within a node's text. */
function errorsInside(node: AstNode, diagnostics: readonly CheckDiagnostic[]): CheckDiagnostic[] {
    const range = node.$cstNode?.range;
    if (!range) return [];
    const uri = AstUtils.getDocument(node).uri.toString();
    return diagnostics.filter(d => d.severity === 'error' && d.uri === uri
        && before(range.start, { line: d.line - 1, character: d.column - 1 }) && before({ line: d.endLine - 1, character: d.endColumn - 1 }, range.end));
}

function before(a: Position, b: Position): boolean {
    return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

function toCheckDiagnostic(d: Diagnostic, file: string, uri: string): CheckDiagnostic {
    const code = typeof d.code === 'string' ? d.code : (d.data as { code?: string } | undefined)?.code ?? 'unknown';
    return {
        file, uri,
        line: d.range.start.line + 1, column: d.range.start.character + 1,
        endLine: d.range.end.line + 1, endColumn: d.range.end.character + 1,
        severity: severities[d.severity ?? 1] ?? 'error',
        code, message: typeof d.message === 'string' ? d.message : d.message.value,
    };
}
