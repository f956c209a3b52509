/**
 * One spelling of the adapter preferences (src/protocol/adapter.ts) for the language's `device`
 * line, the IR, the CLI's `--adapter` and the `tenancy.run.adapter` setting.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseAdapterOption } from '../../src/cli/adapter-option.js';
import { Config, runAdapterSettings } from '../../src/extension/config.js';
import { buildRunArgs } from '../../src/extension/run.js';
import { DEVICE_PREFERENCES } from '../../src/runtime/ir/vocabulary.js';
import { adapterPreferenceNames, adapterPreferences, isAdapterPreference, type AdapterPreference } from '../../src/protocol/adapter.js';
import type { IrDevicePreference } from '../../src/runtime/ir/types.js';

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { enum?: string[]; enumDescriptions?: string[]; default?: unknown }> } };
};

describe('the adapter preference words', () => {
    it("are the language's device words and the IR's", () => {
        expect(adapterPreferenceNames).toEqual([...DEVICE_PREFERENCES]);
        expectTypeOf<AdapterPreference>().toEqualTypeOf<IrDevicePreference>();
        expect(adapterPreferenceNames.every(isAdapterPreference)).toBe(true);
        expect(isAdapterPreference('high-performance')).toBe(false);
    });

    it('are the setting tenancy.run.adapter, with `workload` first, and its descriptions come from the table', () => {
        const setting = manifest.contributes.configuration.properties['tenancy.run.adapter']!;
        expect(setting.enum).toEqual([...runAdapterSettings]);
        expect(setting.enum).toEqual(['workload', ...adapterPreferenceNames]);
        expect(setting.enumDescriptions!.slice(1)).toEqual(Object.values(adapterPreferences));
        expect(setting.default).toBe('workload');
    });

    it('reach the CLI unchanged from the setting', () => {
        for (const word of adapterPreferenceNames) {
            const config = new Config(() => ({ get: <T>() => word as T }));
            expect(config.runAdapter).toBe(word);
            const args = buildRunArgs({ cliPath: 'c', file: 'f', workload: 'w', adapter: config.runAdapter });
            expect(args.slice(args.indexOf('--adapter'), args.indexOf('--adapter') + 2)).toEqual(['--adapter', word]);
            expect(parseAdapterOption(word)).toEqual({ preference: word });
        }
    });
});

describe('parseAdapterOption (--adapter)', () => {
    it('takes the former hyphenated words, with a deprecation note naming the new one', () => {
        expect(parseAdapterOption('high-performance')).toEqual({
            preference: 'high_performance', note: expect.stringMatching(/--adapter high-performance is deprecated; write --adapter high_performance/),
        });
        expect(parseAdapterOption('low-power')).toMatchObject({ preference: 'low_power', note: expect.stringContaining('deprecated') });
    });

    it('rejects anything else, listing the words', () => {
        expect(parseAdapterOption('gpu0')).toEqual({ error: "--adapter must be one of auto, high_performance, low_power, fallback; found 'gpu0'" });
        expect(parseAdapterOption('')).toHaveProperty('error');
        expect(parseAdapterOption('toString')).toHaveProperty('error');
    });
});
