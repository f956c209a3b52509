/**
 * The regulated search (predict/schedules.ts searchRegulated) simulates each configuration it
 * scores once: its coordinate descent comes back to configurations (a second pass retries the
 * first's splits), and the simulation is deterministic, so the kept score is the one a second
 * simulation would give. The policy's name spells the configuration (splits, sync threshold, ops
 * split within), so the simulations' policy names must not repeat.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadWorkspace } from '../../../src/cli/load-workspace.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { resolveSchedule } from '../../../src/runtime/predict/schedules.js';

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

describe('the regulated search', () => {
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
});
