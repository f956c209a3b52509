import type { AstNode, LangiumDocument } from 'langium';
import type { DocumentSymbolProvider } from 'langium/lsp';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { isDocument, isInput, isModel, isModelProp, isOutput, isTenant, isWorkload, type Model, type Workload } from '../generated/ast.js';
import { propertyNodes } from '../parser/property-nodes.js';
import { inputType, modelParamsText } from './call-target.js';

/** The outline: models with their inputs and outputs, workloads with their tenants. */
export class TenancyDocumentSymbolProvider implements DocumentSymbolProvider {

    getSymbols(document: LangiumDocument): DocumentSymbol[] {
        const root = document.parseResult.value;
        if (!isDocument(root)) return [];
        return root.elements.flatMap(e => (isModel(e) ? modelSymbol(document, e) : isWorkload(e) ? workloadSymbol(document, e) : []));
    }
}

function symbol(document: LangiumDocument, node: AstNode, name: string, kind: SymbolKind, detail?: string, children?: DocumentSymbol[]): DocumentSymbol[] {
    const cst = node.$cstNode;
    if (!cst || !name) return [];
    const nameNode = propertyNodes(node, 'name')[0];
    return [{ name, kind, detail, range: cst.range, selectionRange: nameNode?.range ?? cst.range, children }];
}

function modelSymbol(document: LangiumDocument, model: Model): DocumentSymbol[] {
    const children: DocumentSymbol[] = [];
    for (const s of model.statements) {
        if (isInput(s)) children.push(...symbol(document, s, s.name, SymbolKind.Variable, `input ${inputType(s)}`));
        else if (isOutput(s)) children.push(...symbol(document, s, s.name ?? 'output', SymbolKind.Variable, 'output'));
    }
    return symbol(document, model, model.name, SymbolKind.Class, modelParamsText(model), children);
}

function workloadSymbol(document: LangiumDocument, workload: Workload): DocumentSymbol[] {
    const tenants = workload.members.filter(isTenant).flatMap(t => {
        const model = t.props.find(isModelProp)?.call?.$cstNode?.text.replace(/\s+/g, ' ');
        return symbol(document, t, t.name, SymbolKind.Object, model ? `model ${model}` : undefined);
    });
    return symbol(document, workload, workload.name, SymbolKind.Namespace, 'workload', tenants);
}
