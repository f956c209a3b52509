/**
 * A file's `sweep { … }` block: parsed at the top level, read into the matrix and Slurm settings
 * `tenancy sweep` uses, every bad value a diagnostic with its code on the value (unknown key, bad
 * time limit, bad gres, bad loads, a schedule the runtime does not run, a second block), and the
 * editor features over its words (completion, hover).
 */
import { EmptyFileSystem } from 'langium';
import { clearDocuments, expectCompletion } from 'langium/test';
import { afterEach, describe, expect, test } from 'vitest';
import type { CompletionItem } from 'vscode-languageserver';
import { readSweepBlock, sweepSettings } from '../../src/language-server/analysis/sweep.js';
import { isSweepDecl } from '../../src/language-server/generated/ast.js';
import { workloadWords } from '../../src/language-server/lsp/workload-words.js';
import { createTenancyServices } from '../../src/language-server/tenancy-module.js';
import { check, errors, rangeText, services, summary, withCode } from './helpers.js';

const workload = `workload w {
  tenant a { model mlp() arrival poisson(rate: 50/s) slo p99 <= 40ms }
  tenant b { model mlp(batch: 8) }
}
`;

/** The file's first sweep block as read. */
async function read(block: string) {
    const doc = await check(`${workload}\n${block}\n`);
    const decl = doc.parseResult.value.elements.find(isSweepDecl);
    if (!decl) throw new Error(`no sweep block parsed: ${summary(doc).join('; ')}`);
    return { doc, reading: readSweepBlock(decl) };
}

describe('the sweep block', () => {
    test('reads the matrix and the Slurm settings, with no diagnostic', async () => {
        const { doc, reading } = await read(`sweep {
  schedules sequential, layer_block(size: auto), regulated(split: 2)
  loads 0.5, 1, 1.5
  repeat 3
  partition gpu
  time "1:00:00"
  gres "gpu:2"
  sbatch "--account=lab", "--qos=high"
}`);
        expect(errors(doc).map(d => d.message)).toEqual([]);
        expect(reading.issues).toEqual([]);
        expect(reading.block).toEqual({
            schedules: [{ policy: 'sequential' }, { policy: 'layer_block', size: 'auto' }, { policy: 'regulated', split: 2, sync: 'auto' }],
            loads: [0.5, 1, 1.5], repeat: 3, partition: 'gpu', time: '1:00:00', gpus: 2, sbatch: ['--account=lab', '--qos=high'],
        });
    });

    test('takes a time limit as Slurm writes it, as whole minutes or as a time', async () => {
        expect((await read('sweep { time 45 }')).reading.block.time).toBe('45');
        expect((await read('sweep { time 1800s }')).reading.block.time).toBe('30');
        expect((await read('sweep { time 90.5s }')).reading.block.time).toBe('1:31');
        expect((await read('sweep { time "2-00:00" partition "a100,h100" gres "gpu:0" }')).reading.block).toEqual({ time: '2-00:00', partition: 'a100,h100', gpus: 0 });
    });

    test('names an unknown setting, a bad duration, a bad gres and bad loads, on the value', async () => {
        const { doc } = await read(`sweep {
  laods 1, 2
  time "an hour"
  gres "gpu"
  loads 0.5, 0, fast, 0.5
  repeat 1.5
  partition "gpu partition"
  sbatch "account=lab", "--array=0-3"
}`);
        const bad = withCode(doc, 'bad-argument').map(d => `${rangeText(doc, d)}: ${d.message}`);
        expect(bad).toEqual([
            "laods: unknown sweep setting 'laods'; expected schedules, loads, repeat, partition, time, gres, sbatch",
            `"an hour": sweep time takes a time limit: a string in Slurm's time format (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS), e.g. "1:00:00", whole minutes (30), or a time such as 1800s; found 'an hour'`,
            `"gpu": sweep gres takes gpu:N, the GPUs of each task (e.g. "gpu:1"; "gpu:0" asks for a whole node instead); found 'gpu'`,
            "0: sweep loads takes positive factors on every tenant's traffic, e.g. 0.5, 1, 1.5; found number 0",
            "fast: sweep loads takes positive factors on every tenant's traffic, e.g. 0.5, 1, 1.5; found word 'fast'",
            '0.5: load 0.5 is listed twice',
            '1.5: sweep repeat takes a positive integer (runs of every workload, schedule and load); found number 1.5',
            `"gpu partition": sweep partition takes a partition name (or a comma-separated list); found 'gpu partition'`,
            `"account=lab": sweep sbatch takes one sbatch option as written after #SBATCH, e.g. --account=lab; found 'account=lab'`,
            `"--array=0-3": sweep sbatch --array=0-3: the sweep sets --array itself (the array of its cells, the log files, the job's name)`,
        ]);
        expect(withCode(doc, 'bad-argument').every(d => d.severity === 1)).toBe(true);
    });

    test('a wrong kind of time, a typed gres, a setting twice, two values for one', async () => {
        const { doc } = await read(`sweep {
  time 20/s
  gres "gpu:a100:1"
  repeat 2, 3
  time "30"
}`);
        expect(withCode(doc, 'bad-argument').map(d => `${rangeText(doc, d)}: ${d.message}`)).toEqual([
            expect.stringMatching(/^20\/s: sweep time takes a time limit: .*; found rate 20\/s$/),
            `"gpu:a100:1": sweep gres takes gpu:N, the GPUs of each task (e.g. "gpu:1"; "gpu:0" asks for a whole node instead); found 'gpu:a100:1' — a GPU type goes in an sbatch line, e.g. "--constraint=a100"`,
            '3: sweep repeat takes one value; found 2',
            "time: sweep setting 'time' is given more than once; keep one",
        ]);
        expect(withCode((await read('sweep { time 0.5s }')).doc, 'bad-argument').map(d => d.message)).toEqual(['sweep time must be at least 1s (Slurm counts whole seconds); found 0.5s']);
    });

    test('schedules are read as a schedule line is: unknown ones and bad arguments are bad-argument, unrunnable ones unsupported', async () => {
        const { doc } = await read('sweep { schedules sequentail, layer_block(sise: 4), 3, co_tuned(variants: 2) }');
        expect(withCode(doc, 'bad-argument').map(d => `${rangeText(doc, d)}: ${d.message}`)).toEqual([
            "sequentail: unknown schedule 'sequentail'; expected sequential, concurrent, layer_block, regulated, co_tuned, auto",
            "sise: schedule layer_block has no argument 'sise'; expected size: a positive integer or auto",
            '3: sweep schedules takes schedules as in a schedule line, e.g. layer_block(size: 4); found number 3',
        ]);
        // `auto` and words inside arguments are words, not references to resolve.
        expect(withCode(doc, 'unresolved-reference')).toEqual([]);
        const runnable = await read('sweep { schedules auto, regulated(split: auto, sync: none) }');
        expect(errors(runnable.doc)).toEqual([]);
        expect(runnable.reading.block.schedules).toEqual([{ policy: 'auto' }, { policy: 'regulated', split: 'auto', sync: 'none' }]);
    });

    test('a file has one sweep block', async () => {
        const doc = await check(`${workload}\nsweep { repeat 2 }\nsweep { repeat 3 }\n`);
        expect(withCode(doc, 'bad-argument').map(d => `${rangeText(doc, d)}: ${d.message}`)).toEqual([
            'sweep { repeat 3 }: a file has one sweep block (tenancy sweep reads it), and this one has another on line 6; merge them',
        ]);
    });

    test('its words are the reader\'s', () => {
        expect(workloadWords.sweep.map(w => w.word)).toEqual([...sweepSettings]);
    });
});

describe('the sweep block in the editor', () => {
    const fresh = createTenancyServices(EmptyFileSystem).Tenancy;
    const completion = expectCompletion(fresh);
    afterEach(() => clearDocuments(services));
    const itemsAt = (text: string, assert: (items: CompletionItem[]) => void) => completion({ text, index: 0, assert: list => assert(list.items), disposeAfterCheck: true });

    test('completes its settings with example values, and schedules after `schedules`', async () => {
        await itemsAt(`${workload}\nsweep {\n  <|>\n}\n`, items => {
            expect(items.map(i => i.label)).toEqual([...sweepSettings]);
            expect(items.find(i => i.label === 'gres')?.textEdit?.newText).toBe('gres ${1:"gpu:1"}');
        });
        await itemsAt(`${workload}\nsweep {\n  schedules <|>\n}\n`, items => {
            expect(items.map(i => i.label)).toEqual(['sequential', 'concurrent', 'layer_block', 'regulated', 'co_tuned', 'auto']);
        });
    });

    test('after a comma in a list: the items the setting takes, without those listed (issue 19)', async () => {
        const schedules = ['sequential', 'concurrent', 'layer_block', 'regulated', 'co_tuned', 'auto'];
        const labels = (items: CompletionItem[]) => items.map(i => i.label);
        // As typed: right after the comma (VS Code's trigger character), after its space, and on the next line of the list.
        for (const list of ['schedules concurrent,<|>', 'schedules concurrent, <|>', 'schedules concurrent,\n    <|>']) {
            await itemsAt(`${workload}\nsweep {\n  ${list}\n}\n`, items => expect(labels(items), list).toEqual(schedules.filter(s => s !== 'concurrent')));
        }
        // Also before the block's end was typed, and further down a list that spans lines.
        await itemsAt(`${workload}\nsweep {\n  schedules concurrent, <|>`, items => expect(labels(items)).toEqual(schedules.filter(s => s !== 'concurrent')));
        await itemsAt(`${workload}\nsweep {\n  loads 1\n  schedules sequential,\n    layer_block(size: 2), <|>\n  repeat 2\n}\n`, items => {
            // A schedule with arguments may be listed again with others.
            expect(labels(items)).toEqual(schedules.filter(s => s !== 'sequential'));
            expect(items.find(i => i.label === 'regulated')?.textEdit?.newText).toBe('regulated(split: ${1:auto}, sync: ${2:auto})');
        });
        // A word being typed after the comma.
        await itemsAt(`${workload}\nsweep {\n  schedules concurrent, reg<|>\n}\n`, items => expect(labels(items)).toEqual(['regulated']));
        await itemsAt(`${workload}\nsweep {\n  loads 0.5, <|>\n}\n`, items => expect(labels(items)).toEqual(['1', '1.5', '2']));
        await itemsAt(`${workload}\nsweep {\n  loads 0.5,1,<|>\n}\n`, items => expect(labels(items)).toEqual(['1.5', '2']));
        await itemsAt(`${workload}\nsweep {\n  sbatch "--qos=high", <|>\n}\n`, items => {
            expect(labels(items)).toEqual(['"--account=…"', '"--constraint=…"', '"--mem=…"', '"--cpus-per-task=…"']);
            expect(items[0]?.textEdit?.newText).toBe('"--account=${1:lab}"');
        });
        // A setting that takes one value has no list.
        await itemsAt(`${workload}\nsweep {\n  repeat 3, <|>\n}\n`, items => expect(labels(items)).toEqual([]));
    });

    test('hovers a setting and a schedule with their docs', async () => {
        const text = `${workload}\nsweep {\n  gres "gpu:1"\n  schedules layer_block(size: 4)\n}\n`;
        const doc = await check(text);
        const hoverAt = async (needle: string) => {
            const hover = await services.lsp.HoverProvider!.getHoverContent(doc, { textDocument: { uri: doc.uri.toString() }, position: doc.textDocument.positionAt(text.indexOf(needle) + 1) });
            return (hover?.contents as { value: string } | undefined)?.value ?? '';
        };
        expect(await hoverAt('gres')).toContain('the GPUs of each task, `"gpu:N"`');
        expect(await hoverAt('layer_block')).toContain('Blocks of consecutive layers scheduled as units');
    });
});
