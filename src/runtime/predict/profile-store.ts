/**
 * Where device profiles live and how they are read and written: the user cache
 * (`<user cache>/tenancy/profiles/<key>.json`) and the workspace copy
 * (`<workspace>/.tenancy/device-profile.json`), both written atomically (temp + rename).
 * node:fs only; no webgpu (the language server reads profiles through this).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { userCacheFolder, writeFileAtomic } from '../report/write.js';
import { atUsualSpeed, defaultProfile, parseProfile, type DeviceProfile } from './profile.js';

/** `<user cache>/tenancy/profiles` (report/write.ts userCacheFolder). */
export function profileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
    return userCacheFolder('profiles', env);
}

/** `<workspace>/.tenancy/device-profile.json`. */
export function workspaceProfilePath(workspaceFolder: string): string {
    return join(workspaceFolder, '.tenancy', 'device-profile.json');
}

/** Reads and validates a profile file; throws naming the file on a bad or unreadable one. */
export function readProfileFile(file: string): DeviceProfile {
    let text: string;
    try {
        text = readFileSync(file, 'utf8');
    } catch (e) {
        throw new Error(`cannot read device profile ${file}: ${(e as Error).message}`);
    }
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (e) {
        throw new Error(`device profile ${file} is not valid JSON: ${(e as Error).message}`);
    }
    return parseProfile(json, `device profile ${file}`);
}

/**
 * A profile file read to predict with: its times at the host's usual speed (profile.ts
 * atUsualSpeed). Every prediction, the editor's, the CLI's and the benchmarks', reads through
 * this or locateProfile; calibration reads the file as it is (cachedProfile).
 */
export function readProfileToPredict(file: string): DeviceProfile {
    return atUsualSpeed(readProfileFile(file));
}

/** The profile of this adapter key in the user cache (the last calibration of this adapter here), or undefined when there is none or it cannot be read. */
export function cachedProfile(key: string, env: NodeJS.ProcessEnv = process.env): DeviceProfile | undefined {
    const file = join(profileCacheDir(env), `${key}.json`);
    if (!existsSync(file)) return undefined;
    try {
        return readProfileFile(file);
    } catch {
        // A broken earlier profile is replaced, not a reason to refuse the new one; its history is lost with it.
        return undefined;
    }
}

/** Writes a profile to the user cache and (when given) the workspace; returns the paths written. */
export async function writeProfile(profile: DeviceProfile, workspaceFolder: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
    const text = JSON.stringify(profile, null, 2) + '\n';
    const paths = [join(profileCacheDir(env), `${profile.key}.json`)];
    if (workspaceFolder) paths.push(workspaceProfilePath(workspaceFolder));
    for (const p of paths) await writeFileAtomic(p, text);
    return paths;
}

/** A profile found for a workspace, with where it came from (or the default, with why). */
export interface LocatedProfile {
    profile: DeviceProfile;
    /** The file read, or undefined for the built-in default. */
    file?: string;
    /** Set when a profile file exists but could not be used (the default is used instead). */
    problem?: string;
}

/**
 * The profile to predict with for a workspace: `<workspace>/.tenancy/device-profile.json`, else
 * the newest profile in the user cache (each at the host's usual speed: readProfileToPredict),
 * else the uncalibrated default. A broken file is reported in `problem` (and skipped), never
 * thrown: the editor must keep working.
 */
export function locateProfile(workspaceFolder: string | undefined, env: NodeJS.ProcessEnv = process.env): LocatedProfile {
    const problems: string[] = [];
    const candidates: string[] = [];
    if (workspaceFolder) candidates.push(workspaceProfilePath(workspaceFolder));
    const dir = profileCacheDir(env);
    if (existsSync(dir)) {
        try {
            const cached = readdirSync(dir).filter(f => f.endsWith('.json')).map(f => join(dir, f));
            cached.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
            candidates.push(...cached);
        } catch (e) {
            problems.push(`cannot list ${dir}: ${(e as Error).message}`);
        }
    }
    for (const file of candidates) {
        if (!existsSync(file)) continue;
        try {
            return { profile: readProfileToPredict(file), file, problem: problems.length > 0 ? problems.join('; ') : undefined };
        } catch (e) {
            problems.push((e as Error).message);
        }
    }
    return { profile: defaultProfile(), problem: problems.length > 0 ? problems.join('; ') : undefined };
}
