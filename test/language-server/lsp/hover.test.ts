import { EmptyFileSystem } from 'langium';
import { clearDocuments, parseHelper } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const parse = parseHelper(services);
afterEach(() => clearDocuments(services));

/** The hover's markdown at the `index`th `<|>` of `marked`. */
async function hoverAt(marked: string, index: number): Promise<string> {
    const parts = marked.split('<|>');
    const offset = parts.slice(0, index + 1).join('').length;
    const doc = await parse(parts.join(''));
    const hover = await services.lsp.HoverProvider!.getHoverContent(doc, {
        textDocument: { uri: doc.uri.toString() }, position: doc.textDocument.positionAt(offset),
    });
    return (hover?.contents as { value: string } | undefined)?.value ?? '';
}

const source = `/// A two-layer classifier.
/// Second line of docs.
model mlp_small(batch = 32, hidden = 512) {
  input x: f32[batch, 784]
  h = relu(d<|>ense(x, hid<|>den))
  output logits = dense(<|>h, 10)
}

// not docs: a blank line ends the block
///  unrelated

model u<|>ser(batch = 8) {
  input image: f32[bat<|>ch, 3, 8, 8]
  output <|>global_avg_pool(image)
}

/// The vision workload.
workload w {
  /// The camera feed.
  tenant vis<|>ion {
    model mlp_<|>small(batch: 8)
    arrival pois<|>son(rate: 20/s)
    slo p<|>99 <= 40ms
  }
  schedule lay<|>er_block(size: 4)
}
`;

const zoo = 'workload w { tenant t { model bert<|>_base(layers: 2) } }';

// Short hovers: the whole text.
describe('hover', () => {
    test.each([
        ['a parameter reference', source, 1, '```tenancy\n(parameter) hidden = 512\n```\n\nInteger parameter of `mlp_small`, default 512.'],
        ['a lone dim naming a parameter is the parameter', source, 4, '```tenancy\n(parameter) batch = 8\n```\n\nInteger parameter of `user`, default 8.'],
        ['a tensor: its inferred shape and the cost of the op producing it', source, 2,
            '```tenancy\n(tensor) h\n```\n\n**Shape:** `f32[batch, hidden]`\n\n**Cost:** batch*hidden FLOP · reads 4*batch*hidden B · writes 4*batch*hidden B · 0 params'],
        ['an arrival kind', source, 8, '```tenancy\npoisson(rate)\n```\n\nOpen-loop Poisson arrivals at a mean rate.\n- `rate` — mean arrival rate'],
        ['a percentile', source, 9, '```tenancy\np99\n```\n\n99th-percentile latency.'],
        ['a schedule policy', source, 10, '```tenancy\nlayer_block(size: auto)\n```\n\nBlocks of consecutive layers scheduled as units, VELTAIR-style.\n- `size` = `auto` — layers per block, or `auto`'],
        ["an unnamed output's call is the operator's hover", source, 5,
            '```tenancy\nglobal_avg_pool(x)\n```\n\nAverage over the spatial dims.\n\n**Output:** `[n, c, 1, 1]`\n\n- `x` — `[n, c, h, w]`\n\n**Inferred:** `f32[batch, 3, 1, 1]`\n\n**Cost:** 192*batch FLOP · reads 768*batch B · writes 12*batch B · 0 params'],
        ['a blank line ends a doc block; a model alone: totals at its defaults', source, 3,
            '```tenancy\nmodel user(batch = 8)\n```\n\n- input `image: f32[batch, 3, 8, 8]`\n- output\n\n**At the defaults:** 1.54 kFLOP · 0 params (0 B) · 1 ops\n\nin `f32[8, 3, 8, 8]` · out `f32[8, 3, 1, 1]`\n\n**Peak memory:** 6.09 KiB'],
    ])('%s', async (title, text, index, expected) => {
        const hover = await hoverAt(text, index);
        if (title !== 'a schedule policy') return expect(hover).toBe(expected);
        // A schedule's hover ends with the schedules compared (schedule-hints.test.ts checks that section; here it may still be computing).
        const [own, compared] = hover!.split('\n\n**Schedules compared');
        expect(own).toBe(expected);
        expect(compared).toBeDefined();
    });
});

// Longer hovers: one section (hover sections are separated by a blank line) per case.
describe('hover sections', () => {
    test.each([
        ['an operator call: its signature', source, 0, '```tenancy\ndense(x, units, bias: true)\n```'],
        ['an operator call: its doc', source, 0, 'Fully connected layer.'],
        ['an operator call: its shape rule', source, 0, '**Output:** `[..., units]`; weight `[k, units]`'],
        ['an operator call: the inferred output', source, 0, '**Inferred:** `f32[batch, hidden]`'],
        ['an operator call: its cost', source, 0, '**Cost:** 1569*batch*hidden FLOP · reads 3136*batch + 3140*hidden B · writes 4*batch*hidden B · 785*hidden params'],
        ['a model call: its header', source, 7, '```tenancy\nmodel mlp_small(batch = 32, hidden = 512)\n```'],
        ['a model call: its /// docs', source, 7, 'A two-layer classifier.\nSecond line of docs.'],
        ['a model call: its inputs and outputs', source, 7, '- input `x: f32[batch, 784]`\n- output `logits`'],
        // dense 784→512 and 512→10 at batch 8: 2·8·(784·512 + 512·10) + relu ≈ 6.51 MFLOP, 407 k params.
        ['a model call: totals as the tenant instantiates it', source, 7, '**As this tenant instantiates it:** 6.51 MFLOP · 407 k params (1.55 MiB) · 3 ops'],
        ['a model call: its instance shapes', source, 7, 'in `f32[8, 784]` · out `f32[8, 10]`'],
        ['a tenant: its header', source, 6, '```tenancy\ntenant vision\n```'],
        ['a tenant: its /// docs', source, 6, 'The camera feed.'],
        ['a tenant: its properties, defaults marked', source, 6, '- `model mlp_small(batch: 8)`\n- `arrival poisson(rate: 20/s)`\n- `slo p99 <= 40ms`\n- `priority normal` (default)'],
        ['a zoo model: its header', zoo, 0, '```tenancy\nmodel bert_base(batch = 1, seq = 128, layers = 12)\n```'],
        ['a zoo model: where it comes from', zoo, 0, '*From the built-in model zoo.*'],
        ['a zoo model: totals as the tenant instantiates it', zoo, 0, '**As this tenant instantiates it:** 3.74 GFLOP · 38 M params (145 MiB) · 22 ops'],
    ])('%s', async (_title, text, index, expected) => {
        expect((await hoverAt(text, index)).split('\n\n')).toContain(expected);
    });
});
