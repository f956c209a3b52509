/** Who slows whom, from kernel runs (report/attribution.ts). Pure, synthetic timelines. */
import { describe, expect, it } from 'vitest';
import { attribute, describeAttribution, type OpRun } from '../../../src/runtime/report/attribution.js';

const tenants = [
    { name: 'vision', ops: ['vision/cnn/conv', 'vision/cnn/fc'], soloP50Ms: [2, 1] },
    { name: 'nlp', ops: ['nlp/bert/attention'], soloP50Ms: [10] },
];

describe('attribution', () => {
    it('names what an op overlapped, for what share of its time, and its time then against alone', () => {
        const runs: OpRun[] = [
            // vision/conv: two runs alone (2 ms), two under nlp/attention (4 ms each, fully covered).
            { tenant: 0, op: 0, startMs: 0, endMs: 2 }, { tenant: 0, op: 0, startMs: 3, endMs: 5 },
            { tenant: 0, op: 0, startMs: 10, endMs: 14 }, { tenant: 0, op: 0, startMs: 15, endMs: 19 },
            { tenant: 1, op: 0, startMs: 9, endMs: 20 },
            // vision/fc alone.
            { tenant: 0, op: 1, startMs: 30, endMs: 31 },
        ];
        const { ops, interference } = attribute([runs], tenants);
        const conv = ops[0][0]!;
        expect(conv.overlappedFraction).toBeCloseTo(8 / 12);
        expect(conv.overlappedP50Ms).toBe(4);
        expect(conv.aloneP50Ms).toBe(2);
        expect(conv.by).toEqual([{ tenant: 'nlp', op: 'nlp/bert/attention', fraction: 8 / 12, p50Ms: 4 }]);
        expect(describeAttribution(conv, 2)).toBe('2.00× while nlp/bert/attention ran (67% of its time), 1.00× otherwise');
        expect(ops[0][1]).toMatchObject({ overlappedFraction: 0, by: [] });
        expect(describeAttribution(ops[0][1], 1)).toBeUndefined();
        // The heatmap: nlp covered 8 of vision's 13 ms, and vision's kernels took 2× their solo time then.
        expect(interference[0]).toEqual([{ aggressor: 'nlp', overlappedFraction: 8 / 13, slowdown: 2 }]);
        // nlp's 11 ms run: vision ran during 8 ms of it (more than half: an overlapped run), 1.1× its solo 10 ms.
        expect(interference[1]).toEqual([{ aggressor: 'vision', overlappedFraction: 8 / 11, slowdown: expect.closeTo(1.1, 9) }]);
        expect(ops[1][0]!.overlappedFraction).toBeCloseTo(8 / 11);
    });

    it('keeps rounds apart (each on its own clock) and counts a run covered by two co-runners once', () => {
        const three = [...tenants, { name: 'rec', ops: ['rec/mlp/fc'], soloP50Ms: [1] }];
        const round1: OpRun[] = [{ tenant: 0, op: 0, startMs: 0, endMs: 10 }, { tenant: 1, op: 0, startMs: 0, endMs: 6 }, { tenant: 2, op: 0, startMs: 4, endMs: 10 }];
        const round2: OpRun[] = [{ tenant: 0, op: 0, startMs: 0, endMs: 10 }, { tenant: 1, op: 0, startMs: 100, endMs: 110 }];
        const { ops } = attribute([round1, undefined, round2], three);
        expect(ops[0][0]!.overlappedFraction).toBeCloseTo(10 / 20);
        expect(ops[0][0]!.by.map(b => [b.tenant, b.fraction])).toEqual([['nlp', 6 / 20], ['rec', 6 / 20]]);
    });
});
