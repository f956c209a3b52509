/** Quantity literals (`40ms`, `20/s`, `2GiB`): kind and value in the unit the IR uses. */

export type QuantityKind = 'time' | 'rate' | 'memory';

/** A parsed quantity: time in ms, rate per second, memory in bytes. */
export interface Quantity {
    kind: QuantityKind;
    value: number;
    text: string;
}

/**
 * The units of quantity literals (the grammar's QUANTITY terminal spells the same list), each
 * kind's in the order completion offers them: the factor converts to the IR's unit.
 */
export const quantityUnits: readonly { unit: string; kind: QuantityKind; factor: number }[] = [
    { unit: 'ms', kind: 'time', factor: 1 },
    { unit: 's', kind: 'time', factor: 1000 },
    { unit: 'us', kind: 'time', factor: 1e-3 },
    { unit: '/s', kind: 'rate', factor: 1 },
    { unit: 'MiB', kind: 'memory', factor: 2 ** 20 },
    { unit: 'GiB', kind: 'memory', factor: 2 ** 30 },
    { unit: 'KiB', kind: 'memory', factor: 2 ** 10 },
    { unit: 'MB', kind: 'memory', factor: 1e6 },
    { unit: 'GB', kind: 'memory', factor: 1e9 },
    { unit: 'KB', kind: 'memory', factor: 1e3 },
];

const unitsByText = new Map(quantityUnits.map(u => [u.unit, u]));
const quantityPattern = new RegExp(`^(\\d+(?:\\.\\d+)?)(${quantityUnits.map(u => u.unit.replace('/', '\\/')).join('|')})$`);

/** Parses a QUANTITY token's text; undefined if it is not one. */
export function parseQuantity(text: string): Quantity | undefined {
    const match = quantityPattern.exec(text);
    if (!match) return undefined;
    const unit = unitsByText.get(match[2])!;
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
