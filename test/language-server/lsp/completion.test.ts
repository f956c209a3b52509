import { EmptyFileSystem } from 'langium';
import { expectCompletion } from 'langium/test';
import { describe, expect, test } from 'vitest';
import type { CompletionItem } from 'vscode-languageserver';
import { benchmarkSettings } from '../../../src/language-server/analysis/workload.js';
import { ARRIVAL_KINDS, DEVICE_PREFERENCES, PRIORITIES, SCHEDULE_POLICIES, SLO_PERCENTILES } from '../../../src/runtime/ir/vocabulary.js';
import { workloadWords } from '../../../src/language-server/lsp/workload-words.js';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';

const services = createTenancyServices(EmptyFileSystem).Tenancy;
const completion = expectCompletion(services);

/** Runs completion at the `<|>` marker and hands the items to `check`. */
async function itemsAt(text: string, check: (items: CompletionItem[]) => void): Promise<void> {
    await completion({ text, index: 0, assert: list => check(list.items), disposeAfterCheck: true });
}
const labels = (items: CompletionItem[]) => items.map(i => i.label);

const header = `/// Doubles the width.
model widen(batch = 1, k = 2) {
  input x: f32[batch, 4]
  output dense(x, 8 * k)
}

model m(batch = 1) {
  input x: f32[batch, 4]
  h = relu(x)
`;

describe('completion', () => {
    test('operators come with signature snippets', async () => {
        await itemsAt(header + '  y = <|>\n}', items => {
            const conv = items.find(i => i.label === 'conv2d');
            expect(conv?.textEdit?.newText).toBe('conv2d(${1:x}, ${2:filters}, kernel: ${3:3})');
            expect(conv?.insertTextFormat).toBe(2);
            expect(conv?.detail).toBe('conv2d(x, filters, kernel, stride: 1, padding: 0, dilation: 1, groups: 1, bias: true)');
            expect(items.find(i => i.label === 'dense')?.textEdit?.newText).toBe('dense(${1:x}, ${2:units})');
        });
    });
    test('models with their docs, and tensors and params in scope', async () => {
        await itemsAt(header + '  y = <|>\n}', items => {
            const widen = items.find(i => i.label === 'widen');
            expect(widen?.detail).toBe('model widen(batch = 1, k = 2)');
            expect(widen?.documentation).toEqual({ kind: 'markdown', value: 'Doubles the width.' });
            expect(labels(items)).toEqual(expect.arrayContaining(['h', 'x', 'batch']));
            // The tensor being defined is not in scope yet.
            expect(items.filter(i => i.label === 'y')).toEqual([]);
        });
    });
    test('after a rebinding, one entry per name', async () => {
        await itemsAt(header + '  h = relu(h)\n  y = <|>\n}', items => {
            expect(labels(items).filter(l => l === 'h')).toEqual(['h']);
        });
    });
    test('a prefix filters operators', async () => {
        await itemsAt(header + '  y = re<|>\n}', items => {
            expect(items.filter(i => i.kind === 3 /* Function */).map(i => i.label)).toEqual(['relu', 'relu6', 'reshape']);
            expect(labels(items)).toEqual(expect.arrayContaining(['resnet18', 'resnet50']));
        });
    });
    test('an already typed ( is not doubled', async () => {
        await itemsAt(header + '  y = rel<|>(x)\n}', items => {
            expect(items.find(i => i.label === 'relu')?.textEdit?.newText).toBe('relu');
        });
    });
    test('named arguments of the called operator, minus those given by position or name', async () => {
        await itemsAt(header + '  y = conv2d(x, 3, kernel: 3, <|>)\n}', items => {
            const named = labels(items).filter(l => l.endsWith(':'));
            expect(named).toEqual(['stride:', 'padding:', 'dilation:', 'groups:', 'bias:']);
        });
    });
    test('named arguments of a called model are its parameters', async () => {
        await itemsAt(header + '  y = widen(h, <|>)\n}', items => {
            expect(labels(items).filter(l => l.endsWith(':'))).toEqual(['batch:', 'k:']);
        });
        await itemsAt(header + '  y = widen(h, k: 3, <|>)\n}', items => {
            expect(labels(items).filter(l => l.endsWith(':'))).toEqual(['batch:']);
        });
    });
    test('soft keywords are not proposed where a name is typed', async () => {
        await itemsAt(header + '  y = conv2d(x, <|>)\n}', items => {
            expect(labels(items)).not.toContain('workload');
            expect(labels(items)).not.toContain('tenant');
        });
    });
    test('statement keywords inside a model', async () => {
        await itemsAt(header + '  <|>\n}', items => expect(labels(items)).toEqual(['input', 'output']));
    });
});

describe('completion in workloads', () => {
    const wl = (body: string) => header + '}\nworkload w {\n' + body + '\n}';
    test('tenant property keywords', async () => {
        await itemsAt(wl('tenant t { <|> }'), items => expect(labels(items)).toEqual(['model', 'arrival', 'slo', 'priority']));
    });
    test('a tenant model line proposes models, not operators or tensors', async () => {
        await itemsAt(wl('tenant t { model <|> }'), items => {
            expect(labels(items).slice(0, 2)).toEqual(['widen', 'm']);
            expect(labels(items)).toEqual(expect.arrayContaining(['resnet50', 'bert_base', 'mlp']));
            expect(labels(items)).not.toContain('relu');
            expect(labels(items)).not.toContain('x');
        });
    });
    test('a user model hides the zoo model of its name', async () => {
        await itemsAt('model mlp(batch = 2) {\n  input x: f32[batch, 3]\n  output relu(x)\n}\nworkload w { tenant t { model <|> } }', items => {
            const mlps = items.filter(i => i.label === 'mlp');
            expect(mlps.map(i => i.detail)).toEqual(['model mlp(batch = 2)']);
        });
    });
    test("a tenant's model call: the model's parameters not given yet", async () => {
        await itemsAt(wl('tenant t { model widen(k: 2, <|>) }'), items => expect(labels(items)).toEqual(['batch:']));
        await itemsAt(wl('tenant t { model resnet50(<|>) }'), items => expect(labels(items)).toEqual(['batch:', 'res:']));
    });
    test('arrival kinds with snippets', async () => {
        await itemsAt(wl('tenant t { arrival <|> }'), items => {
            expect(labels(items)).toEqual(['poisson', 'closed', 'periodic']);
            expect(items[0]!.textEdit?.newText).toBe('poisson(rate: ${1:20/s})');
        });
    });
    test('arrival arguments', async () => {
        await itemsAt(wl('tenant t { arrival closed(<|>) }'), items => expect(labels(items)).toEqual(['clients:', 'think:']));
        await itemsAt(wl('tenant t { arrival closed(clients: 2, <|>) }'), items => expect(labels(items)).toEqual(['think:']));
    });
    test('percentiles, priorities, policies, device kinds, benchmark settings', async () => {
        await itemsAt(wl('tenant t { slo <|> }'), items => expect(labels(items)).toEqual(['mean', 'p50', 'p90', 'p95', 'p99', 'p999']));
        await itemsAt(wl('tenant t { priority <|> }'), items => expect(labels(items)).toEqual(['high', 'normal', 'low']));
        await itemsAt(wl('schedule <|>'), items => {
            expect(labels(items)).toEqual(['sequential', 'concurrent', 'layer_block', 'regulated', 'co_tuned', 'auto']);
            expect(items.find(i => i.label === 'regulated')?.textEdit?.newText).toBe('regulated(split: ${1:auto}, sync: ${2:auto})');
        });
        await itemsAt(wl('schedule layer_block(<|>)'), items => expect(labels(items)).toEqual(['size:']));
        await itemsAt(wl('device <|>'), items => expect(labels(items)).toEqual(['auto', 'high_performance', 'low_power', 'fallback']));
        await itemsAt(wl('device auto(<|>)'), items => expect(labels(items)).toEqual(['memory:']));
        await itemsAt(wl('benchmark { <|> }'), items => {
            expect(labels(items)).toEqual(['duration', 'warmup', 'rounds', 'budget', 'min_requests', 'requests', 'seed', 'repetitions']);
            expect(items[0]!.textEdit?.newText).toBe('duration ${1:5s}');
        });
    });
    test('the word lists are the validator\'s', () => {
        const words = (ctx: keyof typeof workloadWords) => workloadWords[ctx].map(w => w.word);
        expect(words('arrival')).toEqual([...ARRIVAL_KINDS]);
        expect(words('schedule')).toEqual([...SCHEDULE_POLICIES]);
        expect(words('percentile')).toEqual([...SLO_PERCENTILES]);
        expect(words('priority')).toEqual([...PRIORITIES]);
        expect(words('device')).toEqual([...DEVICE_PREFERENCES]);
        expect(words('benchmark')).toEqual([...benchmarkSettings]);
    });
    test('units after a number where a quantity is expected', async () => {
        await itemsAt(wl('tenant t { slo p99 <= 40<|> }'), items => {
            expect(labels(items)).toEqual(['40ms', '40s', '40us']);
            expect(items[0]!.textEdit).toEqual({ newText: '40ms', range: expect.objectContaining({}) });
        });
        await itemsAt(wl('tenant t { arrival poisson(rate: 20<|>) }'), items => expect(labels(items)).toEqual(['20/s']));
        await itemsAt(wl('device auto(memory: 2<|>)'), items => expect(labels(items)).toContain('2GiB'));
        await itemsAt(wl('benchmark { warmup 0.5<|> }'), items => expect(labels(items)).toContain('0.5s'));
    });
    test('no units after a number that is a plain integer', async () => {
        await itemsAt(wl('benchmark { seed 4<|> }'), items => expect(labels(items).filter(l => l.startsWith('4'))).toEqual([]));
    });
});
