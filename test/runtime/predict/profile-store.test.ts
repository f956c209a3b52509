import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultProfile, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { cachedProfile, locateProfile, profileCacheDir, readProfileFile, readProfileToPredict, workspaceProfilePath, writeProfile } from '../../../src/runtime/predict/profile-store.js';

function calibrated(key: string, device: string): DeviceProfile {
    return { ...defaultProfile(), uncalibrated: false, key, adapter: { vendor: 'mesa', architecture: 'software', device, description: 'd' } };
}

describe('profile store', () => {
    it('writes to the cache and the workspace and finds the workspace copy first', async () => {
        const root = mkdtempSync(join(tmpdir(), 'tenancy-profile-'));
        const env = { XDG_CACHE_HOME: join(root, 'cache') };
        const ws = join(root, 'ws');
        mkdirSync(ws);
        expect(profileCacheDir(env)).toBe(join(root, 'cache', 'tenancy', 'profiles'));
        const paths = await writeProfile(calibrated('k1', 'one'), ws, env);
        expect(paths).toEqual([join(profileCacheDir(env), 'k1.json'), workspaceProfilePath(ws)]);
        expect(readProfileFile(paths[0]).adapter.device).toBe('one');
        // No temp files are left behind by the atomic write.
        expect(readdirSync(join(ws, '.tenancy')).filter(f => f.endsWith('.tmp'))).toEqual([]);
        await writeProfile(calibrated('k2', 'two'), undefined, env);
        expect(locateProfile(ws, env).profile.adapter.device).toBe('one');
        // Without a workspace copy, the newest cached profile.
        expect(['one', 'two']).toContain(locateProfile(join(root, 'elsewhere'), env).profile.adapter.device);
    });
    it('reads the cached profile of an adapter key (the calibration a new one replaces); none when absent or broken', async () => {
        const root = mkdtempSync(join(tmpdir(), 'tenancy-profile-'));
        const env = { XDG_CACHE_HOME: join(root, 'cache') };
        expect(cachedProfile('k1', env)).toBeUndefined();
        await writeProfile(calibrated('k1', 'one'), undefined, env);
        expect(cachedProfile('k1', env)?.adapter.device).toBe('one');
        expect(cachedProfile('k2', env)).toBeUndefined();
        writeFileSync(join(profileCacheDir(env), 'k3.json'), '{"schemaVersion": 1');
        expect(cachedProfile('k3', env)).toBeUndefined();
    });
    it('reads a profile to predict with at the host\'s usual speed; calibration reads it as written', async () => {
        const root = mkdtempSync(join(tmpdir(), 'tenancy-profile-'));
        const env = { XDG_CACHE_HOME: join(root, 'cache') };
        const history = [2, 2.2, 2.4].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        // Calibrated at 3.3 ms against earlier 2, 2.2 and 2.4: the median of the four is 2.3 ms.
        const written = { ...calibrated('k1', 'one'), hostSpeedProbeMs: 3.3, hostSpeedHistory: history };
        const [cacheFile, workspaceFile] = await writeProfile(written, root, env);
        for (const read of [readProfileToPredict(workspaceFile), locateProfile(root, env).profile, locateProfile(join(root, 'elsewhere'), env).profile]) {
            expect(read.usualSpeed).toEqual({ factor: expect.closeTo(2.3 / 3.3, 12), calibrations: 4, by: 'reference request' });
            expect(read.kernelFloorMs).toBeCloseTo(written.kernelFloorMs * 2.3 / 3.3, 12);
        }
        // What the next calibration carries over: the time it measured, not the scaled one.
        expect(cachedProfile('k1', env)?.hostSpeedProbeMs).toBe(3.3);
        expect(readProfileFile(cacheFile).usualSpeed).toBeUndefined();
    });
    it('falls back to the labelled default and reports a broken file', () => {
        const root = mkdtempSync(join(tmpdir(), 'tenancy-profile-'));
        const env = { XDG_CACHE_HOME: join(root, 'cache') };
        const none = locateProfile(root, env);
        expect(none.profile.uncalibrated).toBe(true);
        expect(none.problem).toBeUndefined();
        mkdirSync(join(root, '.tenancy'));
        writeFileSync(workspaceProfilePath(root), '{"schemaVersion": 1');
        const broken = locateProfile(root, env);
        expect(broken.profile.uncalibrated).toBe(true);
        expect(broken.problem).toMatch(/not valid JSON/);
    });
});
