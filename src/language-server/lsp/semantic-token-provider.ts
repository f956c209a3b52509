import { AstUtils, type AstNode } from 'langium';
import { resolveDimVar } from '../references/bindings.js';
import { AbstractSemanticTokenProvider, type SemanticTokenAcceptor } from 'langium/lsp';
import { SemanticTokenModifiers, SemanticTokenTypes } from 'vscode-languageserver';
import {
    isArg, isArrivalProp, isBenchmarkSetting, isSweepSetting, isSweepValue, isCall, isDeviceDecl, isDimVar, isInput, isLet, isModel, isNamedArg,
    isNameRef, isOutput, isParam, isPriorityProp, isQuantityLit, isScheduleDecl, isSloProp, isTenant, isWorkload,
    type Binding,
} from '../generated/ast.js';
import { callTarget } from './call-target.js';
import { findWord } from './workload-words.js';
import { isZooModel } from './zoo-uri.js';

const declaration = [SemanticTokenModifiers.declaration];

/**
 * Semantic highlighting tells apart what the TextMate grammar cannot: operators (functions of
 * the default library) from models (classes; zoo ones also `defaultLibrary`), tensors
 * (variables) from parameters and dim variables (type parameters), the closed words of
 * workloads and the units of quantities (enum members), and soft keywords used as names.
 */
export class TenancySemanticTokenProvider extends AbstractSemanticTokenProvider {
    /** The request running now; the next one starts after it. */
    private running: Promise<unknown> = Promise.resolve();

    // Langium's provider keeps the request's document, range and token builder in fields across
    // an await: concurrent requests (VS Code sends a range and a full request on open) wrote into
    // each other's tokens. They run one at a time here.
    override semanticHighlight(...args: Parameters<AbstractSemanticTokenProvider['semanticHighlight']>): ReturnType<AbstractSemanticTokenProvider['semanticHighlight']> {
        return this.oneAtATime(() => super.semanticHighlight(...args));
    }

    override semanticHighlightRange(...args: Parameters<AbstractSemanticTokenProvider['semanticHighlightRange']>): ReturnType<AbstractSemanticTokenProvider['semanticHighlightRange']> {
        return this.oneAtATime(() => super.semanticHighlightRange(...args));
    }

    override semanticHighlightDelta(...args: Parameters<AbstractSemanticTokenProvider['semanticHighlightDelta']>): ReturnType<AbstractSemanticTokenProvider['semanticHighlightDelta']> {
        return this.oneAtATime(() => super.semanticHighlightDelta(...args));
    }

    private oneAtATime<T>(request: () => Promise<T>): Promise<T> {
        const result = this.running.then(request, request);
        this.running = result.catch(() => undefined);
        return result;
    }

    protected override highlightElement(node: AstNode, acceptor: SemanticTokenAcceptor): void {
        if (isModel(node)) {
            acceptor({ node, property: 'name', type: SemanticTokenTypes.class, modifier: isZooModel(node) ? [...declaration, SemanticTokenModifiers.defaultLibrary] : declaration });
        } else if (isCall(node)) {
            const target = callTarget(node);
            if (target?.kind === 'operator') {
                acceptor({ node, property: 'callee', type: SemanticTokenTypes.function, modifier: SemanticTokenModifiers.defaultLibrary });
            } else if (target?.kind === 'model') {
                acceptor({ node, property: 'callee', type: SemanticTokenTypes.class, modifier: isZooModel(target.model) ? SemanticTokenModifiers.defaultLibrary : [] });
            }
        } else if (isNameRef(node)) {
            const ref = node.ref.ref;
            if (ref) acceptor({ node, property: 'ref', type: bindingType(ref) });
        } else if (isDimVar(node)) {
            // `[batch, n]`: a lone name that names a parameter or an earlier dim variable is a use of it.
            const model = AstUtils.getContainerOfType(node, isModel);
            const target = model ? resolveDimVar(node, model) : node;
            acceptor({ node, property: 'name', type: bindingType(target), modifier: target === node ? declaration : [] });
        } else if (isParam(node) || isInput(node) || isLet(node) || (isOutput(node) && node.name)) {
            acceptor({ node, property: 'name', type: bindingType(node), modifier: declaration });
        } else if (isArg(node) && node.name !== undefined) {
            acceptor({ node, property: 'name', type: SemanticTokenTypes.property });
        } else if (isNamedArg(node)) {
            acceptor({ node, property: 'name', type: SemanticTokenTypes.property });
        } else if (isTenant(node)) {
            acceptor({ node, property: 'name', type: SemanticTokenTypes.struct, modifier: declaration });
        } else if (isWorkload(node)) {
            acceptor({ node, property: 'name', type: SemanticTokenTypes.namespace, modifier: declaration });
        } else if (isArrivalProp(node) && findWord('arrival', node.kind)) {
            acceptor({ node, property: 'kind', type: SemanticTokenTypes.enumMember });
        } else if (isScheduleDecl(node) && findWord('schedule', node.policy)) {
            acceptor({ node, property: 'policy', type: SemanticTokenTypes.enumMember });
        } else if (isSloProp(node) && findWord('percentile', node.percentile)) {
            acceptor({ node, property: 'percentile', type: SemanticTokenTypes.enumMember });
        } else if (isPriorityProp(node) && findWord('priority', node.level)) {
            acceptor({ node, property: 'level', type: SemanticTokenTypes.enumMember });
        } else if (isDeviceDecl(node) && findWord('device', node.kind)) {
            acceptor({ node, property: 'kind', type: SemanticTokenTypes.enumMember });
        } else if (isBenchmarkSetting(node) && findWord('benchmark', node.key)) {
            acceptor({ node, property: 'key', type: SemanticTokenTypes.keyword });
        } else if (isSweepSetting(node) && findWord('sweep', node.key)) {
            acceptor({ node, property: 'key', type: SemanticTokenTypes.keyword });
        } else if (isSweepValue(node) && node.word !== undefined && findWord('schedule', node.word)) {
            acceptor({ node, property: 'word', type: SemanticTokenTypes.enumMember });
        } else if (isQuantityLit(node)) {
            this.highlightQuantity(node, acceptor);
        }
    }

    /** `40ms`: the number as a number, the unit as an enum member (one token in the grammar). */
    private highlightQuantity(node: AstNode & { value: string }, acceptor: SemanticTokenAcceptor): void {
        const cst = node.$cstNode;
        const m = /^\d+(\.\d+)?/.exec(node.value);
        if (!cst || !m) return;
        const start = cst.range.start;
        const numberEnd = { line: start.line, character: start.character + m[0].length };
        acceptor({ range: { start, end: numberEnd }, type: SemanticTokenTypes.number });
        acceptor({ range: { start: numberEnd, end: cst.range.end }, type: SemanticTokenTypes.enumMember });
    }
}

function bindingType(b: Binding): string {
    if (isParam(b)) return SemanticTokenTypes.parameter;
    if (isDimVar(b)) return SemanticTokenTypes.typeParameter;
    return SemanticTokenTypes.variable;
}
