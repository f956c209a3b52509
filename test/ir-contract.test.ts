import { describe, expect, test } from 'vitest';
import { loadWorkloadIr } from '../src/cli/load-workspace.js';
import { DEFAULT_CAPS, kernelsFor } from '../src/runtime/kernels/index.js';
import { parseWorkloadIr } from '../src/runtime/ir/validate.js';

// The IR is the contract between the language server (lowering) and the runtime (kernels):
// every zoo model, lowered, must be accepted by the runtime's validator and served by the kernel
// generators with the weights the IR lists (names and layouts), without a GPU.
describe('IR contract: lowered zoo models meet the kernels', () => {
    test('every op of every zoo model has kernels that bind the IR weights as listed', async () => {
        const ir = parseWorkloadIr(JSON.parse(JSON.stringify(await loadWorkloadIr('bench/interference/zoo-models.tenancy'))));
        expect(ir.tenants.map(t => t.graph.model).sort()).toEqual(
            ['bert_base', 'dlrm', 'gpt2_small', 'lstm_lm', 'mlp', 'mobilenet_v2', 'resnet18', 'resnet50', 'vgg16']);
        const problems: string[] = [];
        for (const tenant of ir.tenants) {
            const shape = (id: string) => tenant.graph.tensors[id].shape;
            for (const op of tenant.graph.ops) {
                try {
                    const k = kernelsFor({ op, inputShapes: op.inputs.map(shape), outputShape: shape(op.output), epilogue: [], caps: { ...DEFAULT_CAPS, maxStorageBufferBindingSize: 1 << 30, maxBufferSize: 1 << 30 } });
                    const bound = new Map(k.buffers.filter(b => b.kind === 'weight').map(b => [b.role, b.shape]));
                    for (const w of op.weights) {
                        if (!bound.has(w.name)) problems.push(`${op.path}: IR weight ${w.name} is not bound by the kernels`);
                        else expect(bound.get(w.name), `${op.path} ${w.name}`).toEqual(w.shape);
                    }
                } catch (error) {
                    problems.push(`${op.path}: ${error instanceof Error ? error.message : String(error)}`);
                }
            }
        }
        expect(problems).toEqual([]);
    });
});
