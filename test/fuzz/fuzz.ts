/**
 * The fuzzing campaign behind `npm run fuzz` and the fuzz test: N mutated seed documents
 * through one server, then each pathological class through a fresh server (so its peak memory
 * is its own), bounded in count and in time. Returns the figures BENCHMARKS.md records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRandom } from '../../src/runtime/plan/random.js';
import { loadSeeds, mutant, pathologicalDocuments, type Pathological } from './corpus.js';
import { FuzzServer, prepareWorkspace, type Finding } from './session.js';

export interface CampaignOptions {
    /** The server bundle (`out/language-server/main.cjs`). */
    bundle: string;
    /** The project root (seeds are read from it). */
    root: string;
    seed: number;
    /** Mutated documents to try. */
    count: number;
    /** Stop starting new mutated documents after this many seconds. */
    timeLimitS: number;
    /** Size of the pathological documents (1: as the issue names them). */
    pathologicalScale: number;
    /** A request (or diagnostics) without an answer after this long is a hang. */
    requestTimeoutMs: number;
    /** Which pathological classes to run (default: all). */
    pathological?: (doc: Pathological) => boolean;
    /** Progress lines (stderr). */
    log?: (line: string) => void;
}

export interface ClassResult {
    name: string;
    bounded: boolean;
    lines: number;
    bytes: number;
    diagnosticsMs: number | undefined;
    diagnosticsCpuMs: number | undefined;
    slowestRequestMs: number;
    slowestRequest: string | undefined;
    peakMemoryBytes: number | undefined;
    findings: Finding[];
}

export interface CampaignResult {
    seeds: number;
    documents: number;
    requests: number;
    findings: Finding[];
    /** Request latencies of the mutated documents, milliseconds. */
    latencies: number[];
    diagnostics: number[];
    peakMemoryBytes: number | undefined;
    serverStarts: number;
    classes: ClassResult[];
    seconds: number;
}

/** Runs the campaign. */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
    const started = performance.now();
    const log = options.log ?? (() => {});
    const seeds = loadSeeds(options.root);
    const workspace = mkdtempSync(join(tmpdir(), 'tenancy-fuzz-'));
    prepareWorkspace(workspace);
    const random = createRandom(options.seed, 'fuzz');
    const result: CampaignResult = { seeds: seeds.length, documents: 0, requests: 0, findings: [], latencies: [], diagnostics: [], peakMemoryBytes: undefined, serverStarts: 0, classes: [], seconds: 0 };
    try {
        const server = new FuzzServer(options.bundle, workspace, { requestTimeoutMs: options.requestTimeoutMs });
        await server.start();
        const deadline = started + options.timeLimitS * 1000;
        for (let i = 0; i < options.count && performance.now() < deadline; i++) {
            const { text, origin } = mutant(seeds, random);
            const outcome = await server.exercise(text, origin, random.fork(`doc${i}`));
            result.documents++;
            result.requests += outcome.latencies.length;
            result.findings.push(...outcome.findings);
            for (const l of outcome.latencies) result.latencies.push(l.ms);
            if (outcome.diagnosticsMs !== undefined) result.diagnostics.push(outcome.diagnosticsMs);
            for (const f of outcome.findings) log(`  ${f.kind} in ${f.request}: ${f.detail.split('\n')[0]} — ${f.origin}`);
            if ((i + 1) % 250 === 0) log(`${i + 1} documents, ${result.findings.length} findings, ${((performance.now() - started) / 1000).toFixed(0)} s`);
        }
        result.peakMemoryBytes = server.peakMemoryBytes();
        await server.stop();
        result.serverStarts = server.starts;

        for (const doc of pathologicalDocuments(options.pathologicalScale).filter(options.pathological ?? (() => true))) {
            const fresh = new FuzzServer(options.bundle, workspace, { requestTimeoutMs: options.requestTimeoutMs });
            await fresh.start();
            log(`pathological: ${doc.name} (${doc.text.split(/\r\n|\r|\n/).length} lines, ${doc.text.length} characters)`);
            const outcome = await fresh.exercise(doc.text, `pathological: ${doc.name}`, random.fork(doc.name), { diagnosticsTimeoutMs: Math.max(options.requestTimeoutMs, 30_000) });
            const peak = fresh.peakMemoryBytes();
            await fresh.stop();
            result.classes.push({
                name: doc.name, bounded: doc.bounded, lines: doc.text.split(/\r\n|\r|\n/).length, bytes: Buffer.byteLength(doc.text),
                diagnosticsMs: outcome.diagnosticsMs, diagnosticsCpuMs: outcome.diagnosticsCpuMs, ...slowest(outcome.latencies), peakMemoryBytes: peak, findings: outcome.findings,
            });
            for (const f of outcome.findings) log(`  ${f.kind} in ${f.request}: ${f.detail.split('\n')[0]}`);
        }
        // The import scenarios are a class too ('imports typed, deleted, restored').
        if (!options.pathological || options.pathological({ name: 'imports typed, deleted, restored', text: '', bounded: false })) {
            for (const scenario of await importScenarios(options, workspace)) result.classes.push(scenario);
        }
    } finally {
        rmSync(workspace, { recursive: true, force: true });
    }
    result.seconds = (performance.now() - started) / 1000;
    return result;
}

/** Imports that resolve to a folder, a .txt file, nothing, or a file that disappears later, typed as an editor sends them. */
async function importScenarios(options: CampaignOptions, workspace: string): Promise<ClassResult[]> {
    const { unlinkSync, writeFileSync } = await import('node:fs');
    const server = new FuzzServer(options.bundle, workspace, { requestTimeoutMs: options.requestTimeoutMs });
    await server.start();
    const random = createRandom(options.seed, 'imports');
    const findings: Finding[] = [];
    const latencies: { method: string; ms: number }[] = [];
    let diagnosticsMs = 0;
    const uri = `file://${join(workspace, 'typing.tenancy')}`;
    const body = '\nmodel m(batch = 1) {\n  input x: f32[batch, 4]\n  output lib_block(x, c: 4)\n}\n';
    // Typing `import "./lib.tenancy"` one keystroke at a time, with auto-closed quotes.
    const target = './lib.tenancy';
    const texts = ['import ', 'import ""', ...Array.from({ length: target.length }, (_, i) => `import "${target.slice(0, i + 1)}"`),
        'import "./folder.tenancy"', 'import "./notes.txt"', 'import "./missing.tenancy"', `import "${target}"`];
    for (const text of texts) {
        const outcome = await server.exercise(text + body, `imports: ${text}`, random, { uri });
        findings.push(...outcome.findings);
        latencies.push(...outcome.latencies);
        diagnosticsMs = Math.max(diagnosticsMs, outcome.diagnosticsMs ?? 0);
    }
    // The imported file disappears, then comes back.
    const lib = join(workspace, 'lib.tenancy');
    const libText = (await import('node:fs')).readFileSync(lib, 'utf8');
    unlinkSync(lib);
    server.fileChanged(lib, 3);
    findings.push(...(await server.exercise(`import "${target}"${body}`, 'imports: the imported file was deleted', random, { uri })).findings);
    writeFileSync(lib, libText);
    server.fileChanged(lib, 1);
    findings.push(...(await server.exercise(`import "${target}"${body} `, 'imports: the imported file came back', random, { uri })).findings);
    for (const f of findings) options.log?.(`  ${f.kind} in ${f.request}: ${f.detail.split('\n')[0]} — ${f.origin}`);
    const peak = server.peakMemoryBytes();
    await server.stop();
    return [{ name: 'imports typed, deleted, restored', bounded: false, lines: 6, bytes: 0, diagnosticsMs, diagnosticsCpuMs: undefined, ...slowest(latencies), peakMemoryBytes: peak, findings }];
}

/** The q-quantile of numbers (nearest rank). */
export function quantile(values: number[], q: number): number {
    if (values.length === 0) return NaN;
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The slowest request of a list, and its method. */
function slowest(latencies: readonly { method: string; ms: number }[]): { slowestRequestMs: number; slowestRequest: string | undefined } {
    let worst: { method: string; ms: number } | undefined;
    for (const l of latencies) if (!worst || l.ms > worst.ms) worst = l;
    return { slowestRequestMs: worst?.ms ?? 0, slowestRequest: worst?.method.replace(/^textDocument\//, '') };
}
