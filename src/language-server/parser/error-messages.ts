/**
 * Syntax error messages: Langium's, except that the end of the text is called so (Langium
 * prints the end-of-file token's empty image: "but found ``").
 */
import { LangiumParserErrorMessageProvider } from 'langium';

type MismatchOptions = Parameters<LangiumParserErrorMessageProvider['buildMismatchTokenMessage']>[0];

export class TenancyParserErrorMessageProvider extends LangiumParserErrorMessageProvider {
    override buildMismatchTokenMessage(options: MismatchOptions): string {
        const message = super.buildMismatchTokenMessage(options);
        return options.actual.image === '' ? message.replace(/but found ``\.$/, 'but found the end of the file.') : message;
    }
}
