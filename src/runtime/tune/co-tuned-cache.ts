/**
 * The co_tuned cache: the configurations co_tuned's search chose (predict/co-tuned.ts), one file
 * per adapter as the device profile names it, `<user cache>/tenancy/co-tuned/<adapter-file>.json`
 * (beside the tuning cache, ./cache.ts: versioned, validated with zod, written atomically). An
 * entry is keyed by the sha-256 of everything the search reads (the tenants, the profile, the seed,
 * `variants`, the search's revision), so a changed workload or a recalibrated profile misses and
 * is searched again. A file that cannot be read or does not validate is reported through
 * `onWarning` and ignored: the cache only ever saves a search.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { userCacheFolder, writeFileAtomic } from '../report/write.js';
import { adapterKey, type AdapterIdentity } from '../plan/tuning.js';
import type { CoTunedStore } from '../predict/co-tuned.js';
import type { CoTunedOptions } from '../schedule/co-tuned.js';
import { adapterFileName } from './cache.js';

/** Version of the cache file; bump on incompatible changes (older files are ignored with a warning). */
const CO_TUNED_CACHE_VERSION = 1;

const entrySchema = z.object({
    variants: z.number().int().positive(),
    parallelism: z.number().positive(),
    workgroups: z.array(z.number().int().positive()),
    versions: z.record(z.string(), z.number().int().nonnegative()),
    why: z.string(),
    /** The predicted SLO-satisfied throughput the search reached (requests/s, halved per missed SLO). */
    objective: z.number().nonnegative(),
    searchedAt: z.string(),
});
type CoTunedEntry = z.infer<typeof entrySchema>;

const fileSchema = z.object({
    coTunedCacheVersion: z.literal(CO_TUNED_CACHE_VERSION),
    adapterKey: z.string(),
    entries: z.record(z.string(), entrySchema),
});

/** The user-level folder holding one co_tuned file per adapter. */
function userCoTunedDir(env: NodeJS.ProcessEnv = process.env): string {
    return userCacheFolder('co-tuned', env);
}

/** One adapter's searched co_tuned configurations (a CoTunedStore), saved by {@link save}. */
export class CoTunedCache implements CoTunedStore {
    private readonly entries = new Map<string, CoTunedEntry>();
    private dirty = false;

    constructor(readonly adapterKey: string, readonly path: string, entries: Record<string, CoTunedEntry> = {}) {
        for (const [k, e] of Object.entries(entries)) this.entries.set(k, e);
    }

    lookup(key: string): { coTuned: CoTunedOptions; why: string } | undefined {
        const e = this.entries.get(hash(key));
        return e ? { coTuned: { variants: e.variants, parallelism: e.parallelism, workgroups: e.workgroups, versions: e.versions }, why: e.why } : undefined;
    }

    record(key: string, found: { coTuned: CoTunedOptions; why: string; objective: number }): void {
        const { variants, parallelism, workgroups, versions } = found.coTuned;
        this.entries.set(hash(key), entrySchema.parse({
            variants, parallelism, workgroups: [...workgroups], versions: { ...versions }, why: found.why,
            objective: Number.isFinite(found.objective) ? found.objective : 0, searchedAt: new Date().toISOString(),
        }));
        this.dirty = true;
    }

    /** Number of stored configurations. */
    get size(): number {
        return this.entries.size;
    }

    /** Writes the file atomically if anything was recorded; returns whether it wrote. */
    async save(): Promise<boolean> {
        if (!this.dirty) return false;
        const file = { coTunedCacheVersion: CO_TUNED_CACHE_VERSION, adapterKey: this.adapterKey, entries: Object.fromEntries([...this.entries].sort(([a], [b]) => a.localeCompare(b))) };
        await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`);
        this.dirty = false;
        return true;
    }
}

function hash(key: string): string {
    return createHash('sha256').update(key).digest('hex');
}

/** Loads an adapter's co_tuned cache (missing → empty; unreadable, invalid or another adapter's → a warning and empty). */
export async function loadCoTunedCache(options: { adapter: AdapterIdentity; userDir?: string; onWarning?: (message: string) => void }): Promise<CoTunedCache> {
    const key = adapterKey(options.adapter);
    const path = join(options.userDir ?? userCoTunedDir(), adapterFileName(key));
    const ignored = (why: string) => {
        options.onWarning?.(`co_tuned cache ${path} ignored: ${why}; it is rewritten after the next search`);
        return new CoTunedCache(key, path);
    };
    let text: string;
    try {
        text = await readFile(path, 'utf8');
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new CoTunedCache(key, path);
        return ignored(`cannot read it: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch (error) {
        return ignored(`it is not JSON (${(error as Error).message})`);
    }
    const parsed = fileSchema.safeParse(value);
    if (!parsed.success) {
        const version = (value as { coTunedCacheVersion?: unknown } | null)?.coTunedCacheVersion;
        return ignored(version !== undefined && version !== CO_TUNED_CACHE_VERSION
            ? `it has version ${JSON.stringify(version)}, this tenancy reads version ${CO_TUNED_CACHE_VERSION}`
            : `it does not match the schema (${parsed.error.issues.slice(0, 3).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')})`);
    }
    if (parsed.data.adapterKey !== key) return ignored(`it was written for adapter '${parsed.data.adapterKey}', not '${key}'`);
    return new CoTunedCache(key, path, parsed.data.entries);
}
