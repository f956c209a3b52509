import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { operators } from '../../../src/language-server/analysis/operators.js';
import { workloadWords } from '../../../src/language-server/lsp/workload-words.js';

/**
 * The TextMate grammar checked without vscode-textmate (not installed): every regex must compile
 * as a JavaScript RegExp (so no Oniguruma-only syntax), and a small first-match scanner — what
 * TextMate does for single-line rules — tokenizes sample lines.
 */
interface Rule { name?: string; match?: string; begin?: string; end?: string; include?: string; patterns?: Rule[]; captures?: Record<string, { name: string }> }
const grammar = JSON.parse(readFileSync('syntaxes/tenancy.tmLanguage.json', 'utf8')) as { scopeName: string; patterns: Rule[]; repository: Record<string, Rule> };

function flatten(rules: Rule[]): Rule[] {
    return rules.flatMap(r => (r.include ? flatten(grammar.repository[r.include.slice(1)]!.patterns ?? []) : [r]));
}
const rules = flatten(grammar.patterns);

/** [text, scope] pairs of one line; captures split a match, unmatched text is skipped. */
function tokenize(line: string): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    let pos = 0;
    while (pos < line.length) {
        let best: { m: RegExpExecArray; rule: Rule } | undefined;
        for (const rule of rules) {
            const re = new RegExp(rule.match ?? rule.begin!, 'g');
            re.lastIndex = pos;
            const m = re.exec(line);
            if (m && m[0].length > 0 && (!best || m.index < best.m.index)) best = { m, rule };
        }
        if (!best) break;
        const { m, rule } = best;
        let end = m.index + m[0].length;
        if (rule.begin) {
            // Inside a begin/end rule: nested patterns (escapes) are consumed before `end` is looked for.
            for (;;) {
                const close = new RegExp(rule.end!, 'g');
                close.lastIndex = end;
                const e = close.exec(line);
                const inner = (rule.patterns ?? []).map(p => { const r = new RegExp(p.match!, 'g'); r.lastIndex = end; return r.exec(line); })
                    .filter((x): x is RegExpExecArray => x !== null && (!e || x.index < e.index))[0];
                if (inner) { end = inner.index + inner[0].length; continue; }
                end = e ? e.index + e[0].length : line.length;
                break;
            }
            out.push([line.slice(m.index, end), rule.name!]);
        } else if (rule.captures && !rule.name?.startsWith('comment')) {
            let at = m.index;
            for (let i = 1; i < m.length; i++) {
                if (m[i] === undefined) continue;
                const start = line.indexOf(m[i]!, at);
                out.push([m[i]!, rule.captures[String(i)]?.name ?? rule.name ?? '']);
                at = start + m[i]!.length;
            }
            if (rule.name) out.push([m[0], rule.name]);
        } else {
            out.push([m[0], rule.name!]);
        }
        pos = end;
    }
    return out;
}
const scopeOf = (line: string, text: string) => tokenize(line).filter(([t]) => t === text).map(([, s]) => s);

describe('TextMate grammar', () => {
    test('is source.tenancy, and every regex compiles as a JavaScript RegExp', () => {
        expect(grammar.scopeName).toBe('source.tenancy');
        const all: Rule[] = [...grammar.patterns, ...Object.values(grammar.repository).flatMap(r => r.patterns ?? [])];
        const nested = (r: Rule): Rule[] => [r, ...(r.patterns ?? []).flatMap(nested)];
        const sources = all.flatMap(nested).flatMap(r => [r.match, r.begin, r.end]).filter((s): s is string => s !== undefined);
        expect(sources.length).toBeGreaterThan(20);
        for (const source of sources) expect(() => new RegExp(source), source).not.toThrow();
    });
    test('quantities with units are one token; a spaced division is not', () => {
        expect(scopeOf('    slo p99 <= 40ms', '40ms')).toEqual(['constant.numeric.quantity.tenancy']);
        expect(scopeOf('    arrival poisson(rate: 20/s)', '20/s')).toEqual(['constant.numeric.quantity.tenancy']);
        expect(scopeOf('  device auto(memory: 2GiB)', '2GiB')).toEqual(['constant.numeric.quantity.tenancy']);
        expect(scopeOf('    warmup 0.5s', '0.5s')).toEqual(['constant.numeric.quantity.tenancy']);
        expect(tokenize('  input x: f32[64 / s, 3]').map(([t]) => t)).toEqual(expect.arrayContaining(['64', '/', '3']));
        expect(scopeOf('  y = f(x, 512KiBx)', '512KiB')).toEqual([]);
    });
    test('doc comments are distinct from line and block comments', () => {
        expect(scopeOf('/// Docs with `code`.', '/// Docs with `code`.')).toEqual(['comment.line.triple-slash.documentation.tenancy']);
        expect(scopeOf('  x = relu(x) // note', '// note')).toEqual(['comment.line.double-slash.tenancy']);
        expect(scopeOf('/* block */ model m', '/* block */')).toEqual(['comment.block.tenancy']);
        expect(scopeOf('  s = f("a \\" b")', '"a \\" b"')).toEqual(['string.quoted.double.tenancy']);
    });
    test('declarations, keywords, dtypes, operators and calls', () => {
        const line = 'model tiny_resnet(batch = 8) {';
        expect(scopeOf(line, 'model')).toEqual(['keyword.other.model.tenancy']);
        expect(scopeOf(line, 'tiny_resnet')).toEqual(['entity.name.type.model.tenancy']);
        expect(scopeOf('workload vision_and_nlp {', 'vision_and_nlp')).toEqual(['entity.name.namespace.workload.tenancy']);
        expect(scopeOf('  tenant vision {', 'vision')).toEqual(['entity.name.section.tenant.tenancy']);
        expect(scopeOf('  input image: f32[batch, 3, 64, 64]', 'f32')).toEqual(['support.type.dtype.tenancy']);
        const call = '  x = relu(conv2d(image, 32, kernel: 3)) + basic_block(x)';
        expect(scopeOf(call, 'relu')).toEqual(['support.function.operator.tenancy']);
        expect(scopeOf(call, 'conv2d')).toEqual(['support.function.operator.tenancy']);
        expect(scopeOf(call, 'basic_block')).toEqual(['entity.name.function.call.tenancy']);
        expect(scopeOf('  x = repeat 3 basic_block(x, channels: 32)', 'repeat')).toEqual(['keyword.control.repeat.tenancy']);
        expect(scopeOf('  output logits = dense(h, 10)', 'output')).toEqual(['keyword.other.tenancy']);
        // `output = …` binds a tensor named output: not the keyword.
        expect(scopeOf('  output = dense(h, 10)', 'output')).toEqual([]);
        expect(scopeOf('    slo p99 <= 40ms', '<=')).toEqual(['keyword.operator.comparison.tenancy']);
    });
    test('closed workload words after their keyword', () => {
        expect(scopeOf('    arrival poisson(rate: 20/s)', 'poisson')).toEqual(['support.constant.arrival.tenancy']);
        expect(scopeOf('    slo p99 <= 40ms', 'p99')).toEqual(['support.constant.percentile.tenancy']);
        expect(scopeOf('  schedule layer_block(size: 4)', 'layer_block')).toEqual(['support.constant.policy.tenancy']);
        expect(scopeOf('  device auto', 'auto')).toEqual(['support.constant.device.tenancy']);
        expect(scopeOf('    priority high', 'high')).toEqual(['support.constant.priority.tenancy']);
        expect(scopeOf('    duration 10s', 'duration')).toEqual(['keyword.other.benchmark-setting.tenancy']);
        expect(scopeOf('sweep {', 'sweep')).toEqual(['keyword.other.tenancy']);
        expect(scopeOf('  gres "gpu:1"', 'gres')).toEqual(['keyword.other.sweep-setting.tenancy']);
        expect(scopeOf('  loads 0.5, 1', 'loads')).toEqual(['keyword.other.sweep-setting.tenancy']);
        // A tensor named like a setting is not one.
        expect(scopeOf('  loads = relu(x)', 'loads')).toEqual([]);
    });
    test('lists every operator of the table and every workload word', () => {
        const text = readFileSync('syntaxes/tenancy.tmLanguage.json', 'utf8');
        for (const op of operators) expect(scopeOf(`  y = ${op.name}(x)`, op.name), op.name).toEqual(['support.function.operator.tenancy']);
        const keyword: Record<string, string> = { arrival: 'arrival', schedule: 'schedule', percentile: 'slo', priority: 'priority', device: 'device' };
        for (const [context, words] of Object.entries(workloadWords)) {
            for (const w of words) {
                // Benchmark and sweep settings start their line; the other words follow their keyword.
                const setting = context === 'benchmark' || context === 'sweep';
                const line = setting ? `    ${w.word} 1` : `  ${keyword[context]} ${w.word}`;
                expect(tokenize(line).some(([t, s]) => t === w.word && s.startsWith(setting ? 'keyword' : 'support.constant')), `${context} ${w.word}`).toBe(true);
            }
        }
        expect(text).not.toMatch(/\\\\[GAzZh]|\(\?<[a-z]|\\\\p\{|\(\?i\)/); // Oniguruma-only anchors/escapes
    });
});
