import type { LangiumDocument } from 'langium';
import type { LangiumServices, SignatureHelpProvider } from 'langium/lsp';
import type { ParameterInformation, SignatureHelp, SignatureHelpOptions, SignatureHelpParams, SignatureInformation } from 'vscode-languageserver';
import { callTargetByName, modelCallParams, type CallTarget } from './call-target.js';
import { findCallContext, type CallContext } from './call-context.js';
import { findWord, type Word, type WordContext } from './workload-words.js';

interface Piece { label: string; name: string; positional: boolean; variadic?: boolean; doc: string }

/**
 * Signature help for operator calls, model calls and the parenthesised workload words
 * (`poisson(…)`, `layer_block(…)`, `auto(…)`); the active parameter follows the argument's
 * position, or its name when it is written `name: …`.
 */
export class TenancySignatureHelpProvider implements SignatureHelpProvider {
    constructor(protected readonly services: LangiumServices) {}

    provideSignatureHelp(document: LangiumDocument, params: SignatureHelpParams): SignatureHelp | undefined {
        const text = document.textDocument.getText();
        const ctx = findCallContext(text, document.textDocument.offsetAt(params.position));
        if (!ctx) return undefined;
        const found = this.describe(document, ctx);
        if (!found) return undefined;
        const { name, pieces, doc } = found;
        const parameters: ParameterInformation[] = [];
        let label = `${name}(`;
        pieces.forEach((p, i) => {
            if (i > 0) label += ', ';
            parameters.push({ label: [label.length, label.length + p.label.length], documentation: p.doc });
            label += p.label;
        });
        label += ')';
        const signature: SignatureInformation = { label, parameters, documentation: doc ? { kind: 'markdown', value: doc } : undefined };
        const active = activeParameter(pieces, ctx);
        signature.activeParameter = active;
        return { signatures: [signature], activeSignature: 0, activeParameter: active };
    }

    protected describe(document: LangiumDocument, ctx: CallContext): { name: string; pieces: Piece[]; doc?: string } | undefined {
        const wordContext: WordContext | undefined = ctx.preceding === 'arrival' ? 'arrival'
            : ctx.preceding === 'schedule' ? 'schedule' : ctx.preceding === 'device' ? 'device' : undefined;
        if (wordContext) {
            const word = findWord(wordContext, ctx.callee);
            return word ? { name: word.word, pieces: wordPieces(word), doc: word.doc } : undefined;
        }
        const target = callTargetByName(this.services, document, ctx.callee);
        return target && describeTarget(target, this.services);
    }

    get signatureHelpOptions(): SignatureHelpOptions {
        return { triggerCharacters: ['('], retriggerCharacters: [',', ':'] };
    }
}

function describeTarget(target: CallTarget, services: LangiumServices): { name: string; pieces: Piece[]; doc?: string } {
    if (target.kind === 'operator') {
        const op = target.op;
        return {
            name: op.name,
            doc: `${op.doc}\n\n**Output:** ${op.shapeRule}`,
            pieces: op.params.map(p => ({
                label: p.kind === 'tensors' ? 'a, b, …' : p.default === undefined ? p.name : `${p.name}: ${p.default}`,
                name: p.name,
                positional: true,
                variadic: p.kind === 'tensors',
                doc: p.doc,
            })),
        };
    }
    const model = target.model;
    return {
        name: model.name,
        doc: services.documentation.DocumentationProvider.getDocumentation(model),
        pieces: modelCallParams(model).map(p => ({ label: p.label, name: p.name, positional: p.positional, doc: p.doc })),
    };
}

function wordPieces(word: Word): Piece[] {
    return (word.args ?? []).map(a => ({
        label: a.default === undefined ? `${a.name}:` : `${a.name}: ${a.default}`,
        name: a.name, positional: false, doc: a.doc,
    }));
}

/** Index of the parameter the cursor is on, or null when it matches none. */
function activeParameter(pieces: Piece[], ctx: CallContext): number | null {
    if (ctx.argName !== undefined) {
        const i = pieces.findIndex(p => p.name === ctx.argName);
        return i >= 0 ? i : null;
    }
    const positional = pieces.filter(p => p.positional);
    const variadic = positional.findIndex(p => p.variadic);
    const k = variadic >= 0 && ctx.positionalBefore >= variadic ? variadic : ctx.positionalBefore;
    const piece = positional[k];
    if (piece) return pieces.indexOf(piece);
    // Past the positional ones: suggest the first named parameter not given yet.
    const next = pieces.findIndex(p => !p.positional && !ctx.givenNames.includes(p.name));
    return next >= 0 ? next : null;
}
