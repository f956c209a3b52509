import { afterEach, describe, expect, it } from 'vitest';
import { dawnPolling, dawnPollingFromEnvironment, pacedImmediate, POLL_INTERVAL_MS, setDawnPolling } from '../../../src/runtime/gpu/dawn-polling.js';

describe('Dawn polling', () => {
    afterEach(() => setDawnPolling('spin'));

    it('sleeps the poll interval, then schedules the callback with its arguments', async () => {
        const calls: string[] = [];
        const immediate = ((callback: (...args: unknown[]) => void, ...args: unknown[]) => {
            calls.push('immediate');
            return setImmediate(callback, ...args);
        }) as typeof setImmediate;
        const paced = pacedImmediate(immediate, ms => calls.push(`sleep ${ms}`));
        const got = await new Promise<unknown[]>(resolve => paced((...args: unknown[]) => resolve(args), 'a', 2));
        expect(got).toEqual(['a', 2]);
        expect(calls).toEqual([`sleep ${POLL_INTERVAL_MS}`, 'immediate']);
    });

    it('replaces the global setImmediate once when paced and restores it for spin', async () => {
        const before = globalThis.setImmediate;
        setDawnPolling('paced');
        const paced = globalThis.setImmediate;
        expect(paced).not.toBe(before);
        expect(dawnPolling()).toBe('paced');
        setDawnPolling('paced');
        expect(globalThis.setImmediate).toBe(paced);
        // Still a working setImmediate (the real sleep, then the original).
        await new Promise<void>(resolve => setImmediate(resolve));
        setDawnPolling('spin');
        expect(globalThis.setImmediate).toBe(before);
        expect(dawnPolling()).toBe('spin');
    });

    it('is paced unless the environment asks for spin', () => {
        expect(dawnPollingFromEnvironment({})).toBe('paced');
        expect(dawnPollingFromEnvironment({ TENANCY_DAWN_POLLING: 'spin' })).toBe('spin');
        expect(dawnPollingFromEnvironment({ TENANCY_DAWN_POLLING: 'paced' })).toBe('paced');
    });
});
