import { describe, expect, test } from 'vitest';
import { formatBytes, formatCount, formatFlops } from '../../src/language-server/analysis/format.js';

describe('figures in messages', () => {
    test('ordinary sizes', () => {
        expect(formatBytes(1536)).toBe('1.5 KiB');
        expect(formatFlops(3.6e9)).toBe('3.6 GFLOP');
        expect(formatCount(11.7e6)).toBe('11.7 M');
    });

    test('a product past what a double holds is said, not printed as Infinity or NaN', () => {
        expect(formatBytes(Infinity)).toBe('more than 1.8e308 B');
        expect(formatFlops(Infinity)).toBe('more than 1.8e308 FLOP');
        expect(formatCount(Infinity - Infinity)).toBe('more than 1.8e308'); // NaN: an overflow subtracted from another
    });
});
