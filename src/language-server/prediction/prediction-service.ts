/**
 * Predictions in the language server: per workload, the runtime's pure prediction model
 * (src/runtime/predict) over the workload's IR (lowered by LS-core's lowering) and the device
 * profile of the document's workspace. Computed once and kept across edits while what it was
 * computed from is unchanged: the workload's AST node (a reparse makes a new one), the models its
 * tenants reach through calls (compared by node, so a relinked call to another model, or an
 * edited model, misses), the profile and the latest results. The profile and results files are
 * re-checked (by mtime, so an unreported change still shows) once per workspace state and at
 * least every second, not on every hover. The co-run figures are the simulation of the workload's
 * schedule that its schedule hints computed (schedule-hints.ts declaredEvaluation, read on every
 * look-up: a view is re-predicted when a new one comes in, and keeps it if the comparison is
 * evicted from the hints' cache), so they are the hover table's row. Never touches the GPU:
 * profiles are files written by `tenancy calibrate`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { AstUtils, DocumentState, URI, type AstNode, type LangiumDocument } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import type { IrGraph, IrOp, WorkloadIR } from '../../runtime/ir/types.js';
import { locateProfile, profileCacheDir, workspaceProfilePath, type LocatedProfile } from '../../runtime/predict/profile-store.js';
import { PlanCache } from '../../runtime/plan/plan.js';
import { predictWorkload, type OpPrediction, type TenantPrediction, type WorkloadPrediction } from '../../runtime/predict/workload.js';
import type { DeviceProfile } from '../../runtime/predict/profile.js';
import type { ScheduleEvaluation } from '../../runtime/predict/schedules.js';
import type { Results } from '../../runtime/report/schema.js';
import { workspaceFolderOf } from '../../runtime/report/write.js';
import { modelsReached } from '../analysis/calls.js';
import { isWorkload, type Workload } from '../generated/ast.js';
import type { ResultsWatch } from '../lsp/results-watch.js';

/** Lowers a checked workload to IR; undefined when the workload has errors (nothing to predict). */
export type WorkloadLowerer = (workload: Workload) => WorkloadIR | undefined;

/** The simulation of a workload's schedule its co-run figures come from (predictWorkload's `schedule` option). */
export type ScheduleSimulations = (workload: Workload, ir: WorkloadIR, profile: DeviceProfile) => ScheduleEvaluation | 'pending' | undefined;

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
    /** Workspace state (update count) and time of the last mtime check. */
    checkedIn: number;
    checkedAt: number;
}

interface ViewEntry {
    stamp: string;
    /** What the prediction was computed from besides the workload's own node (see modelsReached). */
    reached: (AstNode | undefined)[];
    view: WorkloadPredictionView | undefined;
    /** The schedule simulation the view's co-run figures come from. */
    schedule?: ScheduleEvaluation | 'pending';
    /** Why there is no prediction, when it was not attempted (the workload is beyond what the editor predicts). */
    skipped?: string;
    checkedIn: number;
    checkedAt: number;
}

/**
 * The largest workload predicted in the editor, where a prediction runs inside a check: the
 * co-run model's cost grows with the square of the tenants and the closed-loop model's with the
 * clients (runtime/predict; measured here: 256 tenants or 100,000 clients ≈ 0.2 s). Beyond it the
 * workload says so (an info diagnostic).
 */
export const editorPredictionLimits = { tenants: 256, clients: 100_000 };

/** Why a workload is beyond the editor's prediction limits, or undefined. */
function beyondEditorLimits(ir: WorkloadIR): string | undefined {
    const { tenants, clients } = editorPredictionLimits;
    if (ir.tenants.length > tenants) return `${ir.tenants.length} tenants, more than the ${tenants} predicted in the editor`;
    const crowd = ir.tenants.find(t => t.arrival.kind === 'closed' && t.arrival.clients > clients);
    if (crowd && crowd.arrival.kind === 'closed') return `tenant ${crowd.name} has ${crowd.arrival.clients} closed-loop clients, more than the ${clients} predicted in the editor`;
    return undefined;
}

/** How long a profile/results check stays good within one workspace state (an unreported file change shows after this). */
const recheckMs = 1000;

/** Computes and caches predictions per workload; finds the profile per workspace. */
export class PredictionService {
    private readonly views = new WeakMap<Workload, ViewEntry>();
    private readonly profiles = new Map<string, ProfileEntry>();
    /** Workspace folder per document folder, per workspace state (the lookup walks the file system). */
    private readonly folders = new Map<string, string | undefined>();
    /** Kernel launches by op signature, for the server's lifetime (bounded): a model shared by tenants and workloads is planned once. */
    private readonly plans = new PlanCache();
    /** Bumped on every builder update: file checks are redone once per workspace state. */
    private state = 0;
    private lowerer: WorkloadLowerer | undefined;
    private schedules: ScheduleSimulations | undefined;
    private resultsWatch: (() => ResultsWatch | undefined) | undefined;
    /** The last error of a prediction (kept for the output channel / tests, never thrown at the editor). */
    lastError: string | undefined;
    /** Off: no workload is predicted, so the checks raise no prediction diagnostics (a CLI command that needs only the IR, or predicts it itself). */
    enabled = true;

    constructor(services: LangiumServices, options: { lower?: WorkloadLowerer; results?: () => ResultsWatch | undefined; schedules?: ScheduleSimulations } = {}) {
        const builder = services.shared.workspace.DocumentBuilder;
        builder.onUpdate(() => {
            this.state++;
            this.folders.clear();
        });
        // A view taken while a build was relinking (a hover needs only its own document linked) is re-checked once all are.
        builder.onBuildPhase(DocumentState.Linked, () => { this.state++; });
        this.lowerer = options.lower;
        this.resultsWatch = options.results;
        this.schedules = options.schedules;
    }

    /** The server's plan cache (schedule comparisons plan the same graphs). */
    get planCache(): PlanCache {
        return this.plans;
    }

    /** Sets the lowering (LS-core's lower.ts), the results source (results-watch) and the schedule simulations (schedule-hints.ts). */
    configure(options: { lower?: WorkloadLowerer; results?: () => ResultsWatch | undefined; schedules?: ScheduleSimulations }): void {
        if (options.lower) this.lowerer = options.lower;
        if (options.results) this.resultsWatch = options.results;
        if (options.schedules) this.schedules = options.schedules;
    }

    /** The profile for a document: `<workspace>/.tenancy/device-profile.json`, then the user cache, else the default. */
    profileFor(documentUri: string): LocatedProfile {
        const folder = this.workspaceFolder(documentUri);
        const key = folder ?? '<no workspace>';
        const hit = this.profiles.get(key);
        const now = Date.now();
        if (hit && hit.checkedIn === this.state && now - hit.checkedAt < recheckMs) return hit.located;
        const stamp = profileStamp(folder);
        if (hit && hit.stamp === stamp) {
            hit.checkedIn = this.state;
            hit.checkedAt = now;
            return hit.located;
        }
        const located = locateProfile(folder);
        this.profiles.set(key, { stamp, located, checkedIn: this.state, checkedAt: now });
        return located;
    }

    /** The prediction of a workload, or undefined when it cannot be lowered (errors) or predicted. */
    forWorkload(workload: Workload): WorkloadPredictionView | undefined {
        if (!this.enabled) return undefined;
        const hit = this.views.get(workload);
        const now = Date.now();
        // Same workspace state: nothing it depends on can have changed but files (checked every recheckMs).
        if (hit && hit.checkedIn === this.state && now - hit.checkedAt < recheckMs) return this.withSchedule(hit);
        const uri = AstUtils.getDocument(workload).uri.toString();
        const profile = this.profileFor(uri);
        const measured = this.latestResults(uri, workload.name);
        const stamp = `${profile.profile.key}|${profile.profile.createdAt}|${profile.file ?? ''}`;
        const reached = modelsReached(workload);
        if (hit && hit.stamp === stamp && sameNodes(hit.reached, reached)) {
            hit.checkedIn = this.state;
            hit.checkedAt = now;
            // New results change what is shown beside the prediction, not the prediction.
            if (hit.view && hit.view.measured !== measured) hit.view = { ...hit.view, measured };
            return this.withSchedule(hit);
        }
        let view: WorkloadPredictionView | undefined;
        let skipped: string | undefined;
        let schedule: ScheduleEvaluation | 'pending' | undefined;
        try {
            const ir = this.lowerer?.(workload);
            skipped = ir && beyondEditorLimits(ir);
            if (ir && !skipped) {
                schedule = this.scheduleOf(workload, ir, profile.profile);
                view = { workload, ir, prediction: predictWorkload(ir, profile.profile, { cache: this.plans, schedule }), profile, measured };
            }
            this.lastError = undefined;
        } catch (error) {
            // A prediction failure must never break validation or hovers: record it and show nothing.
            this.lastError = `prediction of workload ${workload.name}: ${error instanceof Error ? error.message : String(error)}`;
            view = undefined;
        }
        this.views.set(workload, { stamp, reached, view, skipped, schedule, checkedIn: this.state, checkedAt: now });
        return view;
    }

    /** The schedule simulation for a workload's co-run figures (none needed for one tenant). */
    private scheduleOf(workload: Workload, ir: WorkloadIR, profile: DeviceProfile): ScheduleEvaluation | 'pending' | undefined {
        return ir.tenants.length > 1 ? this.schedules?.(workload, ir, profile) : undefined;
    }

    /** A cached view, re-predicted when its schedule's simulation changed (the schedule job computed it since). */
    private withSchedule(entry: ViewEntry): WorkloadPredictionView | undefined {
        const view = entry.view;
        if (!view) return view;
        const schedule = this.scheduleOf(view.workload, view.ir, view.profile.profile);
        if (schedule === entry.schedule) return view;
        // Figures once simulated stay until another simulation comes in: a comparison evicted from the schedule hints'
        // cache (it keeps the latest few) does not take the co-run figures back to the solo ones.
        if (schedule === 'pending' && entry.schedule !== undefined && entry.schedule !== 'pending') return view;
        try {
            entry.view = { ...view, prediction: predictWorkload(view.ir, view.profile.profile, { cache: this.plans, schedule }) };
            entry.schedule = schedule;
        } catch (error) {
            this.lastError = `prediction of workload ${view.workload.name}: ${error instanceof Error ? error.message : String(error)}`;
        }
        return entry.view;
    }

    /** Why a workload has no prediction although it lowers (beyond the editor's limits), after forWorkload. */
    skippedReason(workload: Workload): string | undefined {
        return this.views.get(workload)?.skipped;
    }

    /**
     * Predictions of the workloads whose ops can come from a document: those defined in it and
     * those whose tenants reach one of its models (an op hover or the document's inlay hints need
     * no others, so an edit elsewhere costs them nothing).
     */
    viewsTouching(documentUri: string, documents: Iterable<LangiumDocument>): WorkloadPredictionView[] {
        const views: WorkloadPredictionView[] = [];
        for (const d of documents) {
            const own = d.uri.toString() === documentUri;
            for (const workload of workloadsIn(d)) {
                if (!own && !modelsReached(workload).some(m => m !== undefined && AstUtils.getDocument(m).uri.toString() === documentUri)) continue;
                const view = this.forWorkload(workload);
                if (view) views.push(view);
            }
        }
        return views;
    }

    private workspaceFolder(documentUri: string): string | undefined {
        const parsed = URI.parse(documentUri);
        if (parsed.scheme !== 'file') return undefined;
        const dir = path.dirname(parsed.fsPath);
        if (this.folders.has(dir)) return this.folders.get(dir);
        const folder = this.resultsWatch?.()?.workspaceFolder(parsed.fsPath) ?? workspaceFolderOf(parsed.fsPath);
        this.folders.set(dir, folder);
        return folder;
    }

    /** Predictions of every workload of a document. */
    forDocument(document: LangiumDocument): WorkloadPredictionView[] {
        return workloadsIn(document).map(w => this.forWorkload(w)).filter((v): v is WorkloadPredictionView => v !== undefined);
    }

    /**
     * Op instances whose IR source is exactly the given range of a document, across every
     * workload of the open documents (a model used by several tenants, or repeated, has several).
     */
    opsAt(documentUri: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }, views: WorkloadPredictionView[]): OpInstance[] {
        const out: OpInstance[] = [];
        for (const view of views) {
            view.prediction.tenants.forEach((tenant, ti) => {
                const graph = view.ir.tenants[ti]?.graph;
                for (const op of tenant.ops) {
                    const s = op.source;
                    if (s && s.uri === documentUri && samePos(s.start, range.start) && samePos(s.end, range.end)) out.push({ view, tenant, op, irOp: graph && irOpsByPath(graph).get(op.path) });
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

function workloadsIn(document: LangiumDocument): Workload[] {
    const root = document.parseResult.value as AstNode & { elements?: AstNode[] };
    return (root.elements ?? []).filter(isWorkload);
}

const opsByPath = new WeakMap<IrGraph, Map<string, IrOp>>();

/** A graph's ops by path, made once per graph (an op lookup per predicted op would be quadratic in a long graph). */
function irOpsByPath(graph: IrGraph): Map<string, IrOp> {
    let byPath = opsByPath.get(graph);
    if (!byPath) opsByPath.set(graph, byPath = new Map(graph.ops.map(o => [o.path, o])));
    return byPath;
}

function sameNodes(a: readonly (AstNode | undefined)[], b: readonly (AstNode | undefined)[]): boolean {
    return a.length === b.length && a.every((x, i) => x === b[i]);
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
