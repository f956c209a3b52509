/**
 * Soft keywords (docs/language.md#lexical-rules: only `true` and `false` are reserved): every
 * word keyword's token is also in the `ID` category, so wherever the grammar expects an `ID`
 * (a name, a reference) the parser accepts `input`, `model`, `repeat`, … as well. Where a keyword
 * and a name could both start an alternative (`input x: …` against `input = …`), the parser's
 * lookahead decides, as it did when names were a rule listing the keywords; a name is now one
 * token instead of a rule call over seventeen alternatives. `true` and `false` stay reserved:
 * they are values.
 */
import { DefaultTokenBuilder, type GrammarAST, type isTokenTypeArray } from 'langium';

// chevrotain's TokenType as Langium passes it (chevrotain is Langium's dependency, not ours).
type TokenType = Extract<Parameters<typeof isTokenTypeArray>[0], unknown[]>[number];

const reserved = new Set(['true', 'false']);

export class TenancyTokenBuilder extends DefaultTokenBuilder {
    protected override buildKeywordToken(keyword: GrammarAST.Keyword, terminalTokens: TokenType[], caseInsensitive: boolean): TokenType {
        const token = super.buildKeywordToken(keyword, terminalTokens, caseInsensitive);
        const id = terminalTokens.find(t => t.name === 'ID');
        if (!id) throw new Error('the grammar has no ID terminal: soft keywords need one');
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyword.value) && !reserved.has(keyword.value)) token.CATEGORIES = [id];
        return token;
    }
}
