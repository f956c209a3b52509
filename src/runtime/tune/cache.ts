/**
 * The measured tuning cache: which kernel variant each op signature uses on one adapter, as
 * chosen by timing the candidates (./tuner.ts). One file per adapter in the user's cache,
 * `<user cache>/tenancy/tuning/<adapter-file>.json` (report/write.ts userCacheFolder), versioned and
 * validated with zod, written atomically (temp file + rename). A workspace may also pin
 * choices in `.tenancy/tuning.json` (the multi-adapter format of plan/tuning.ts); its
 * entries win over the user cache. A file that cannot be read or does not validate is
 * reported through `onWarning` and ignored — tuning never stops a run.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { userCacheFolder, writeFileAtomic } from '../report/write.js';
import { adapterKey, tuningFileSchema, type AdapterIdentity, type TuningCache } from '../plan/tuning.js';

/** Version of the per-adapter cache file; bump on incompatible changes (older files are ignored with a warning). */
export const TUNING_CACHE_VERSION = 1;

const candidateSchema = z.object({
    variant: z.string(),
    /** Median GPU time of one run of the op's launches, ms; null when the candidate failed. */
    ms: z.number().nonnegative().nullable(),
    /** Why a candidate was not usable (compile error, wrong result). */
    error: z.string().optional(),
});

/** One tuned choice. */
export const tunedEntrySchema = z.object({
    variant: z.string(),
    /** Median GPU time of the chosen variant, ms. */
    ms: z.number().nonnegative(),
    /** Every candidate measured (fastest first), so a later reader sees the margin. */
    candidates: z.array(candidateSchema),
    /** ISO date of the measurement. */
    tunedAt: z.string(),
    /** Host load average (1 min) when measured, if known: software adapters share the CPU. */
    loadAverage: z.number().optional(),
});
export type TunedEntry = z.infer<typeof tunedEntrySchema>;

/** The per-adapter cache file. */
export const tuningCacheFileSchema = z.object({
    tuningCacheVersion: z.literal(TUNING_CACHE_VERSION),
    adapterKey: z.string(),
    adapter: z.object({ vendor: z.string(), architecture: z.string(), device: z.string(), description: z.string() }),
    /** Op signature (plan/tuning.ts opSignature) → choice. */
    entries: z.record(z.string(), tunedEntrySchema),
});
export type TuningCacheFile = z.infer<typeof tuningCacheFileSchema>;

/** The user-level folder holding one tuning file per adapter. */
export function userTuningDir(env: NodeJS.ProcessEnv = process.env): string {
    return userCacheFolder('tuning', env);
}

/** A file name for an adapter key: readable slug + hash (keys hold '/', spaces and driver versions). */
export function adapterFileName(key: string): string {
    const slug = key.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'adapter';
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
    return `${slug}-${hash}.json`;
}

/** Path of an adapter's user cache file. */
export function userTuningPath(key: string, dir = userTuningDir()): string {
    return join(dir, adapterFileName(key));
}

/** Path of a workspace's pinned tuning file. */
export function workspaceTuningPath(workspaceFolder: string): string {
    return join(workspaceFolder, '.tenancy', 'tuning.json');
}

function zodProblems(error: z.ZodError): string {
    return error.issues.slice(0, 3).map(i => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

async function readJson(path: string): Promise<{ value?: unknown; missing?: boolean; problem?: string }> {
    let text: string;
    try {
        text = await readFile(path, 'utf8');
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
        return { problem: `cannot read it: ${(error as Error).message}` };
    }
    try {
        return { value: JSON.parse(text) };
    } catch (error) {
        return { problem: `it is not JSON (${(error as Error).message})` };
    }
}

/** Options of {@link loadTuningCache}. */
export interface LoadTuningOptions {
    adapter: AdapterIdentity;
    /** Folder of the per-adapter files (default userTuningDir()). */
    userDir?: string;
    /** Workspace folder whose `.tenancy/tuning.json` pins choices (optional). */
    workspaceFolder?: string;
    /** Receives one line per unusable file (the file is then ignored). */
    onWarning?: (message: string) => void;
}

/**
 * The tuning cache of one adapter: the user file's measured entries plus the workspace's
 * pinned choices. Lookups for other adapters return undefined (choices never cross adapters).
 */
export class AdapterTuningCache implements TuningCache {
    readonly key: string;
    private readonly entries = new Map<string, TunedEntry>();
    private readonly pinned = new Map<string, string>();
    private dirty = false;

    constructor(readonly adapter: AdapterIdentity, readonly path: string, file?: TuningCacheFile, pinned?: Record<string, string>) {
        this.key = adapterKey(adapter);
        for (const [sig, e] of Object.entries(file?.entries ?? {})) this.entries.set(sig, e);
        for (const [sig, v] of Object.entries(pinned ?? {})) this.pinned.set(sig, v);
    }

    /** The chosen variant (workspace pin first, then the measured entry). */
    variantFor(adapter: string, signature: string): string | undefined {
        if (adapter !== this.key) return undefined;
        return this.pinned.get(signature) ?? this.entries.get(signature)?.variant;
    }

    /** True when the signature has a measured entry or a pin. */
    has(signature: string): boolean {
        return this.pinned.has(signature) || this.entries.has(signature);
    }

    /** The measured entry of a signature, if any. */
    entry(signature: string): TunedEntry | undefined {
        return this.entries.get(signature);
    }

    /** Records a measured choice (saved by {@link save}). */
    record(signature: string, entry: TunedEntry): void {
        this.entries.set(signature, tunedEntrySchema.parse(entry));
        this.dirty = true;
    }

    /** Number of measured entries. */
    get size(): number {
        return this.entries.size;
    }

    /** The cache as its file content. */
    toFile(): TuningCacheFile {
        const { vendor, architecture, device, description } = this.adapter;
        return {
            tuningCacheVersion: TUNING_CACHE_VERSION, adapterKey: this.key, adapter: { vendor, architecture, device, description },
            entries: Object.fromEntries([...this.entries].sort(([a], [b]) => a.localeCompare(b))),
        };
    }

    /** Writes the user file atomically if anything was recorded; returns whether it wrote. */
    async save(): Promise<boolean> {
        if (!this.dirty) return false;
        await writeFileAtomic(this.path, `${JSON.stringify(this.toFile(), null, 2)}\n`);
        this.dirty = false;
        return true;
    }
}

/**
 * Loads an adapter's tuning cache: the user file (missing → empty; unreadable, not JSON, an
 * unknown version or another adapter's file → a warning and empty) and the workspace pins.
 */
export async function loadTuningCache(options: LoadTuningOptions): Promise<AdapterTuningCache> {
    const warn = options.onWarning ?? (() => undefined);
    const key = adapterKey(options.adapter);
    const path = userTuningPath(key, options.userDir ?? userTuningDir());
    let file: TuningCacheFile | undefined;
    const read = await readJson(path);
    if (read.problem) {
        warn(`tuning cache ${path} ignored: ${read.problem}; delete it or run with --tune to rebuild it`);
    } else if (!read.missing) {
        const parsed = tuningCacheFileSchema.safeParse(read.value);
        const version = (read.value as { tuningCacheVersion?: unknown } | null)?.tuningCacheVersion;
        if (!parsed.success) {
            warn(`tuning cache ${path} ignored: ${version !== undefined && version !== TUNING_CACHE_VERSION
                ? `it has version ${JSON.stringify(version)}, this tenancy reads version ${TUNING_CACHE_VERSION}`
                : `it does not match the schema (${zodProblems(parsed.error)})`}; run with --tune to rebuild it`);
        } else if (parsed.data.adapterKey !== key) {
            warn(`tuning cache ${path} ignored: it was written for adapter '${parsed.data.adapterKey}', not '${key}'`);
        } else {
            file = parsed.data;
        }
    }
    let pinned: Record<string, string> | undefined;
    if (options.workspaceFolder) {
        const wsPath = workspaceTuningPath(options.workspaceFolder);
        const ws = await readJson(wsPath);
        if (ws.problem) warn(`workspace tuning file ${wsPath} ignored: ${ws.problem}`);
        else if (!ws.missing) {
            const parsed = tuningFileSchema.safeParse(ws.value);
            if (!parsed.success) warn(`workspace tuning file ${wsPath} ignored: it does not match the schema (${zodProblems(parsed.error)})`);
            else pinned = parsed.data.adapters[key];
        }
    }
    return new AdapterTuningCache(options.adapter, path, file, pinned);
}
