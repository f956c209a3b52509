import { inject, type Module } from 'langium';
import {
    createDefaultModule, createDefaultSharedModule,
    type DefaultSharedModuleContext, type LangiumServices, type LangiumSharedServices,
    type PartialLangiumServices,
} from 'langium/lsp';
import { TenancyGeneratedModule, TenancyGeneratedSharedModule } from './generated/module.js';
import { TenancyDocumentationProvider } from './lsp/documentation-provider.js';
import { TenancyHoverProvider } from './lsp/hover-provider.js';
import { TenancyCompletionProvider } from './lsp/completion-provider.js';
import { TenancySignatureHelpProvider } from './lsp/signature-help-provider.js';
import { TenancyCodeLensProvider } from './lsp/code-lens.js';
import { ResultsWatch } from './lsp/results-watch.js';

/** Services added by Tenancy on top of Langium's defaults. */
export type TenancyAddedServices = {
    /** Latest results files and device profile (read-only; the server never runs the GPU). */
    results: { ResultsWatch: ResultsWatch };
};

export type TenancyServices = LangiumServices & TenancyAddedServices;

/** Every override is one visible line here. */
export const TenancyModule: Module<TenancyServices, PartialLangiumServices & TenancyAddedServices> = {
    documentation: {
        DocumentationProvider: () => new TenancyDocumentationProvider(),
    },
    lsp: {
        HoverProvider: (services) => new TenancyHoverProvider(services),
        CompletionProvider: (services) => new TenancyCompletionProvider(services),
        SignatureHelp: (services) => new TenancySignatureHelpProvider(services),
        CodeLensProvider: (services) => new TenancyCodeLensProvider(() => services.results.ResultsWatch),
    },
    results: {
        ResultsWatch: (services) => new ResultsWatch(services),
    },
};

/** Creates the shared and language services (the language server and the CLI both use this). */
export function createTenancyServices(context: DefaultSharedModuleContext): {
    shared: LangiumSharedServices;
    Tenancy: TenancyServices;
} {
    const shared = inject(createDefaultSharedModule(context), TenancyGeneratedSharedModule);
    const Tenancy = inject(createDefaultModule({ shared }), TenancyGeneratedModule, TenancyModule);
    shared.ServiceRegistry.register(Tenancy);
    return { shared, Tenancy };
}
