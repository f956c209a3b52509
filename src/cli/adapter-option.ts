/**
 * `--adapter <preference>` of `tenancy run` and `tenancy calibrate`: the words of
 * src/protocol/adapter.ts, which are the language's `device` line and the editor setting's. The
 * hyphenated words the flag took before (WebGPU's `powerPreference` spelling) still work, with a
 * note, so that scripts written for them keep running.
 */
import { adapterPreferenceNames, isAdapterPreference, type AdapterPreference } from '../protocol/adapter.js';

const formerSpellings: Readonly<Record<string, AdapterPreference>> = {
    'high-performance': 'high_performance',
    'low-power': 'low_power',
};

/** The option's help text, with what an absent flag means. */
export function adapterOptionHelp(whenAbsent: string): string {
    return `adapter preference: ${adapterPreferenceNames.join(', ')} (default: ${whenAbsent})`;
}

/** Reads an `--adapter` value: the preference (with a deprecation note for a former spelling), or an error naming the words. */
export function parseAdapterOption(value: string): { preference: AdapterPreference; note?: string } | { error: string } {
    if (isAdapterPreference(value)) return { preference: value };
    const renamed = Object.hasOwn(formerSpellings, value) ? formerSpellings[value] : undefined;
    if (renamed) return { preference: renamed, note: `--adapter ${value} is deprecated; write --adapter ${renamed} (the spelling of the language's device line)` };
    return { error: `--adapter must be one of ${adapterPreferenceNames.join(', ')}; found '${value}'` };
}
