import { inject, type Module } from 'langium';
import {
    createDefaultModule, createDefaultSharedModule,
    type DefaultSharedModuleContext, type LangiumServices, type LangiumSharedServices,
    type PartialLangiumServices, type PartialLangiumSharedServices,
} from 'langium/lsp';
import { TenancyAnalyzer } from './analysis/index.js';
import { TenancyGeneratedModule, TenancyGeneratedSharedModule } from './generated/module.js';
import { TenancyLinker } from './references/linker.js';
import { TenancyReferenceDescriptionProvider } from './references/reference-descriptions.js';
import { TenancyReferences } from './references/references.js';
import { TenancyScopeComputation } from './references/scope-computation.js';
import { TenancyScopeProvider } from './references/scope-provider.js';
import { DeviceLimitsProvider } from './validation/device-limits.js';
import { TenancyDocumentValidator } from './validation/document-validator.js';
import { registerValidationChecks } from './validation/tenancy-validator.js';
import { TenancyDocumentBuilder } from './workspace/document-builder.js';
import { TenancyDocumentFactory } from './workspace/document-factory.js';
import { TenancyValidationRegistry } from './validation/validation-registry.js';
import { ZooLibrary } from './workspace/zoo-library.js';
import { TenancyDocumentationProvider } from './lsp/documentation-provider.js';
import { TenancyHoverProvider } from './lsp/hover-provider.js';
import { TenancyCompletionProvider } from './lsp/completion-provider.js';
import { TenancySignatureHelpProvider } from './lsp/signature-help-provider.js';
import { TenancyRenameProvider } from './lsp/rename-provider.js';
import { TenancyDocumentSymbolProvider } from './lsp/document-symbol-provider.js';
import { TenancyFoldingRangeProvider } from './lsp/folding-range-provider.js';
import { TenancySemanticTokenProvider } from './lsp/semantic-token-provider.js';
import { TenancyFormatter } from './lsp/formatter.js';
import { TenancyCodeActionProvider } from './lsp/code-action-provider.js';
import { TenancyCodeLensProvider } from './lsp/code-lens.js';
import { ResultsWatch } from './lsp/results-watch.js';
import { createPredictionService, PredictionInlayHintProvider, registerPredictionFeatures, type PredictionService } from './prediction/index.js';
import { registerScheduleHints, ScheduleHintService } from './prediction/schedule-hints.js';
import { TenancyLexer } from './parser/lexer.js';
import { TenancyTokenBuilder } from './parser/token-builder.js';
import { TenancyParserErrorMessageProvider } from './parser/error-messages.js';

/** Services added by Tenancy on top of Langium's defaults. */
export type TenancyAddedServices = {
    /** Shape and cost analysis, cached per workspace state (hover, inlay hints, validation, lowering). */
    analysis: { Analyzer: TenancyAnalyzer };
    /** Limits for buffer-too-large / out-of-memory (WebGPU defaults until a device profile sets them). */
    validation: { DeviceLimits: DeviceLimitsProvider };
    /** Latest results files and device profile (read-only; the server never runs the GPU). */
    results: { ResultsWatch: ResultsWatch };
    /** Latency and interference predictions per workload (pure model over the device profile; no GPU); schedule comparisons and hints, computed off the typing path. */
    prediction: { Predictions: PredictionService; ScheduleHints: ScheduleHintService };
};

export type TenancyServices = LangiumServices & TenancyAddedServices;

/** Shared services added by Tenancy: the zoo library, loaded into every workspace; the document factory that caps document size. */
export type TenancySharedAddedServices = { workspace: { ZooLibrary: ZooLibrary; LangiumDocumentFactory: TenancyDocumentFactory } };

/** Shared overrides: builds also load the zoo and imported files, and survive errors in one document. */
export const TenancySharedModule: Module<LangiumSharedServices & TenancySharedAddedServices, PartialLangiumSharedServices & TenancySharedAddedServices> = {
    workspace: {
        DocumentBuilder: (shared) => new TenancyDocumentBuilder(shared),
        LangiumDocumentFactory: (shared) => new TenancyDocumentFactory(shared),
        ZooLibrary: (shared) => new ZooLibrary(shared),
    },
};

/** Every override is one visible line here. */
export const TenancyModule: Module<TenancyServices, PartialLangiumServices & TenancyAddedServices> = {
    parser: {
        TokenBuilder: () => new TenancyTokenBuilder(),
        Lexer: (services) => new TenancyLexer(services),
        ParserErrorMessageProvider: () => new TenancyParserErrorMessageProvider(),
    },
    references: {
        ScopeProvider: (services) => new TenancyScopeProvider(services),
        ScopeComputation: (services) => new TenancyScopeComputation(services),
        Linker: (services) => new TenancyLinker(services),
        References: (services) => new TenancyReferences(services),
    },
    workspace: {
        ReferenceDescriptionProvider: (services) => new TenancyReferenceDescriptionProvider(services),
    },
    analysis: {
        Analyzer: (services) => new TenancyAnalyzer(services),
    },
    validation: {
        DocumentValidator: (services) => new TenancyDocumentValidator(services),
        ValidationRegistry: (services) => new TenancyValidationRegistry(services),
        DeviceLimits: () => new DeviceLimitsProvider(),
    },
    documentation: {
        DocumentationProvider: () => new TenancyDocumentationProvider(),
    },
    lsp: {
        HoverProvider: (services) => new TenancyHoverProvider(services),
        CompletionProvider: (services) => new TenancyCompletionProvider(services),
        SignatureHelp: (services) => new TenancySignatureHelpProvider(services),
        RenameProvider: (services) => new TenancyRenameProvider(services),
        DocumentSymbolProvider: () => new TenancyDocumentSymbolProvider(),
        FoldingRangeProvider: (services) => new TenancyFoldingRangeProvider(services),
        SemanticTokenProvider: (services) => new TenancySemanticTokenProvider(services),
        Formatter: () => new TenancyFormatter(),
        CodeActionProvider: (services) => new TenancyCodeActionProvider(services),
        CodeLensProvider: (services) => new TenancyCodeLensProvider(() => services.results.ResultsWatch),
        InlayHintProvider: (services) => new PredictionInlayHintProvider(services),
    },
    results: {
        ResultsWatch: (services) => new ResultsWatch(services),
    },
    prediction: {
        Predictions: (services) => createPredictionService(services),
        ScheduleHints: (services) => new ScheduleHintService(services),
    },
};

/** Creates the shared and language services (the language server and the CLI both use this). */
export function createTenancyServices(context: DefaultSharedModuleContext): {
    shared: LangiumSharedServices & TenancySharedAddedServices;
    Tenancy: TenancyServices;
} {
    const shared = inject(createDefaultSharedModule(context), TenancyGeneratedSharedModule, TenancySharedModule);
    const Tenancy = inject(createDefaultModule({ shared }), TenancyGeneratedModule, TenancyModule);
    shared.ServiceRegistry.register(Tenancy);
    registerValidationChecks(Tenancy);
    registerPredictionFeatures(Tenancy);
    registerScheduleHints(Tenancy);
    return { shared, Tenancy };
}
