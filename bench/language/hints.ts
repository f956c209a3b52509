/**
 * Schedule hints benchmark (src/language-server/prediction/schedule-hints.ts):
 * (a) latency: how long after an edit an example's hints are settled — its workloads' schedules
 *     compared and the hint diagnostics published when they changed — with the server's debounce.
 *     Each edit changes an arrival rate (new content: a full comparison, never a cache hit), applied
 *     as the language server applies didChange (TextDocuments + the builder's update). Also the
 *     first comparison when the file opens (cold: JIT and plan caches), the work per comparison and
 *     the longest step (the longest the job keeps the event loop from requests);
 * (b) cost to typing: the generated 5,000-line workspace's full build with hints on (one of its
 *     files open in the editor) and off, alternating on fresh services in one process, as a ratio
 *     of medians with its 95 % interval (bootstrap over the pairs); after each build with hints
 *     on, the job that compares the open file's workload is timed on its own.
 * The default (uncalibrated) profile throughout (a user cache of its own), or with `--profile P`
 * a calibrated one (copied into that cache: on a calibrated profile `auto` also weighs co_tuned,
 * whose search is the longest part of a comparison); `--latency-only` skips (b). Prints markdown
 * on stdout, raw numbers to bench/.work/hints.json.
 * Run: node bench/bundle-and-run.mjs bench/language/hints.ts [--quick] [--profile P] [--latency-only]
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmptyFileSystem, TextDocument, URI, type LangiumDocument } from 'langium';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { createRandom } from '../../src/runtime/plan/random.js';
import { ratioInterval } from '../../src/runtime/report/statistics.js';
import { files } from './workspace.js';

const quick = process.argv.includes('--quick');
const editsPerExample = quick ? 3 : 8;
const pairs = quick ? 3 : 20;
process.env.XDG_CACHE_HOME = mkdtempSync(path.join(tmpdir(), 'tenancy-hints-bench-'));
const profileArg = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;
if (profileArg) {
    // The user cache's profile is the one a document outside any workspace gets (profile-store.ts locateProfile).
    mkdirSync(path.join(process.env.XDG_CACHE_HOME, 'tenancy', 'profiles'), { recursive: true });
    copyFileSync(profileArg, path.join(process.env.XDG_CACHE_HOME, 'tenancy', 'profiles', 'bench.json'));
}
const latencyOnly = process.argv.includes('--latency-only');
const loadAtStart = loadavg()[0];
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const percentile = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; };

type Services = ReturnType<typeof createTenancyServices>;

/** Opens a text in the editor as didOpen does; resolves once built. */
async function open({ shared }: Services, uri: string, text: string): Promise<LangiumDocument> {
    shared.workspace.TextDocuments!.set(TextDocument.create(uri, 'tenancy', 1, text));
    await shared.workspace.DocumentBuilder.update([URI.parse(uri)], []);
    return shared.workspace.LangiumDocuments.getDocument(URI.parse(uri))!;
}

// (a) Latency on the examples (a hint shows on schedule-hint), and on zoo-mix declared sequential (where one shows and is re-published).
const examples = ['quick-start', 'vision-and-nlp', 'schedules', 'zoo-mix', 'schedule-hint'].map(name => ({ name, text: readFileSync(`examples/${name}.tenancy`, 'utf8') }));
const zooMix = examples.find(e => e.name === 'zoo-mix')!.text;
examples.push({ name: 'zoo-mix, schedule sequential', text: zooMix.replace('schedule concurrent', 'schedule sequential') });
const latency: { example: string; workloads: number; openMs: number; settledMs: number[]; publishedMs: number[]; hints: number; workMsPerComparison: number; longestStepMs: number }[] = [];
const services = createTenancyServices(EmptyFileSystem);
const hints = services.Tenancy.prediction.ScheduleHints;
for (const [i, example] of examples.entries()) {
    const uri = `file:///bench/examples/${i}.tenancy`;
    const t0 = performance.now();
    let doc = await open(services, uri, example.text);
    await hints.idle();
    const openMs = performance.now() - t0;
    const settled: number[] = [], published: number[] = [];
    const before = { ...hints.stats };
    let workMs = 0;
    hints.stats.longestStepMs = 0;
    for (let e = 1; e <= editsPerExample; e++) {
        // The first tenant's rate, a new value each edit and example (the workload's content is new: no cached comparison).
        const text = example.text.replace(/rate: (\d+)\/s/, (_m, r: string) => `rate: ${r}.${i}${e}/s`);
        if (text === example.text) throw new Error(`bench: no rate to edit in ${example.name}`);
        const version = e + 1;
        let publishedAt: number | undefined;
        const listener = hints.onPublished(p => { if (p.uri === uri && p.version === version) publishedAt = performance.now(); });
        const start = performance.now();
        services.shared.workspace.TextDocuments!.set(TextDocument.create(uri, 'tenancy', version, text));
        await services.shared.workspace.DocumentBuilder.update([URI.parse(uri)], []);
        const cpu0 = process.threadCpuUsage();
        await hints.idle();
        const cpu = process.threadCpuUsage(cpu0);
        settled.push(performance.now() - start);
        workMs += (cpu.user + cpu.system) / 1000;
        listener.dispose();
        if (publishedAt !== undefined) published.push(publishedAt - start);
        doc = services.shared.workspace.LangiumDocuments.getDocument(URI.parse(uri))!;
    }
    const comparisons = hints.stats.comparisons - before.comparisons;
    latency.push({
        example: example.name, workloads: (doc.parseResult.value as unknown as { elements: { $type: string }[] }).elements.filter(x => x.$type === 'Workload').length,
        openMs, settledMs: settled, publishedMs: published, hints: (doc.diagnostics ?? []).filter(d => d.code === 'schedule-hint').length,
        workMsPerComparison: comparisons > 0 ? workMs / comparisons : 0, longestStepMs: hints.stats.longestStepMs,
    });
    console.error(`hints bench: ${example.name}: open ${ms(openMs)}, settled after edits ${settled.map(x => x.toFixed(0)).join(' · ')} ms`);
}

// (b) The 5,000-line workspace's build with hints on and off, alternating.
async function build(on: boolean): Promise<{ buildMs: number; cpuMs: number; checkMs: number; jobMs: number; comparisons: number }> {
    const s = createTenancyServices(EmptyFileSystem);
    void s.Tenancy.parser.LangiumParser;
    const h = s.Tenancy.prediction.ScheduleHints;
    h.enabled = on;
    // The hint check's own time in the build (the registered check calls this method).
    let checkMs = 0;
    const check = h.checkWorkload.bind(h);
    h.checkWorkload = (workload, accept) => {
        const t = performance.now();
        check(workload, accept);
        checkMs += performance.now() - t;
    };
    const docs = files.map((text, i) => {
        const doc = s.shared.workspace.LangiumDocumentFactory.fromString(text, URI.parse(`file:///bench/workspace/file${i}.tenancy`));
        s.shared.workspace.LangiumDocuments.addDocument(doc);
        return doc;
    });
    // The file being edited is open in the editor (the others are only in the workspace).
    s.shared.workspace.TextDocuments!.set(TextDocument.create(docs[0].uri.toString(), 'tenancy', 0, files[0]));
    const started = performance.now();
    const cpu0 = process.threadCpuUsage();
    await s.shared.workspace.DocumentBuilder.build(docs, { validation: true });
    const cpu = process.threadCpuUsage(cpu0);
    const buildMs = performance.now() - started;
    const jobStart = performance.now();
    await h.idle();
    return { buildMs, cpuMs: (cpu.user + cpu.system) / 1000, checkMs, jobMs: performance.now() - jobStart, comparisons: h.stats.comparisons };
}
const on: number[] = [], off: number[] = [], onCpu: number[] = [], offCpu: number[] = [], checks: number[] = [], jobs: number[] = [];
for (let i = 0; i < (latencyOnly ? 0 : 1 + pairs); i++) {
    // Alternate which goes first, so a drift of the host's load hits both alike.
    const order = i % 2 === 0 ? [true, false] : [false, true];
    for (const mode of order) {
        const r = await build(mode);
        if (i === 0) continue; // warm-up pair (cold JIT)
        if (mode) {
            on.push(r.buildMs);
            onCpu.push(r.cpuMs);
            checks.push(r.checkMs);
            jobs.push(r.jobMs);
            if (r.comparisons !== 1) throw new Error(`bench: expected one comparison after a build with hints on, got ${r.comparisons}`);
        } else {
            off.push(r.buildMs);
            offCpu.push(r.cpuMs);
        }
    }
    console.error(`hints bench: pair ${i}${i === 0 ? ' (warm-up)' : ''}: on ${on.at(-1)?.toFixed(0)} ms, off ${off.at(-1)?.toFixed(0)} ms`);
}
const ratio = latencyOnly ? undefined : ratioInterval(off.map(x => [x]), on.map(x => [x]), 'p50', { random: createRandom(11, 'hints-bench') });
const cpuRatio = latencyOnly ? undefined : ratioInterval(offCpu.map(x => [x]), onCpu.map(x => [x]), 'p50', { random: createRandom(12, 'hints-bench') });
const interval = (r: typeof ratio) => (r ? `${r.estimate.toFixed(3)} (${r.low?.toFixed(3) ?? '—'}–${r.high?.toFixed(3) ?? '—'})` : '—');
const loadAtEnd = loadavg()[0];

const result = {
    latency, build: { pairs, onMs: on, offMs: off, onCpuMs: onCpu, offCpuMs: offCpu, checkMs: checks, jobMs: jobs, ratio, cpuRatio, medianOnMs: percentile(on, 0.5), medianOffMs: percentile(off, 0.5) },
    debounceMs: hints.debounceMs, loadAverage: { atStart: loadAtStart, atEnd: loadAtEnd, cores: cpus().length },
};
mkdirSync('bench/.work', { recursive: true });
writeFileSync('bench/.work/hints.json', `${JSON.stringify(result, null, 2)}\n`);

const all = latency.flatMap(l => l.settledMs);
console.log(`Machine load average (1 min) at start / end of the run: ${loadAtStart.toFixed(1)} / ${loadAtEnd.toFixed(1)} on ${cpus().length} cores. ${profileArg ? `Profile ${profileArg} (calibrated)` : 'Default (uncalibrated) profile'}; debounce ${hints.debounceMs} ms.

**(a) Hints after an edit** (${editsPerExample} edits per example, each a new arrival rate: a full comparison of the workload's schedules; time from the edit to the hints settled, i.e. compared and published when they changed):

| example | workloads | hints | settled after an edit, p50 / max | published (hint changed) p50 | on open (cold) | work per comparison (main-thread CPU) | longest step (event loop held) |
|---|---:|---:|---:|---:|---:|---:|---:|
${latency.map(l => `| ${l.example} | ${l.workloads} | ${l.hints} | ${ms(percentile(l.settledMs, 0.5))} / ${ms(Math.max(...l.settledMs))} | ${l.publishedMs.length ? ms(percentile(l.publishedMs, 0.5)) : '—'} | ${ms(l.openMs)} | ${ms(l.workMsPerComparison)} | ${ms(l.longestStepMs)} |`).join('\n')}

All edits: p50 ${ms(percentile(all, 0.5))}, p90 ${ms(percentile(all, 0.9))}, max ${ms(Math.max(...all))} (goal: within 1 s of the last keystroke${Math.max(...all) < 1000 ? ' ✅' : percentile(all, 0.9) < 1000 ? ': met by 90% of the edits' : ' ❌'}).
`);
if (!latencyOnly) console.log(`**(b) The 5,000-line workspace's full build, hints on vs off** (${pairs} pairs alternating on fresh services after a warm-up pair; hints on: one file open in the editor):

| measure | value |
|---|---|
| build with hints on / off, median | ${ms(result.build.medianOnMs)} / ${ms(result.build.medianOffMs)} |
| ratio on / off (medians), 95 % interval | ${interval(ratio)} |
| same builds, main-thread CPU time: on / off median, ratio (95 % interval) | ${ms(percentile(onCpu, 0.5))} / ${ms(percentile(offCpu, 0.5))}, ${interval(cpuRatio)} |
| the hint check's own time in a build with hints on (36 workloads), median / max | ${ms(percentile(checks, 0.5))} / ${ms(Math.max(...checks))} |
| builds on, ms | ${on.map(x => x.toFixed(0)).join(' · ')} |
| builds off, ms | ${off.map(x => x.toFixed(0)).join(' · ')} |
| the hint job after a build with hints on (its file's workload compared; the other files' workloads, not open, their own schedule simulated), median / max | ${ms(percentile(jobs, 0.5))} / ${ms(Math.max(...jobs))} |
`);
