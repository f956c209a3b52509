/**
 * Scope computation: models and workloads are exported (the index: cross-file calls, outline,
 * workspace symbols); no local symbol table. Langium's default walks every node and describes
 * each named one (params, inputs, lets, dim variables, tenants) for scopes that look names up
 * per container — TenancyScopeProvider answers every reference by direct lookup (bindings per
 * model, models per workspace) and never reads it, so building it was pure cost.
 */
import { DefaultScopeComputation, MultiMap, type AstNode, type AstNodeDescription, type LangiumDocument, type LocalSymbols } from 'langium';

export class TenancyScopeComputation extends DefaultScopeComputation {
    override async collectLocalSymbols(_document: LangiumDocument): Promise<LocalSymbols> {
        return new MultiMap<AstNode, AstNodeDescription>();
    }
}
