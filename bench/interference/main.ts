/**
 * Interference benchmark: every pair of models (a matrix, self-pairs included) co-runs on the
 * local adapter under the `concurrent` schedule, each with one closed-loop client; the cell is
 * the row model's slowdown (co-run / solo, mean and p99) while the column model runs beside it,
 * the mean's with its interval over the run's rounds and whether it is within the run's A/A noise.
 * Solo baselines are measured in the same run as each co-run. The models are the zoo's, sized
 * for a software adapter in zoo-models.tenancy (lowered through the CLI's workspace loader).
 *
 * Run: node bench/bundle-and-run.mjs bench/interference/main.ts [--duration 1s] [--only mlp,resnet18]
 * Writes bench/.work/interference.json and prints a markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkload } from '../../src/runtime/execute/run.js';
import type { IrTenant } from '../../src/runtime/ir/types.js';
import type { Ratio, Results } from '../../src/runtime/report/schema.js';
import { loadWorkloadIr } from '../../src/cli/load-workspace.js';
import { workloadOf } from '../../test/fixtures/ir/builders.js';

// Run from the project root (bench/bundle-and-run.mjs does), like the other suites.
const zoo = await loadWorkloadIr('bench/interference/zoo-models.tenancy');

/** A zoo model's tenant under another name (op paths start with the tenant's name). */
function renamed(tenant: IrTenant, name: string): IrTenant {
    const path = (p: string) => p.startsWith(`${tenant.name}/`) ? `${name}/${p.slice(tenant.name.length + 1)}` : p;
    return { ...tenant, name, graph: { ...tenant.graph, ops: tenant.graph.ops.map(op => ({ ...op, path: path(op.path) })) } };
}

const MODELS: Record<string, (name: string) => IrTenant> = Object.fromEntries(
    zoo.tenants.map(t => [t.name, (name: string) => renamed(t, name)]));

function arg(name: string): string | undefined {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Cell {
    victim: string;
    aggressor: string;
    /** Co-run ÷ solo mean latency, with its 95 % interval over the run's rounds (the results file's ratio). */
    slowdownMean: Ratio | null;
    slowdownP99: number | null;
    /** The run's A/A noise interval for the victim (its solo rounds against each other): a slowdown inside it is noise. */
    noise: Ratio | null;
    /** Whether the run's figures for the victim are valid (enough requests for every figure), and if not why. */
    valid: boolean;
    invalidReasons: string[];
    soloMeanMs: number | null;
    corunMeanMs: number | null;
    requests: number;
    error?: string;
}

const durationMs = Number((arg('--duration') ?? '1s').replace(/s$/, '')) * 1000;
const names = (arg('--only') ?? Object.keys(MODELS).join(',')).split(',');
const outDir = join(import.meta.dirname ?? '.', '..', '.work');
const cells: Cell[] = [];
let adapter: Results['adapter'] = null;
const started = performance.now();

for (let i = 0; i < names.length; i++) {
    for (let j = i; j < names.length; j++) {
        const [a, b] = [names[i], names[j]];
        const ir = workloadOf(`${a}_x_${b}`, [MODELS[a](`${a}.0`), MODELS[b](`${b}.1`)], { benchmark: { durationMs, warmupMs: 200, seed: 1 } });
        process.stderr.write(`co-running ${a} with ${b}… `);
        try {
            const r = await runWorkload({ ir });
            adapter ??= r.adapter;
            if (r.status !== 'complete') throw new Error(`run ${r.status}: ${r.reason}`);
            const pairs: [string, string, Results['tenants'][number]][] = [[a, b, r.tenants[0]], [b, a, r.tenants[1]]];
            for (const [victim, aggressor, t] of (a === b ? pairs.slice(0, 1) : pairs)) {
                cells.push({
                    victim, aggressor, slowdownMean: t.slowdown.mean, slowdownP99: t.slowdown.p99?.estimate ?? null, noise: t.noise,
                    valid: t.valid, invalidReasons: t.invalidReasons,
                    soloMeanMs: t.solo?.latencyMs.mean ?? null, corunMeanMs: t.corun?.latencyMs.mean ?? null, requests: t.corun?.requests ?? 0,
                });
            }
            process.stderr.write('done\n');
        } catch (error) {
            const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
            process.stderr.write(`failed: ${message}\n`);
            for (const [victim, aggressor] of a === b ? [[a, b]] : [[a, b], [b, a]]) {
                cells.push({ victim, aggressor, slowdownMean: null, slowdownP99: null, noise: null, valid: false, invalidReasons: [], soloMeanMs: null, corunMeanMs: null, requests: 0, error: message });
            }
        }
    }
}

const fmt = (v: number | null) => v === null ? 'n/a' : `${v.toFixed(2)}×`;
/** `2.40× (1.90–3.10)`; `≈` before it when the interval holds 1 or lies inside the run's noise (no slowdown shown). */
function fmtRatio(r: Ratio | null, noise: Ratio | null): string {
    if (!r) return 'n/a';
    const interval = r.low !== null && r.high !== null ? ` (${r.low.toFixed(2)}–${r.high.toFixed(2)})` : ' (unbounded)';
    const withinNoise = r.verdict === 'no-change' || (noise?.low != null && noise.high != null && r.low !== null && r.high !== null && r.low >= noise.low && r.high <= noise.high);
    return `${withinNoise ? '≈ ' : ''}${r.estimate.toFixed(2)}×${interval}`;
}
const lines = [
    `Interference on ${adapter ? `${adapter.vendor} ${adapter.device} (${adapter.description})` : 'unknown adapter'} — concurrent schedule, closed loop (1 client each), ${durationMs / 1000} s per phase.`,
    'Cell: slowdown of the row model while the column model co-runs: mean latency co-run ÷ solo with its 95 % interval over the run\'s rounds (`≈`: the interval holds 1 or lies within the run\'s A/A noise), then p99 co-run ÷ solo (n/a: too few requests to bound a p99). `†`: the run\'s figures for the row model are not valid (reasons below the table).',
    '',
    `| victim \\ aggressor | ${names.join(' | ')} | solo mean |`,
    `|---|${names.map(() => '---').join('|')}|---|`,
];
for (const v of names) {
    const row = names.map(a => {
        const c = cells.find(x => x.victim === v && x.aggressor === a);
        return c?.error ? 'failed' : c ? `${fmtRatio(c.slowdownMean, c.noise)} / ${fmt(c.slowdownP99)}${c.valid ? '' : ' †'}` : '—';
    });
    const solo = cells.find(x => x.victim === v && x.soloMeanMs !== null)?.soloMeanMs;
    lines.push(`| ${v} | ${row.join(' | ')} | ${solo !== undefined && solo !== null ? `${solo.toFixed(2)} ms` : 'n/a'} |`);
}
const invalid = [...new Set(cells.filter(c => !c.error && !c.valid).flatMap(c => c.invalidReasons))];
if (invalid.length) lines.push('', `† not valid: ${invalid.join('; ')}`);
const failures = cells.filter(c => c.error);
if (failures.length) lines.push('', ...[...new Set(failures.map(f => f.error))].map(e => `failed: ${e}`));
lines.push('', `total ${((performance.now() - started) / 1000).toFixed(0)} s`);
console.log(lines.join('\n'));
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'interference.json'), JSON.stringify({ adapter, durationMs, models: names, cells, createdAt: new Date().toISOString() }, null, 2) + '\n');
