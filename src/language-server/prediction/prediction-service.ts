/**
 * Predictions in the language server: per workload, the runtime's pure prediction model
 * (src/runtime/predict) over the workload's IR (lowered by LS-core's lowering) and the device
 * profile of the document's workspace. Computed once per document build and cached (Langium's
 * WorkspaceCache drops everything on any document change); the profile is re-read when its
 * file changes (checked by mtime on use, so an unreported change still shows). Never touches
 * the GPU: profiles are files written by `tenancy calibrate`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { AstUtils, URI, WorkspaceCache, type AstNode, type LangiumDocument } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import type { IrOp, WorkloadIR } from '../../runtime/ir/types.js';
import { locateProfile, profileCacheDir, workspaceProfilePath, type LocatedProfile } from '../../runtime/predict/profile-store.js';
import { predictWorkload, type OpPrediction, type TenantPrediction, type WorkloadPrediction } from '../../runtime/predict/workload.js';
import type { Results } from '../../runtime/report/schema.js';
import { workspaceFolderOf } from '../../runtime/report/write.js';
import { isWorkload, type Workload } from '../generated/ast.js';
import type { ResultsWatch } from '../lsp/results-watch.js';

/** Lowers a checked workload to IR; undefined when the workload has errors (nothing to predict). */
export type WorkloadLowerer = (workload: Workload) => WorkloadIR | undefined;

/** A workload's prediction with what it was computed from. */
export interface WorkloadPredictionView {
    workload: Workload;
    ir: WorkloadIR;
    prediction: WorkloadPrediction;
    profile: LocatedProfile;
    /** The latest measured results of the workload, if any (for measured-beside-predicted). */
    measured?: Results;
}

/** One op instance (a tenant's op whose source is a given call). */
export interface OpInstance {
    view: WorkloadPredictionView;
    tenant: TenantPrediction;
    op: OpPrediction;
    irOp?: IrOp;
}

interface ProfileEntry {
    stamp: string;
    located: LocatedProfile;
}

/** Computes and caches predictions per workload; finds the profile per workspace. */
export class PredictionService {
    private readonly cache: WorkspaceCache<Workload, { stamp: string; view: WorkloadPredictionView | undefined }>;
    private readonly profiles = new Map<string, ProfileEntry>();
    private lowerer: WorkloadLowerer | undefined;
    private resultsWatch: (() => ResultsWatch | undefined) | undefined;
    /** The last error of a prediction (kept for the output channel / tests, never thrown at the editor). */
    lastError: string | undefined;

    constructor(services: LangiumServices, options: { lower?: WorkloadLowerer; results?: () => ResultsWatch | undefined } = {}) {
        this.cache = new WorkspaceCache(services.shared);
        this.lowerer = options.lower;
        this.resultsWatch = options.results;
    }

    /** Sets the lowering (LS-core's lower.ts) and the results source (results-watch). */
    configure(options: { lower?: WorkloadLowerer; results?: () => ResultsWatch | undefined }): void {
        if (options.lower) this.lowerer = options.lower;
        if (options.results) this.resultsWatch = options.results;
    }

    /** The profile for a document: `<workspace>/.tenancy/device-profile.json`, then the user cache, else the default. */
    profileFor(documentUri: string): LocatedProfile {
        const parsed = URI.parse(documentUri);
        const folder = parsed.scheme === 'file'
            ? (this.resultsWatch?.()?.workspaceFolder(parsed.fsPath) ?? workspaceFolderOf(parsed.fsPath))
            : undefined;
        const key = folder ?? '<no workspace>';
        const stamp = profileStamp(folder);
        const hit = this.profiles.get(key);
        if (hit && hit.stamp === stamp) return hit.located;
        const located = locateProfile(folder);
        this.profiles.set(key, { stamp, located });
        return located;
    }

    /** The prediction of a workload, or undefined when it cannot be lowered (errors) or predicted. */
    forWorkload(workload: Workload): WorkloadPredictionView | undefined {
        const uri = AstUtils.getDocument(workload).uri.toString();
        const profile = this.profileFor(uri);
        const measured = this.latestResults(uri, workload.name);
        const stamp = `${profile.profile.key}|${profile.profile.createdAt}|${profile.file ?? ''}|${measured?.finishedAt ?? ''}`;
        const hit = this.cache.get(workload);
        if (hit && hit.stamp === stamp) return hit.view;
        let view: WorkloadPredictionView | undefined;
        try {
            const ir = this.lowerer?.(workload);
            if (ir) view = { workload, ir, prediction: predictWorkload(ir, profile.profile), profile, measured };
            this.lastError = undefined;
        } catch (error) {
            // A prediction failure must never break validation or hovers: record it and show nothing.
            this.lastError = `prediction of workload ${workload.name}: ${error instanceof Error ? error.message : String(error)}`;
            view = undefined;
        }
        this.cache.set(workload, { stamp, view });
        return view;
    }

    /** Predictions of every workload of a document. */
    forDocument(document: LangiumDocument): WorkloadPredictionView[] {
        const root = document.parseResult.value as AstNode & { elements?: AstNode[] };
        const workloads = (root.elements ?? []).filter(isWorkload);
        return workloads.map(w => this.forWorkload(w)).filter((v): v is WorkloadPredictionView => v !== undefined);
    }

    /**
     * Op instances whose IR source is exactly the given range of a document, across every
     * workload of the open documents (a model used by several tenants, or repeated, has several).
     */
    opsAt(documentUri: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }, views: WorkloadPredictionView[]): OpInstance[] {
        const out: OpInstance[] = [];
        for (const view of views) {
            view.prediction.tenants.forEach((tenant, ti) => {
                const irOps = view.ir.tenants[ti]?.graph.ops ?? [];
                for (const op of tenant.ops) {
                    const irOp = irOps.find(o => o.path === op.path);
                    const s = op.source;
                    if (s && s.uri === documentUri && samePos(s.start, range.start) && samePos(s.end, range.end)) out.push({ view, tenant, op, irOp });
                }
            });
        }
        return out;
    }

    /** Every workload prediction of the open documents (ops of a model may live in another document). */
    allViews(documents: Iterable<LangiumDocument>): WorkloadPredictionView[] {
        const views: WorkloadPredictionView[] = [];
        for (const d of documents) views.push(...this.forDocument(d));
        return views;
    }

    private latestResults(uri: string, workload: string): Results | undefined {
        const latest = this.resultsWatch?.()?.latest(uri, workload);
        return latest?.kind === 'ok' ? latest.results : undefined;
    }
}

function samePos(a: { line: number; character: number }, b: { line: number; character: number }): boolean {
    return a.line === b.line && a.character === b.character;
}

/** A cheap fingerprint of the files locateProfile reads: the workspace profile's and the cache folder's mtimes. */
function profileStamp(folder: string | undefined): string {
    const parts: string[] = [];
    const stat = (file: string) => {
        try {
            const s = statSync(file);
            parts.push(`${file}:${s.mtimeMs}:${s.size}`);
        } catch {
            parts.push(`${file}:-`);
        }
    };
    if (folder) stat(workspaceProfilePath(folder));
    const dir = profileCacheDir();
    if (existsSync(dir)) {
        try {
            for (const f of readdirSync(dir)) if (f.endsWith('.json')) stat(path.join(dir, f));
        } catch { /* unreadable cache folder: locateProfile reports it */ }
    }
    return parts.join('|');
}
