import { describe, expect, it } from 'vitest';
import { Config, type ConfigurationReader } from '../../src/extension/config.js';

function config(values: Record<string, unknown>): Config {
    const reader: ConfigurationReader = { get: <T>(key: string) => values[key] as T | undefined };
    return new Config(() => reader);
}

describe('Config', () => {
    it('returns the documented defaults when nothing is set', () => {
        const c = config({});
        expect(c.runDurationSeconds).toBeUndefined();
        expect(c.runAdapter).toBe('workload');
        expect(c.resultsFolder).toBe('.tenancy/results');
        expect(c.runtimeNodePath).toBeUndefined();
        expect(c.traceServer).toBe('off');
    });
    it('returns valid set values', () => {
        const c = config({
            'run.duration': 2.5, 'run.adapter': 'low_power',
            'results.folder': ' out/results ', 'runtime.nodePath': '/usr/bin/node24', 'trace.server': 'verbose',
        });
        expect(c.runDurationSeconds).toBe(2.5);
        expect(c.runAdapter).toBe('low_power');
        expect(c.resultsFolder).toBe('out/results');
        expect(c.runtimeNodePath).toBe('/usr/bin/node24');
        expect(c.traceServer).toBe('verbose');
    });
    it('falls back to defaults for values of the wrong type or range', () => {
        const c = config({
            'run.duration': -1, 'run.adapter': 'gpu0',
            'results.folder': '  ', 'runtime.nodePath': 42, 'trace.server': true,
        });
        expect(c.runDurationSeconds).toBeUndefined();
        expect(c.runAdapter).toBe('workload');
        expect(c.resultsFolder).toBe('.tenancy/results');
        expect(c.runtimeNodePath).toBeUndefined();
        expect(c.traceServer).toBe('off');
    });
    it('reads the settings afresh on each access (a settings change needs no reload)', () => {
        const values: Record<string, unknown> = { 'run.duration': 1 };
        const c = config(values);
        expect(c.runDurationSeconds).toBe(1);
        values['run.duration'] = 4;
        expect(c.runDurationSeconds).toBe(4);
    });
});
