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
    return typeof a.architecture === 'string' && a.architecture !== '' ? `${name} (${a.architecture})` : name;
}
