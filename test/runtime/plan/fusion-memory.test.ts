import { describe, expect, it } from 'vitest';
import { fuseGraph } from '../../../src/runtime/plan/fusion.js';
import { MemoryLimitError, checkBufferFits, planMemory } from '../../../src/runtime/plan/memory.js';
import { cnnTenant, mlpTenant, transformerTenant } from '../../fixtures/ir/builders.js';

describe('fusion', () => {
    it('folds batch_norm into the conv and fuses relu and the residual add', () => {
        const graph = cnnTenant('v').graph;
        const fused = fuseGraph(graph);
        const byPath = new Map(fused.map(f => [f.op.path.split('/').slice(2).join('/'), f]));
        expect([...byPath.keys()]).toEqual(['stem/conv', 'block.0/conv1', 'block.0/conv2', 'pool', 'flatten', 'head']);
        const stem = byPath.get('stem/conv')!;
        expect(stem.epilogue).toEqual([{ kind: 'scale_shift', scale: 'bn0.scale', shift: 'bn0.shift' }, { kind: 'activation', fn: 'relu' }]);
        expect(stem.foldedNorms.map(n => n.norm.kind)).toEqual(['batch_norm']);
        const conv2 = byPath.get('block.0/conv2')!;
        expect(conv2.epilogue.map(e => e.kind)).toEqual(['scale_shift', 'add', 'activation']);
        expect(conv2.epilogueInputs).toEqual([{ role: 'residual0', tensor: stem.output }]);
        expect(conv2.output).toBe(graph.outputs.length ? graph.ops.find(o => o.path.endsWith('block.0/relu2'))!.output : '');
    });

    it('does not fuse into a producer whose output has another consumer or is a graph output', () => {
        const graph = transformerTenant('t').graph;
        const fused = fuseGraph(graph);
        // fc1 → gelu fuses; fc2 → add2 fuses (x1 was produced earlier); ln/attention stay separate.
        const names = fused.map(f => f.op.path.split('/').slice(2).join('/'));
        expect(names).toEqual(['ln1', 'attn', 'add1', 'ln2', 'mlp/fc1', 'mlp/fc2']);
        expect(fused.find(f => f.op.path.endsWith('mlp/fc1'))!.epilogue).toEqual([{ kind: 'activation', fn: 'gelu' }]);
        const mlp = mlpTenant('m').graph;
        mlp.outputs.push(mlp.ops[0].output); // fc1's output is now also a graph output
        expect(fuseGraph(mlp).map(f => f.op.kind)).toEqual(['dense', 'relu', 'dense']);
    });

    it('can be turned off', () => {
        const graph = cnnTenant('v').graph;
        expect(fuseGraph(graph, { enabled: false })).toHaveLength(graph.ops.length);
    });
});

describe('memory planning', () => {
    const chain = (n: number, bytes = 1000) => ({
        tensorBytes: new Map(Array.from({ length: n + 1 }, (_, i) => [`t${i}`, bytes])),
        steps: Array.from({ length: n }, (_, i) => ({ path: `op${i}`, reads: [`t${i}`], writes: `t${i + 1}` })),
        inputs: ['t0'],
        outputs: [`t${n}`],
    });

    it('reuses buffers along a chain: input + two ping-pong buffers', () => {
        const plan = planMemory(chain(10));
        expect(plan.slots).toHaveLength(3);
        expect(plan.totalBytes).toBe(3 * 1008);
        expect(plan.unplannedBytes).toBe(11 * 1008);
        // No step writes a buffer it reads.
        for (let i = 0; i < 10; i++) expect(plan.tensorSlot.get(`t${i + 1}`)).not.toBe(plan.tensorSlot.get(`t${i}`));
        // The graph input is never overwritten.
        const inputSlot = plan.tensorSlot.get('t0');
        for (let i = 1; i <= 10; i++) expect(plan.tensorSlot.get(`t${i}`)).not.toBe(inputSlot);
    });

    it('keeps a tensor alive until its last reader (residual) and follows aliases', () => {
        const plan = planMemory({
            tensorBytes: new Map([['x', 64], ['a', 64], ['b', 64], ['c', 64], ['r', 64], ['o', 64]]),
            steps: [
                { path: 'p0', reads: ['x'], writes: 'a' },
                { path: 'p1', reads: ['a'], writes: 'b' },
                { path: 'p2', reads: ['b'], writes: 'c' },
                { path: 'p3', reads: ['c'], writes: 'r', aliasesInput: true },
                { path: 'p4', reads: ['r', 'a'], writes: 'o' },
            ],
            inputs: ['x'],
            outputs: ['o'],
        });
        const s = plan.tensorSlot;
        expect(s.get('r')).toBe(s.get('c'));
        expect(new Set([s.get('x'), s.get('a'), s.get('c'), s.get('o')]).size).toBe(4); // all live at p4
        expect(s.get('c')).not.toBe(s.get('b')); // b is read while c is written
        expect(plan.slots).toHaveLength(4); // x, a, b, c(=r); o reuses b's slot
        expect(s.get('o')).toBe(s.get('b'));
    });

    it('rejects a buffer over the binding limit with sizes and the op path', () => {
        const limits = { maxStorageBufferBindingSize: 128 << 20, maxBufferSize: 256 << 20 };
        expect(() => checkBufferFits('output tensor t3 [64, 1024, 1024] f32', 256 << 20, limits, 'big', 'big/m/fc1'))
            .toThrow("tenant big, op big/m/fc1: output tensor t3 [64, 1024, 1024] f32 needs 256 MiB (268435456 bytes), more than the device's maxStorageBufferBindingSize of 128 MiB (134217728 bytes); reduce the batch or sequence size, or split the tensor");
        expect(() => checkBufferFits('x', 128 << 20, limits, 'big')).not.toThrow();
        expect(() => checkBufferFits('x', 1 + (128 << 20), limits, 'big')).toThrow(MemoryLimitError);
    });
});
