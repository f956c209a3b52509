/** Quantity literals (`40ms`, `20/s`, `2GiB`): kind and value in the unit the IR uses. */

export type QuantityKind = 'time' | 'rate' | 'memory';

/** A parsed quantity: time in ms, rate per second, memory in bytes. */
export interface Quantity {
    kind: QuantityKind;
    value: number;
    text: string;
}

const units: Record<string, { kind: QuantityKind; factor: number }> = {
    us: { kind: 'time', factor: 1e-3 },
    ms: { kind: 'time', factor: 1 },
    s: { kind: 'time', factor: 1000 },
    '/s': { kind: 'rate', factor: 1 },
    KiB: { kind: 'memory', factor: 2 ** 10 },
    MiB: { kind: 'memory', factor: 2 ** 20 },
    GiB: { kind: 'memory', factor: 2 ** 30 },
    KB: { kind: 'memory', factor: 1e3 },
    MB: { kind: 'memory', factor: 1e6 },
    GB: { kind: 'memory', factor: 1e9 },
};

/** Parses a QUANTITY token's text; undefined if it is not one. */
export function parseQuantity(text: string): Quantity | undefined {
    const match = /^(\d+(?:\.\d+)?)(us|ms|s|\/s|KiB|MiB|GiB|KB|MB|GB)$/.exec(text);
    if (!match) return undefined;
    const unit = units[match[2]];
    return { kind: unit.kind, value: Number(match[1]) * unit.factor, text };
}

/** "a time (e.g. 40ms)" for messages. */
export function quantityKindText(kind: QuantityKind): string {
    switch (kind) {
        case 'time': return 'a time (e.g. 40ms, 0.5s)';
        case 'rate': return 'a rate (e.g. 20/s)';
        case 'memory': return 'a memory size (e.g. 512MiB, 2GiB)';
    }
}
