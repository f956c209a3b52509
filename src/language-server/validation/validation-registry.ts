/**
 * A check that throws is a bug in Tenancy, not in the user's text: its diagnostic says so,
 * carries the stable code `internal-error` (Langium's says "An error occurred during validation"
 * with no code) and the other checks still run. The error is logged with its stack.
 */
import { isOperationCancelled, ValidationRegistry, type AstNode, type MaybePromise, type ValidationAcceptor } from 'langium';
import { IssueCodes } from './issue-codes.js';

export class TenancyValidationRegistry extends ValidationRegistry {
    protected override async handleException(functionality: () => MaybePromise<void>, _messageContext: string, accept: ValidationAcceptor, node: AstNode): Promise<void> {
        try {
            await functionality();
        } catch (error) {
            if (isOperationCancelled(error)) throw error;
            console.error(`Tenancy: a check of ${node.$type} threw:`, error instanceof Error ? error.stack ?? error : error);
            const detail = error instanceof Error ? error.message : String(error);
            const code = IssueCodes.InternalError;
            accept('error', `Tenancy could not check this ${node.$type.toLowerCase()} (${detail}); other checks ran. This is a bug in Tenancy: please report it with this file.`, { node, code, data: { code } } as never);
        }
    }
}
