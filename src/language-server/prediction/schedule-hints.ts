/**
 * Schedule hints in the editor: the `schedule-hint` diagnostic (schedule-comparison.ts
 * scheduleHint) and the comparison behind the hover on `schedule`, computed off the typing path.
 *
 * Comparing schedules runs dozens of simulations (a quarter to half a second per workload on the
 * reference host), far too much for a check that runs on every keystroke. So:
 * - the check (a cheap one, on each build) shows what is already known: the comparison of this
 *   workload's IR when it has been computed, else the one last shown for the workload (so a
 *   hint does not flicker while the user types), and asks for the workload to be compared;
 * - after a build, once no edit has come for `debounceMs`, a job compares what was asked for, for
 *   documents open in the editor first, then for the workloads of other documents whose co-run
 *   figures are the comparison's (a schedule resolved by search: `auto`, co_tuned, regulated's
 *   `auto` arguments), so that their `slo-at-risk` and `overloaded` read the same simulated
 *   figures as an open document's; for the other workloads of documents not open, with several
 *   tenants, it simulates only their own schedule (simulatesAlone: opening a workspace validates
 *   every document, and the check would otherwise run one simulation per workload). It runs the
 *   comparison stepwise (a step is one simulation, a few milliseconds), yielding to the event
 *   loop between steps so requests and the next edit's build are served at once; any edit
 *   cancels it (the builder's onUpdate). A cancelled
 *   comparison keeps its generator and resumes where it stopped when the same IR is asked for
 *   again;
 * - comparisons are kept by the workload's content (its IR without names, sources and schedule:
 *   what the candidates' figures depend on), so an edit elsewhere, a comment, a change of the
 *   schedule line or a second workload with the same tenants costs no new simulation;
 * - when a workload's comparison is done and the document is still at the version it was asked
 *   for, the job merges the document's hint diagnostics into its diagnostics and publishes them
 *   (the validator's own publication on the next build shows the same, from the cache).
 * After a `tenancy compare` of the workload (its `.compare.json`, read through ResultsWatch like
 * every results file), a hint shows the measured gain beside the predicted one; a hint the
 * measurement contradicts is withdrawn: it becomes a diagnostic of severity hint that says so and
 * offers no quick fix.
 * Langium supports this directly: the builder's onUpdate (an edit came) and onBuildPhase
 * (Validated: a build finished) events, the documents' versions, and a diagnostics push through
 * the connection; the workspace lock is not taken, since the job reads only its own plain data
 * (IRs, profiles) until it publishes, and publishes in one synchronous step.
 */
import { AstUtils, DocumentState, getDiagnosticRange, URI, type LangiumDocument, type ValidationAcceptor } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import { CancellationTokenSource, DiagnosticSeverity, Emitter, type Diagnostic, type Event } from 'vscode-languageserver';
import type { WorkloadIR } from '../../runtime/ir/types.js';
import type { DeviceProfile } from '../../runtime/predict/profile.js';
import { isScheduleDecl, isWorkload, type ScheduleDecl, type Workload } from '../generated/ast.js';
import { IssueCodes } from '../validation/issue-codes.js';
import type { PredictionService } from './prediction-service.js';
import type { ResultsWatch } from '../lsp/results-watch.js';
import type { HoverSection, HoverTarget } from '../lsp/hover-provider.js';
import { profileLabel } from './format.js';
import { PREDICTION_CODES, predictionDiagnostics } from './prediction-features.js';
import {
    assembleComparison, candidateSteps, comparisonMarkdown, declaredAmongCandidates, declaredSteps, HINT_BAND, scheduleHint,
    type CandidateFigures, type ScheduleComparison, type ScheduleHint,
} from './schedule-comparison.js';
import { scheduleName } from '../../runtime/schedule/policy.js';
import { declaredEvaluation, resolvesBySearch, type ScheduleEvaluation } from '../../runtime/predict/schedules.js';
import type { Comparison } from '../../runtime/report/compare.js';

type Services = LangiumServices & { prediction: { Predictions: PredictionService }; results: { ResultsWatch: ResultsWatch } };

/** What a `schedule-hint` diagnostic carries for its quick fix. */
export interface ScheduleHintData {
    code: typeof IssueCodes.ScheduleHint;
    /** The suggested schedule as written after `schedule`: `layer_block(size: auto)`; null when a measurement withdrew the hint (no quick fix). */
    schedule: string | null;
}

/** Published hint diagnostics of a document (for tests and the benchmark). */
export interface HintsPublished {
    uri: string;
    version: number;
    hints: Diagnostic[];
}

interface Declared {
    steps?: Generator<void, { evaluation?: ScheduleEvaluation; missing?: string }>;
    result?: { evaluation?: ScheduleEvaluation; missing?: string };
}

/** The comparisons of one workload content on one profile, computed as far as asked for. */
interface Entry {
    ir: WorkloadIR;
    profile: DeviceProfile;
    steps?: Generator<void, CandidateFigures>;
    figures?: CandidateFigures;
    /** Declared schedules that are not candidates, by name. */
    declared: Map<string, Declared>;
    /** Why no comparison will come (it ran out of its work budget or failed). */
    failed?: string;
    workMs: number;
}

interface Request {
    uri: string;
    version: number;
    workload: string;
    ir: WorkloadIR;
    profile: DeviceProfile;
    profileStamp: string;
    /** Only the declared schedule's simulation is wanted (simulatesAlone), not a comparison. */
    alone: boolean;
}

/** Most comparisons kept (by workload content); the oldest used goes first. */
const MAX_ENTRIES = 32;
/** Most declared schedules simulated alone kept (a few kB each: one per workload of a large workspace). */
const MAX_ALONE = 1024;

/**
 * The most tenants whose schedules the editor compares. A comparison yields between simulations,
 * but one simulation cannot yield, and its cost grows with the tenants (more arrivals) times
 * the tenants again (each event looks at every queue and weighs the contention of every pair in
 * flight: runtime/predict/simulate.ts). The longest step measured here (Poisson tenants of small
 * models, host load ~12 on 2 cores), with a simulation that weighed every pair at every event:
 * 0.5 s at 8 tenants, 2.5 s at 16, 8.8 s at 32, 14 s at 58 — every request waited that long, and
 * past 16 the work budget runs out anyway. `tenancy predict` compares any number.
 */
export const editorComparisonLimits = { tenants: 16 };

/** Why the editor does not compare a workload's schedules (too many tenants), or undefined. */
function beyondComparisonLimits(ir: WorkloadIR): string | undefined {
    const { tenants } = editorComparisonLimits;
    return ir.tenants.length > tenants
        ? `${ir.tenants.length} tenants are more than the ${tenants} whose schedules the editor compares (each simulation grows with the square of the tenants; \`tenancy predict\` compares them)`
        : undefined;
}

/** Computes, caches and publishes schedule comparisons and hints; see the module comment. */
export class ScheduleHintService {
    /** Quiet time after a build before the job starts: a pause in typing, not every keystroke. */
    debounceMs = 150;
    /** Work one comparison may take, summed over its steps; past it the workload gets no hint (and the hover says why). */
    workBudgetMs = 10_000;
    /**
     * Which documents get hints: those open in the editor, or every document built (tests, the benchmark, a CLI that
     * wants them). With 'open', a document not open is compared too when its co-run figures are the comparison's (a
     * searched schedule), after the open documents' workloads.
     */
    documents: 'open' | 'all' = 'open';
    /** Off: no hint diagnostics and no job (the hover still compares on demand). */
    enabled = true;
    /** The predictor's error band a gain must exceed (schedule-comparison.ts HINT_BAND; tests narrow it). */
    band = HINT_BAND;
    /** What the jobs did (tests and the benchmark read it): comparisons begun, simulation steps run, jobs stopped by an edit, longest step (ms). */
    readonly stats = { comparisons: 0, steps: 0, cancelled: 0, longestStepMs: 0 };

    private readonly entries = new Map<string, Entry>();
    /**
     * Declared schedules simulated alone (simulatesAlone), by content key and schedule: a document not open needs its
     * schedule's figures, not a comparison; 'failed' when the simulation refused the workload (the check then
     * simulates it and says why).
     */
    private readonly alone = new Map<string, ScheduleEvaluation | 'failed'>();
    /** Per `uri#workload`, the simulation alone last shown (figures do not flicker back to the solo ones meanwhile). */
    private readonly lastAlone = new Map<string, ScheduleEvaluation>();
    private readonly keys = new WeakMap<WorkloadIR, string>();
    /** Per `uri#workload`, the key of the comparison last shown. */
    private readonly shown = new Map<string, string>();
    /** Per `uri#workload`, the latest request. */
    private readonly requests = new Map<string, Request>();
    private timer: NodeJS.Timeout | undefined;
    private job: { source: CancellationTokenSource; done: Promise<void> } | undefined;
    private readonly published = new Emitter<HintsPublished>();
    private idleWaiters: Array<() => void> = [];
    /** Whether the client re-asks for inlay hints on request (the tenants' co-run figures change when a comparison comes in). */
    private inlayHintRefresh = false;

    constructor(private readonly services: Services) {
        services.shared.lsp.LanguageServer.onInitialize(params => {
            this.inlayHintRefresh = params.capabilities.workspace?.inlayHint?.refreshSupport === true;
        });
        const builder = services.shared.workspace.DocumentBuilder;
        builder.onUpdate((_changed, deleted) => {
            this.cancel();
            for (const uri of deleted) this.forget(uri.toString());
        });
        builder.onBuildPhase(DocumentState.Validated, () => this.schedule());
    }

    /** Fires when a document's hints were published by the job. */
    get onPublished(): Event<HintsPublished> {
        return this.published.event;
    }

    /** The validation check on a workload: its hint from what is known now, and a request to compare it. */
    checkWorkload(workload: Workload, accept: ValidationAcceptor): void {
        if (!this.enabled) return;
        const known = this.known(workload, true);
        if (known?.hint) accept(known.hint.withdrawn ? 'hint' : 'info', known.hint.message, { node: known.node, property: known.property, code: IssueCodes.ScheduleHint, data: hintData(known.hint) });
    }

    /** The comparison of a workload's current IR, if computed (no stale figures). */
    comparison(workload: Workload): ScheduleComparison | undefined {
        const view = this.services.prediction.Predictions.forWorkload(workload);
        if (!view) return undefined;
        const key = this.keys.get(view.ir);
        const entry = key === undefined ? undefined : this.entries.get(key);
        return entry && this.assemble(entry, view.ir);
    }

    /**
     * The simulation of a workload's own schedule for its tenants' co-run figures (prediction-service.ts): the declared
     * schedule's row of the comparison when computed; undefined when the schedule needs no search (one simulation: the
     * prediction runs it); else the row last shown for the workload (so figures do not flicker while the user types),
     * or 'pending' until the job has compared it.
     */
    declaredEvaluation(workload: Workload, ir: WorkloadIR, profile: DeviceProfile): ScheduleEvaluation | 'pending' | undefined {
        // Fresh services (a workspace just opened) have computed nothing: no key to build (it serialises the IR).
        const key = this.entries.size + this.alone.size > 0 ? this.keyOf({ ir, profileStamp: stampOf(profile) }) : undefined;
        const entry = key === undefined ? undefined : this.entries.get(key);
        const computed = entry && this.assemble(entry, ir);
        if (computed?.current) return computed.current;
        const alone = key === undefined ? undefined : this.alone.get(aloneKey(key, ir));
        if (alone) return alone === 'failed' ? undefined : alone;
        const uri = AstUtils.getDocument(workload).uri.toString();
        if (computed || !(coRunAwaitsComparison(ir) || this.simulatesAlone(uri, ir))) return undefined;
        const last = this.shown.get(requestKey(uri, workload.name));
        const lastEntry = last === undefined ? undefined : this.entries.get(last);
        return (lastEntry && this.assemble(lastEntry, ir)?.current) ?? this.lastAlone.get(requestKey(uri, workload.name)) ?? 'pending';
    }

    /**
     * Whether the job simulates a workload's own schedule for its co-run figures rather than the check: several tenants,
     * in a document not open in the editor, while the job runs. Opening a workspace validates every document, and one
     * simulation per workload (milliseconds each) on that path made the first build of a large workspace twice as
     * long; an open document's workloads are few and their figures are wanted at once (hover, inlay hints).
     */
    private simulatesAlone(uri: string, ir: WorkloadIR): boolean {
        return this.enabled && ir.tenants.length > 1 && !this.eligible(uri) && !resolvesBySearch(ir.schedule) && !beyondComparisonLimits(ir);
    }

    /**
     * The comparison of a workload, computing it now if needed (the hover): waits for the job up to
     * `timeoutMs` (the job goes on; a later hover shows it). Undefined with why when there is none
     * (errors, beyond the editor's limits, too much work, not done in time).
     */
    async comparisonSoon(workload: Workload, timeoutMs = 1000): Promise<{ comparison?: ScheduleComparison; why?: string }> {
        const view = this.services.prediction.Predictions.forWorkload(workload);
        if (!view) return { why: 'no prediction for this workload (it has errors, or is beyond what the editor predicts)' };
        const beyond = beyondComparisonLimits(view.ir);
        if (beyond) return { why: beyond };
        const ready = () => this.comparison(workload);
        if (ready()) return { comparison: ready() };
        const document = AstUtils.getDocument(workload);
        this.request(document, workload.name, view.ir, view.profile.profile, stampOf(view.profile.profile), true);
        this.startNow();
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
            let timer: NodeJS.Timeout | undefined;
            await Promise.race([this.job?.done, new Promise(resolve => { timer = setTimeout(resolve, deadline - Date.now()); })]);
            clearTimeout(timer);
            const c = ready();
            if (c) return { comparison: c };
            const key = this.keys.get(view.ir);
            const failed = key === undefined ? undefined : this.entries.get(key)?.failed;
            if (failed) return { why: failed };
            if (!this.job) {
                // The job was cancelled by an edit: this workload's IR is gone, or it resumes after the next build.
                if (!this.requests.has(requestKey(document.uri.toString(), workload.name))) break;
                this.startNow();
            }
        }
        return { why: 'still comparing schedules; hover again in a moment' };
    }

    /** Resolves when no job runs and none is waiting to start (tests, the benchmark). */
    idle(): Promise<void> {
        if (!this.job && !this.timer) return Promise.resolve();
        return new Promise(resolve => this.idleWaiters.push(resolve));
    }

    /** The hint diagnostics of a document's workloads from what is known now (no request). */
    hintDiagnostics(document: LangiumDocument): Diagnostic[] {
        const root = document.parseResult.value as { elements?: unknown[] };
        const out: Diagnostic[] = [];
        for (const w of (root.elements ?? []).filter(isWorkload)) {
            const known = this.known(w, false);
            if (!known?.hint) continue;
            out.push({
                range: getDiagnosticRange({ node: known.node, property: known.property }),
                severity: known.hint.withdrawn ? DiagnosticSeverity.Hint : DiagnosticSeverity.Information,
                message: known.hint.message,
                code: IssueCodes.ScheduleHint,
                data: hintData(known.hint),
                source: this.services.LanguageMetaData.languageId,
            });
        }
        return out;
    }

    /** What is known of a workload's comparison and hint, and where the hint goes; asks for a comparison when not current. */
    private known(workload: Workload, ask: boolean): { hint?: ScheduleHint; node: Workload | ScheduleDecl; property?: 'name' } | undefined {
        const view = this.services.prediction.Predictions.forWorkload(workload);
        if (!view) return undefined;
        const document = AstUtils.getDocument(workload);
        const uri = document.uri.toString();
        const profile = view.profile.profile;
        const key = this.keys.get(view.ir);
        let entry = key === undefined ? undefined : this.entries.get(key);
        const current = entry !== undefined && this.assemble(entry, view.ir) !== undefined;
        if (!current) {
            if (ask) this.request(document, workload.name, view.ir, profile, stampOf(profile), false);
            const last = this.shown.get(requestKey(uri, workload.name));
            entry = last === undefined ? undefined : this.entries.get(last);
        }
        const comparison = entry && this.assemble(entry, view.ir);
        const decl = workload.members.find(isScheduleDecl);
        const place = decl ? { node: decl } : { node: workload, property: 'name' as const };
        return { ...place, hint: comparison && scheduleHint(comparison, { band: this.band, measured: this.measured(uri, workload.name) }) };
    }

    /** The workload's latest measured comparison of schedules (`tenancy compare`), if any is usable. */
    measured(documentUri: string, workload: string): Comparison | undefined {
        return this.services.results.ResultsWatch.measuredComparison(documentUri, workload);
    }

    /** The comparison of an entry for a workload's IR, when its figures (and the declared schedule's) are computed. */
    private assemble(entry: Entry, ir: WorkloadIR): ScheduleComparison | undefined {
        if (!entry.figures) return undefined;
        if (declaredAmongCandidates(ir.schedule, entry.profile)) return assembleComparison(ir, entry.figures);
        const declared = entry.declared.get(scheduleName(ir.schedule))?.result;
        return declared ? assembleComparison(ir, entry.figures, declared) : undefined;
    }

    private request(document: LangiumDocument, workload: string, ir: WorkloadIR, profile: DeviceProfile, profileStamp: string, always: boolean): void {
        const uri = document.uri.toString();
        if (beyondComparisonLimits(ir)) return;
        // A document not open still needs the comparison when its tenants' co-run figures are the comparison's row (a
        // searched schedule: declaredEvaluation), or its prediction diagnostics would stay on the solo figures; else
        // only its schedule's simulation (simulatesAlone), once.
        const compare = always || this.eligible(uri) || coRunAwaitsComparison(ir);
        if (!compare && (!this.simulatesAlone(uri, ir) || (this.alone.size > 0 && this.alone.has(aloneKey(this.keyOf({ ir, profileStamp }), ir))))) return;
        const id = requestKey(uri, workload);
        const before = this.requests.get(id);
        if (!compare && before?.ir === ir && !before.alone) return; // a hover asked for the comparison: keep it
        this.requests.set(id, { uri, version: document.textDocument.version, workload, ir, profile, profileStamp, alone: !compare });
    }

    private eligible(uri: string): boolean {
        return this.documents === 'all' || this.services.shared.workspace.TextDocuments?.get(uri) !== undefined;
    }

    /** The next request to compare: the first of a document open in the editor (the one being typed in), else the first. */
    private nextRequest(): [string, Request] | undefined {
        let first: [string, Request] | undefined;
        for (const entry of this.requests) {
            if (this.services.shared.workspace.TextDocuments?.get(entry[1].uri) !== undefined) return entry;
            first ??= entry;
        }
        return first;
    }

    /** After a build: start the job once no edit has come for debounceMs. */
    private schedule(): void {
        if (this.requests.size === 0 || !this.enabled) return this.settle();
        clearTimeout(this.timer);
        this.timer = setTimeout(() => { this.timer = undefined; this.run(); }, this.debounceMs);
    }

    /** Starts the job now (a hover is waiting), unless it runs. */
    private startNow(): void {
        if (this.job) return;
        clearTimeout(this.timer);
        this.timer = undefined;
        this.run();
    }

    /** An edit came: stop the job and the timer (the edit's build asks again). */
    private cancel(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        if (this.job && !this.job.source.token.isCancellationRequested) {
            this.stats.cancelled++;
            this.job.source.cancel();
        }
    }

    private forget(uri: string): void {
        for (const key of [...this.shown.keys(), ...this.requests.keys()]) {
            if (key.startsWith(`${uri}#`)) { this.shown.delete(key); this.requests.delete(key); this.lastAlone.delete(key); }
        }
    }

    private run(): void {
        const source = new CancellationTokenSource();
        const done = this.work(source).catch(error => {
            console.error('Tenancy: comparing schedules failed:', error instanceof Error ? error.stack ?? error : error);
        }).finally(() => {
            if (this.job?.source === source) this.job = undefined;
            this.settle();
        });
        this.job = { source, done };
    }

    private settle(): void {
        if (this.job || this.timer) return;
        for (const resolve of this.idleWaiters.splice(0)) resolve();
    }

    /** The job: compares each requested workload in turn and publishes its document's hints. */
    private async work(source: CancellationTokenSource): Promise<void> {
        const documents = this.services.shared.workspace.LangiumDocuments;
        for (;;) {
            const next = this.nextRequest();
            if (!next) return;
            const [id, request] = next;
            const document = documents.getDocument(URI.parse(request.uri));
            if (!document || document.textDocument.version !== request.version) {
                this.requests.delete(id);
                continue;
            }
            const key = this.keyOf(request);
            if (request.alone) {
                if (!await this.simulateAlone(key, request, source)) return;
                if (this.requests.get(id) === request) this.requests.delete(id);
                // Once per document: a simulation takes milliseconds, and publishing re-reads every workload's diagnostics.
                if (![...this.requests.values()].some(r => r.uri === request.uri)) this.publish(request.uri, request.version);
                continue;
            }
            let entry = this.entries.get(key);
            if (entry) this.entries.delete(key); // re-inserted below: most recently used last
            entry ??= { ir: request.ir, profile: request.profile, declared: new Map(), workMs: 0 };
            this.entries.set(key, entry);
            while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
            const finished = await this.complete(entry, request.ir, source);
            if (!finished || source.token.isCancellationRequested) return; // cancelled: the request stays for the next job
            if (this.requests.get(id) === request) this.requests.delete(id);
            this.shown.set(id, key);
            this.publish(request.uri, request.version);
        }
    }

    /** Simulates a request's declared schedule alone (one step) unless done; false when cancelled first. */
    private async simulateAlone(key: string, request: Request, source: CancellationTokenSource): Promise<boolean> {
        const id = aloneKey(key, request.ir);
        let result = this.alone.get(id);
        if (!result) {
            await new Promise<void>(resolve => setImmediate(resolve));
            if (source.token.isCancellationRequested) return false;
            const started = performance.now();
            try {
                result = declaredEvaluation(request.ir, request.profile, { cache: this.services.prediction.Predictions.planCache });
            } catch {
                result = 'failed';
            }
            const ms = performance.now() - started;
            this.stats.steps++;
            this.stats.longestStepMs = Math.max(this.stats.longestStepMs, ms);
            this.alone.set(id, result);
            while (this.alone.size > MAX_ALONE) this.alone.delete(this.alone.keys().next().value!);
        }
        if (result !== 'failed') this.lastAlone.set(requestKey(request.uri, request.workload), result);
        return true;
    }

    /** The content key of a request's IR (memoised by IR object): everything the candidates' figures depend on. */
    private keyOf(request: Pick<Request, 'ir' | 'profileStamp'>): string {
        let key = this.keys.get(request.ir);
        if (key === undefined) {
            const ir = request.ir;
            // Names, sources, the schedule and the benchmark's lengths do not change the candidates' figures (simulationInput
            // reads the benchmark's seed alone); tenant names do (op paths).
            key = `${request.profileStamp}|${JSON.stringify(ir, function (this: unknown, k, v) {
                if (k === 'source') return undefined;
                if (this !== ir) return v;
                if (k === 'benchmark') return { seed: ir.benchmark.seed };
                return k === 'workload' || k === 'sourceUri' || k === 'schedule' ? undefined : v;
            })}`;
            this.keys.set(ir, key);
        }
        return key;
    }

    /** Steps an entry's computations (the candidates, then the declared schedule when it is not one) until done or cancelled. */
    private async complete(entry: Entry, ir: WorkloadIR, source: CancellationTokenSource): Promise<boolean> {
        if (entry.failed) return true;
        if (!entry.figures) {
            if (!entry.steps) {
                this.stats.comparisons++;
                entry.steps = candidateSteps(entry.ir, entry.profile, this.services.prediction.Predictions.planCache);
            }
            const result = await this.step(entry, entry.steps, source);
            if (result === 'cancelled') return false;
            if (result === 'failed') return true;
            entry.figures = result.value;
        }
        if (!declaredAmongCandidates(ir.schedule, entry.profile)) {
            const name = scheduleName(ir.schedule);
            let declared = entry.declared.get(name);
            if (!declared) entry.declared.set(name, declared = {});
            if (!declared.result) {
                declared.steps ??= declaredSteps(ir.schedule, entry.figures.input);
                const result = await this.step(entry, declared.steps, source);
                if (result === 'cancelled') return false;
                if (result === 'failed') return true;
                declared.result = result.value;
            }
        }
        return true;
    }

    /** Runs a generator's steps, yielding to the event loop between them, within the entry's work budget. */
    private async step<T>(entry: Entry, steps: Generator<void, T>, source: CancellationTokenSource): Promise<{ value: T } | 'cancelled' | 'failed'> {
        for (;;) {
            await new Promise<void>(resolve => setImmediate(resolve));
            if (source.token.isCancellationRequested) return 'cancelled';
            const started = performance.now();
            let next: IteratorResult<void, T>;
            try {
                next = steps.next();
            } catch (error) {
                entry.failed = `the comparison failed (${error instanceof Error ? error.message : String(error)})`;
                return 'failed';
            }
            const ms = performance.now() - started;
            entry.workMs += ms;
            this.stats.steps++;
            this.stats.longestStepMs = Math.max(this.stats.longestStepMs, ms);
            if (next.done) return { value: next.value };
            if (entry.workMs > this.workBudgetMs) {
                entry.failed = `comparing the schedules of this workload takes more than ${this.workBudgetMs / 1000} s of work, beyond what the editor spends (\`tenancy predict\` shows it)`;
                return 'failed';
            }
        }
    }

    /**
     * Merges a document's hint diagnostics, and its prediction diagnostics (the co-run figures are this comparison's
     * simulation), into its diagnostics and publishes them, if the document is still at `version`; asks the editor
     * for its inlay hints again (the tenants' co-run figures).
     */
    private publish(uri: string, version: number): void {
        if (this.inlayHintRefresh) void this.services.shared.lsp.Connection?.sendRequest('workspace/inlayHint/refresh').catch(() => undefined);
        // Off: the comparison was for a hover; no diagnostics.
        if (!this.enabled) return;
        const document = this.services.shared.workspace.LangiumDocuments.getDocument(URI.parse(uri));
        if (!document || document.textDocument.version !== version || document.state < DocumentState.Validated) return;
        const hints = this.hintDiagnostics(document);
        const fresh = [...predictionDiagnostics(this.services, document), ...hints];
        const replaced = new Set([IssueCodes.ScheduleHint, ...PREDICTION_CODES]);
        const before = (document.diagnostics ?? []).filter(d => replaced.has(String(d.code)));
        const others = (document.diagnostics ?? []).filter(d => !replaced.has(String(d.code)));
        if (sameDiagnostics(before, fresh)) return;
        document.diagnostics = [...others, ...fresh];
        this.services.shared.lsp.Connection?.sendDiagnostics({ uri, version, diagnostics: document.diagnostics });
        this.published.fire({ uri, version, hints });
    }
}

/** Whether a workload's co-run figures wait for its comparison (declaredEvaluation's 'pending'): several tenants under a schedule resolved by search. */
function coRunAwaitsComparison(ir: WorkloadIR): boolean {
    return ir.tenants.length > 1 && resolvesBySearch(ir.schedule);
}

/** The key of a declared schedule simulated alone: the content key (which leaves the schedule out) and the schedule. */
function aloneKey(contentKey: string, ir: WorkloadIR): string {
    return `${contentKey}|${scheduleName(ir.schedule)}`;
}

function requestKey(uri: string, workload: string): string {
    return `${uri}#${workload}`;
}

/** What identifies a profile's version in the comparisons' keys. */
function stampOf(profile: DeviceProfile): string {
    return profile.key + profile.createdAt;
}

function hintData(hint: ScheduleHint): ScheduleHintData {
    return { code: IssueCodes.ScheduleHint, schedule: hint.withdrawn ? null : hint.suggested.name };
}

/** The same diagnostics in any order (the check raises them in another order than publish lists them). */
function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
    const keys = (list: readonly Diagnostic[]) => list.map(d => `${d.message}@${JSON.stringify(d.range)}`).sort();
    const ka = keys(a), kb = keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/**
 * The hover section on a workload's schedule (the `schedule` keyword and the policy's name; the
 * workload's name when it has no schedule line, where its hint is): every schedule compared.
 */
export function scheduleHoverSection(services: Services & { prediction: { ScheduleHints: ScheduleHintService } }): HoverSection {
    return async (target: HoverTarget) => {
        const decl = target.kind === 'schedule' ? target.schedule : target.kind === 'word' && isScheduleDecl(target.node) ? target.node : undefined;
        const workload = decl ? decl.$container : target.kind === 'workload' && !target.workload.members.some(isScheduleDecl) ? target.workload : undefined;
        if (!workload) return undefined;
        const { comparison, why } = await services.prediction.ScheduleHints.comparisonSoon(workload);
        if (!comparison) return `**Schedules compared:** ${why}.`;
        const view = services.prediction.Predictions.forWorkload(workload);
        const hints = services.prediction.ScheduleHints;
        const measured = hints.measured(AstUtils.getDocument(workload).uri.toString(), workload.name);
        return comparisonMarkdown(comparison, view ? profileLabel(view.prediction) : 'profile unknown', hints.band, measured);
    };
}

/** Registers the hint check on workloads (a cheap one: it reads the cache); the hover provider declares the section on `schedule`. */
export function registerScheduleHints(services: Services & { prediction: { ScheduleHints: ScheduleHintService } }): void {
    const hints = services.prediction.ScheduleHints;
    services.validation.ValidationRegistry.register({ Workload: (workload: Workload, accept: ValidationAcceptor) => hints.checkWorkload(workload, accept) });
}

