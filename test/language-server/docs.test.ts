/**
 * The language reference (docs/language.md) and the README against the implementation.
 *
 * - Every ```tenancy block is a file `tenancy check` accepts — no error diagnostics, and each of
 *   its workloads lowers to IR the runtime would run (valid, planned with its kernels) — unless its fence says what it shows:
 *   `error=a,b` (its errors carry exactly these codes, each at least once), `warning=…` or
 *   `hint=…` (these codes appear with that severity). `file=name.tenancy` writes the block under
 *   that name, so that other blocks can import it; each block is checked in a workspace of its
 *   own (its file, what it imports, the zoo), as `tenancy check <file>` does.
 * - The reference's tables of closed vocabularies list exactly the implementation's: operators
 *   (with their signatures), schedules (and which the runtime runs), arrival kinds, percentiles,
 *   priorities, devices, benchmark settings, zoo models and diagnostic codes.
 * - Every `docs/<page>.md#anchor` written in the sources, tests, scripts and docs names a heading
 *   of that page.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { formatDiagnostic, loadWorkspace, type CheckDiagnostic } from '../../src/cli/load-workspace.js';
import { formatSignature, operators } from '../../src/language-server/analysis/operators.js';
import { benchmarkSettings } from '../../src/language-server/analysis/workload.js';
import { IssueCodes } from '../../src/language-server/validation/issue-codes.js';
import { zooModelNames } from '../../src/language-server/workspace/zoo-library.js';
import {
    ARRIVAL_KINDS, DEVICE_PREFERENCES, PRIORITIES, SCHEDULE_POLICIES, SLO_PERCENTILES,
} from '../../src/runtime/ir/vocabulary.js';
import { RUNNABLE_SCHEDULES } from '../../src/runtime/schedule/policy.js';
import { runtimeRefusal } from '../fixtures/runtime-accepts.js';

const reference = 'docs/language.md';
const documents = [reference, 'README.md'];

/** One fenced ```tenancy block. */
interface Block {
    /** `docs/language.md:123` (the fence's line). */
    where: string;
    text: string;
    file?: string;
    expected: { error?: string[]; warning?: string[]; hint?: string[] };
}

/** The ```tenancy blocks of a markdown file, with what their fences say. */
function tenancyBlocks(path: string): Block[] {
    const lines = readFileSync(path, 'utf8').split('\n');
    const blocks: Block[] = [];
    for (let i = 0; i < lines.length; i++) {
        const fence = /^```tenancy(?:\s+(.*))?$/.exec(lines[i]!);
        if (!fence) continue;
        const start = i;
        const body: string[] = [];
        while (++i < lines.length && lines[i] !== '```') body.push(lines[i]!);
        if (i === lines.length) throw new Error(`${path}:${start + 1}: a tenancy block without its closing fence`);
        const block: Block = { where: `${path}:${start + 1}`, text: `${body.join('\n')}\n`, expected: {} };
        for (const attribute of (fence[1] ?? '').split(/\s+/).filter(Boolean)) {
            const [key, value] = attribute.split('=');
            if (key === 'file' && value) block.file = value;
            else if ((key === 'error' || key === 'warning' || key === 'hint') && value) block.expected[key] = value.split(',');
            else throw new Error(`${block.where}: unknown fence attribute '${attribute}'; expected file=, error=, warning= or hint=`);
        }
        blocks.push(block);
    }
    return blocks;
}

const blocks = documents.flatMap(tenancyBlocks);
const folder = mkdtempSync(join(tmpdir(), 'tenancy-docs-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const fileOf = (block: Block) => block.file ?? `${block.where.replace(/[^\w]+/g, '_')}.tenancy`;
// Every file first: a block may import a named one written further down.
for (const block of blocks) writeFileSync(join(folder, fileOf(block)), block.text);

describe('tenancy blocks of the docs', () => {
    test('there are blocks, and named files are unique', () => {
        expect(blocks.length).toBeGreaterThan(30);
        const named = blocks.flatMap(b => (b.file ? [b.file] : []));
        expect(new Set(named).size).toBe(named.length);
    });

    test.each(blocks.map(b => [b.where, b] as const))('%s', async (_, block) => {
        const file = join(folder, fileOf(block));
        const workspace = await loadWorkspace([file]);
        const own = workspace.diagnostics.filter(d => d.uri.endsWith(`/${fileOf(block)}`));
        const shown = own.map(formatDiagnostic).join('\n');
        const codes = (severity: CheckDiagnostic['severity']) => new Set(own.filter(d => d.severity === severity).map(d => d.code));
        const { error, warning, hint } = block.expected;
        if (error) {
            expect([...codes('error')].sort(), shown).toEqual([...new Set(error)].sort());
        } else {
            expect(own.filter(d => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
            for (const w of workspace.workloads(file)) {
                // Valid IR that the runtime would run (test/fixtures/runtime-accepts.ts): checker = runtime.
                expect(runtimeRefusal(workspace.lower(w.name, file)), `${block.where} ${w.name}`).toBeUndefined();
            }
        }
        for (const code of warning ?? []) expect(codes('warning'), shown).toContain(code);
        for (const code of hint ?? []) expect(codes('hint'), shown).toContain(code);
    });
});

/** The lines of the section that starts at a heading (up to the next heading of its level or above). */
function section(heading: string): string[] {
    const lines = readFileSync(reference, 'utf8').split('\n');
    const start = lines.indexOf(heading);
    if (start < 0) throw new Error(`${reference} has no heading '${heading}'`);
    const level = /^#+/.exec(heading)![0].length;
    const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
    return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The table rows (cells, trimmed) of a section's tables, header and separator rows left out. */
function tableRows(heading: string): string[][] {
    const rows: string[][] = [];
    let previous = '';
    for (const line of section(heading)) {
        const isRow = line.startsWith('|');
        // A row directly under the header's separator or under another body row is a body row.
        if (isRow && !/^\|[-:| ]+\|$/.test(line) && (/^\|[-:| ]+\|$/.test(previous) || (rows.length > 0 && previous.startsWith('|')))) {
            rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map(c => c.trim()));
        }
        previous = isRow ? line : '';
    }
    return rows;
}

/** The code span at the start of a cell: `` `conv2d(x, …)` `` → `conv2d(x, …)`. */
function code(cell: string): string {
    const m = /^`([^`]+)`/.exec(cell);
    if (!m) throw new Error(`expected a cell that starts with a code span, found '${cell}'`);
    return m[1]!;
}

/** The code spans that start the rows of a section's tables (rows of prose tables are left out). */
const firstColumn = (heading: string) => tableRows(heading).filter(r => r[0]!.startsWith('`')).map(r => code(r[0]!));

describe(`${reference} lists what the implementation has`, () => {
    test('the operators, each with its signature', () => {
        expect(firstColumn('## Operators').filter(s => s.includes('('))).toEqual(operators.map(formatSignature));
    });

    test('the schedules, and which of them the runtime runs (RUNNABLE_SCHEDULES)', () => {
        const rows = tableRows('### Schedules');
        expect(rows.map(r => code(r[0]!)).sort()).toEqual([...SCHEDULE_POLICIES].sort());
        const runs = rows.filter(r => r[2] === 'yes').map(r => code(r[0]!));
        expect(runs.sort()).toEqual([...RUNNABLE_SCHEDULES].sort());
        for (const row of rows.filter(r => r[2] !== 'yes')) expect(row[2]).toMatch(/^no: `tenancy run` refuses it/);
    });

    test('arrival kinds, percentiles, priorities, devices and benchmark settings', () => {
        expect(firstColumn('### Arrivals')).toEqual([...ARRIVAL_KINDS]);
        expect(firstColumn('### SLOs')).toEqual([...SLO_PERCENTILES]);
        expect(firstColumn('### Device')).toEqual([...DEVICE_PREFERENCES]);
        expect(firstColumn('### Benchmark')).toEqual([...benchmarkSettings]);
        const priority = section('### Priority').join('\n');
        expect(/`priority ([\w |]+)`/.exec(priority)?.[1]!.split(' | ')).toEqual([...PRIORITIES]);
    });

    test('the zoo models and blocks', () => {
        expect(firstColumn('## The model zoo').sort()).toEqual(zooModelNames().sort());
    });

    test('every diagnostic code, once', () => {
        const listed = firstColumn('## Diagnostics');
        expect(new Set(listed).size).toBe(listed.length);
        expect(listed.sort()).toEqual(Object.values(IssueCodes).sort());
    });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
    return heading.replace(/^#+\s*/, '').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Files under `dir` (recursively) whose names end in one of `extensions`. */
function filesUnder(dir: string, extensions: string[]): string[] {
    return readdirSync(dir).flatMap(name => {
        const path = join(dir, name);
        if (name === 'node_modules' || name.startsWith('.')) return [];
        if (statSync(path).isDirectory()) return filesUnder(path, extensions);
        return extensions.some(e => name.endsWith(e)) ? [path] : [];
    });
}

describe('links to sections of the docs', () => {
    test('every docs/<page>.md#anchor (and <page>.md#anchor within docs/) names a heading of that page', () => {
        const sources = ['README.md', ...['src', 'test', 'bench', 'scripts', 'docs'].flatMap(d => filesUnder(d, ['.ts', '.mjs', '.md', '.langium', '.tenancy', '.sh']))];
        const anchors = new Map<string, Set<string>>();
        const anchorsOf = (page: string) => {
            let set = anchors.get(page);
            if (!set) {
                const headings = readFileSync(page, 'utf8').split('\n').filter(l => /^#+ /.test(l));
                anchors.set(page, set = new Set(headings.map(anchor)));
            }
            return set;
        };
        const broken: string[] = [];
        let links = 0;
        for (const file of sources) {
            const text = readFileSync(file, 'utf8');
            const pattern = file.startsWith('docs/') ? /(?:docs\/)?(\w[\w-]*\.md)#([\w-]+)/g : /docs\/(\w[\w-]*\.md)#([\w-]+)/g;
            for (const m of text.matchAll(pattern)) {
                const page = join('docs', m[1]!);
                links++;
                let known: Set<string>;
                try {
                    known = anchorsOf(page);
                } catch {
                    broken.push(`${file}: ${m[0]} (no page ${page})`);
                    continue;
                }
                if (!known.has(m[2]!)) broken.push(`${file}: ${m[0]}`);
            }
        }
        expect(links).toBeGreaterThan(10);
        expect(broken).toEqual([]);
    });
});
