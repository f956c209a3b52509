/**
 * The language server's prediction features, wired to the other services: lowering (LS-core's
 * lower.ts), the latest results (results-watch) and the device limits the validator checks
 * `buffer-too-large` against (set from a calibrated profile's real limits).
 */
import { DocumentState } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import type { TenancyAnalyzer } from '../analysis/index.js';
import { LoweringError, lowerWorkload } from '../lower.js';
import type { ResultsWatch } from '../lsp/results-watch.js';
import type { DeviceLimitsProvider } from '../validation/device-limits.js';
import { PredictionService } from './prediction-service.js';
import type { ScheduleHintService } from './schedule-hints.js';

export { PredictionService } from './prediction-service.js';
export { PredictionInlayHintProvider, registerPredictionFeatures } from './prediction-features.js';

type WiredServices = LangiumServices & {
    analysis: { Analyzer: TenancyAnalyzer };
    prediction: { ScheduleHints: ScheduleHintService };
    results: { ResultsWatch: ResultsWatch };
    validation: { DeviceLimits: DeviceLimitsProvider };
};

/** The prediction service with lowering, results and device limits wired (services.prediction.Predictions). */
export function createPredictionService(services: WiredServices): PredictionService {
    const service = new PredictionService(services, {
        lower: workload => {
            try {
                return lowerWorkload(workload, services.analysis.Analyzer);
            } catch (error) {
                // A workload with errors has nothing to predict; its diagnostics say why.
                if (error instanceof LoweringError) return undefined;
                throw error;
            }
        },
        results: () => services.results.ResultsWatch,
        // The co-run figures: the simulation the schedule hints run (their cache, not a second simulation).
        schedules: (workload, ir, profile) => services.prediction.ScheduleHints.declaredEvaluation(workload, ir, profile),
    });
    // Before validation: find each document's profile and hand its real limits to the validator.
    services.shared.workspace.DocumentBuilder.onBuildPhase(DocumentState.IndexedReferences, documents => {
        for (const d of documents) {
            if (d.uri.scheme !== 'file') continue;
            const located = service.profileFor(d.uri.toString());
            const limits = located.profile.limits;
            services.validation.DeviceLimits.set(located.profile.uncalibrated
                ? { maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize, source: 'WebGPU default limits' }
                : { maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize, source: `device profile of ${located.profile.adapter.device || located.profile.adapter.description}` });
        }
    });
    return service;
}
