/** The fuzzer's answer checks find what they are meant to find (a check that cannot fail finds nothing). */
import { describe, expect, test } from 'vitest';
import {
    allRangeProblems, badWordProblems, completionProblems, foldingProblems, isErrorAsResult, lineLengths, semanticTokenProblems, symbolProblems,
} from './checks.js';

const lines = lineLengths('model m {\r\n  input x: f32[4]\r  output relu(x)\n}');
const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe('fuzz checks', () => {
    test('lines split as LSP splits them (\\n, \\r\\n, \\r)', () => {
        expect(lines).toEqual([9, 17, 16, 1]);
    });

    test('ranges: past a line, past the document, reversed; other files are not checked', () => {
        expect(allRangeProblems({ range: range(0, 0, 0, 9) }, 'file:///a', lines, 'x')).toEqual([]);
        expect(allRangeProblems({ range: range(0, 0, 0, 10) }, 'file:///a', lines, 'x')).toHaveLength(1);
        expect(allRangeProblems([{ range: range(4, 0, 4, 0) }], 'file:///a', lines, 'x')).toHaveLength(2);
        expect(allRangeProblems({ range: range(1, 2, 0, 0) }, 'file:///a', lines, 'x')).toEqual([expect.stringContaining('after end')]);
        expect(allRangeProblems({ uri: 'file:///b', range: range(40, 0, 40, 0) }, 'file:///a', lines, 'x')).toEqual([]);
        expect(allRangeProblems({ changes: { 'file:///b': [{ range: range(40, 0, 40, 0) }], 'file:///a': [{ range: range(40, 0, 40, 0) }] } }, 'file:///a', lines, 'x')).toHaveLength(2);
        expect(allRangeProblems({ position: { line: 0, character: 10 } }, 'file:///a', lines, 'x')).toHaveLength(2);
    });

    test('semantic tokens: overlapping, past the line, empty', () => {
        expect(semanticTokenProblems([0, 6, 1, 0, 0, 1, 2, 5, 0, 0], lines, 't')).toEqual([]);
        expect(semanticTokenProblems([0, 6, 2, 0, 0, 0, 1, 1, 0, 0], lines, 't')).toEqual([expect.stringContaining('overlaps')]);
        expect(semanticTokenProblems([0, 6, 9, 0, 0], lines, 't')).toEqual([expect.stringContaining('past its line')]);
        expect(semanticTokenProblems([0, 6, 0, 0, 0], lines, 't')).toEqual([expect.stringContaining('empty')]);
    });

    test('completion: an edit must contain the cursor, on one line', () => {
        const cursor = { line: 2, character: 9 };
        expect(completionProblems([{ label: 'relu', textEdit: { range: range(2, 9, 2, 13), newText: 'relu' } }], cursor, lines, 'c')).toEqual([]);
        expect(completionProblems({ items: [{ label: 'relu', textEdit: { range: range(2, 10, 2, 13), newText: 'relu' } }] }, cursor, lines, 'c')).toEqual([expect.stringContaining('does not contain the cursor')]);
        expect(completionProblems([{ label: 'x', textEdit: { insert: range(1, 0, 2, 9), replace: range(2, 9, 2, 9), newText: 'x' } }], cursor, lines, 'c')).toEqual([expect.stringContaining('spans lines')]);
    });

    test('folding ranges and symbols inside the document', () => {
        expect(foldingProblems([{ startLine: 0, endLine: 3 }], lines, 'f')).toEqual([]);
        expect(foldingProblems([{ startLine: 0, endLine: 4 }], lines, 'f')).toHaveLength(1);
        const symbol = { name: 'm', range: range(0, 0, 3, 1), selectionRange: range(0, 6, 0, 7), children: [{ name: 'x', range: range(1, 2, 1, 17), selectionRange: range(1, 8, 1, 9) }] };
        expect(symbolProblems([symbol], lines, 's')).toEqual([]);
        expect(symbolProblems([{ ...symbol, selectionRange: range(0, 0, 3, 2) }], lines, 's')).not.toEqual([]);
        expect(symbolProblems([{ ...symbol, name: '' }], lines, 's')).toEqual([expect.stringContaining('without a name')]);
    });

    test('undefined, NaN and Infinity in what a user reads, unless the document says them', () => {
        expect(badWordProblems({ message: "model 'undefined' is not used" }, 'model m {}', 'd')).toHaveLength(1);
        expect(badWordProblems({ contents: { value: '**Cost:** NaN FLOP' } }, 'model m {}', 'd')).toHaveLength(1);
        expect(badWordProblems({ label: ' Infinity GiB' }, 'model m {}', 'd')).toHaveLength(1);
        expect(badWordProblems({ message: "unknown name 'undefined'" }, 'model m { output undefined }', 'd')).toEqual([]);
        expect(badWordProblems({ range: 'undefined' }, 'model m {}', 'd')).toEqual([]);
    });

    test('an error object sent as a result', () => {
        expect(isErrorAsResult({ code: -32800 })).toBe(true);
        expect(isErrorAsResult({ code: -32800, message: 'The request has been cancelled.' })).toBe(true);
        expect(isErrorAsResult({ contents: { kind: 'markdown', value: 'x' } })).toBe(false);
        expect(isErrorAsResult(null)).toBe(false);
    });
});
