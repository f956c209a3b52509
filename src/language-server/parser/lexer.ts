/**
 * Numbers too large to represent (hundreds of digits: a stuck key, a paste) are dropped with a
 * `syntax` error, so no value downstream is `Infinity`.
 *
 * A model's forgotten `}`. Soft keywords are names to the parser, so when a model body is left
 * open, the next `model n(…) {` (or `workload w {`) reads as a statement named `model` and every
 * model and workload after it as the body: a dozen errors far from the mistake. A header can
 * never be a statement (a tensor named `model` is bound with `model = …`), so the lexer, seeing
 * a header where a model body is still open, puts a zero-width `}` before it and reports the
 * missing brace there: one `syntax` error where the brace belongs, and the rest of the file
 * parses as written.
 */
import { DefaultLexer, type LexerResult, type TokenizeOptions } from 'langium';

type Token = LexerResult['tokens'][number];

/** Tokens after which `model` is a name, not a header (`repeat model blk(x)`, `f(model, …)`). */
const beforeName = new Set(['repeat', '=', '(', ',', ':', '[', '*', '/', '+', '-', '<=']);
const numberTokens = new Set(['INT', 'DECIMAL', 'QUANTITY']);
const isName = (t: Token | undefined) => t !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.image);

export class TenancyLexer extends DefaultLexer {
    override tokenize(text: string, options?: TokenizeOptions): LexerResult {
        const result = super.tokenize(text, options);
        const tokens = result.tokens;
        for (let i = tokens.length - 1; i >= 0; i--) {
            const t = tokens[i]!;
            if (!numberTokens.has(t.tokenType.name) || Number.isFinite(Number.parseFloat(t.image))) continue;
            tokens.splice(i, 1);
            (result.report ??= { diagnostics: [] }).diagnostics.push({
                severity: 'error', offset: t.startOffset, length: t.image.length, line: t.startLine, column: t.startColumn,
                message: `this number (${t.image.length} characters) is too large to represent: numbers must be below 1.8e308`,
            });
        }
        const close = this.definition['}'];
        if (!close) return result;
        let depth = 0;
        let header: { name: string; line: number } | undefined; // the model whose header was read at depth 0
        let openModel: { name: string; line: number } | undefined; // the model whose body is open
        for (let i = 0; i < tokens.length; i++) {
            const t = tokens[i]!;
            const kind = t.tokenType.name;
            if (kind === '{') {
                depth++;
                if (depth === 1) openModel = header && { name: header.name, line: t.startLine ?? 1 };
                header = undefined;
            } else if (kind === '}') {
                depth = Math.max(0, depth - 1);
                if (depth === 0) openModel = undefined;
            } else if (kind === 'model' || kind === 'workload') {
                const isHeader = isName(tokens[i + 1]) && ['(', '{'].includes(tokens[i + 2]?.tokenType.name ?? '');
                if (depth === 1 && openModel && isHeader && !beforeName.has(tokens[i - 1]?.image ?? '')) {
                    const previous = tokens[i - 1]!;
                    tokens.splice(i, 0, missingBrace(close, previous));
                    (result.report ??= { diagnostics: [] }).diagnostics.push({
                        severity: 'error', offset: previous.endOffset! + 1, length: 0,
                        line: previous.endLine, column: (previous.endColumn ?? 0) + 1,
                        message: `missing '}' to close model ${openModel.name} (its '{' is on line ${openModel.line})`,
                    });
                    depth = 0;
                    openModel = undefined;
                    i++;
                }
                if (depth === 0) header = kind === 'model' && isName(tokens[i + 1]) ? { name: tokens[i + 1]!.image, line: t.startLine ?? 1 } : undefined;
            }
        }
        return result;
    }
}

/** A zero-width `}` token right after `previous`. */
function missingBrace(close: Token['tokenType'], previous: Token): Token {
    const offset = previous.endOffset! + 1;
    const line = previous.endLine!;
    const column = previous.endColumn! + 1;
    return {
        image: '', tokenType: close, tokenTypeIdx: close.tokenTypeIdx!,
        startOffset: offset, endOffset: offset - 1, startLine: line, endLine: line, startColumn: column, endColumn: column - 1,
    };
}
