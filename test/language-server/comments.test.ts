/**
 * Block comments: a closed one is hidden as usual; one left open runs to the end of the file
 * with one `syntax` error at its `/*`, matched once — so pasted text full of `/*` without a
 * `*\/` (the fuzzer's 1 MB garbage line) lexes in one pass instead of rescanning the rest of
 * the text at every `/*` (src/language-server/parser/lexer.ts).
 */
import { describe, expect, test } from 'vitest';
import { check, errors, services, summary } from './helpers.js';

describe('block comments', () => {
    test('a closed comment, with stars inside, hides only itself', async () => {
        const doc = await check('/* a ** b * / c **/ model m(batch = 1) { input x: f32[batch, 4] /* inner */ output relu(x) }\nworkload w { tenant t { model m() } }\n');
        expect(errors(doc), summary(doc).join('\n')).toEqual([]);
    });

    test('a comment left open: one syntax error at its start, the rest of the file commented out', async () => {
        const doc = await check('model m(batch = 1) { input x: f32[batch, 4] output relu(x) }\n/* unfinished\nworkload w { tenant t { model m() } }\n');
        expect(errors(doc).map(d => `${d.range.start.line}:${d.range.start.character} ${d.code} ${d.message}`)).toEqual([
            "1:0 syntax this comment is not closed: everything after '/*' is commented out; close it with '*/'",
        ]);
    });

    test('text full of /* without */ is one comment token from the first /*, whatever its length', () => {
        let text = '';
        const junk = '{[(<*/+-,:="x 9 '; // the fuzzer's garbage line: '/*' every 16 characters, never '*/'
        for (let i = 0; text.length < 200_000; i++) text += junk[(i * 7919) % junk.length];
        const lexed = services.parser.Lexer.tokenize(text);
        const comments = lexed.hidden.filter(t => t.tokenType.name === 'ML_COMMENT');
        expect(comments).toHaveLength(1);
        const start = comments[0]!.startOffset;
        expect(start).toBeLessThan(100); // the first '/*' outside a string
        expect(start + comments[0]!.image.length).toBe(text.length);
        expect(lexed.tokens.every(t => t.startOffset < start)).toBe(true);
    });
});
