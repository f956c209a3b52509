/**
 * How an adapter is named in the editor (status item, report, lenses): short enough for a
 * status bar. Used by the server (results, profiles) and the extension (`tenancy devices`).
 * No dependencies.
 */

/**
 * `mesa llvmpipe (software)` from a WebGPU adapter info record: the vendor, the description up to
 * its first `:` or `(` (Dawn's descriptions carry driver versions), else the device id, and the
 * architecture. Undefined when the record names nothing.
 */
export function adapterDisplayName(adapter: unknown): string | undefined {
    if (typeof adapter !== 'object' || adapter === null) return undefined;
    const a = adapter as Record<string, unknown>;
    const description = typeof a.description === 'string' ? a.description.split(/[:(]/)[0]!.trim() : '';
    const device = typeof a.device === 'string' ? a.device : '';
    const vendor = typeof a.vendor === 'string' ? a.vendor : '';
    const model = description || device;
    // Avoid "nvidia NVIDIA GeForce…": drop the vendor when the model already starts with it.
    const name = vendor && !model.toLowerCase().startsWith(vendor.toLowerCase()) ? [vendor, model].filter(Boolean).join(' ') : model;
    if (!name) return undefined;
    return plainLabel(typeof a.architecture === 'string' && a.architecture !== '' ? `${name} (${a.architecture})` : name);
}

/**
 * A name read from a file (a results or profile file may be hand-edited or hostile) as plain
 * text for a status item or a table: one line, no control characters, no `$(icon)` syntax the
 * status bar would render, at most 80 characters.
 */
function plainLabel(text: string): string {
    // eslint-disable-next-line no-control-regex
    const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\$\(/g, '(').trim();
    return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The adapter preferences, spelled as the language's `device` line spells them. The CLI's
 * `--adapter` and the `tenancy.run.adapter` setting take these words; what each asks WebGPU for
 * is the runtime's business (src/runtime/gpu/adapter.ts).
 */
export const adapterPreferences = {
    auto: 'No preference: the adapter the system offers first.',
    high_performance: 'The high-performance adapter (a discrete GPU where there is one).',
    low_power: 'The low-power adapter (an integrated GPU where there is one).',
    fallback: 'The fallback (software) adapter.',
} as const;

/** One adapter preference: a key of {@link adapterPreferences}. */
export type AdapterPreference = keyof typeof adapterPreferences;

/** The preferences in table order. */
export const adapterPreferenceNames = Object.keys(adapterPreferences) as AdapterPreference[];

/** Whether a value is one of the preference words. */
export function isAdapterPreference(value: unknown): value is AdapterPreference {
    return typeof value === 'string' && Object.hasOwn(adapterPreferences, value);
}
