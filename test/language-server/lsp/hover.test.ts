import { EmptyFileSystem } from 'langium';
import { expectHover } from 'langium/test';
import { describe, test } from 'vitest';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const expectHoverAt = expectHover(services);
const hover = (args: Parameters<typeof expectHoverAt>[0]) => expectHoverAt({ ...args, disposeAfterCheck: true });

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

describe('hover', () => {
    test('on an operator call: signature, doc and shape rule', async () => {
        await hover({ text: source, index: 0, hover: /```tenancy\ndense\(x, units, bias: true\)\n```[\s\S]*Fully connected layer[\s\S]*\*\*Output:\*\* `\[\.\.\., units\]`/ });
    });
    test('on a parameter reference', async () => {
        await hover({ text: source, index: 1, hover: /\(parameter\) hidden = 512/ });
    });
    test('on a model call shows its /// docs and parameters', async () => {
        await hover({ text: source, index: 7, hover: /model mlp_small\(batch = 32, hidden = 512\)[\s\S]*A two-layer classifier\.\nSecond line of docs\.[\s\S]*input `x: f32\[batch, 784\]`/ });
    });
    test('a blank line ends a doc block', async () => {
        await hover({ text: source, index: 3, hover: /^```tenancy\nmodel user\(batch = 8\)\n```\n\n- input/ });
    });
    test('on a tenant: docs and properties with defaults', async () => {
        await hover({ text: source, index: 6, hover: /tenant vision[\s\S]*The camera feed\.[\s\S]*`arrival poisson\(rate: 20\/s\)`[\s\S]*`priority normal` \(default\)/ });
    });
    test('on closed words: arrival kind, percentile, policy', async () => {
        await hover({ text: source, index: 8, hover: /poisson\(rate\)[\s\S]*Poisson/ });
        await hover({ text: source, index: 9, hover: /99th-percentile/ });
        await hover({ text: source, index: 10, hover: /layer_block\(size: auto\)[\s\S]*VELTAIR/ });
    });
    test('a tensor: inferred shape and the cost of the op producing it', async () => {
        await hover({ text: source, index: 2, hover: /\(tensor\) h[\s\S]*\*\*Shape:\*\* `f32\[batch, hidden\]`[\s\S]*\*\*Cost:\*\* batch\*hidden FLOP · reads 4\*batch\*hidden B/ });
    });
    test('an operator call: the inferred output and cost next to the rule', async () => {
        await hover({ text: source, index: 0, hover: /\*\*Inferred:\*\* `f32\[batch, hidden\]`[\s\S]*\*\*Cost:\*\* 1569\*batch\*hidden FLOP[\s\S]*785\*hidden params/ });
    });
    test('a model: totals at its defaults; in a tenant, as the tenant instantiates it', async () => {
        // dense 784→512 and 512→10 at batch 32: 2·32·(784·512 + 512·10) + relu ≈ 26.1 MFLOP, 407 k params.
        await hover({ text: source, index: 3, hover: /\*\*At the defaults:\*\* [\d.]+ (k|M)FLOP/ });
        await hover({ text: source, index: 7, hover: /\*\*As this tenant instantiates it:\*\* [\d.]+ MFLOP · 407 k params[\s\S]*in `f32\[8, 784\]` · out `f32\[8, 10\]`/ });
    });
    test('a zoo model says where it comes from', async () => {
        await hover({ text: 'workload w { tenant t { model bert<|>_base(layers: 2) } }', index: 0, hover: /model bert_base\(batch = 1, seq = 128, layers = 12\)[\s\S]*From the built-in model zoo[\s\S]*As this tenant instantiates it/ });
    });
    test("an unnamed output's call is the operator's hover", async () => {
        await hover({ text: source, index: 5, hover: /^```tenancy\nglobal_avg_pool\(x\)/ });
    });
    test('a lone dim naming a parameter is the parameter', async () => {
        await hover({ text: source, index: 4, hover: /^```tenancy\n\(parameter\) batch = 8\n```/ });
    });
});
