/**
 * The lexer, with a bound on nesting checked on the tokens before any parser sees them.
 *
 * Parsing is recursive (Chevrotain descends one rule per nested expression, its content assist
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
        const bounded = boundNesting(result.tokens, t => this.kinds[t.tokenTypeIdx] ?? Kind.Other, maxNesting);
        if (bounded.errors.length > 0) {
            result.tokens = bounded.tokens;
            result.errors.push(...bounded.errors);
        }
        return result;
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
