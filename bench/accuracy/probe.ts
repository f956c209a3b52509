/// <reference types="@webgpu/types" />
/**
 * Diagnostic for the prediction model: where does a tenant's request time go? For the first
 * tenant of each selected workload, every planned op is timed three ways on one device:
 *
 *   predicted  the model on the workspace's profile (predict/latency.ts);
 *   isolated   as calibration times a launch (calibrate/measure.ts: a cache scrub, then the
 *              op alone, median of repeats);
 *   request    as the runtime runs a request: every op in its own timestamped pass, all in one
 *              submission awaited with onSubmittedWorkDone, requests back to back.
 *
 * and the request's wall time is split into GPU time (Σ passes), gaps between passes and the
 * rest (submit → first pass, last pass → completion seen by Node). Epilogues are not fused
 * here (each op runs its own kernels).
 *
 *   node bench/bundle-and-run.mjs bench/accuracy/probe.ts [--only NAME] [--requests N]
 */
import { adapterInfo, openGpu, requestAdapter } from '../../src/runtime/gpu/adapter.js';
import { KernelPipelines, kernelDeviceDescriptor } from '../../src/runtime/gpu/harness.js';
import { capsFromDevice } from '../../src/runtime/gpu/adapter.js';
import { prepareCase, robustStats, timeLaunches, type PreparedCase } from '../../src/runtime/calibrate/measure.js';
import { reluCase } from '../../src/runtime/calibrate/synthetic.js';
import { planGraph } from '../../src/runtime/plan/plan.js';
import { capsForProfile } from '../../src/runtime/predict/profile.js';
import { opTiming } from '../../src/runtime/predict/latency.js';
import { locateProfile } from '../../src/runtime/predict/profile-store.js';
import { evaluationSet } from './workloads.js';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const requests = Number(flag('--requests') ?? 40);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const med = (xs: number[]) => robustStats(xs).median;

async function main(): Promise<void> {
    const profile = locateProfile(process.cwd()).profile;
    const set = await evaluationSet(1000, { only: flag('--only'), zoo: !args.includes('--no-zoo') });
    const gpu = openGpu();
    const adapter = await requestAdapter(gpu);
    const device = await adapter.requestDevice(kernelDeviceDescriptor(adapter, 'probe'));
    const caps = capsFromDevice(device);
    const pipelines = new KernelPipelines(device);
    console.log(`adapter: ${adapterInfo(adapter).description}; profile ${profile.createdAt}`);
    const scrub = await prepareCase(device, pipelines, reluCase(8 * 1024 * 1024), caps);
    const seen = new Set<string>();
    for (const w of set) {
        const tenant = w.tenants[0];
        if (seen.has(tenant.name)) continue;
        seen.add(tenant.name);
        const shapeOf = (id: string) => tenant.graph.tensors[id]?.shape ?? [];
        const plan = planGraph(tenant.graph, { caps: capsForProfile(profile) }).filter(p => p.launches.length > 0);
        const byPath = new Map(tenant.graph.ops.map(o => [o.path, o]));
        const cases: PreparedCase[] = [];
        for (const p of plan) {
            const op = byPath.get(p.path)!;
            cases.push(await prepareCase(device, pipelines, { shape: p.path, op, inputShapes: op.inputs.map(shapeOf), outputShape: shapeOf(op.output) }, caps));
        }
        // Isolated, as calibration does (scrub + median of 7).
        const isolated: number[] = [];
        for (const c of cases) {
            await timeLaunches(device, c, 2, undefined, scrub);
            const t = await timeLaunches(device, c, 7, undefined, scrub);
            isolated.push(t.reduce((s, l) => s + med(l), 0));
        }
        // Requests back to back: one pass per op, one submission.
        const n = cases.length;
        const qs = device.createQuerySet({ type: 'timestamp', count: 2 * n });
        const resolveBuf = device.createBuffer({ size: 16 * n, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
        const passMs: number[][] = cases.map(() => []), gapMs: number[][] = cases.map(() => []);
        const walls: number[] = [], gpuSpan: number[] = [], encodeMs: number[] = [];
        for (let r = 0; r < requests + 3; r++) {
            const readback = device.createBuffer({ size: 16 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
            const t0 = performance.now();
            const enc = device.createCommandEncoder();
            cases.forEach((c, i) => {
                const pass = enc.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
                for (const s of c.steps) { pass.setPipeline(s.pipeline); pass.setBindGroup(0, s.group); pass.dispatchWorkgroups(...s.dispatch); }
                pass.end();
            });
            enc.resolveQuerySet(qs, 0, 2 * n, resolveBuf, 0);
            enc.copyBufferToBuffer(resolveBuf, 0, readback, 0, 16 * n);
            const buf = enc.finish();
            const t1 = performance.now();
            device.queue.submit([buf]);
            await device.queue.onSubmittedWorkDone();
            const t2 = performance.now();
            await readback.mapAsync(GPUMapMode.READ);
            const ts = new BigUint64Array(readback.getMappedRange().slice(0));
            readback.destroy();
            if (r < 3) continue;
            walls.push(t2 - t1);
            encodeMs.push(t1 - t0);
            gpuSpan.push(Number(ts[2 * n - 1] - ts[0]) / 1e6);
            for (let i = 0; i < n; i++) {
                passMs[i].push(Number(ts[2 * i + 1] - ts[2 * i]) / 1e6);
                if (i > 0) gapMs[i].push(Number(ts[2 * i] - ts[2 * i - 1]) / 1e6);
            }
        }
        qs.destroy();
        resolveBuf.destroy();
        console.log(`\n## ${w.workload} / ${tenant.name}: ${n} passes, ${plan.reduce((s, p) => s + p.launches.length, 0)} launches`);
        console.log(`${'op'.padEnd(52)} ${'launches'.padEnd(44)} ${'pred'.padStart(7)} ${'isol'.padStart(7)} ${'req'.padStart(7)} ${'gap'.padStart(6)}`);
        let sp = 0, si = 0, sr = 0, sg = 0;
        plan.forEach((p, i) => {
            const pred = opTiming(profile, p).ms;
            const req = med(passMs[i]);
            const gap = i > 0 ? med(gapMs[i]) : 0;
            sp += pred; si += isolated[i]; sr += req; sg += gap;
            const names = p.launches.map(l => `${l.name.split('.').slice(1).join('.')}[${l.family}]`).join('+');
            console.log(`${p.path.slice(-52).padEnd(52)} ${names.slice(0, 44).padEnd(44)} ${fmt(pred).padStart(7)} ${fmt(isolated[i]).padStart(7)} ${fmt(req).padStart(7)} ${fmt(gap).padStart(6)}`);
        });
        const wall = med(walls), span = med(gpuSpan);
        console.log(`Σ ops: predicted ${fmt(sp)}, isolated ${fmt(si)}, in request ${fmt(sr)}; Σ gaps ${fmt(sg)}; GPU span ${fmt(span)}; wall ${fmt(wall)} (beyond span ${fmt(wall - span)}); encode ${fmt(med(encodeMs))} ms`);
        for (const c of cases) c.destroy();
    }
    scrub.destroy();
    device.destroy();
}

await main();
