// `npm run bench`: runs every benchmark suite on this machine and writes BENCHMARKS.md with the
// adapter, the commit and the date. Each suite prints its markdown tables on stdout (progress on
// stderr) and its raw numbers to bench/.work/<suite>.json.
// Usage: node bench/run.mjs [--only language,hints,pathological,kernels,compile,interference,verdicts,schedules,accuracy] [--quick] [--out FILE]
import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import writeFileAtomic from 'write-file-atomic';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = name => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
// A partial run (--only, --quick) must not replace the full record in BENCHMARKS.md.
const partial = argv.includes('--only') || quick;
const out = path.resolve(root, option('--out') ?? (partial ? 'bench/.work/BENCHMARKS.partial.md' : 'BENCHMARKS.md'));

const suites = [
    { name: 'language', title: 'Language server: build and hover', entry: 'bench/language/main.ts' },
    { name: 'hints', title: 'Language server: schedule hints', entry: 'bench/language/hints.ts' },
    { name: 'pathological', title: 'Pathological documents: work bounded by the text', entry: 'bench/pathological/main.ts' },
    { name: 'kernels', title: 'Kernels: throughput vs TF.js WebGPU and native BLAS; dispatch overhead', entry: 'bench/kernels/run.ts' },
    // What an empty shader cache costs: calibration's ladders and a model's first run (needs `npm run build`).
    { name: 'compile', title: 'Kernels: compile time on an empty shader cache', entry: 'bench/kernels/compile.ts' },
    { name: 'interference', title: 'Interference: co-run slowdown matrix', entry: 'bench/interference/main.ts' },
    // How often a run's slowdown verdicts are wrong: A/A false positives and A/B power.
    { name: 'verdicts', title: 'Verdicts: A/A false positives and A/B power', entry: 'bench/verdicts/main.ts' },
    // Mixes of zoo models under every runnable schedule: capacity, violations, latency; the seeds' findings.
    { name: 'schedules', title: "Schedules: do the seeds' findings reproduce?", entry: 'bench/schedules/main.ts' },
    // Calibrates this adapter first (writes .tenancy/device-profile.json), then scores the model
    // on other shapes than calibration used.
    { name: 'accuracy', title: 'Prediction accuracy: predicted vs measured', entry: 'bench/accuracy/run.ts', before: ['calibrate'] },
];
const only = option('--only')?.split(',');
const selected = suites.filter(s => !only || only.includes(s.name));
if (selected.length === 0) {
    console.error(`bench: --only names none of ${suites.map(s => s.name).join(', ')}`);
    process.exit(64);
}

const git = args => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
const commit = git(['rev-parse', '--short', 'HEAD']) + (git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '');
const node = path.join(root, 'node_modules/.bin/node');
const devices = spawnSync(node, [path.join(root, 'bin/tenancy.mjs'), 'devices', '--json'], { cwd: root, encoding: 'utf8' });
let adapter = 'unknown (run `npm run build` first)';
try {
    const first = [].concat(JSON.parse(devices.stdout).adapters ?? JSON.parse(devices.stdout))[0];
    adapter = [first.info?.vendor, first.info?.architecture, first.info?.device, first.info?.description].filter(Boolean).join(' · ');
} catch { /* keep "unknown" */ }

/** Runs one suite, echoing its output, and returns what it printed on stdout. */
function runSuite(suite) {
    return new Promise(resolve => {
        const child = spawn(node, [path.join(root, 'bench/bundle-and-run.mjs'), suite.entry, ...(quick ? ['--quick'] : [])],
            { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', chunk => { text += chunk; process.stdout.write(chunk); });
        child.on('close', code => resolve({ text, code }));
    });
}

const sections = [];
let failed = 0;
for (const suite of selected) {
    console.error(`\n== ${suite.name} ==`);
    const started = Date.now();
    if (suite.before) {
        const pre = spawnSync(node, [path.join(root, 'bin/tenancy.mjs'), ...suite.before], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
        if (pre.status !== 0) console.error(`bench: tenancy ${suite.before.join(' ')} failed (exit ${pre.status})`);
    }
    const { text, code } = await runSuite(suite);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (code !== 0) failed++;
    sections.push(`## ${suite.title}\n\n\`npm run bench -- --only ${suite.name}\` — ${seconds} s` +
        (code === 0 ? '' : ` — **failed (exit ${code})**`) + `\n\n${text.trim()}\n`);
}

const header = `# Benchmarks

Written by \`npm run bench\` (bench/run.mjs); raw numbers in bench/.work/*.json.

- Date: ${new Date().toISOString().slice(0, 10)}
- Commit: ${commit}
- Adapter: ${adapter}
- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}
`;
// The fuzzing section is written by `npm run fuzz -- --record` (test/fuzz/main.ts): keep it.
const fuzzSection = (() => {
    try {
        const previous = readFileSync(out, 'utf8');
        const begin = previous.indexOf('<!-- fuzz:begin -->'), end = previous.indexOf('<!-- fuzz:end -->');
        return begin >= 0 && end > begin ? previous.slice(begin, end + '<!-- fuzz:end -->'.length) + '\n' : undefined;
    } catch {
        return undefined;
    }
})();
mkdirSync(path.dirname(out), { recursive: true });
writeFileAtomic.sync(out, [header, ...sections, ...(fuzzSection ? [fuzzSection] : [])].join('\n'), { fsync: true });
console.error(`\nbench: wrote ${path.relative(root, out)}${failed ? ` (${failed} suite(s) failed)` : ''}`);
process.exit(failed ? 1 : 0);
