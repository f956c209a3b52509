/**
 * Which of the language server's speed-only overrides of Langium's core services earn their
 * place: the bench workspace (./workspace.ts) built on fresh services as shipped and with one
 * override at a time put back to Langium's default, the variants alternating build by build in
 * one process (the order reversed every other round), so that host load and JIT state fall on
 * all of them alike. Reports, per variant, the median over rounds of (variant build / shipped
 * build) with a bootstrap 95 % interval, for wall time and main-thread CPU time. An override is
 * kept when putting it back costs at least 10 % of the build.
 * Overrides that change behaviour (soft keywords, nesting bounds, linking of operator callees,
 * scoping, diagnostic codes, the zoo in builds) are not candidates: they have no default to
 * return to. Each variant must give the same diagnostics as the shipped services.
 * Run: node bench/bundle-and-run.mjs bench/language/overrides.ts [--rounds N]
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
    DefaultReferenceDescriptionProvider, DefaultScopeComputation, EmptyFileSystem, inject, URI,
    type Module,
} from 'langium';
import { createDefaultModule, createDefaultSharedModule, type LangiumServices, type PartialLangiumServices } from 'langium/lsp';
import { TenancyGeneratedModule, TenancyGeneratedSharedModule } from '../../src/language-server/generated/module.js';
import { TenancyModule, TenancySharedModule, type TenancyServices } from '../../src/language-server/tenancy-module.js';
import { registerValidationChecks } from '../../src/language-server/validation/tenancy-validator.js';
import { registerPredictionFeatures } from '../../src/language-server/prediction/index.js';
import { files, random } from './workspace.js';

const argv = process.argv.slice(2);
const roundsArg = argv.indexOf('--rounds');
const rounds = roundsArg >= 0 ? Number(argv[roundsArg + 1]) : 16;
const warmupRounds = 4;

type Restore = Module<LangiumServices, PartialLangiumServices>;
const variants: { name: string; restore: Restore }[] = [
    { name: 'as shipped', restore: {} },
    { name: 'ScopeComputation: default', restore: { references: { ScopeComputation: s => new DefaultScopeComputation(s) } } },
    { name: 'ReferenceDescriptionProvider: default', restore: { workspace: { ReferenceDescriptionProvider: s => new DefaultReferenceDescriptionProvider(s) } } },
];

async function build(restore: Restore): Promise<{ wallMs: number; cpuMs: number; diagnostics: string }> {
    const shared = inject(createDefaultSharedModule(EmptyFileSystem), TenancyGeneratedSharedModule, TenancySharedModule);
    const Tenancy = inject(createDefaultModule({ shared }), TenancyGeneratedModule, TenancyModule, restore as never) as TenancyServices;
    shared.ServiceRegistry.register(Tenancy);
    registerValidationChecks(Tenancy);
    registerPredictionFeatures(Tenancy);
    void Tenancy.parser.LangiumParser;
    const thread0 = process.threadCpuUsage();
    const started = performance.now();
    const documents = files.map((text, i) => {
        const doc = shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse(`file:///bench/workspace/file${i}.tenancy`));
        shared.workspace.LangiumDocuments.addDocument(doc);
        return doc;
    });
    await shared.workspace.DocumentBuilder.build(documents, { validation: true });
    const wallMs = performance.now() - started;
    const thread = process.threadCpuUsage(thread0);
    const diagnostics = documents.flatMap(d => (d.diagnostics ?? []).map(x => `${d.uri.path}:${x.range.start.line}:${x.range.start.character} ${x.message}`)).join('\n');
    return { wallMs, cpuMs: (thread.user + thread.system) / 1000, diagnostics };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
/** Bootstrap 95 % interval of the median of `xs` (seeded). */
function interval(xs: number[]): [number, number] {
    const next = random(7);
    const medians: number[] = [];
    for (let i = 0; i < 2000; i++) medians.push(median(xs.map(() => xs[Math.floor(next() * xs.length)])));
    medians.sort((a, b) => a - b);
    return [medians[Math.floor(0.025 * medians.length)], medians[Math.floor(0.975 * medians.length)]];
}

const loadBefore = loadavg()[0];
const wall: number[][] = variants.map(() => []);
const cpu: number[][] = variants.map(() => []);
let shippedDiagnostics: string | undefined;
for (let r = 0; r < warmupRounds + rounds; r++) {
    const order = variants.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
        const b = await build(variants[i].restore);
        if (i === 0) shippedDiagnostics ??= b.diagnostics;
        else if (shippedDiagnostics !== undefined && b.diagnostics !== shippedDiagnostics) throw new Error(`${variants[i].name}: diagnostics differ from the shipped services'`);
        if (r >= warmupRounds) { wall[i].push(b.wallMs); cpu[i].push(b.cpuMs); }
    }
    console.error(`round ${r + 1}/${warmupRounds + rounds}${r < warmupRounds ? ' (warm-up)' : ''}`);
}
const loadAfter = loadavg()[0];

const pct = (x: number) => `${x >= 1 ? '+' : '−'}${Math.abs((x - 1) * 100).toFixed(1)}%`;
const lines = [
    `${files.length} files, ${rounds} measured rounds after ${warmupRounds} warm-up rounds, ${variants.length} variants alternating (reversed every other round); load ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}.`,
    '',
    '| variant | build wall, median | main-thread CPU, median | wall / shipped (95 % CI) | CPU / shipped (95 % CI) |',
    '|---|---:|---:|---:|---:|',
];
for (const [i, v] of variants.entries()) {
    const wr = wall[i].map((x, k) => x / wall[0][k]);
    const cr = cpu[i].map((x, k) => x / cpu[0][k]);
    const [wl, wh] = interval(wr), [cl, ch] = interval(cr);
    lines.push(`| ${v.name} | ${median(wall[i]).toFixed(1)} ms | ${median(cpu[i]).toFixed(1)} ms | ${i === 0 ? '1' : `${median(wr).toFixed(3)} (${wl.toFixed(3)}–${wh.toFixed(3)}), ${pct(median(wr))}`} | ${i === 0 ? '1' : `${median(cr).toFixed(3)} (${cl.toFixed(3)}–${ch.toFixed(3)}), ${pct(median(cr))}`} |`);
}
console.log(lines.join('\n'));
