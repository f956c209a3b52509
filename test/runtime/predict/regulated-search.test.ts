/**
 * The regulated search (predict/schedules.ts searchRegulated) simulates each configuration it
 * scores once: its neighbour step comes back to configurations the descent scored, and the
 * simulation is deterministic, so the kept score is the one a second
 * simulation would give. The policy's name spells the configuration (splits, sync threshold, ops
 * split within), so the simulations' policy names must not repeat.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadWorkspace } from '../../../src/cli/load-workspace.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { resolveSchedule, syncThresholds } from '../../../src/runtime/predict/schedules.js';

const policies = vi.hoisted(() => ({ names: [] as string[] }));
vi.mock('../../../src/runtime/predict/simulate.js', async original => {
    const real = await original<typeof import('../../../src/runtime/predict/simulate.js')>();
    return {
        ...real,
        simulate: (...args: Parameters<typeof real.simulate>) => {
            policies.names.push(args[1].policy.name);
            return real.simulate(...args);
        },
    };
});

/** The regulated search's choice on a workload written to a file of its own; the policies it simulated land in `policies.names`. */
async function searchOn(text: string, workload: string) {
    const file = join(mkdtempSync(join(tmpdir(), 'tenancy-search-')), `${workload}.tenancy`);
    writeFileSync(file, text);
    const workspace = await loadWorkspace([file], { predictions: false });
    policies.names = [];
    return resolveSchedule(workspace.lower(workload, file), defaultProfile()).settings.regulated!;
}

/** The sync thresholds the search simulated at the splits `matches` accepts (a policy's name spells its splits and threshold). */
function thresholdsTried(matches: (splits: Record<string, number>) => boolean): Set<string | undefined> {
    const splitsOf = (name: string) => JSON.parse(/split: (\{[^}]*\})/.exec(name)?.[1] ?? '{}') as Record<string, number>;
    return new Set(policies.names.filter(n => matches(splitsOf(n))).map(n => /sync: ([^;)]+)/.exec(n)?.[1]));
}

describe('the regulated search', () => {
    it('tries thresholds between one tenant\'s chunks and the longer ones of the others, besides quantiles and none', () => {
        // A critical tenant of 1–2 ms chunks beside a batch tenant of 5–9 ms ones.
        const t = syncThresholds([[1, 2], [5, 6, 7, 8, 9]]);
        // 3.5: every batch chunk exclusive, no critical one; the batch tenant's longest chunk has nothing longer above it.
        expect(t).toContain(3.5);
        expect(t.filter(x => x > 2 && x < 5)).toEqual([3.5]);
        // The quantiles of all seven chunks (0.9, 0.75, 0.5) and none.
        expect(t.slice(0, 3)).toEqual([9, 8, 6]);
        expect(t.at(-1)).toBe(Infinity);
        // Interleaved chunks: halfway to the next longer chunk of any tenant.
        expect(syncThresholds([[1, 4], [2, 3, 6]])).toContain(5);
        expect(syncThresholds([])).toEqual([Infinity]);
    });

    it('simulates each configuration once, and says how many it simulated', async () => {
        const workspace = await loadWorkspace(['examples/quick-start.tenancy'], { predictions: false });
        const ir = workspace.lower('quick_start', 'examples/quick-start.tenancy');
        for (const schedule of [{ policy: 'regulated', split: 'auto', sync: 'auto' }, { policy: 'regulated', split: 'auto', sync: 'none' }] as const) {
            policies.names = [];
            const resolved = resolveSchedule({ ...ir, schedule }, defaultProfile());
            expect(policies.names.length).toBeGreaterThan(1);
            expect(new Set(policies.names).size).toBe(policies.names.length);
            expect(resolved.why).toMatch(new RegExp(`^the search \\(${policies.names.length} simulations\\) found `));
        }
    }, 60_000);

    it('tries the splits beside its choice with every threshold of their own chunks', async () => {
        // critical_batch: on a calibrated profile, 16 batch chunks beat 8 only with a threshold of their own (every batch
        // chunk longer than the critical request exclusive), which the descent, one coordinate at a time, did not reach.
        const chosen = await searchOn(`model small_cnn(batch = 1) {
  input x: f32[batch, 3, 32, 32]
  y = relu(conv2d(x, 16, kernel: 3, padding: 1))
  y = relu(conv2d(y, 16, kernel: 3, padding: 1, stride: 2))
  output dense(flatten(global_avg_pool(y)), 10)
}
workload critical_batch {
  tenant critical { model small_cnn() arrival poisson(rate: 40/s) slo p95 <= 25ms priority high }
  tenant batch { model bert_base(batch: 4, seq: 16, layers: 1) arrival closed(clients: 1) priority low }
  schedule regulated(split: auto, sync: auto)
}
`, 'critical_batch');
        const neighbours = [chosen.splits.batch / 2, chosen.splits.batch * 2].filter(s => s >= 1 && s <= 16);
        expect(neighbours.length).toBeGreaterThan(0);
        for (const split of neighbours) {
            const thresholds = thresholdsTried(s => s.critical === chosen.splits.critical && s.batch === split);
            expect(thresholds.size, `thresholds tried at batch ${split}: ${[...thresholds].join(', ')}`).toBeGreaterThan(2);
        }
    }, 60_000);

    it('tries first the neighbours of the tenant with the longest chunk, before its bound runs out', async () => {
        // Four tenants, the one the others wait behind (bert, no SLO) last by name: a second pass of the descent spent
        // the bound before bert's neighbouring splits were tried with thresholds of their own.
        const chosen = await searchOn(`workload heavy {
  tenant mlp { model mlp(batch: 8) arrival poisson(rate: 140/s) slo p95 <= 30ms priority high }
  tenant lstm { model lstm_lm(seq: 8, vocab: 1000, hidden: 128, layers: 1) arrival poisson(rate: 70/s) slo p95 <= 60ms }
  tenant resnet { model resnet18(res: 32) arrival poisson(rate: 14/s) slo p95 <= 400ms }
  tenant bert { model bert_base(seq: 16, layers: 1) arrival closed(clients: 1) priority low }
  schedule regulated(split: auto, sync: auto)
}
`, 'heavy');
        const neighbours = [chosen.splits.bert / 2, chosen.splits.bert * 2].filter(s => s >= 1 && s <= 16);
        expect(neighbours.length).toBeGreaterThan(0);
        for (const split of neighbours) {
            const thresholds = thresholdsTried(s => s.bert === split && ['mlp', 'lstm', 'resnet'].every(n => s[n] === chosen.splits[n]));
            expect(thresholds.size, `bert in ${split}: thresholds tried ${[...thresholds].join(', ')}`).toBeGreaterThan(2);
        }
    }, 120_000);
});
