/** Every kernel family the default variants give the zoo's models on a device like lavapipe (fixed subgroup size) has a calibration ladder through the real generators. */
import { describe, expect, test } from 'vitest';
import { loadWorkloadIr } from '../../../src/cli/load-workspace.js';
import { calibrationCases, depthwiseCase, type SyntheticCase } from '../../../src/runtime/calibrate/synthetic.js';
import { between } from '../../../src/runtime/calibrate/refine.js';
import { evaluationSet } from '../../../bench/accuracy/workloads.js';
import { DEFAULT_CAPS, kernelsFor } from '../../../src/runtime/kernels/index.js';
import { familyOf, scalarLoadsOf } from '../../../src/runtime/plan/launch.js';
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
    test('no calibration case, nor any case its refinement can build, is an op the accuracy benchmark evaluates', async () => {
        // An op as the model sees its shape: kind, input and output shapes, attributes.
        const keyOf = (kind: string, inputs: readonly (readonly number[])[], output: readonly number[], attrs: object) =>
            JSON.stringify([kind, inputs, output, Object.entries(attrs).filter(([k]) => k !== 'bias').sort(([a], [b]) => a.localeCompare(b))]);
        const evaluated = new Set<string>();
        for (const w of await evaluationSet(1000)) {
            for (const t of w.tenants) {
                const shape = (id: string) => t.graph.tensors[id]?.shape ?? [];
                for (const op of t.graph.ops) evaluated.add(keyOf(op.kind, op.inputs.map(shape), shape(op.output), op.attrs));
            }
        }
        const caseKey = (c: SyntheticCase) => keyOf(c.op.kind, c.inputShapes, c.outputShape, c.op.attrs);
        // The comparison finds an evaluated op when there is one (mobilenet_v2 at 96²'s last depthwise convolution).
        expect(evaluated.has(caseKey(depthwiseCase(960, 3, 1)))).toBe(true);
        const seen: string[] = [];
        for (const quick of [false, true]) {
            for (const ladder of calibrationCases(quick)) {
                const cases = [...ladder.cases];
                // Refinement builds half-way toward an anchor's nearest cases of its kind: every such pair, a superset.
                for (const c of ladder.cases) {
                    const k = c.kind!;
                    for (const o of ladder.cases) {
                        if (o !== c && o.kind?.name === k.name && k.fixed.every(i => o.kind!.params[i] === k.params[i])) cases.push(k.build(between(k, k.params, o.kind!.params)));
                    }
                }
                seen.push(...cases.filter(c => evaluated.has(caseKey(c))).map(c => `${ladder.family}: ${c.shape}`));
            }
        }
        expect(seen).toEqual([]);
    }, 60_000);
    test('the main GEMM families are timed both with vec4 loads and with operands loaded a float at a time (the model tells them apart)', () => {
        const loads = new Map<string, Set<boolean>>();
        for (const ladder of calibrationCases(false)) {
            for (const c of ladder.cases) {
                for (const l of kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], variant: c.variant, caps }).launches) {
                    const n = scalarLoadsOf(l);
                    if (n !== undefined) (loads.get(familyOf(l.name)) ?? loads.set(familyOf(l.name), new Set()).get(familyOf(l.name))!).add(n > 0);
                }
            }
        }
        for (const family of ['gemm.sgrow', 'gemm.vec4']) expect([...loads.get(family) ?? []].sort(), family).toEqual([false, true]);
    });
    test('the layer-norm ladder spreads its rows (a workgroup each) from a few to about a hundred', () => {
        const rows = calibrationCases(false).flatMap(l => l.cases).filter(c => c.op.kind === 'layer_norm')
            .map(c => kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps }).launches[0])
            .map(l => l.dispatch[0] * l.dispatch[1] * l.dispatch[2]);
        const within = [...new Set(rows.filter(w => w >= 5 && w <= 100))];
        expect(within.length, rows.join(', ')).toBeGreaterThanOrEqual(7);
        expect(Math.min(...within)).toBeLessThanOrEqual(8);
    });
    test('the global pool ladders reach down to a few planes (a small CNN\'s final pool is tens of planes, below one wave of the wide shapes)', () => {
        const workgroupsOf = (family: string) => calibrationCases(false).find(l => l.family === family)!.cases
            .map(c => kernelsFor({ op: c.op, inputShapes: c.inputShapes, outputShape: c.outputShape, epilogue: [], caps }).launches[0])
            .map(l => l.dispatch[0] * l.dispatch[1] * l.dispatch[2]);
        // A workgroup per plane on large planes; one invocation per plane (64 to a workgroup) on the others.
        expect(Math.min(...workgroupsOf('reduction (pool)'))).toBeLessThanOrEqual(12);
        expect(Math.min(...workgroupsOf('reduction.pool.direct'))).toBe(1);
        expect(Math.max(...workgroupsOf('reduction.pool.direct'))).toBeGreaterThanOrEqual(20);
    });
});
