/**
 * A device lost in the middle of a run (the driver resets, the GPU is unplugged): simulated by
 * destroying a tenant's device while its co-run phase measures. The run stops without a hang,
 * with results marked failed that say which tenant's device was lost and why.
 */
import { describe, expect, it, vi } from 'vitest';
import type { TenantDevice } from '../../../src/runtime/gpu/adapter.js';
import { mlpTenant, workloadOf } from '../../fixtures/ir/builders.js';
import { hasAdapter } from './gpu-helper.js';

/** Every device the run opens, so that the test can destroy one. */
const opened: TenantDevice[] = [];
vi.mock('../../../src/runtime/gpu/adapter.js', async original => {
    const real = await original<typeof import('../../../src/runtime/gpu/adapter.js')>();
    return {
        ...real,
        requestTenantDevice: async (...args: Parameters<typeof real.requestTenantDevice>) => {
            const device = await real.requestTenantDevice(...args);
            opened.push(device);
            return device;
        },
    };
});

const { runWorkload } = await import('../../../src/runtime/execute/run.js');
const { parseResults } = await import('../../../src/runtime/report/schema.js');
const gpu = await hasAdapter();

describe.skipIf(!gpu)('a device lost mid-run (software adapter)', () => {
    it('destroyed in the co-run phase: the run ends promptly, failed, naming the tenant and the loss', async () => {
        const ir = workloadOf('lost', [mlpTenant('a'), mlpTenant('b')], { benchmark: { durationMs: 30_000, warmupMs: 0 } });
        let destroyedAt = 0;
        const results = await runWorkload({
            ir,
            onEvent: e => {
                if (e.type === 'phase' && e.phase === 'corun' && !destroyedAt) {
                    setTimeout(() => { destroyedAt = performance.now(); opened[1]!.device.destroy(); }, 200);
                }
            },
        });
        expect(destroyedAt).toBeGreaterThan(0);
        // Bounds a hang, not speed (building the results' intervals takes seconds on a loaded host):
        // the step timeout is 60 s and the planned rounds about 90 s; a lost device waits for neither.
        expect(performance.now() - destroyedAt).toBeLessThan(45_000);
        expect(results.status).toBe('failed');
        expect(results.reason).toMatch(/the device of tenant b was lost \(destroyed\)/);
        expect(parseResults(JSON.parse(JSON.stringify(results))).status).toBe('failed');
        // What was measured before the loss is kept.
        expect(results.tenants[0]!.solo!.requests).toBeGreaterThan(0);
    });

    it('destroyed while the tenants compile (at once, each on its device): the run fails, naming the tenant, before any phase', async () => {
        opened.length = 0;
        const ir = workloadOf('lost_compiling', [mlpTenant('a'), mlpTenant('b')], { benchmark: { durationMs: 30_000, warmupMs: 0 } });
        let destroyed = false;
        const phases: string[] = [];
        const results = await runWorkload({
            ir,
            onEvent: e => {
                if (e.type === 'phase') phases.push(e.phase);
                if (e.type === 'progress' && e.phase === 'compile' && !destroyed) { destroyed = true; opened[1]!.device.destroy(); }
            },
        });
        expect(destroyed).toBe(true);
        expect(results.status).toBe('failed');
        expect(results.reason).toMatch(/tenant b/);
        expect(phases).not.toContain('solo');
        expect(parseResults(JSON.parse(JSON.stringify(results))).status).toBe('failed');
    });
});
