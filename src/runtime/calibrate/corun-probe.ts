/// <reference types="@webgpu/types" />
/**
 * Co-runs measured through the runtime's own path, for the co-run model's error (calibrate.ts
 * step 8): synthetic tenants (synthetic.ts corunProbeTenants), each on a device of its own
 * requested as a tenant's device, compiled and run by TenantRunner in the phase loop under
 * `concurrent`, as `tenancy run` co-runs them. Each round is one co-run phase of the given
 * length: what one short run of a user's workload measures, so the rounds differ as two runs do.
 */
import type { IrTenant } from '../ir/types.js';
import { capsFromDevice, requestTenantDevice, type AdapterPreference, type TenantDevice } from '../gpu/adapter.js';
import { createRandom } from '../plan/random.js';
import { policyFor } from '../schedule/policy.js';
import { runPhase } from '../execute/phase.js';
import { summarizePhase } from '../execute/summarize.js';
import { prepareProbeTenant, type ProbeTenant } from './probe-tenant.js';

export interface CorunProbeOptions {
    rounds: number;
    /** Each round's measured window, ms (after `warmupMs`). */
    durationMs: number;
    warmupMs: number;
    signal?: AbortSignal;
    /** After each round: how many are done. */
    onRound?: (done: number) => void;
}

/** One tenant in one round: what its measured requests that completed measured, as a run's co-run phase records it (execute/summarize.ts). */
export interface CorunRoundTenant {
    /** Each request's latency, ms. */
    latenciesMs: number[];
    /** Per op path (ops with launches only), the op's GPU time in each request, ms. */
    opTimesMs: Record<string, number[]>;
}

/** Per round, per tenant. */
export type CorunRounds = CorunRoundTenant[][];

export async function measureCorunRounds(gpu: GPU, preference: AdapterPreference, tenants: readonly IrTenant[], options: CorunProbeOptions): Promise<CorunRounds> {
    const devices: TenantDevice[] = [];
    const probes: ProbeTenant[] = [];
    try {
        for (const tenant of tenants) devices.push(await requestTenantDevice(gpu, preference, `calibrate-corun/${tenant.name}`, { timestamps: true }));
        // Compiled at once, each on its device, as a run's tenants are (execute/session.ts compile).
        const prepared = await Promise.allSettled(tenants.map((t, k) => prepareProbeTenant(devices[k].device, capsFromDevice(devices[k].device), t, options.signal)));
        for (const p of prepared) if (p.status === 'fulfilled') probes.push(p.value);
        const failed = prepared.find(p => p.status === 'rejected');
        if (failed) throw failed.reason;
        const policy = policyFor({ policy: 'concurrent' });
        const rounds: CorunRounds = [];
        for (let r = 0; r < options.rounds; r++) {
            const record = await runPhase({
                tenants: tenants.map((t, k) => ({
                    name: t.name, priority: t.priority, arrival: t.arrival, slos: t.slos, random: createRandom(23 + r, `corun/${r}/${t.name}`),
                    runner: probes[k].runner, ops: probes[k].views,
                })),
                policy, limit: { warmupMs: options.warmupMs, durationMs: options.durationMs }, signal: options.signal,
                // A host too slow for the probe's rate ends the round here, with what completed (an overload the model predicts too).
                maxPhaseMs: options.warmupMs + 3 * options.durationMs + 10_000,
                onProgress: () => undefined, // as runWorkload does (its wake-up timer is then capped at 250 ms)
            });
            if (record.ending === 'cancelled' || record.ending === 'failed') {
                throw new Error(`the co-run probe's round ${r + 1} ended '${record.ending}'${record.error ? `: ${record.error instanceof Error ? record.error.message : String(record.error)}` : ''}`);
            }
            // Summarised as `tenancy run` summarises a phase: the same latencies and per-op times a results file would hold.
            const summary = await summarizePhase(record, probes.map(p => p.runner), false);
            rounds.push(summary.tenants.map((t, k) => ({
                latenciesMs: t.latenciesMs,
                opTimesMs: Object.fromEntries(probes[k].compiled.ops.flatMap((op, j) => (t.opTimesMs[j].length > 0 ? [[op.planned.path, t.opTimesMs[j]]] : []))),
            })));
            options.onRound?.(rounds.length);
        }
        return rounds;
    } finally {
        for (const p of probes) p.destroy();
        for (const d of devices) d.device.destroy();
    }
}
