/**
 * The fixed evaluation set of the accuracy benchmark: IR fixture models and zoo models at small
 * sizes, solo, pairs and triples, closed and open loop, concurrent and sequential. None of
 * these shapes is one of calibration's synthetic ladders (calibrate/synthetic.ts): the model is
 * never fitted to what it is scored on.
 *
 * Open-loop rates are FIXED INPUTS written here, not derived from the model: each is set at a
 * moderate share (about 30%) of the tenant's measured open-loop capacity on the reference host
 * (Mesa lavapipe, 2 cores; `--capacity` of run.ts prints the closed-loop solo means). Near
 * saturation (ρ → 1) queueing multiplies every service-time error by 1/(1 − ρ), so rates
 * sized from the *predicted* capacity made the benchmark measure the
 * error of one tenant's service time twice over (and overloaded the device when it was
 * under-predicted). The rates are not tuned to make predictions match.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { IrArrival, IrSchedule, IrTenant, WorkloadIR } from '../../src/runtime/ir/types.js';
import { cnnTenant, mlpTenant, transformerTenant, workloadOf } from '../../test/fixtures/ir/builders.js';
import { loadWorkspace } from '../../src/cli/load-workspace.js';

/**
 * Requests per second of the open-loop tenants, fixed: ≈ 30% of each tenant's measured
 * open-loop capacity on the reference host (lavapipe, 2 cores, load ≈ 2, 2026-11-30), i.e. of
 * 1 / its mean solo latency measured as an open-loop stream in three runs of this benchmark:
 * cnn_s ≈ 9 ms, mlp ≈ 6.3 ms, tfm ≈ 21 ms, mobilenet_v2 ≈ 120 ms, resnet18 ≈ 98 ms. (Closed
 * loop they take ≈ 2, 3.4, 8, 85 and 80 ms: a request that finds its device idle is slower on
 * this host — calibration's idle penalty. A first choice at 15–20% of the closed-loop capacity
 * put cnn_s at ρ ≈ 0.75 in fact, too near saturation.)
 */
export const RATES = {
    cnnSmall: 30, // 9 ms ⇒ ρ ≈ 0.27
    mlp: 45, // 6.3 ms ⇒ ρ ≈ 0.28
    tfm: 15, // 21 ms ⇒ ρ ≈ 0.32
    mobilenet: 2.5, // 120 ms ⇒ ρ ≈ 0.3
    resnet: 3, // 98 ms ⇒ ρ ≈ 0.29
} as const;

const closed: IrArrival = { kind: 'closed', clients: 1, thinkMs: 0 };
const poisson = (ratePerSecond: number): IrArrival => ({ kind: 'poisson', ratePerSecond });

/** Zoo models at small resolutions, written in the language and lowered by the language server (as `tenancy run` does). */
const ZOO_SOURCE = `
workload zoo_resnet18 { tenant resnet { model resnet18(res: 64) } benchmark { duration DURms warmup 500ms seed 3 } }
workload zoo_mobilenet { tenant mobilenet { model mobilenet_v2(res: 96) } benchmark { duration DURms warmup 500ms seed 3 } }
workload zoo_bert { tenant bert { model bert_base(seq: 16, layers: 1) } benchmark { duration DURms warmup 500ms seed 3 } }
workload zoo_pair {
  tenant resnet { model resnet18(res: 64) }
  tenant bert { model bert_base(seq: 16, layers: 1) }
  benchmark { duration DURms warmup 500ms seed 3 }
}
workload zoo_triple_open {
  tenant mobilenet { model mobilenet_v2(res: 96) arrival poisson(rate: ${RATES.mobilenet}/s) }
  tenant resnet { model resnet18(res: 64) arrival poisson(rate: ${RATES.resnet}/s) }
  tenant mlp { model mlp(batch: 16) }
  benchmark { duration LONGms warmup 500ms seed 3 }
}
`;

/** The zoo workloads, lowered from ZOO_SOURCE (written under bench/.work). */
export async function zooWorkloads(durationMs: number): Promise<WorkloadIR[]> {
    const dir = resolve('bench/.work/accuracy-zoo');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'zoo.tenancy');
    // The open-loop zoo triple runs twice as long: at 2–3 requests per second it needs the window for its percentiles.
    writeFileSync(file, ZOO_SOURCE.replaceAll('DUR', String(durationMs)).replaceAll('LONG', String(2 * durationMs)));
    const ws = await loadWorkspace([file]);
    return ws.workloads(file).map(w => ws.lower(w.name, file));
}

/** The fixture workloads (IR builders). */
export function fixtureWorkloads(durationMs: number): WorkloadIR[] {
    const mlp = (n: string) => mlpTenant(n, { batch: 32, inputs: 784, hidden: 512, outputs: 10 });
    const cnn = (n: string) => cnnTenant(n, { batch: 1, res: 64, channels: 32 });
    const cnnSmall = (n: string) => cnnTenant(n, { batch: 2, res: 32, channels: 16 });
    const tfm = (n: string) => transformerTenant(n, { batch: 1, seq: 64, dim: 128, heads: 4 });
    const bench = { durationMs, warmupMs: 500, seed: 11 };
    const with_ = (t: IrTenant, arrival: IrArrival): IrTenant => ({ ...t, arrival });
    const wl = (name: string, tenants: IrTenant[], schedule: IrSchedule = { policy: 'concurrent' }) => workloadOf(name, tenants, { schedule, benchmark: bench });
    return [
        wl('solo_mlp', [mlp('mlp')]),
        wl('solo_cnn', [cnn('cnn')]),
        wl('solo_transformer', [tfm('tfm')]),
        wl('solo_cnn_open', [with_(cnnSmall('cnn_s'), poisson(RATES.cnnSmall))]),
        wl('pair_cnn_tfm_closed', [cnn('cnn'), tfm('tfm')]),
        wl('pair_mlp_open_cnn_closed', [with_(mlp('mlp'), poisson(RATES.mlp)), cnn('cnn')]),
        wl('pair_sequential_open', [with_(cnnSmall('cnn_s'), poisson(RATES.cnnSmall)), with_(tfm('tfm'), poisson(RATES.tfm))], { policy: 'sequential' }),
        wl('triple_mixed', [mlp('mlp'), with_(cnnSmall('cnn_s'), poisson(RATES.cnnSmall)), with_(tfm('tfm'), poisson(RATES.tfm))]),
    ];
}

/** Every workload of the set (zoo ones unless `zoo` is false), optionally only one by name. */
export async function evaluationSet(durationMs: number, options: { zoo?: boolean; only?: string } = {}): Promise<WorkloadIR[]> {
    const all = [...fixtureWorkloads(durationMs), ...(options.zoo === false ? [] : await zooWorkloads(durationMs))];
    return all.filter(w => !options.only || w.workload === options.only);
}

/** The same workloads with every tenant closed-loop and alone (capacity probe: one workload per distinct tenant). */
export function closedLoopProbes(set: WorkloadIR[]): WorkloadIR[] {
    const seen = new Set<string>();
    const out: WorkloadIR[] = [];
    for (const w of set) {
        for (const t of w.tenants) {
            const key = `${t.name}:${JSON.stringify(Object.keys(t.graph.tensors).length)}:${t.graph.ops.length}`;
            if (seen.has(key)) continue;
            seen.add(key);
            out.push({ ...w, workload: `capacity_${t.name}`, tenants: [{ ...t, arrival: closed }] });
        }
    }
    return out;
}
