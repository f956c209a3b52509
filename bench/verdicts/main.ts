/**
 * Verdicts benchmark: how often the run's slowdown verdicts are wrong.
 *
 * - A/A false-positive rate: the victim beside an idle co-runner (workload `aa`: its co-run phase
 *   has nothing else running), N runs with different seeds; a run claims a slowdown when a
 *   slowdown verdict (mean, p50, or p99 when bounded) is `slower`. Goal ≤ 5 %.
 * - A/B power: the same victim beside a closed-loop aggressor (workload `ab`), N runs; detected
 *   by the same rule as a claim (any of mean, p50, p99 `slower`). Goal ≥ 95 %.
 * Runs alternate A/A and A/B, so the host's drift hits both alike. Each verdict's run time is
 * the whole run's wall time (compile included). With `--polling spin,paced` every run is made
 * under each way Dawn polls for finished work (gpu/dawn-polling.ts), alternated, side by side.
 *
 * Run: node bench/bundle-and-run.mjs bench/verdicts/main.ts [--runs 20] [--polling paced] [--quick]
 * Writes bench/.work/verdicts.json and prints markdown.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadWorkspace } from '../../src/cli/load-workspace.js';
import { runWorkload } from '../../src/runtime/execute/run.js';
import type { WorkloadIR } from '../../src/runtime/ir/types.js';
import type { DawnPolling } from '../../src/runtime/gpu/dawn-polling.js';
import type { Ratio, Results } from '../../src/runtime/report/schema.js';
import { wilsonInterval } from '../../src/runtime/report/statistics.js';

const argv = process.argv.slice(2);
const flag = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const runs = Number(flag('--runs') ?? (argv.includes('--quick') ? 6 : 20));
const pollings = (flag('--polling') ?? 'paced').split(',') as DawnPolling[];
if (pollings.some(p => p !== 'spin' && p !== 'paced')) throw new Error(`--polling: spin or paced, got ${pollings.join(',')}`);
const file = 'bench/verdicts/workloads.tenancy';
const workspace = await loadWorkspace([file]);
const aa = workspace.lower('aa', file), ab = workspace.lower('ab', file);

type Statistic = 'mean' | 'p50' | 'p99';
interface Outcome { seed: number; wallMs: number; verdicts: Record<Statistic, Ratio['verdict'] | 'n/a'>; estimate: number | null; coRunnerRequests: number; valid: boolean; status: Results['status'] }

async function once(ir: WorkloadIR, seed: number): Promise<Outcome> {
    const t0 = performance.now();
    const r = await runWorkload({ ir: { ...ir, benchmark: { ...ir.benchmark, seed } } });
    const victim = r.tenants.find(t => t.name === 'victim')!;
    const other = r.tenants.find(t => t.name !== 'victim');
    const verdict = (s: Statistic) => victim.slowdown[s]?.verdict ?? 'n/a';
    return {
        seed, wallMs: performance.now() - t0, status: r.status, valid: victim.valid,
        verdicts: { mean: verdict('mean'), p50: verdict('p50'), p99: verdict('p99') },
        estimate: victim.slowdown.mean?.estimate ?? null,
        coRunnerRequests: other?.corun?.requests ?? 0,
    };
}

const started = performance.now();
const loadAtStart = loadavg()[0];
type Outcomes = Record<'aa' | 'ab', Outcome[]>;
const results: Record<string, Outcomes> = Object.fromEntries(pollings.map(p => [p, { aa: [], ab: [] }]));
for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always follows the other.
    const order: ('aa' | 'ab')[] = i % 2 === 0 ? ['aa', 'ab'] : ['ab', 'aa'];
    const modes = i % 2 === 0 ? pollings : [...pollings].reverse();
    for (const which of order) {
        for (const polling of modes) {
            // Read when the run opens Dawn (adapter.ts).
            process.env.TENANCY_DAWN_POLLING = polling;
            const o = await once(which === 'aa' ? aa : ab, 1000 + i);
            results[polling][which].push(o);
            process.stderr.write(`${which} ${polling} run ${i + 1}/${runs}: mean ${o.verdicts.mean} (${o.estimate?.toFixed(2) ?? 'n/a'}×), p50 ${o.verdicts.p50}, p99 ${o.verdicts.p99}, co-runner ${o.coRunnerRequests} req, ${(o.wallMs / 1000).toFixed(1)} s\n`);
        }
    }
}

/** Wilson's 95 % interval of k / n, as percentages. */
function wilson(k: number, n: number): string {
    const w = wilsonInterval(k, n);
    return w ? `${(100 * w.low).toFixed(0)}–${(100 * w.high).toFixed(0)} %` : 'n/a';
}
const seconds = (o: Outcome[]) => (o.reduce((a, x) => a + x.wallMs, 0) / o.length / 1000).toFixed(1);
const slower = (o: Outcome) => Object.values(o.verdicts).includes('slower');

const lines = [
    `${runs} runs each of A/A and A/B${pollings.length > 1 ? `, under each polling (${pollings.join(', ')})` : ''}, alternated; ${((performance.now() - started) / 1000).toFixed(0)} s; host load ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at the end, on ${availableParallelism()} cores. Workloads: ${file}. A run claims (A/A) or detects (A/B) a slowdown when any of its mean, p50 and p99 verdicts says slower.`,
    '',
    '| Dawn polling | measure | runs | claimed / detected | rate (Wilson 95 %) | goal | met | run time per verdict |',
    '|---|---|---:|---:|---|---|---|---:|',
];
const summary: Record<string, { fp: number; power: number }> = {};
for (const polling of pollings) {
    const r = results[polling];
    // A/A runs where the idle co-runner did run are no A/A: left out and counted.
    const clean = r.aa.filter(o => o.coRunnerRequests === 0);
    const by = (list: Outcome[], s: Statistic) => list.filter(o => o.verdicts[s] === 'slower').length;
    const claimed = clean.filter(slower).length, detected = r.ab.filter(slower).length;
    const fp = clean.length ? claimed / clean.length : NaN;
    const power = r.ab.length ? detected / r.ab.length : NaN;
    summary[polling] = { fp, power };
    lines.push(
        `| ${polling} | A/A false positives | ${clean.length}${clean.length < r.aa.length ? ` (${r.aa.length - clean.length} left out: the idle tenant ran)` : ''} | ${claimed} (mean ${by(clean, 'mean')}, p50 ${by(clean, 'p50')}, p99 ${by(clean, 'p99')}) | ${(100 * fp).toFixed(0)} % (${wilson(claimed, clean.length)}) | ≤ 5 % | ${fp <= 0.05 ? 'yes' : 'no'} | ${seconds(r.aa)} s |`,
        `| ${polling} | A/B power | ${r.ab.length} | ${detected} (mean ${by(r.ab, 'mean')}, p50 ${by(r.ab, 'p50')}, p99 ${by(r.ab, 'p99')}) | ${(100 * power).toFixed(0)} % (${wilson(detected, r.ab.length)}) | ≥ 95 % | ${power >= 0.95 ? 'yes' : 'no'} | ${seconds(r.ab)} s |`,
    );
}
lines.push('');
for (const polling of pollings) {
    const r = results[polling];
    lines.push(`${polling}: A/B mean slowdowns ${r.ab.map(o => o.estimate?.toFixed(2) ?? 'n/a').join(', ')}; A/A ${r.aa.map(o => o.estimate?.toFixed(2) ?? 'n/a').join(', ')}.`);
}
const dir = join(process.cwd(), 'bench', '.work');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'verdicts.json'), JSON.stringify({ results, summary, lines }, null, 2));
console.log(lines.join('\n'));
