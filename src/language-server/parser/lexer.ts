/**
 * The lexer: Langium's, then three repairs on the tokens before any parser sees them.
 *
 * 1. Numbers too large to represent (hundreds of digits: a stuck key, a paste) are dropped with a
 * `syntax` error, so no value downstream is `Infinity`. A block comment left open runs to the end
 * of the file (the grammar's ML_COMMENT: one match, linear; a pattern that needs the closing
 * `*\/` would rescan the rest of the text at every `/*`, quadratic on pasted text), with a
 * `syntax` error at its start.
 *
 * 2. A model's forgotten `}`. Soft keywords are names to the parser, so when a model body is left
 * open, the next `model n(…) {` (or `workload w {`) reads as a statement named `model` and every
 * model and workload after it as the body: a dozen errors far from the mistake. A header can
 * never be a statement (a tensor named `model` is bound with `model = …`), so the lexer, seeing
 * a header where a model body is still open, puts a zero-width `}` before it and reports the
 * missing brace there: one `syntax` error where the brace belongs, and the rest of the file
 * parses as written.
 *
 * 3. Nesting is bounded. Parsing is recursive (Chevrotain descends one rule per nested expression, its content assist
 * for completion walks the grammar along the same path) and so is everything that reads the
 * tree after it (the CST's position getters, the analysis): text nested thousands deep would
 * overflow the stack. The parser itself is not changed; instead `boundNesting` measures, per
 * token, how deep the tree built from the tokens so far can be and, past `maxNesting`, leaves
 * the too-deep part out of the token stream, with one error at the token where the limit was
 * reached. So the parser, the completion parser (both take their tokens from this service), the
 * CST and the analysis never see a tree deeper than the bound, whatever the text.
 *
 * The measure, an upper bound of the tree's depth: every open bracket `(` `[` `{` is one level,
 * and within a level every operator (binary `+ - * /` chain left-nested, each a level, and a
 * unary `-`, a level around its operand) adds one until the expression at that level ends (at
 * `,` `:` `=` `<=`, at its closing bracket, or where an operand follows an operand: the next
 * statement). A bracket opened after k operators of its level counts 1 + k.
 */
import { DefaultLexer, type LangiumCoreServices, type LexerResult, type TokenizeOptions } from 'langium';

/** How deep brackets and operators may nest (see the module comment for the measure). */
export const maxNesting = 64;

// chevrotain's token types, as Langium's lexer result carries them (chevrotain is Langium's dependency, not ours).
type Token = LexerResult['tokens'][number];
type LexingError = LexerResult['errors'][number];

/** What a token does to the nesting measure. */
const enum Kind { Other, Operand, Open, Close, Operator, Reset }

/** The too-deep parts of a token stream left out, and the errors that say so. */
interface BoundedTokens {
    tokens: Token[];
    errors: LexingError[];
}

/** Tokens after which `model` is a name, not a header (`repeat model blk(x)`, `f(model, …)`). */
const beforeName = new Set(['repeat', '=', '(', ',', ':', '[', '*', '/', '+', '-', '<=']);
const numberTokens = new Set(['INT', 'DECIMAL', 'QUANTITY']);
const isName = (t: Token | undefined) => t !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.image);

export class TenancyLexer extends DefaultLexer {
    /** Each token type's Kind, by chevrotain's token type index. */
    private readonly kinds: Kind[] = [];

    constructor(services: LangiumCoreServices) {
        super(services);
        for (const type of Object.values(this.definition)) {
            const name = type.name;
            const categories = type.CATEGORIES ?? [];
            let kind = Kind.Other;
            if (['ID', 'INT', 'DECIMAL', 'QUANTITY', 'STRING', 'true', 'false'].includes(name) || categories.some(c => c.name === 'ID')) kind = Kind.Operand;
            else if (name === '(' || name === '[' || name === '{') kind = Kind.Open;
            else if (name === ')' || name === ']' || name === '}') kind = Kind.Close;
            else if (name === '+' || name === '-' || name === '*' || name === '/') kind = Kind.Operator;
            else if (name === ',' || name === ':' || name === '=' || name === '<=') kind = Kind.Reset;
            this.kinds[type.tokenTypeIdx!] = kind;
        }
    }

    override tokenize(text: string, options?: TokenizeOptions): LexerResult {
        const result = super.tokenize(text, options);
        dropHugeNumbers(result);
        reportOpenComment(result);
        closeOpenModels(result, this.definition['}']);
        const bounded = boundNesting(result.tokens, t => this.kinds[t.tokenTypeIdx] ?? Kind.Other, maxNesting);
        if (bounded.errors.length > 0) {
            result.tokens = bounded.tokens;
            result.errors.push(...bounded.errors);
        }
        return result;
    }
}

/** 1: numbers too large to represent are dropped, each with an error. */
function dropHugeNumbers(result: LexerResult): void {
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
}

/** 1: a block comment without its closing `*\/` (it runs to the end of the file) gets an error at its start. */
function reportOpenComment(result: LexerResult): void {
    const last = result.hidden.at(-1);
    if (!last || last.tokenType.name !== 'ML_COMMENT' || last.image.endsWith('*/') && last.image.length >= 4) return;
    (result.report ??= { diagnostics: [] }).diagnostics.push({
        severity: 'error', offset: last.startOffset, length: 2, line: last.startLine, column: last.startColumn,
        message: "this comment is not closed: everything after '/*' is commented out; close it with '*/'",
    });
}

/** 2: a model body left open before the next header is closed there, with one error. */
function closeOpenModels(result: LexerResult, close: Token['tokenType'] | undefined): void {
    const tokens = result.tokens;
    if (!close) return;
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
}

/**
 * The tokens without the parts nested deeper than `limit`, and an error at the start of each
 * part left out. A part that starts with a bracket ends with its closing bracket; one that starts
 * with an operator ends where the expression at its level ends (the token that ends it is kept).
 * Linear in the number of tokens; the tokens are returned unchanged when nothing is too deep.
 */
function boundNesting(tokens: readonly Token[], kindOf: (token: Token) => Kind, limit: number): BoundedTokens {
    const weights: number[] = []; // per open bracket: 1 + the operators of its level before it
    const chains: number[] = [0]; // per level (bracket height): operators since its expression began
    let base = 0; // the sum of weights
    let previousEndsOperand = false;
    let kept: Token[] | undefined;
    const errors: LexingError[] = [];
    // While a part is left out: the bracket height it began at, and whether it began with a bracket.
    let skipping = false;
    let skipLevel = 0;
    let skipBracket = false;
    for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i];
        const kind = kindOf(token);
        const level = weights.length;
        let tooDeep = false;
        // Whether this token ends the expression at `level` (it is then kept: it belongs to the level around it).
        let endsExpression = false;
        switch (kind) {
            case Kind.Open: {
                const weight = 1 + chains[level];
                weights.push(weight);
                base += weight;
                chains[level + 1] = 0;
                tooDeep = base > limit;
                break;
            }
            case Kind.Close:
                if (level > 0) {
                    base -= weights.pop()!;
                    endsExpression = true;
                }
                break;
            case Kind.Operator:
                chains[level]++;
                tooDeep = base + chains[level] > limit;
                break;
            case Kind.Reset:
                chains[level] = 0;
                endsExpression = true;
                break;
            case Kind.Operand:
                if (previousEndsOperand) {
                    chains[level] = 0; // an operand right after an operand begins the next statement
                    endsExpression = true;
                }
                break;
        }
        previousEndsOperand = kind === Kind.Operand || kind === Kind.Close;
        if (skipping) {
            if (skipBracket) {
                // The part ends with the bracket that began it (that one is left out too).
                if (kind === Kind.Close && weights.length === skipLevel) skipping = false;
                continue;
            }
            if (!(endsExpression && level === skipLevel)) continue;
            skipping = false;
        } else if (tooDeep) {
            kept ??= tokens.slice(0, i);
            skipping = true;
            skipBracket = kind === Kind.Open;
            skipLevel = level;
            errors.push({
                offset: token.startOffset, line: token.startLine, column: token.startColumn, length: token.image.length,
                message: `nesting deeper than ${limit} levels (brackets, calls and operators inside one another); `
                    + `the text from here to the end of this ${skipBracket ? 'bracket' : 'expression'} is not read — split the expression with lets`,
            });
            continue;
        }
        kept?.push(token);
    }
    return { tokens: kept ?? (tokens as Token[]), errors };
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
