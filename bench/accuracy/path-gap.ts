/// <reference types="@webgpu/types" />
/**
 * Where calibration's op times and the runtime's differ: the same planned ops (fixture tenants,
 * unfused so each op is one pass in both) timed in one process, alternating round by round:
 *
 *   cal      calibration's path (calibrate/measure.ts timeSequence): a device opened as calibration
 *            opens it, the ops prepared with their own buffers, one submission per request;
 *   cal@t    the same on the tenant's device (device descriptor apart);
 *   runner   the runtime's TenantRunner on the compiled tenant (its buffers, its encoding),
 *            requests back to back without the phase loop;
 *   phase    TenantRunner inside the phase loop (execute/phase.ts), closed loop back to back;
 *   workload runWorkload of the tenant alone (what the accuracy benchmark scores): per-op soloP50Ms,
 *            fused as `tenancy run` plans (ops whose path is an unfused op's are compared).
 *
 * Per op the median over the rounds' medians; per path the geometric mean ratio to `cal`.
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/path-gap.ts [--rounds R] [--reps N] [--no-workload] [--profile P.json]
 */
import { loadavg } from 'node:os';
import { capsFromDevice, openGpu, requestAdapter, requestTenantDevice } from '../../src/runtime/gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../../src/runtime/gpu/harness.js';
import { prepareCase, robustStats, timeSequence, type PreparedCase } from '../../src/runtime/calibrate/measure.js';
import { kernelsFor } from '../../src/runtime/kernels/index.js';
import { planTenant } from '../../src/runtime/plan/tenant-plan.js';
import { compileTenant } from '../../src/runtime/gpu/compile.js';
import { TenantRunner } from '../../src/runtime/gpu/tenant-runner.js';
import { runPhase } from '../../src/runtime/execute/phase.js';
import { policyFor } from '../../src/runtime/schedule/policy.js';
import { createRandom } from '../../src/runtime/plan/random.js';
import { runWorkload } from '../../src/runtime/execute/run.js';
import type { IrTenant } from '../../src/runtime/ir/types.js';
import { readProfileFile } from '../../src/runtime/predict/profile-store.js';
import { opTiming } from '../../src/runtime/predict/latency.js';
import { cnnTenant, mlpTenant, transformerTenant, workloadOf } from '../../test/fixtures/ir/builders.js';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const rounds = Number(flag('--rounds') ?? 4), reps = Number(flag('--reps') ?? 25);
const med = (xs: number[]) => (xs.length ? robustStats(xs).median : NaN);
const fmt = (x: number) => (!Number.isFinite(x) ? '—' : x >= 10 ? x.toFixed(1) : x.toFixed(3));

type Path = 'cal' | 'cal@t' | 'runner' | 'phase' | 'workload';
const PATHS: Path[] = ['cal', 'cal@t', 'runner', 'phase', 'workload'];
const profileFile = flag('--profile');
const profile = profileFile ? readProfileFile(profileFile) : undefined;

async function main(): Promise<void> {
    const gpu = openGpu();
    const adapter = await requestAdapter(gpu);
    const calDevice = await adapter.requestDevice(kernelDeviceDescriptor(adapter, 'path-gap-cal'));
    const calPipes = new KernelPipelines(calDevice);
    const t = await requestTenantDevice(gpu, 'auto', 'path-gap-tenant', { timestamps: true });
    const tPipes = new KernelPipelines(t.device);
    const caps = capsFromDevice(t.device);
    const tenants: IrTenant[] = [
        cnnTenant('cnn', { res: 64 }), cnnTenant('cnn_s', { res: 32, batch: 2 }),
        mlpTenant('mlp', { batch: 32, inputs: 784, hidden: 512 }), transformerTenant('tfm', { seq: 64, dim: 128 }),
    ];
    console.log(`load ${loadavg().map(x => x.toFixed(2)).join(' ')}; ${rounds} rounds × ${reps} requests per path`);
    const ratios: Record<Path, number[]> = { cal: [], 'cal@t': [], runner: [], phase: [], workload: [] };
    const predRatios: number[] = [];
    for (const tenant of tenants) {
        const plan = planTenant(tenant, {
            kernels: { kernelsFor }, caps, fusion: false,
            limits: { maxStorageBufferBindingSize: caps.maxStorageBufferBindingSize, maxBufferSize: caps.maxBufferSize },
        });
        const compiled = await compileTenant(t.device, plan, 11, { timeoutMs: 60_000 });
        const runner = new TenantRunner(compiled, 'gpu-timestamps', 60_000);
        const shapeOf = (id: string) => tenant.graph.tensors[id]?.shape ?? [];
        const byPath = new Map(tenant.graph.ops.map(o => [o.path, o]));
        const timed = plan.ops.map((p, i) => ({ p, i })).filter(x => x.p.launches.length > 0);
        const prep = async (device: GPUDevice, pipes: KernelPipelines): Promise<PreparedCase[]> => {
            const out: PreparedCase[] = [];
            for (const { p } of timed) {
                const op = byPath.get(p.path)!;
                out.push(await prepareCase(device, pipes, { shape: p.path, op, inputShapes: op.inputs.map(shapeOf), outputShape: shapeOf(op.output), variant: p.variant }, caps));
            }
            return out;
        };
        const calCases = await prep(calDevice, calPipes), tCases = await prep(t.device, tPipes);
        const times: Record<Path, number[][]> = Object.fromEntries(PATHS.map(k => [k, timed.map(() => [] as number[])])) as Record<Path, number[][]>;
        const seqInto = async (device: GPUDevice, cases: PreparedCase[], into: number[][]) => {
            const s = await timeSequence(device, cases, reps);
            cases.forEach((_, ci) => into[ci].push(med(s.launches[ci].reduce((acc, l) => acc.map((x, r) => x + l[r]), new Array(reps).fill(0)))));
        };
        const runnerInto = async (into: number[][]) => {
            const per: number[][] = timed.map(() => []);
            for (let r = 0; r < reps; r++) {
                const res = await runner.run(0, runner.opCount);
                const iv = await res.intervals;
                if (!iv) continue;
                timed.forEach(({ i }, k) => per[k].push(iv.endMs[i] - iv.startMs[i]));
            }
            per.forEach((xs, k) => into[k].push(med(xs)));
        };
        const phaseInto = async (into: number[][], round: number) => {
            const rec = await runPhase({
                tenants: [{ name: tenant.name, priority: 'normal', arrival: { kind: 'closed', clients: 1, thinkMs: 0 }, slos: [], random: createRandom(7, `gap/${round}`), runner, ops: plan.ops.map(op => ({ flops: op.flops, launches: op.launches.length })) }],
                policy: policyFor({ policy: 'concurrent' }), limit: { warmupMs: 0.001, durationMs: 0, requests: reps }, maxPhaseMs: 60_000, onProgress: () => undefined,
            });
            const per: number[][] = timed.map(() => []);
            for (const req of rec.completed[0].filter(x => x.measured)) {
                for (const step of req.steps) {
                    const iv = await step;
                    if (!iv) continue;
                    timed.forEach(({ i }, k) => { const j = i - iv.from; if (j >= 0 && j < iv.startMs.length) per[k].push(iv.endMs[j] - iv.startMs[j]); });
                }
            }
            per.forEach((xs, k) => into[k].push(med(xs)));
        };
        const workloadInto = async (into: number[][]) => {
            const res = await runWorkload({ ir: workloadOf(`gap_${tenant.name}`, [tenant], { benchmark: { durationMs: 1500, warmupMs: 300, seed: 3 } }) });
            const m = res.tenants[0];
            timed.forEach(({ p }, k) => { const o = m?.ops.find(x => x.path === p.path); into[k].push(o?.soloP50Ms ?? NaN); });
        };
        // Warm-up of every path (pipeline compilation at first dispatch).
        await seqInto(calDevice, calCases, timed.map(() => []));
        await seqInto(t.device, tCases, timed.map(() => []));
        await runnerInto(timed.map(() => []));
        for (let r = 0; r < rounds; r++) {
            const order: Path[] = r % 2 === 0 ? PATHS : [...PATHS].reverse();
            for (const path of order) {
                if (path === 'cal') await seqInto(calDevice, calCases, times.cal);
                else if (path === 'cal@t') await seqInto(t.device, tCases, times['cal@t']);
                else if (path === 'runner') await runnerInto(times.runner);
                else if (path === 'phase') await phaseInto(times.phase, r);
                else if (!args.includes('--no-workload')) await workloadInto(times.workload);
            }
        }
        console.log(`\n## ${tenant.name} (${timed.length} passes; load ${loadavg()[0].toFixed(2)})`);
        console.log(`${'op'.padEnd(34)} ${PATHS.map(p => p.padStart(9)).join(' ')}${profile ? '      pred' : ''}`);
        timed.forEach(({ p }, k) => {
            const m = PATHS.map(path => med(times[path][k].filter(Number.isFinite)));
            const pred = profile ? opTiming(profile, p).typicalMs : NaN;
            if (profile && m[0] > 0) predRatios.push(pred / m[0]);
            console.log(`${p.path.slice(-34).padEnd(34)} ${m.map(x => fmt(x).padStart(9)).join(' ')}${profile ? fmt(pred).padStart(10) : ''}`);
            for (const path of PATHS) if (Number.isFinite(m[PATHS.indexOf(path)]) && m[0] > 0) ratios[path].push(m[PATHS.indexOf(path)] / m[0]);
        });
        for (const c of [...calCases, ...tCases]) c.destroy();
        runner.destroy();
        compiled.destroy();
    }
    const gmean = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
    console.log(`\nper path, geometric mean of op time / cal: ${PATHS.map(p => `${p} ${ratios[p].length ? gmean(ratios[p]).toFixed(3) : '—'} (n ${ratios[p].length})`).join(', ')}${profile ? `; predicted / cal ${gmean(predRatios).toFixed(3)} (profile ${profile.createdAt}, calibrated at load ${profile.hostLoad?.before.toFixed(2) ?? '?'})` : ''}; load ${loadavg()[0].toFixed(2)}`);
    calDevice.destroy();
    t.device.destroy();
}

await main();
