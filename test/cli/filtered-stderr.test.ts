import { describe, expect, it } from 'vitest';
import { isNativeNoise, StderrFilter } from '../../src/cli/filtered-stderr.js';

const uniform = 'Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.';
const storage = 'Warning: maxDynamicStorageBuffersPerPipelineLayout artificially reduced from 500000 to 16 to fit dynamic offset allocation limit.';
const xdg = 'error: XDG_RUNTIME_DIR is invalid or not set in the environment.';

/** Feeds the chunks and the end of stream; returns what passed. */
function filtered(...chunks: string[]): string {
    const filter = new StderrFilter();
    return chunks.map(c => filter.push(c)).join('') + filter.flush();
}

describe('isNativeNoise', () => {
    it("matches Dawn's two limit notices and libwayland's XDG_RUNTIME_DIR complaint, whole lines only", () => {
        expect([uniform, storage, xdg].map(isNativeNoise)).toEqual([true, true, true]);
        expect(isNativeNoise(`${uniform} (and more)`)).toBe(false);
        expect(isNativeNoise('Warning: maxDynamicUniformBuffersPerPipelineLayout is 0')).toBe(false);
        expect(isNativeNoise('Warning: vkCreateInstance: Found no drivers!')).toBe(false);
    });
});

describe('StderrFilter', () => {
    it('drops the notices and keeps every other line, in order', () => {
        expect(filtered(`${uniform}\n${storage}\ntenancy run: no such file\n${xdg}\nWarning: vkCreateInstance: Found no drivers!\n`))
            .toBe('tenancy run: no such file\nWarning: vkCreateInstance: Found no drivers!\n');
    });

    it('drops a notice split across chunks, and one with a Windows line ending', () => {
        expect(filtered('Warn', 'ing: maxDynamicUniformBuffers', `PerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.\r\nok\n`))
            .toBe('ok\n');
    });

    it('passes a partial line that cannot become a notice at once (progress that redraws itself with \\r)', () => {
        const filter = new StderrFilter();
        expect(filter.push('\r\x1b[Kcalibrate [  5%] gemm')).toBe('\r\x1b[Kcalibrate [  5%] gemm');
        expect(filter.push('\r\x1b[Kcalibrate [ 10%] conv')).toBe('\r\x1b[Kcalibrate [ 10%] conv');
        expect(filter.push('\n')).toBe('\n');
    });

    it('holds a partial line that may become a notice until its end, then keeps it when it does not', () => {
        const filter = new StderrFilter();
        expect(filter.push('Warning: maxDynamic')).toBe('');
        expect(filter.push('StorageBuffersPerPipelineLayout is fine\n')).toBe('Warning: maxDynamicStorageBuffersPerPipelineLayout is fine\n');
    });

    it('writes an unterminated last line at the end of the stream, unless it is a notice', () => {
        expect(filtered('Warning: maxDynamic')).toBe('Warning: maxDynamic');
        expect(filtered(uniform)).toBe('');
        expect(filtered('done')).toBe('done');
    });

    it('keeps the rest of a line whose start was already passed, even if it reads like a notice', () => {
        expect(filtered('x', `${uniform}\n`)).toBe(`x${uniform}\n`);
    });
});
