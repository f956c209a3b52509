import { AstUtils, interruptAndCheck, type AstNode, type LangiumDocument } from 'langium';
import { resolveDimVar } from '../references/bindings.js';
import { AbstractSemanticTokenProvider, type SemanticTokenAcceptor, type SemanticTokenPropertyOptions } from 'langium/lsp';
import { propertyNodes } from '../parser/property-nodes.js';
import { SemanticTokenModifiers, SemanticTokenTypes, type CancellationToken } from 'vscode-languageserver';
import {
    Arg, ArrivalProp, BenchmarkSetting, Call, DeviceDecl, DimVar, Input, isDimVar, isModel, isParam, Let, Model, NamedArg, NameRef,
    Output, Param, PriorityProp, QuantityLit, ScheduleDecl, SloProp, SweepSetting, SweepValue, Tenant, Workload,
    type Binding,
} from '../generated/ast.js';
import { callTarget } from './call-target.js';
import { findWord } from './workload-words.js';
import { isZooModel } from './zoo-uri.js';

const declaration = [SemanticTokenModifiers.declaration];
/** Nodes walked between two cancellation checks. */
const checkEvery = 256;

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
        return this.oneAtATime(args[0], () => super.semanticHighlight(...args));
    }

    override semanticHighlightRange(...args: Parameters<AbstractSemanticTokenProvider['semanticHighlightRange']>): ReturnType<AbstractSemanticTokenProvider['semanticHighlightRange']> {
        return this.oneAtATime(args[0], () => super.semanticHighlightRange(...args));
    }

    override semanticHighlightDelta(...args: Parameters<AbstractSemanticTokenProvider['semanticHighlightDelta']>): ReturnType<AbstractSemanticTokenProvider['semanticHighlightDelta']> {
        return this.oneAtATime(args[0], () => super.semanticHighlightDelta(...args));
    }

    // A request that ends early (cancelled) leaves its tokens in the document's builder, which
    // Langium keeps per document and does not empty when the next request starts: that one's
    // tokens came out twice, overlapping (found by the fuzzer). The builder is dropped then; the
    // next request makes a fresh one.
    private oneAtATime<T>(document: LangiumDocument, request: () => Promise<T>): Promise<T> {
        const guarded = () => request().catch((error: unknown) => {
            this.tokensBuilders.delete(document.uri.toString());
            throw error;
        });
        const result = this.running.then(guarded, guarded);
        this.running = result.catch(() => undefined);
        return result;
    }

    // Langium's walk awaits a cancellation check at every node (a promise per node of the
    // document); here the check runs every `checkEvery` nodes: it still yields every 10 ms
    // (Langium's interruption period) and honours cancellation as promptly.
    protected override async computeHighlighting(document: LangiumDocument, acceptor: SemanticTokenAcceptor, cancelToken: CancellationToken): Promise<void> {
        const nodes = AstUtils.streamAst(document.parseResult.value, { range: this.currentRange }).iterator();
        let count = 0;
        for (let next = nodes.next(); !next.done; next = nodes.next()) {
            if (++count % checkEvery === 0) await interruptAndCheck(cancelToken);
            this.highlightElement(next.value, acceptor);
        }
    }

    // The property's text from propertyNodes (the grammar lookups cached), not Langium's search.
    protected override highlightProperty<N extends AstNode>(options: SemanticTokenPropertyOptions<N>): void {
        if (typeof options.index === 'number') return super.highlightProperty(options);
        for (const cst of propertyNodes(options.node, options.property)) this.highlightNode({ node: cst, type: options.type, modifier: options.modifier });
    }

    // By `$type` (each is a concrete type no other extends), not a chain of reflection checks: this
    // runs for every node of the document. References give their own text node (`$refNode`), so
    // no search of the node's text for the property.
    protected override highlightElement(node: AstNode, acceptor: SemanticTokenAcceptor): void {
        switch (node.$type) {
            case Model.$type:
                acceptor({ node, property: 'name', type: SemanticTokenTypes.class, modifier: isZooModel(node) ? [...declaration, SemanticTokenModifiers.defaultLibrary] : declaration });
                return;
            case Call.$type: {
                const call = node as Call;
                const target = callTarget(call);
                const cst = call.callee?.$refNode;
                if (!cst) return;
                if (target?.kind === 'operator') {
                    acceptor({ cst, type: SemanticTokenTypes.function, modifier: SemanticTokenModifiers.defaultLibrary });
                } else if (target?.kind === 'model') {
                    acceptor({ cst, type: SemanticTokenTypes.class, modifier: isZooModel(target.model) ? SemanticTokenModifiers.defaultLibrary : [] });
                }
                return;
            }
            case NameRef.$type: {
                const reference = (node as NameRef).ref;
                const ref = reference.ref;
                if (ref && reference.$refNode) acceptor({ cst: reference.$refNode, type: bindingType(ref) });
                return;
            }
            case DimVar.$type: {
                // `[batch, n]`: a lone name that names a parameter or an earlier dim variable is a use of it.
                const dim = node as DimVar;
                const model = AstUtils.getContainerOfType(dim, isModel);
                const target = model ? resolveDimVar(dim, model) : dim;
                acceptor({ node, property: 'name', type: bindingType(target), modifier: target === dim ? declaration : [] });
                return;
            }
            case Param.$type:
            case Input.$type:
            case Let.$type:
                acceptor({ node, property: 'name', type: bindingType(node as Binding), modifier: declaration });
                return;
            case Output.$type:
                if ((node as Output).name) acceptor({ node, property: 'name', type: bindingType(node as Output), modifier: declaration });
                return;
            case Arg.$type:
                if ((node as Arg).name !== undefined) acceptor({ node, property: 'name', type: SemanticTokenTypes.property });
                return;
            case NamedArg.$type:
                acceptor({ node, property: 'name', type: SemanticTokenTypes.property });
                return;
            case Tenant.$type:
                acceptor({ node, property: 'name', type: SemanticTokenTypes.struct, modifier: declaration });
                return;
            case Workload.$type:
                acceptor({ node, property: 'name', type: SemanticTokenTypes.namespace, modifier: declaration });
                return;
            case ArrivalProp.$type:
                if (findWord('arrival', (node as ArrivalProp).kind)) acceptor({ node, property: 'kind', type: SemanticTokenTypes.enumMember });
                return;
            case ScheduleDecl.$type:
                if (findWord('schedule', (node as ScheduleDecl).policy)) acceptor({ node, property: 'policy', type: SemanticTokenTypes.enumMember });
                return;
            case SloProp.$type:
                if (findWord('percentile', (node as SloProp).percentile)) acceptor({ node, property: 'percentile', type: SemanticTokenTypes.enumMember });
                return;
            case PriorityProp.$type:
                if (findWord('priority', (node as PriorityProp).level)) acceptor({ node, property: 'level', type: SemanticTokenTypes.enumMember });
                return;
            case DeviceDecl.$type:
                if (findWord('device', (node as DeviceDecl).kind)) acceptor({ node, property: 'kind', type: SemanticTokenTypes.enumMember });
                return;
            case BenchmarkSetting.$type:
                if (findWord('benchmark', (node as BenchmarkSetting).key)) acceptor({ node, property: 'key', type: SemanticTokenTypes.keyword });
                return;
            case SweepSetting.$type:
                if (findWord('sweep', (node as SweepSetting).key)) acceptor({ node, property: 'key', type: SemanticTokenTypes.keyword });
                return;
            case SweepValue.$type: {
                const word = (node as SweepValue).word;
                if (word !== undefined && findWord('schedule', word)) acceptor({ node, property: 'word', type: SemanticTokenTypes.enumMember });
                return;
            }
            case QuantityLit.$type:
                this.highlightQuantity(node as QuantityLit, acceptor);
                return;
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
