/// <reference types="@webgpu/types" />
/**
 * Compile-time benchmark: what a machine with an empty shader cache pays before its first
 * figures. Lavapipe compiles a pipeline at its first dispatch (not at createComputePipeline) and
 * keeps it in Mesa's on-disk cache, so a first calibration and a model's first `tenancy run`
 * spend most of their time compiling (BENCHMARKS.md, "A first calibration on a fresh machine").
 *   1. Calibration's ladder cases, each dispatched once on one device with Mesa's cache disabled:
 *      seconds per ladder and the slowest cases (calibration spreads them over one device per core).
 *   2. Zoo models at the accuracy benchmark's sizes, `tenancy run` end to end (3 requests) twice on
 *      one fresh Mesa cache folder: the first run compiles, the second finds every pipeline cached.
 *      Then two of them in one workload, whose tenants compile at once on devices of their own.
 * Other drivers compile at pipeline creation and keep caches of their own, which this does not clear.
 * Run: node bench/bundle-and-run.mjs bench/kernels/compile.ts [--quick] (after `npm run build`: part 2 runs the built CLI)
 * Writes bench/.work/compile.json and prints markdown.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { calibrationCases } from '../../src/runtime/calibrate/synthetic.js';
import { prepareCase, timeLaunches } from '../../src/runtime/calibrate/measure.js';
import { capsFromDevice, openGpu, requestTenantDevice } from '../../src/runtime/gpu/adapter.js';
import { KernelPipelines } from '../../src/runtime/gpu/harness.js';
import { KernelError } from '../../src/runtime/kernels/common.js';

const quick = process.argv.includes('--quick');
// Read by Mesa when a device opens its disk cache: set before the first device.
process.env.MESA_SHADER_CACHE_DISABLE = 'true';
const progress = (text: string) => process.stderr.write(`${text}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

// ---- 1. calibration's ladders --------------------------------------------------------------------
// The GPU object is kept: the device dies with it when it is collected.
const gpu = openGpu();
const { device } = await requestTenantDevice(gpu, 'auto', 'compile-bench');
const caps = capsFromDevice(device);
const pipelines = new KernelPipelines(device);
const cases: { ladder: string; shape: string; launches: string[]; ms: number }[] = [];
const refused: string[] = [];
for (const ladder of calibrationCases(quick)) {
    for (const c of ladder.cases) {
        const started = performance.now();
        try {
            const prepared = await prepareCase(device, pipelines, c, caps);
            await timeLaunches(device, prepared, 1);
            prepared.destroy();
            cases.push({ ladder: ladder.family, shape: c.shape, launches: prepared.kernels.launches.map(k => k.name), ms: performance.now() - started });
        } catch (error) {
            if (!(error instanceof KernelError)) throw error;
            refused.push(c.shape); // calibration skips it too
        }
    }
    progress(`compile: ${ladder.family} (${cases.length} cases)`);
}
device.destroy();
const total = cases.reduce((s, c) => s + c.ms, 0);
const byLadder = new Map<string, { n: number; ms: number }>();
for (const c of cases) {
    const e = byLadder.get(c.ladder) ?? { n: 0, ms: 0 };
    byLadder.set(c.ladder, { n: e.n + 1, ms: e.ms + c.ms });
}
const lines = [
    `Calibration's ${cases.length} ladder cases, each dispatched once on one device, Mesa's shader cache disabled: **${seconds(total)} s**.`
        + (refused.length ? ` (${refused.length} refused by their generators on this device, as calibration skips them: ${refused.join('; ')}.)` : ''),
    '',
    '| ladder | cases | first dispatch, s |',
    '|---|---:|---:|',
    ...[...byLadder].sort((a, b) => b[1].ms - a[1].ms).map(([ladder, e]) => `| ${ladder} | ${e.n} | ${seconds(e.ms)} |`),
    '',
    '| slowest cases | launches | s |',
    '|---|---|---:|',
    ...[...cases].sort((a, b) => b.ms - a.ms).slice(0, 10).map(c => `| ${c.shape} | ${c.launches.join(', ')} | ${(c.ms / 1000).toFixed(2)} |`),
];

// ---- 2. a model's first run ----------------------------------------------------------------------
// The last, two of the models together: their tenants compile at once, each on its own device.
const WORKLOADS = quick ? [['mobilenet_v2(res: 96)']] : [['resnet18(res: 64)'], ['mobilenet_v2(res: 96)'], ['bert_base(seq: 16, layers: 1)'], ['resnet18(res: 64)', 'mobilenet_v2(res: 96)']];
const work = resolve('bench/.work/compile');
mkdirSync(work, { recursive: true });
const runs: { model: string; firstS: number; secondS: number }[] = [];
for (const models of WORKLOADS) {
    const model = models.join(' + ');
    const file = join(work, 'model.tenancy');
    writeFileSync(file, `workload first_run {\n${models.map((m, i) => `  tenant t${i} { model ${m} }\n`).join('')}  benchmark { duration 1s warmup 200ms seed 7 }\n}\n`);
    const cache = mkdtempSync(join(tmpdir(), 'tenancy-compile-'));
    const run = () => {
        const started = performance.now();
        const r = spawnSync(process.execPath, [resolve('bin/tenancy.mjs'), 'run', file, '--rounds', '1', '--requests', '3'],
            { cwd: work, encoding: 'utf8', env: { ...process.env, MESA_SHADER_CACHE_DISABLE: 'false', MESA_SHADER_CACHE_DIR: cache } });
        if (r.status !== 0) throw new Error(`tenancy run of ${model} failed (${r.status}): ${r.stderr.slice(-2000)}`);
        return (performance.now() - started) / 1000;
    };
    try {
        const firstS = run(), secondS = run();
        runs.push({ model, firstS, secondS });
        progress(`compile: ${model} first run ${firstS.toFixed(1)} s, second ${secondS.toFixed(1)} s`);
    } finally {
        rmSync(cache, { recursive: true, force: true });
    }
}
lines.push('', '`tenancy run` of one model, then two together (3 requests, one round), twice on an empty Mesa cache folder: the first compiles every pipeline.', '',
    '| model | first run, s | second run, s | compiling, s |', '|---|---:|---:|---:|',
    ...runs.map(r => `| ${r.model} | ${r.firstS.toFixed(1)} | ${r.secondS.toFixed(1)} | ${(r.firstS - r.secondS).toFixed(1)} |`));

mkdirSync('bench/.work', { recursive: true });
writeFileSync('bench/.work/compile.json', JSON.stringify({ cases, refused, runs }, null, 1));
console.log(lines.join('\n'));
