/** Parse recovery: a forgotten `}` is one `syntax` error where the brace belongs, and the rest of the file is read as written. */
import { describe, expect, test } from 'vitest';
import { check, errors, summary } from './helpers.js';

const models = `model m(batch = 1) {
  input x: f32[batch, 4]
  h = relu(dense(x, 8))
  output dense(h, 2)
}

model n(batch = 1) {
  input x: f32[batch, 4]
  output relu(x)
}
`;
const workload = `workload w {
  tenant a { model m() arrival poisson(rate: 10/s) slo p99 <= 20ms }
  benchmark { duration 1s seed 3 }
  tenant b { model n() }
  schedule concurrent
}
`;
const full = `${models}\n${workload}`;

/** The text without the first `}` after `marker`, and the offset of the end of the token before it (where the error belongs). */
function withoutBrace(text: string, marker: string): { text: string; at: number } {
    const brace = text.indexOf('}', text.indexOf(marker));
    return { text: text.slice(0, brace) + text.slice(brace + 1), at: text.slice(0, brace).trimEnd().length };
}

describe('a missing closing brace', () => {
    test('the complete file has no errors', async () => {
        expect(errors(await check(full)).map(d => d.message)).toEqual([]);
    });

    test.each([
        ['model m, followed by model n', 'h = relu', `missing '}' to close model m (its '{' is on line 1)`],
        ['model n, followed by the workload', 'output relu(x)', `missing '}' to close model n (its '{' is on line 7)`],
    ])('%s: one syntax error where the brace belongs', async (_name, marker, message) => {
        const broken = withoutBrace(full, marker);
        const doc = await check(broken.text);
        expect(summary(doc).filter(s => !/^(unused|keyword-name|shadowed-zoo-model|slo-|overloaded|schedule-hint)/.test(s))).toEqual([`syntax@: ${message}`]);
        const [error] = errors(doc);
        expect(doc.textDocument.offsetAt(error!.range.start)).toBe(broken.at);
    });

    test.each([
        ['tenant a, followed by the benchmark', 'slo p99', 'benchmark'],
        ['tenant b, followed by the schedule', 'model n()', 'schedule'],
    ])('%s: one syntax error, at the next member', async (_name, marker, next) => {
        const broken = withoutBrace(full, marker);
        const doc = await check(broken.text);
        expect(summary(doc).filter(s => !/^(unused|keyword-name|shadowed-zoo-model|slo-|overloaded|schedule-hint)/.test(s)))
            .toEqual([`syntax@${next}: Expecting token of type '}' but found \`${next}\`.`]);
    });

    test('the workload at the end of the file: one error, which says the file ended', async () => {
        const doc = await check(full.replace(/\}\n$/, ''));
        expect(errors(doc).map(d => `${d.code}: ${d.message}`)).toEqual([`syntax: Expecting token of type '}' but found the end of the file.`]);
    });

    test('the models of a file keep their meaning: model n is still a model, used by tenant b', async () => {
        const doc = await check(withoutBrace(full, 'h = relu').text);
        const root = doc.parseResult.value;
        expect(root.elements.map(e => `${e.$type} ${'name' in e ? e.name : ''}`)).toEqual(['Model m', 'Model n', 'Workload w']);
    });

    test('a tensor or parameter named model or workload is still a name', async () => {
        const doc = await check(`model blk(c) {\n  input x: f32[n, c]\n  output relu(x)\n}\nmodel m(batch = 1, model = 2) {\n  input x: f32[batch, 4]\n  workload = relu(x)\n  y = repeat model blk(workload, c: 4)\n  output y\n}\nmodel k(batch = 1) {\n  input x: f32[batch, 4]\n  model = relu(x)\n  output model\n}\n`);
        expect(errors(doc).map(d => d.message)).toEqual([]);
    });
});
