/** Every kernel family the default variants give the zoo's models on a device like lavapipe (fixed subgroup size) has a calibration ladder through the real generators. */
import { describe, expect, test } from 'vitest';
import { loadWorkloadIr } from '../../../src/cli/load-workspace.js';
import { calibrationCases } from '../../../src/runtime/calibrate/synthetic.js';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import { familyOf } from '../../../src/runtime/plan/launch.js';
import { planGraph } from '../../../src/runtime/plan/plan.js';

const caps = { ...DEFAULT_CAPS, subgroupSize: 8, maxStorageBufferBindingSize: 1 << 30, maxBufferSize: 1 << 30 };

describe('calibration coverage', () => {
    test('the ladders time every family the zoo models launch with default variants', async () => {
        const calibrated = new Set<string>();
        for (const ladder of calibrationCases(false)) {
            for (const c of ladder.cases) {
                const k = kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps });
                for (const l of k.launches) calibrated.add(familyOf(l.name));
            }
        }
        const ir = await loadWorkloadIr('bench/interference/zoo-models.tenancy');
        const missing = new Set<string>();
        for (const tenant of ir.tenants) {
            for (const op of planGraph(tenant.graph, { caps })) {
                for (const l of op.launches) if (!calibrated.has(l.family)) missing.add(`${l.family} (${tenant.graph.model}: ${l.name})`);
            }
        }
        expect([...missing]).toEqual([]);
    }, 60_000);
    test('the global pool ladder reaches down to a few planes (a small CNN\'s final pool is tens of workgroups, below one wave of the wide shapes)', () => {
        const ladder = calibrationCases(false).find(l => l.family === 'reduction (pool)')!;
        const workgroups = ladder.cases.map(c => kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps }).launches[0])
            .map(l => l.dispatch[0] * l.dispatch[1] * l.dispatch[2]);
        expect(Math.min(...workgroups)).toBeLessThanOrEqual(12);
        expect(Math.max(...workgroups)).toBeGreaterThanOrEqual(1000);
    });
});
