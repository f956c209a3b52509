/**
 * What the fuzzer feeds the server: seed documents (every example, every zoo model, every
 * .tenancy text written in a test), seeded mutations of them that look like typing and pasting
 * (deleted and duplicated spans, stray tokens, truncation, swapped lines, extreme numbers,
 * odd characters, CRLF), and generated pathological documents, one class each.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Random } from '../../src/runtime/plan/random.js';

export interface Seed { name: string; text: string }

/** Every `.tenancy` file under the folders, recursively. */
function tenancyFiles(root: string, folder: string): Seed[] {
    const out: Seed[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir).sort()) {
            const path = join(dir, entry);
            if (statSync(path).isDirectory()) walk(path);
            else if (entry.endsWith('.tenancy')) out.push({ name: relative(root, path), text: readFileSync(path, 'utf8') });
        }
    };
    walk(join(root, folder));
    return out;
}

/** Template literals in the tests that hold .tenancy text (a model or a workload, no interpolation). */
function testTexts(root: string): Seed[] {
    const out: Seed[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir).sort()) {
            const path = join(dir, entry);
            if (statSync(path).isDirectory()) { if (entry !== 'fuzz') walk(path); continue; }
            if (!entry.endsWith('.ts')) continue;
            const source = readFileSync(path, 'utf8');
            let n = 0;
            for (const m of source.matchAll(/`([^`$\\]*)`/g)) {
                const text = m[1]!;
                if (/\b(model|workload)\s+\w+/.test(text) && text.includes('{')) out.push({ name: `${relative(root, path)}#${n++}`, text });
            }
        }
    };
    walk(join(root, 'test/language-server'));
    return out;
}

/** The seed corpus: examples, the zoo and the tests' documents. */
export function loadSeeds(root: string): Seed[] {
    return [...tenancyFiles(root, 'examples'), ...tenancyFiles(root, 'src/language-server/zoo'), ...testTexts(root)];
}

/** Words and fragments a mutation inserts: the language's tokens, half statements, extremes. */
const fragments = [
    'model', 'input', 'output', 'repeat', 'workload', 'tenant', 'import', 'arrival', 'slo', 'priority', 'schedule', 'benchmark', 'device',
    'f32', 'f16', 'i32', 'true', 'false', 'auto', 'concurrent', 'layer_block', 'poisson', 'closed', 'periodic', 'p99', 'high',
    '{', '}', '(', ')', '[', ']', ',', ':', '=', '<=', '*', '/', '+', '-', '"', '///', '//', '/*', '*/', '\n', ' ',
    '0', '1', '-1', '3', '4294967296', '99999999999999999999', '1e308', '0.5', '1.5', '0ms', '1GiB', '99999999GiB', '0/s', '1e9/s', '12.s',
    'x', 'y', 'batch', 'n', 'h', 'w', 'relu', 'dense', 'conv2d', 'matmul', 'attention', 'lstm', 'reshape', 'concat', 'softmax', 'embedding',
    'resnet18', 'bert_base', 'mlp', 'dlrm', 'gpt2_small',
    'dense(', 'conv2d(x, ', 'repeat 2 ', 'repeat 1000000000 ', 'tenant t { model }', 'tenant t { model m( }', 'model m() {', 'input x: f32[',
    'import "./"', 'import "."', 'import ""', 'import "./notes.txt"', 'import "./folder.tenancy"', 'import "./lib.tenancy"', 'import "./missing.tenancy"',
    'import "/"', 'import "../../../../etc/passwd"', 'import "./lib.tenancy/x"', 'output = ', 'x = x', 'output x',
    '\t', '\u00a0', 'é', '\u200b', '😀', '\ud800', '\udfff', '\u0000', '\r', '\r\n',
];

/** One random edit of `text`. */
export function mutate(text: string, random: Random, seeds: readonly Seed[]): { text: string; how: string } {
    const at = () => random.int(text.length + 1);
    const kind = random.int(12);
    switch (kind) {
        case 0: { // delete a span (a deleted brace, a half-deleted line)
            const a = at(), b = Math.min(text.length, a + 1 + random.int(random.next() < 0.7 ? 8 : 200));
            return { text: text.slice(0, a) + text.slice(b), how: `delete ${a}..${b}` };
        }
        case 1: { // insert a fragment
            const a = at(), f = fragments[random.int(fragments.length)]!;
            return { text: text.slice(0, a) + f + text.slice(a), how: `insert ${JSON.stringify(f)} at ${a}` };
        }
        case 2: { // truncate (a file half typed)
            const a = at();
            return { text: text.slice(0, a), how: `truncate at ${a}` };
        }
        case 3: { // duplicate a span (paste)
            const a = at(), b = Math.min(text.length, a + random.int(400));
            return { text: text.slice(0, b) + text.slice(a, b) + text.slice(b), how: `duplicate ${a}..${b}` };
        }
        case 4: { // swap two lines
            const lines = text.split('\n');
            const i = random.int(lines.length), j = random.int(lines.length);
            [lines[i], lines[j]] = [lines[j]!, lines[i]!];
            return { text: lines.join('\n'), how: `swap lines ${i} ${j}` };
        }
        case 5: { // replace a number with an extreme one
            const numbers = [...text.matchAll(/\d+(\.\d+)?/g)];
            if (numbers.length === 0) return mutate(text, random, seeds);
            const m = numbers[random.int(numbers.length)]!;
            const extreme = ['0', '1', '999999999', '4294967297', '1000000000000', '99999999999999999999999', '0.0', '3.0000001'][random.int(8)]!;
            return { text: text.slice(0, m.index) + extreme + text.slice(m.index! + m[0].length), how: `number at ${m.index} → ${extreme}` };
        }
        case 6: { // delete one bracket
            const brackets = [...text.matchAll(/[{}()[\]]/g)];
            if (brackets.length === 0) return mutate(text, random, seeds);
            const m = brackets[random.int(brackets.length)]!;
            return { text: text.slice(0, m.index) + text.slice(m.index! + 1), how: `delete ${m[0]} at ${m.index}` };
        }
        case 7: { // splice in a piece of another seed
            const other = seeds[random.int(seeds.length)]!.text;
            const a = random.int(other.length + 1), b = Math.min(other.length, a + random.int(600));
            const c = at();
            return { text: text.slice(0, c) + other.slice(a, b) + text.slice(c), how: `splice ${b - a} characters at ${c}` };
        }
        case 8: // line endings: CRLF, a lone CR
            return random.next() < 0.5 ? { text: text.replace(/\r?\n/g, '\r\n'), how: 'CRLF' } : { text: text.replace(/\n/g, '\r'), how: 'CR only' };
        case 9: { // rename an identifier everywhere but one place (dangling references)
            const names = [...new Set(text.match(/\b[a-z_][a-z0-9_]*\b/g) ?? [])];
            if (names.length === 0) return mutate(text, random, seeds);
            const name = names[random.int(names.length)]!;
            let skipped = false;
            const replaced = text.replace(new RegExp(`\\b${name}\\b`, 'g'), m => (!skipped && random.next() < 0.3 ? (skipped = true, m) : `${m}_`));
            return { text: replaced, how: `rename ${name}` };
        }
        case 10: { // a long run of one fragment (a stuck key, a pasted blob)
            const a = at(), f = fragments[random.int(fragments.length)]!;
            return { text: text.slice(0, a) + f.repeat(1 + random.int(300)) + text.slice(a), how: `repeat ${JSON.stringify(f)} at ${a}` };
        }
        default: { // random characters, some outside ASCII and lone surrogates
            const a = at();
            let s = '';
            for (let i = 0, n = 1 + random.int(6); i < n; i++) s += String.fromCharCode(random.next() < 0.8 ? 32 + random.int(95) : random.int(0xffff));
            return { text: text.slice(0, a) + s + text.slice(a), how: `random characters at ${a}` };
        }
    }
}

/** A seed with 1–4 random edits. */
export function mutant(seeds: readonly Seed[], random: Random): { text: string; origin: string } {
    const seed = seeds[random.int(seeds.length)]!;
    let text = seed.text;
    const hows: string[] = [];
    for (let i = 0, n = 1 + random.int(4); i < n; i++) {
        const m = mutate(text, random, seeds);
        text = m.text;
        hows.push(m.how);
    }
    return { text, origin: `${seed.name}: ${hows.join('; ')}` };
}

/** A generated document of one pathological class. */
export interface Pathological { name: string; text: string; /** A class that tests the bounds on work by the text's size (deep nesting, huge counts, long chains). */ bounded: boolean }

const lines20k = 20_000;

/** One document per pathological class (sizes as the issue names them; `scale` < 1 shrinks them for the test suite). */
export function pathologicalDocuments(scale = 1): Pathological[] {
    const n = (full: number, min: number) => Math.max(min, Math.round(full * scale));
    const docs: Pathological[] = [];
    // 20,000 lines of ordinary models and one workload using them all: the largest document.
    {
        const models: string[] = [];
        const tenants: string[] = [];
        const target = n(lines20k, 400);
        let lines = 2 + Math.ceil(target / 7 / 50); // the workload's lines
        for (let i = 0; lines < target; i++, lines += 7) {
            models.push(`model m${i}(batch = 1) {\n  input x: f32[batch, 64]\n  h = relu(dense(x, 64))\n  h = layer_norm(h)\n  output y = dense(h, 10)\n}\n`);
            if (i % 50 === 0) tenants.push(`  tenant t${i} { model m${i}(batch: 2) arrival poisson(rate: 5/s) slo p99 <= 50ms }`);
        }
        docs.push({ name: 'large (20,000 lines)', text: `${models.join('\n')}\nworkload big {\n${tenants.join('\n')}\n}\n`, bounded: false });
    }
    // Many tenants in one workload.
    {
        const tenants = Array.from({ length: n(2000, 50) }, (_, i) => `  tenant t${i} { model mlp(batch: ${1 + (i % 8)}) arrival poisson(rate: 1/s) slo p99 <= 100ms }`);
        docs.push({ name: 'many tenants', text: `workload many {\n${tenants.join('\n')}\n  schedule auto\n}\n`, bounded: false });
    }
    // One 1 MB line of garbage, and one long line of valid calls.
    {
        let s = '';
        const junk = '{[(<*/+-,:="x 9 ';
        for (let i = 0; s.length < n(1_000_000, 20_000); i++) s += junk[(i * 7919) % junk.length];
        docs.push({ name: 'long garbage line (1 MB)', text: s, bounded: true });
        const calls = Array.from({ length: n(20_000, 500) }, () => 'relu(').join('') + 'x' + ')'.repeat(n(20_000, 500));
        docs.push({ name: 'long line of nested calls', text: `model m { input x: f32[4] output ${calls} }`, bounded: true });
    }
    // Deep nesting: parentheses, tuples, blocks.
    {
        const depth = n(5000, 200);
        docs.push({ name: 'deep parentheses', text: `model m { input x: f32[4] output ${'('.repeat(depth)}x${')'.repeat(depth)} }`, bounded: true });
        docs.push({ name: 'deep unclosed calls', text: `model m { input x: f32[4] output ${'relu('.repeat(n(60, 20))}x }`, bounded: true });
        docs.push({ name: 'deep braces', text: '{'.repeat(depth) + '}'.repeat(depth), bounded: true });
        docs.push({ name: 'deep dims', text: `model m { input x: f32[${'('.repeat(depth)}4${')'.repeat(depth)}] output x }`, bounded: true });
    }
    // Huge counts.
    {
        docs.push({ name: 'repeat 10^9', text: 'model blk(c) { input x: f32[n, c] output relu(dense(x, c)) }\nmodel m(batch = 1) { input x: f32[batch, 8] output repeat 1000000000 blk(x, c: 8) }\nworkload w { tenant t { model m() } }\n', bounded: true });
        docs.push({ name: 'nested repeats of 1,000', text: 'model blk(c) { input x: f32[n, c] output relu(x) }\nmodel inner(c) { input x: f32[n, c] output repeat 1000 blk(x, c: c) }\nmodel m(batch = 1) { input x: f32[batch, 8] output repeat 1000 inner(x, c: 8) }\nworkload w { tenant t { model m() } }\n', bounded: true });
        docs.push({ name: 'huge dims', text: 'model m(batch = 99999999999) { input x: f32[batch, 99999999999] output dense(x, 99999999999) }\nworkload w { tenant t { model m(batch: 4294967297) } device auto(memory: 99999999999GiB) }\n', bounded: false });
    }
    // Long chains of models calling models.
    {
        const chain = Array.from({ length: n(800, 40) }, (_, i) => `model c${i}(k) { input x: f32[n, k] output ${i === 0 ? 'relu(x)' : `c${i - 1}(x, k: k)`} }`);
        docs.push({ name: 'long call chain (800 models)', text: `${chain.join('\n')}\nworkload w { tenant t { model top() } }\nmodel top(batch = 1) { input x: f32[batch, 8] output c${chain.length - 1}(x, k: 8) }\n`, bounded: true });
    }
    // Text that is not clean UTF-8 or LF.
    {
        const valid = 'model m(batch = 1) {\n  input x: f32[batch, 4]\n  output relu(x)\n}\nworkload w { tenant t { model m() } }\n';
        docs.push({ name: 'CRLF', text: valid.replace(/\n/g, '\r\n'), bounded: false });
        // Bytes that are not UTF-8 read as a client would decode them (U+FFFD), plus lone surrogates and NULs.
        const invalid = Buffer.concat([Buffer.from('model m(batch = 1) {\n  input x: f32[batch, 4]\n  output '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]), Buffer.from(' relu(x)\n}\n')]).toString('utf8');
        docs.push({ name: 'invalid UTF-8', text: `${invalid}\ud800 \udc00 \u0000 model \ud83d(x) {}\n`, bounded: false });
    }
    // A half-typed file: every construct the issue lists, unfinished.
    docs.push({
        name: 'half-typed constructs', bounded: false, text: [
            'import "./"', 'import "./folder.tenancy"', 'import "./notes.txt"', 'import "./missing.tenancy"',
            'model a(', 'model b(batch = ) { input x: f32[ output }', 'model c { input x: f16[2, 3] output dense(x, 4) }', 'model d { input x: f32[2] }',
            'model e(batch = 1) { input x: f32[batch, 4] y = dense(x, ) output y = repeat blk(x) }',
            'workload w {', '  tenant t { model }', '  tenant u { model nope() }', '  tenant v { model e(batch: ) arrival poisson(rate: ) slo p99 <= }', '  tenant z { model d() slo p99 <= 0ms arrival poisson(rate: 0/s) }', '  schedule layer_block(size: )', '  benchmark { duration }',
        ].join('\n'),
    });
    return docs;
}
