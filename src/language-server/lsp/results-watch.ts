/**
 * The language server's view of the results files (`.tenancy/results/<stem>.<workload>.json`,
 * written by `tenancy run`), the comparisons of schedules (`<stem>.<workload>.compare.json`,
 * written by `tenancy compare`) and the device profile: it finds and parses the latest of each
 * for a document's workloads with the runtime's schemas, caches them, and drops the cache when
 * the client reports a file change (a run from the editor or a terminal). The server never runs
 * anything on the GPU; it only reads these files.
 *
 * Other LSP features (code lenses, the measured figures of inlay hints and hovers,
 * `slo-violated`, the reports, schedule hints) read them through {@link ResultsWatch};
 * {@link registerResultsHandlers} wires the custom messages of src/protocol/messages.ts and
 * asks the client to refresh lenses and inlay hints when results change.
 */
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { URI, type LangiumDocument } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import { CodeLensRefreshRequest, InlayHintRefreshRequest, type Connection } from 'vscode-languageserver';
import { parseComparison, type Comparison } from '../../runtime/report/compare.js';
import { parseResults, type Results } from '../../runtime/report/schema.js';
import { historyFiles, resultsPathsFor, workspaceFolderOf } from '../../runtime/report/write.js';
import { isDocument, isTenant, isWorkload, type Tenant, type Workload } from '../generated/ast.js';
import {
    defaultResultsFolder, deviceProfilePath, isResultsChangedParams, ResultsChangedNotification,
    type MeasuredChangedParams, type TenancyInitializationOptions, type WorkspaceStatusResult,
} from '../../protocol/messages.js';
import { ReportRequest, type ReportParams, type ReportResult } from '../../protocol/report.js';
import { ComparisonReportRequest, type ComparisonReportResult } from '../../protocol/comparison-report.js';
import { registerSloViolated } from '../validation/slo-violated.js';
import { buildComparisonReportModel } from './comparison-report-model.js';
import { buildReportModel } from './report-model.js';
import { comparisonReport, measuredChanged, report, resultsChanged, workspaceStatus as workspaceStatusRequest } from './messages.js';
import { adapterName } from './results-format.js';

/** The latest results of one workload, or why there are none usable. */
export type LatestResults =
    | { kind: 'ok'; path: string; results: Results }
    | { kind: 'missing'; path: string }
    | { kind: 'invalid'; path: string; error: string };

/** The latest comparison of schedules of one workload, or why there is none usable. */
export type LatestComparison =
    | { kind: 'ok'; path: string; comparison: Comparison }
    | { kind: 'missing'; path: string }
    | { kind: 'invalid'; path: string; error: string };

type Parsed<T> = { kind: 'ok'; path: string; value: T } | { kind: 'missing'; path: string } | { kind: 'invalid'; path: string; error: string };

/** Files parsed by one schema, each kept until its modification time changes or it is invalidated. */
class ParsedFiles<T> {
    private readonly entries = new Map<string, { mtimeMs: number; value: Parsed<T> }>();

    /** `onInvalid` hears once per version of a file why it cannot be used. */
    constructor(private readonly parse: (json: unknown) => T, private readonly onInvalid: (file: string, error: string) => void) {}

    read(file: string): Parsed<T> {
        const key = path.resolve(file);
        let mtimeMs: number | undefined;
        try {
            // No exception for a missing file (the common case, checked per workload on every build).
            mtimeMs = statSync(key, { throwIfNoEntry: false })?.mtimeMs;
        } catch {
            mtimeMs = undefined; // unreadable (e.g. a path through a file): as missing
        }
        if (mtimeMs === undefined) {
            this.entries.delete(key);
            return { kind: 'missing', path: key };
        }
        const cached = this.entries.get(key);
        // mtime as a second guard: a change the client did not report (no watcher) still shows.
        if (cached && cached.mtimeMs === mtimeMs) return cached.value;
        let value: Parsed<T>;
        try {
            value = { kind: 'ok', path: key, value: this.parse(JSON.parse(readFileSync(key, 'utf8'))) };
        } catch (error) {
            value = { kind: 'invalid', path: key, error: error instanceof Error ? error.message : String(error) };
            this.onInvalid(key, value.error);
        }
        this.entries.set(key, { mtimeMs, value });
        return value;
    }

    delete(file: string): void {
        this.entries.delete(path.resolve(file));
    }
}

/** Reads, validates and caches results files and device profiles for the documents of the workspace. */
export class ResultsWatch {
    /** Where a file that cannot be used is reported (the server sets the client's log; tests listen). */
    log: (message: string) => void = message => console.warn(message);
    private readonly results = new ParsedFiles(parseResults, (file, error) => this.log(`Tenancy: ignoring the results file ${file}: ${error}`));
    private readonly comparisons = new ParsedFiles(parseComparison, (file, error) => this.log(`Tenancy: ignoring the comparison file ${file}: ${error}`));
    private resultsFolder = defaultResultsFolder;
    private workspaceFolders: string[] = [];
    /** The CLI's workspace folder (workspaceFolderOf walks up the file system) per document folder, per workspace state. */
    private readonly cliFolders = new Map<string, string>();

    constructor(protected readonly services: LangiumServices) {
        services.shared.workspace.DocumentBuilder.onUpdate(() => this.cliFolders.clear());
    }

    /** Applies the client's initialization options and workspace folders. */
    configure(options: { resultsFolder?: unknown; workspaceFolders?: string[] }): void {
        if (typeof options.resultsFolder === 'string' && options.resultsFolder.trim() !== '') this.resultsFolder = options.resultsFolder.trim();
        if (options.workspaceFolders) this.workspaceFolders = options.workspaceFolders;
    }

    /** The workspace folder of a document file: the LSP workspace folder holding it, else the CLI's rule (nearest `.tenancy`, `.git`, …). */
    workspaceFolder(file: string): string {
        const holding = this.workspaceFolders.filter(f => file.startsWith(f.endsWith(path.sep) ? f : f + path.sep))
            .sort((a, b) => b.length - a.length)[0];
        return holding ?? this.cliWorkspaceFolder(file);
    }

    /** workspaceFolderOf (where the CLI writes results), remembered per folder until the workspace changes. */
    private cliWorkspaceFolder(file: string): string {
        const dir = path.dirname(path.resolve(file));
        let folder = this.cliFolders.get(dir);
        if (folder === undefined) this.cliFolders.set(dir, folder = workspaceFolderOf(file));
        return folder;
    }

    private resultsDir(file: string): string | undefined {
        if (this.resultsFolder === defaultResultsFolder) return undefined; // the CLI's own default
        return path.isAbsolute(this.resultsFolder) ? this.resultsFolder : path.join(this.workspaceFolder(file), this.resultsFolder);
    }

    /** Paths of a workload's results (`kind` 'compare': of its comparison), or undefined for documents that are not files. */
    paths(documentUri: string, workload: string, kind?: 'compare'): ReturnType<typeof resultsPathsFor> | undefined {
        const file = filePath(documentUri);
        return file ? resultsPathsFor(file, workload, this.resultsDir(file) ?? path.join(this.cliWorkspaceFolder(file), '.tenancy', 'results'), undefined, kind) : undefined;
    }

    /** The latest results of a workload of a document (cached until the file changes). */
    latest(documentUri: string, workload: string): LatestResults | undefined {
        const paths = this.paths(documentUri, workload);
        return paths ? this.read(paths.latest) : undefined;
    }

    /**
     * The latest comparison of a workload's schedules (`tenancy compare`, ▶ Compare schedules), or
     * why there is none usable: a file of another schema version or one that does not fit the
     * schema is `invalid` (and logged once), never thrown. Cached until the file changes.
     */
    latestComparison(documentUri: string, workload: string): LatestComparison | undefined {
        const paths = this.paths(documentUri, workload, 'compare');
        if (!paths) return undefined;
        const read = this.comparisons.read(paths.latest);
        return read.kind === 'ok' ? { kind: 'ok', path: read.path, comparison: read.value } : read;
    }

    /** The measured comparison of a workload's schedules, or undefined when there is none usable (see {@link latestComparison}). */
    measuredComparison(documentUri: string, workload: string): Comparison | undefined {
        const latest = this.latestComparison(documentUri, workload);
        return latest?.kind === 'ok' ? latest.comparison : undefined;
    }

    /** The run before the latest one, from the history folder. */
    previous(documentUri: string, workload: string): Results | undefined {
        const paths = this.paths(documentUri, workload);
        const latest = paths && this.read(paths.latest);
        if (!paths || latest?.kind !== 'ok') return undefined;
        for (const file of historyFiles(paths)) {
            const entry = this.read(file);
            // The newest history entry is a copy of the latest run: skip it by its finish time.
            if (entry.kind === 'ok' && entry.results.finishedAt !== latest.results.finishedAt) return entry.results;
        }
        return undefined;
    }

    /** Whether `tenancy calibrate` wrote a device profile for the document's workspace. */
    deviceProfile(documentUri: string): { exists: boolean; adapter: string | undefined } {
        const file = filePath(documentUri);
        if (!file) return { exists: false, adapter: undefined };
        const profile = path.join(this.workspaceFolder(file), deviceProfilePath);
        try {
            const value: unknown = JSON.parse(readFileSync(profile, 'utf8'));
            return { exists: true, adapter: adapterName((value as { adapter?: unknown } | null)?.adapter) };
        } catch (error) {
            return { exists: (error as NodeJS.ErrnoException).code !== 'ENOENT', adapter: undefined };
        }
    }

    /** Drops cached entries of changed files; returns the URIs of open documents whose results may have changed. */
    invalidate(changedUris: string[]): string[] {
        this.cliFolders.clear(); // a new `.tenancy` folder can move a document's workspace folder
        for (const uri of changedUris) {
            const file = filePath(uri);
            if (file) {
                this.results.delete(file);
                this.comparisons.delete(file);
            }
        }
        // Any change under a results folder or to a profile can concern every open .tenancy document.
        return this.services.shared.workspace.LangiumDocuments.all
            .filter(d => d.uri.scheme === 'file' && isDocument(d.parseResult.value))
            .map(d => d.uri.toString()).toArray();
    }

    private read(file: string): LatestResults {
        const read = this.results.read(file);
        return read.kind === 'ok' ? { kind: 'ok', path: read.path, results: read.value } : read;
    }
}

function filePath(uri: string): string | undefined {
    const parsed = URI.parse(uri);
    return parsed.scheme === 'file' ? parsed.fsPath : undefined;
}

/** Workloads defined in a document. */
export function workloadsOf(document: LangiumDocument): Workload[] {
    const root = document.parseResult.value;
    return isDocument(root) ? root.elements.filter(isWorkload) : [];
}

/** Tenants of a workload. */
export function tenantsOf(workload: Workload): Tenant[] {
    return workload.members.filter(isTenant);
}

/** The status item's view of a document's workspace. */
export function workspaceStatus(watch: ResultsWatch, document: LangiumDocument | undefined, uri: string): WorkspaceStatusResult {
    const profile = watch.deviceProfile(uri);
    let lastRun: WorkspaceStatusResult['lastRun'];
    let adapter = profile.adapter;
    for (const workload of document ? workloadsOf(document) : []) {
        const latest = watch.latest(uri, workload.name);
        if (latest?.kind !== 'ok') continue;
        const r = latest.results;
        if (!lastRun || r.finishedAt > lastRun.finishedAt) {
            lastRun = { workload: r.workload, finishedAt: r.finishedAt, status: r.status, resultsPath: latest.path, valid: r.valid, ...(r.host.warning ? { hostWarning: r.host.warning } : {}) };
            adapter = profile.adapter ?? adapterName(r.adapter) ?? adapter;
        }
    }
    return { calibrated: profile.exists, adapter, lastRun };
}

/**
 * Registers the results-related LSP messages, the refreshes of lenses and inlay hints, and the
 * `slo-violated` check (validation/slo-violated.ts). Call once, before `startLanguageServer`.
 */
export function registerResultsHandlers(connection: Connection, services: LangiumServices & { results: { ResultsWatch: ResultsWatch } }): void {
    const watch = services.results.ResultsWatch;
    // A file that cannot be used (another schema version, invalid) is said in the client's log, once per version of it.
    watch.log = message => connection.console.warn(message);
    const shared = services.shared;
    let codeLensRefresh = false;
    let inlayHintRefresh = false;
    shared.lsp.LanguageServer.onInitialize(params => {
        const options = (params.initializationOptions ?? {}) as Partial<TenancyInitializationOptions>;
        watch.configure({
            resultsFolder: options.resultsFolder,
            workspaceFolders: (params.workspaceFolders ?? []).map(f => URI.parse(f.uri).fsPath),
        });
        codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
        inlayHintRefresh = params.capabilities.workspace?.inlayHint?.refreshSupport === true;
    });
    // The editor asks for inlay hints when a document changes, not when results or settings do: ask it again.
    const refreshInlayHints = async () => {
        if (inlayHintRefresh) await connection.sendRequest(InlayHintRefreshRequest.type).catch(() => undefined);
    };
    shared.workspace.ConfigurationProvider.onConfigurationSectionUpdate(update => {
        if (update.section === 'tenancy') void refreshInlayHints();
    });

    const documentOf = (uri: string) => shared.workspace.LangiumDocuments.getDocument(URI.parse(uri));

    connection.onNotification(resultsChanged, async params => {
        if (!isResultsChangedParams(params)) {
            connection.console.error(`${ResultsChangedNotification.method}: expected { changes: [{ uri, kind }] }, found ${JSON.stringify(params)}`);
            return;
        }
        const affected = watch.invalidate(params.changes.map(c => c.uri));
        // Rebuilding re-runs validation, which reads the new results (slo-violated).
        await shared.workspace.DocumentBuilder.update(affected.map(u => URI.parse(u)), []);
        if (codeLensRefresh) await connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
        // The measured figures beside the predictions (prediction-features.ts) read the reloaded results.
        await refreshInlayHints();
        const changed: MeasuredChangedParams = { uris: affected };
        await connection.sendNotification(measuredChanged, changed);
    });

    connection.onRequest(workspaceStatusRequest, (params): WorkspaceStatusResult => {
        const uri = typeof params?.uri === 'string' ? params.uri : '';
        return workspaceStatus(watch, uri ? documentOf(uri) : undefined, uri);
    });

    connection.onRequest(report, params => reportFor(watch, params));
    connection.onRequest(comparisonReport, params => comparisonReportFor(watch, params));

    // Its diagnostic lives with the other checks (validation/slo-violated.ts); it reads what this watch loads.
    registerSloViolated(services);
}

/** The answer to a {@link ReportRequest}. */
export function reportFor(watch: ResultsWatch, params: Partial<ReportParams>): ReportResult {
    if (typeof params?.uri !== 'string' || typeof params.workload !== 'string') {
        return { error: `${ReportRequest.method} expected { uri, workload }, found ${JSON.stringify(params)}` };
    }
    const latest = watch.latest(params.uri, params.workload);
    if (!latest || latest.kind === 'missing') {
        return { error: `No results for workload ${params.workload} yet${latest ? ` (expected ${latest.path})` : ''}: run it with "▶ Run benchmark" or \`tenancy run\`.` };
    }
    if (latest.kind === 'invalid') return { error: `The results file ${latest.path} cannot be read: ${latest.error}` };
    return { report: buildReportModel(latest.results, watch.previous(params.uri, params.workload), latest.path) };
}

/** The answer to a {@link ComparisonReportRequest}. */
export function comparisonReportFor(watch: ResultsWatch, params: Partial<ReportParams>): ComparisonReportResult {
    if (typeof params?.uri !== 'string' || typeof params.workload !== 'string') {
        return { error: `${ComparisonReportRequest.method} expected { uri, workload }, found ${JSON.stringify(params)}` };
    }
    const latest = watch.latestComparison(params.uri, params.workload);
    if (!latest || latest.kind === 'missing') {
        return { error: `No comparison of schedules for workload ${params.workload} yet${latest ? ` (expected ${latest.path})` : ''}: compare them with "▶ Compare schedules" or \`tenancy compare\`.` };
    }
    if (latest.kind === 'invalid') return { error: `The comparison file ${latest.path} cannot be read: ${latest.error}` };
    return { comparison: buildComparisonReportModel(latest.comparison, latest.path) };
}
