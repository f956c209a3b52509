/**
 * The `tenancy.*` settings, one typed getter each. No `vscode` import: the reader is injected
 * (main.ts passes `workspace.getConfiguration('tenancy')`), so the parsing is unit-tested.
 * Every getter falls back to the documented default when the stored value has the wrong
 * type, because a hand-edited settings.json must never break activation.
 */
import { adapterPreferenceNames, isAdapterPreference, type AdapterPreference } from '../protocol/adapter.js';
import { defaultResultsFolder } from '../protocol/messages.js';

/** The subset of `vscode.WorkspaceConfiguration` that Config reads. */
export interface ConfigurationReader {
    get<T>(key: string): T | undefined;
}

/** `tenancy.run.adapter`: `workload` keeps the file's `device` line; the rest are the CLI's `--adapter` words. */
export type RunAdapterSetting = 'workload' | AdapterPreference;
export const runAdapterSettings: readonly RunAdapterSetting[] = ['workload', ...adapterPreferenceNames];

export const traceLevels = ['off', 'messages', 'verbose'] as const;
export type TraceLevel = (typeof traceLevels)[number];

/** Setting keys below `tenancy.` (the `contributes.configuration` of package.json). */
export const SettingKeys = {
    runDuration: 'run.duration',
    runAdapter: 'run.adapter',
    compareSchedules: 'compare.schedules',
    /** Read by the language server (workspace/configuration): its inlay hints show predicted and measured figures. */
    inlayHintsEnabled: 'inlayHints.enabled',
    resultsFolder: 'results.folder',
    runtimeNodePath: 'runtime.nodePath',
    traceServer: 'trace.server',
} as const;

/** Typed view of the `tenancy.*` settings. */
export class Config {
    constructor(private readonly reader: () => ConfigurationReader) {}

    /** `tenancy.run.duration`: benchmark duration override in seconds, or undefined to use the workload's. */
    get runDurationSeconds(): number | undefined {
        const value = this.reader().get<unknown>(SettingKeys.runDuration);
        return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
    }

    /** `tenancy.run.adapter`: which adapter to request; `workload` keeps the file's `device` line. */
    get runAdapter(): RunAdapterSetting {
        const value = this.reader().get<unknown>(SettingKeys.runAdapter);
        return isAdapterPreference(value) ? value : 'workload';
    }

    /**
     * `tenancy.compare.schedules`: the schedules "Compare schedules" measures beside the
     * workload's own, as written after `schedule`; undefined (unset, empty or not a list of
     * non-empty strings) for the CLI's default candidates.
     */
    get compareSchedules(): string[] | undefined {
        const value = this.reader().get<unknown>(SettingKeys.compareSchedules);
        if (!Array.isArray(value) || value.length === 0) return undefined;
        const schedules = value.filter((v): v is string => typeof v === 'string').map(v => v.trim());
        return schedules.length === value.length && schedules.every(v => v !== '') ? schedules : undefined;
    }

    /** `tenancy.results.folder`: where runs write results, relative to the workspace folder (or absolute). */
    get resultsFolder(): string {
        const value = this.reader().get<unknown>(SettingKeys.resultsFolder);
        return typeof value === 'string' && value.trim() !== '' ? value.trim() : defaultResultsFolder;
    }

    /** `tenancy.runtime.nodePath`: a Node ≥ 22 to run the CLI with; empty to find one automatically. */
    get runtimeNodePath(): string | undefined {
        const value = this.reader().get<unknown>(SettingKeys.runtimeNodePath);
        return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
    }

    /** `tenancy.trace.server`: LSP message tracing in the output channel. */
    get traceServer(): TraceLevel {
        const value = this.reader().get<unknown>(SettingKeys.traceServer);
        return (traceLevels as readonly unknown[]).includes(value) ? value as TraceLevel : 'off';
    }
}
