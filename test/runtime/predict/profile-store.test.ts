import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultProfile, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { cachedProfile, locateProfile, profileCacheDir, readProfileFile, workspaceProfilePath, writeProfile } from '../../../src/runtime/predict/profile-store.js';

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
