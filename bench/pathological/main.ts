/**
 * Pathological documents: for each class of text whose meaning is far bigger than the text (a
 * huge `repeat` count, nested repeats, a long chain of models calling models, deep nesting, a
 * 1 MB line, unclosed nested calls, a 20,000-line document), one build with validation of that
 * document alone on fresh services, then one of each LSP request a client sends on open (hover
 * at up to 50 identifiers, inlay hints, code lenses, document symbols, semantic tokens, folding
 * ranges, completion at 3 places). Each case runs in its own process (so a crash, an
 * out-of-memory abort or a stack overflow ends that case only, and its peak memory is its own),
 * on the project's Node with a 4 GiB heap, killed after --timeout seconds (default 120).
 * Prints a markdown table on stdout and writes the raw numbers to bench/.work/pathological.json.
 * Run: node bench/bundle-and-run.mjs bench/pathological/main.ts [--only name,…] [--timeout S]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EmptyFileSystem, URI } from 'langium';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { generateFile, random } from '../language/workspace.js';

/** A model every case can chain: keeps its input's shape. */
const block = 'model blk {\n  input x: f32[1, 64]\n  output relu(x)\n}\n';
const tenantOf = (model: string) => `workload w {\n  tenant t { model ${model}() }\n}\n`;

/** The cases: name, what it is, its text. */
const cases: { name: string; what: string; text: () => string }[] = [
    {
        name: 'repeat-1e9', what: '`repeat 1000000000` of a one-op block, run by a tenant',
        text: () => `${block}model big {\n  input x: f32[1, 64]\n  output repeat 1000000000 blk(x)\n}\n${tenantOf('big')}`,
    },
    {
        name: 'repeat-at-limit', what: '`repeat 10000` of a one-op block: 20,000 steps, the most a tenant may lower (IR, prediction, op hovers of 10,000 instances)',
        text: () => `${block}model big {\n  input x: f32[1, 64]\n  output repeat 10000 blk(x)\n}\n${tenantOf('big')}`,
    },
    {
        name: 'nested-repeats', what: '`repeat 1000` of a block that is `repeat 1000` of a one-op block, run by a tenant',
        text: () => `${block}model inner {\n  input x: f32[1, 64]\n  output repeat 1000 blk(x)\n}\nmodel outer {\n  input x: f32[1, 64]\n  output repeat 1000 inner(x)\n}\n${tenantOf('outer')}`,
    },
    {
        name: 'chain-2000', what: '2,000 models, each calling the previous one (own dim variable names), run by a tenant',
        text: () => {
            const lines = ['model m0 {\n  input x: f32[b0, 64]\n  output relu(x)\n}'];
            for (let i = 1; i < 2000; i++) lines.push(`model m${i} {\n  input x: f32[b${i}, 64]\n  output relu(m${i - 1}(x))\n}`);
            lines.push('model top(batch = 1) {\n  input x: f32[batch, 64]\n  output m1999(x)\n}');
            return `${lines.join('\n')}\n${tenantOf('top')}`;
        },
    },
    {
        name: 'nesting-10000', what: '`relu(relu(…x…))` nested 10,000 deep in a model run by a tenant',
        text: () => `model deep {\n  input x: f32[1, 64]\n  output ${'relu('.repeat(10000)}x${')'.repeat(10000)}\n}\n${tenantOf('deep')}`,
    },
    {
        name: 'parens-10000', what: '`((((x))))` nested 10,000 deep',
        text: () => `model deep {\n  input x: f32[1, 64]\n  output ${'('.repeat(10000)}x${')'.repeat(10000)}\n}\n${tenantOf('deep')}`,
    },
    {
        name: 'line-1mb', what: 'a 1 MB line of random tokens of the language (seeded)',
        text: () => {
            const words = ['model', 'x', 'y', '(', ')', '{', '}', '[', ']', ',', ':', '=', '1', '64', '40ms', 'relu', 'dense', 'repeat', '"s"', '+', '*', 'input', 'f32', 'output', 'workload', 'tenant', '-', '0.5'];
            const next = random(1);
            const parts: string[] = [];
            let size = 0;
            while (size < 1 << 20) {
                const w = words[Math.floor(next() * words.length)];
                parts.push(w);
                size += w.length + 1;
            }
            return `${parts.join(' ')}\n`;
        },
    },
    {
        name: 'unclosed-60', what: '`relu(relu(…x` nested 60 deep and never closed, in a model run by a tenant',
        text: () => `model deep {\n  input x: f32[1, 64]\n  output ${'relu('.repeat(60)}x\n}\n${tenantOf('deep')}`,
    },
    {
        name: 'lines-20000', what: 'a 20,000-line document of ordinary models and workloads',
        text: () => {
            const parts: string[] = [];
            let lines = 0;
            for (let f = 0; lines < 20000; f++) {
                const text = generateFile(f);
                parts.push(text);
                lines += text.split('\n').length - 1;
            }
            return parts.join('\n');
        },
    },
];

interface CaseResult {
    name: string;
    bytes: number;
    lines: number;
    outcome: string;
    buildMs?: number;
    lspMs?: number;
    lspMaxMs?: number;
    lspSlowest?: string;
    peakRssMiB?: number;
    baseRssMiB?: number;
    diagnostics?: Record<string, number>;
    firstErrors?: string[];
    /** LSP requests that threw (the request's name and message). */
    lspFailures?: string[];
    wallMs: number;
}

/** In the child: builds one case and runs the LSP requests; prints one JSON line. */
async function runCase(name: string, file?: string): Promise<void> {
    const text = file ? readFileSync(file, 'utf8') : cases.find(x => x.name === name)!.text();
    const { shared, Tenancy } = createTenancyServices(EmptyFileSystem);
    // The parser is made before the clock starts: a server does this once.
    void Tenancy.parser.LangiumParser;
    // As after a client's `initialized` (inlay hints wait for the configuration).
    await shared.workspace.ConfigurationProvider.initialized({});
    const baseRss = process.memoryUsage().rss;
    const started = performance.now();
    const doc = shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse('file:///bench/pathological.tenancy'));
    shared.workspace.LangiumDocuments.addDocument(doc);
    await shared.workspace.DocumentBuilder.build([doc], { validation: true });
    const buildMs = performance.now() - started;

    const lsp = Tenancy.lsp;
    const uri = { uri: doc.uri.toString() };
    const end = doc.textDocument.positionAt(text.length);
    const whole = { start: { line: 0, character: 0 }, end };
    const timings: { what: string; ms: number }[] = [];
    const failures: string[] = [];
    const time = async (what: string, request: () => unknown) => {
        const t0 = performance.now();
        try {
            await request();
        } catch (error) {
            failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        }
        timings.push({ what, ms: performance.now() - t0 });
    };
    const identifiers = [...text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)];
    const step = Math.max(1, Math.floor(identifiers.length / 50));
    for (let i = 0; i < identifiers.length; i += step) {
        const position = doc.textDocument.positionAt(identifiers[i].index! + 1);
        await time('hover', () => lsp.HoverProvider?.getHoverContent(doc, { textDocument: uri, position }));
    }
    await time('inlay hints', () => lsp.InlayHintProvider?.getInlayHints(doc, { textDocument: uri, range: whole }));
    await time('code lenses', () => lsp.CodeLensProvider?.provideCodeLens(doc, { textDocument: uri }));
    await time('document symbols', () => lsp.DocumentSymbolProvider?.getSymbols(doc, { textDocument: uri }));
    await time('semantic tokens', () => lsp.SemanticTokenProvider?.semanticHighlight(doc, { textDocument: uri }));
    await time('folding ranges', () => lsp.FoldingRangeProvider?.getFoldingRanges(doc, { textDocument: uri }));
    for (const offset of [Math.floor(text.length / 3), Math.floor((2 * text.length) / 3), text.length]) {
        const position = doc.textDocument.positionAt(offset);
        await time('completion', () => lsp.CompletionProvider?.getCompletion(doc, { textDocument: uri, position }));
    }
    const lspMs = timings.reduce((s, t) => s + t.ms, 0);
    const slowest = timings.reduce((a, b) => (b.ms > a.ms ? b : a), { what: '-', ms: 0 });
    const diagnostics: Record<string, number> = {};
    for (const d of doc.diagnostics ?? []) {
        const code = String(d.code ?? (d.data as { code?: string } | undefined)?.code ?? 'none');
        diagnostics[code] = (diagnostics[code] ?? 0) + 1;
    }
    const firstErrors = (doc.diagnostics ?? []).filter(d => d.severity === 1).slice(0, 2).map(d => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}: ${String(d.message).slice(0, 200)}`);
    const usage = process.resourceUsage();
    process.stdout.write(`${JSON.stringify({ buildMs, lspMs, lspMaxMs: slowest.ms, lspSlowest: slowest.what, peakRssMiB: usage.maxRSS / 1024, baseRssMiB: baseRss / 2 ** 20, diagnostics, firstErrors, lspFailures: failures })}\n`);
}

/** In the parent: each case in its own process. */
function runAll(): void {
    const argv = process.argv.slice(2);
    const option = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
    const timeoutS = Number(option('--timeout') ?? 120);
    const only = option('--only')?.split(',');
    const self = fileURLToPath(import.meta.url);
    const results: CaseResult[] = [];
    const loadAtStart = loadavg()[0];
    for (const c of cases.filter(x => !only || only.includes(x.name))) {
        const text = c.text();
        console.error(`pathological: ${c.name} (${text.length} bytes) …`);
        const t0 = performance.now();
        const child = spawnSync(process.execPath, ['--max-old-space-size=4096', self, '--case', c.name], { encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 1 << 26 });
        const wallMs = performance.now() - t0;
        const base = { name: c.name, bytes: text.length, lines: text.split('\n').length - 1, wallMs };
        const line = child.stdout?.split('\n').find(l => l.startsWith('{'));
        if (child.status === 0 && line) {
            results.push({ ...base, outcome: 'ok', ...JSON.parse(line) });
        } else {
            const stderr = child.stderr ?? '';
            const outcome = child.error && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? `killed after ${timeoutS} s`
                : /heap out of memory|Allocation failed/i.test(stderr) ? 'out of memory (abort)'
                : /Maximum call stack/i.test(stderr) ? 'stack overflow'
                : `exit ${child.status ?? child.signal}`;
            results.push({ ...base, outcome });
            console.error(stderr.split('\n').filter(l => l.trim()).slice(-3).join('\n'));
        }
        console.error(`  ${results.at(-1)!.outcome} in ${(wallMs / 1000).toFixed(1)} s`);
    }
    const fmt = (x: number | undefined, digits = 0) => (x === undefined ? '—' : x.toFixed(digits));
    console.log('| case | text | outcome | build + validate (ms) | LSP requests (ms, slowest) | peak RSS (MiB) | diagnostics |');
    console.log('|---|---|---|---:|---|---:|---|');
    for (const r of results) {
        const diags = r.diagnostics ? Object.entries(r.diagnostics).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none' : '—';
        const failed = r.lspFailures?.length ? `; ${r.lspFailures.length} threw` : '';
        const lsp = r.lspMs === undefined ? '—' : `${fmt(r.lspMs)} (${r.lspSlowest} ${fmt(r.lspMaxMs)}${failed})`;
        console.log(`| ${r.name} | ${r.bytes.toLocaleString('en')} B, ${r.lines.toLocaleString('en')} lines | ${r.outcome} | ${fmt(r.buildMs)} | ${lsp} | ${fmt(r.peakRssMiB)} | ${diags} |`);
    }
    console.log(`\nPeak RSS includes the services and the zoo (${fmt(results.find(r => r.baseRssMiB)?.baseRssMiB)} MiB before the build). Load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end, ${cpus().length} cores.`);
    mkdirSync('bench/.work', { recursive: true });
    writeFileSync('bench/.work/pathological.json', `${JSON.stringify({ results, loadAverage: { atStart: loadAtStart, atEnd: loadavg()[0] } }, null, 2)}\n`);
    for (const r of results) for (const e of [...r.firstErrors ?? [], ...r.lspFailures ?? []]) console.error(`${r.name}: ${e}`);
}

const caseIndex = process.argv.indexOf('--case');
// `--case - --file F`: one document from a file (for investigations).
const fileIndex = process.argv.indexOf('--file');
if (caseIndex >= 0) await runCase(process.argv[caseIndex + 1], fileIndex >= 0 ? process.argv[fileIndex + 1] : undefined);
else runAll();
