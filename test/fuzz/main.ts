/**
 * `npm run fuzz`: fuzzes the bundled language server (out/language-server/main.cjs --stdio).
 * Prints a markdown report and writes every finding's document into test/fuzz/.work/findings/;
 * `--record` also writes the report into BENCHMARKS.md (its "Fuzzing" section).
 *
 *   npm run fuzz -- [--seed 1] [--count 10000] [--time 5400] [--scale 1] [--timeout 15000] [--class NAME] [--record]
 *
 * `--class large` runs only the pathological classes whose name starts with NAME (with `--count 0`:
 * nothing else), e.g. to time the 20,000-line document's diagnostics.
 *
 * Exit code 1 when anything was found.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { quantile, runCampaign, type CampaignResult } from './fuzz.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    if (i < 0) return fallback;
    const value = Number(argv[i + 1]);
    if (!Number.isFinite(value) || value < 0) {
        console.error(`fuzz: ${name} needs a non-negative number, found ${argv[i + 1] ?? 'nothing'}`);
        process.exit(64);
    }
    return value;
};
const root = resolve(process.cwd());
const bundle = join(root, 'out/language-server/main.cjs');
const options = {
    bundle, root,
    seed: option('--seed', 1), count: option('--count', 10_000), timeLimitS: option('--time', 5400),
    pathologicalScale: option('--scale', 1), requestTimeoutMs: option('--timeout', 15_000),
    log: (line: string) => console.error(line),
    ...classOption(),
};

/** `--class NAME`: only the pathological classes whose name starts with NAME. */
function classOption(): { pathological?: (doc: { name: string }) => boolean } {
    const i = argv.indexOf('--class');
    if (i < 0) return {};
    const name = argv[i + 1];
    if (!name) {
        console.error('fuzz: --class needs the start of a class name (large, many tenants, deep braces, …)');
        process.exit(64);
    }
    return { pathological: doc => doc.name.startsWith(name) };
}

const loadBefore = loadavg()[0]!;
const result = await runCampaign(options);
// The raw figures first: a report that fails to print loses nothing.
mkdirSync(join(root, 'test/fuzz/.work'), { recursive: true });
writeFileSync(join(root, 'test/fuzz/.work/last-run.json'), JSON.stringify({ ...result, latencies: undefined, diagnostics: undefined, latencyCount: result.latencies.length }, null, 1));
const report = formatReport(result, { ...options, loadBefore, loadAfter: loadavg()[0]! });
console.log(report);

// Every finding's document, to reproduce it (test/fuzz/.work is not committed).
const findings = join(root, 'test/fuzz/.work/findings');
rmSync(findings, { recursive: true, force: true });
mkdirSync(findings, { recursive: true });
[...result.findings, ...result.classes.flatMap(c => c.findings)].forEach((f, i) => {
    writeFileSync(join(findings, `${String(i).padStart(4, '0')}-${f.kind}.tenancy`), f.text);
    writeFileSync(join(findings, `${String(i).padStart(4, '0')}-${f.kind}.txt`), `${f.origin}\n${f.request}: ${f.detail}\n`);
});

if (argv.includes('--record')) {
    recordInBenchmarks(join(root, 'BENCHMARKS.md'), report);
    console.error('fuzz: wrote the Fuzzing section of BENCHMARKS.md');
}
const total = result.findings.length + result.classes.reduce((n, c) => n + c.findings.length, 0);
process.exit(total > 0 ? 1 : 0);

function formatReport(r: CampaignResult, o: typeof options & { loadBefore: number; loadAfter: number }): string {
    const git = (args: string[]) => { try { return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim(); } catch { return '?'; } };
    const commit = git(['rev-parse', '--short', 'HEAD']) + (git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '');
    const mib = (b: number | undefined) => (b === undefined ? '?' : `${(b / 2 ** 20).toFixed(0)} MiB`);
    const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(0)} ms`);
    const count = (kind: string, list = r.findings) => list.filter(f => f.kind === kind).length;
    const lines = [
        `\`npm run fuzz -- --seed ${o.seed} --count ${o.count} --scale ${o.pathologicalScale}\` — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ` +
        `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.versions.node}, load ${o.loadBefore.toFixed(1)} → ${o.loadAfter.toFixed(1)}, ${r.seconds.toFixed(0)} s.`,
        '',
        `Mutated documents: **${r.documents}** from ${r.seeds} seeds (examples, zoo, the tests' documents), ${r.requests} requests, ${r.serverStarts} server start(s).`,
        '',
        '| crashes | hangs | error answers | internal errors logged | malformed answers | request p50 | request p99 | slowest | diagnostics p50 | diagnostics p99 | peak server memory |',
        '|---|---|---|---|---|---|---|---|---|---|---|',
        `| ${count('crash')} | ${count('hang')} | ${count('error-response')} | ${count('internal-error')} | ${count('malformed')} | ${ms(quantile(r.latencies, 0.5))} | ${ms(quantile(r.latencies, 0.99))} | ${ms(r.latencies.reduce((a, b) => Math.max(a, b), 0))} | ${ms(quantile(r.diagnostics, 0.5))} | ${ms(quantile(r.diagnostics, 0.99))} | ${mib(r.peakMemoryBytes)} |`,
        '',
        'Pathological documents, each through a fresh server (✱: a class that tests the bounds on work by the size of the text):',
        '',
        '| class | lines | size | diagnostics (server CPU) | slowest request | peak memory | findings |',
        '|---|---|---|---|---|---|---|',
        ...r.classes.map(c => `| ${c.name}${c.bounded ? ' ✱' : ''} | ${c.lines} | ${(c.bytes / 1024).toFixed(0)} KiB | ${ms(c.diagnosticsMs)}${c.diagnosticsCpuMs !== undefined ? ` (${ms(c.diagnosticsCpuMs)})` : ''} | ${ms(c.slowestRequestMs)}${c.slowestRequest ? ` ${c.slowestRequest}` : ''} | ${mib(c.peakMemoryBytes)} | ${c.findings.length === 0 ? '0' : summarize(c.findings)} |`),
    ];
    const shown = r.findings.slice(0, 20);
    if (shown.length > 0) {
        lines.push('', 'First findings of the mutated documents:', '');
        for (const f of shown) lines.push(`- ${f.kind} in \`${f.request}\`: ${f.detail.split('\n')[0]!.slice(0, 200)} (${f.origin.slice(0, 120)})`);
    }
    return lines.join('\n');
}

function summarize(findings: { kind: string; request: string; detail: string }[]): string {
    const byKind = new Map<string, number>();
    for (const f of findings) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
    const first = findings[0]!;
    return `${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ')}: ${first.request} — ${first.detail.split('\n')[0]!.slice(0, 100).replace(/\|/g, '\\|')}`;
}

/** Replaces (or appends) the Fuzzing section of BENCHMARKS.md; `npm run bench` keeps it (bench/run.mjs). */
function recordInBenchmarks(path: string, report: string): void {
    const text = readFileSync(path, 'utf8');
    const begin = '<!-- fuzz:begin -->', end = '<!-- fuzz:end -->';
    const section = `${begin}\n## Fuzzing: the language server under mutated and pathological documents\n\n${report}\n${end}`;
    const i = text.indexOf(begin), j = text.indexOf(end);
    const next = i >= 0 && j > i ? text.slice(0, i) + section + text.slice(j + end.length) : `${text.trimEnd()}\n\n${section}\n`;
    writeFileAtomic.sync(path, next, { fsync: true });
}
