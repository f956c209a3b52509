/**
 * Where results files live and how they are written: atomically (a temp file in the same
 * folder, fsync, rename), so a reader (the language server, the extension) never sees half a
 * file, plus a timestamped copy in `history/`. Node fs only; no webgpu.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import envPaths from 'env-paths';
import atomicWrite from 'write-file-atomic';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A folder of Tenancy's per-user cache (device profiles, tuning choices): the platform's cache
 * folder (env-paths: `~/.cache/tenancy` on Linux, `~/Library/Caches/tenancy` on macOS,
 * `%LOCALAPPDATA%\tenancy\Cache` on Windows); `$XDG_CACHE_HOME/tenancy` wherever it is set.
 */
export function userCacheFolder(part: string, env: NodeJS.ProcessEnv = process.env): string {
    const xdg = env.XDG_CACHE_HOME?.trim();
    return join(xdg ? join(xdg, 'tenancy') : envPaths('tenancy', { suffix: '' }).cache, part);
}

/** Paths of a workload's results. */
export interface ResultsPaths {
    /** `<dir>/<file-stem>.<workload>.json`, the latest results. */
    latest: string;
    /** `<dir>/history`. */
    historyDir: string;
    /** Builds `<dir>/history/<file-stem>.<workload>.<time>.json` (time with `:` → `-`, filesystem-safe). */
    historyFile(time: Date): string;
}

/** The workspace folder of a source file: the nearest ancestor holding `.tenancy`, `.git`, `.vscode` or `package.json`, else the file's folder. */
export function workspaceFolderOf(sourceFile: string): string {
    const start = dirname(resolve(sourceFile));
    for (let dir = start; ; dir = dirname(dir)) {
        for (const marker of ['.tenancy', '.git', '.vscode', 'package.json']) {
            if (existsSync(join(dir, marker))) return dir;
        }
        if (dirname(dir) === dir) return start;
    }
}

/** The source file path of a document URI (file: URIs or plain paths); undefined for other schemes. */
export function sourcePathOf(uri: string): string | undefined {
    if (uri.startsWith('file:')) return fileURLToPath(uri);
    if (/^[a-z][a-z0-9+.-]*:/i.test(uri) && !/^[a-z]:[\\/]/i.test(uri)) return undefined;
    return uri;
}

/**
 * Results paths for a workload of a source file; `resultsDir` overrides `<workspace>/.tenancy/results`.
 * A run of some of the workload's tenants (`tenants`, e.g. ▶ Run solo) has files of its own,
 * `<stem>.<workload>.solo-<tenant>.json` or `….tenants-<a>+<b>.json`, so it never replaces the
 * workload's co-run results the editor shows. `kind` 'compare': `tenancy compare`'s file,
 * `<stem>.<workload>.compare.json` (report/compare.ts).
 */
export function resultsPathsFor(sourceFile: string, workload: string, resultsDir?: string, tenants?: readonly string[], kind?: 'compare'): ResultsPaths {
    const dir = resolve(resultsDir ?? join(workspaceFolderOf(sourceFile), '.tenancy', 'results'));
    const part = !tenants || tenants.length === 0 ? '' : tenants.length === 1 ? `.solo-${tenants[0]}` : `.tenants-${tenants.join('+')}`;
    const name = `${basename(sourceFile, extname(sourceFile))}.${workload}${part}${kind ? `.${kind}` : ''}`;
    const historyDir = join(dir, 'history');
    return {
        latest: join(dir, `${name}.json`),
        historyDir,
        historyFile: (time: Date) => join(historyDir, `${name}.${time.toISOString().replace(/:/g, '-')}.json`),
    };
}

/**
 * Writes text to `file` atomically (write-file-atomic: a temp file beside it, fsync, rename), so
 * a reader never sees a partial file and a failed write leaves the previous one intact. The
 * folder is created if needed. The one way Tenancy writes a file others read.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    await atomicWrite(file, text, { encoding: 'utf8', fsync: true });
}

/**
 * History copies kept per results file (a workload's, a solo run's, a comparison's): after each
 * write the newest {@link HISTORY_KEEP} stay and older ones are deleted, so the folder does not
 * grow without bound (README, "Limits and failure behaviour").
 */
export const HISTORY_KEEP = 50;

/** A results file that could not be written; `cause` is the file system's error. The files already there are unchanged. */
export class ResultsWriteError extends Error {
    /** Where the document was kept instead (the temp folder), when it could be. */
    kept?: string;
    constructor(readonly path: string, override readonly cause: unknown) {
        const code = (cause as NodeJS.ErrnoException | undefined)?.code;
        const reason = code === 'ENOSPC' ? 'the disk is full' : code === 'EROFS' ? 'the file system is read-only'
            : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : cause instanceof Error ? cause.message : String(cause);
        super(`could not write ${path}: ${reason}${code && !reason.includes(code) ? ` (${code})` : ''}`);
        this.name = 'ResultsWriteError';
    }
}

/** The history copies of a results file, newest first (`<name>.<time>[.n].json`; not those of a run of some tenants). */
export function historyFiles(paths: ResultsPaths): string[] {
    const prefix = `${basename(paths.latest, '.json')}.`;
    let names: string[];
    try {
        names = readdirSync(paths.historyDir);
    } catch {
        return [];
    }
    const stamp = (n: string) => n.slice(prefix.length).replace(/(\.\d+)?\.json$/, '');
    const copy = (n: string) => Number(/\.(\d+)\.json$/.exec(n.slice(prefix.length))?.[1] ?? 0);
    return names.filter(n => n.startsWith(prefix) && /^\d{4}-[\dT.Z-]+(\.\d+)?\.json$/.test(n.slice(prefix.length)))
        .sort((a, b) => stamp(b).localeCompare(stamp(a)) || copy(b) - copy(a))
        .map(n => join(paths.historyDir, n));
}

/**
 * Writes results JSON to a history copy and then to the latest file, each atomically, and
 * prunes the history to {@link HISTORY_KEEP}; returns both paths. Two writers of one results
 * file (two runs finishing together) each get a history copy of their own, and the latest file
 * is one of theirs, whole. Throws ResultsWriteError (disk full, read-only folder) with the
 * previous files intact.
 */
export async function writeResultsFiles(paths: ResultsPaths, results: unknown, finishedAt: Date): Promise<{ latest: string; history: string }> {
    // Serialise first: a value that cannot be serialised must not touch the existing files.
    const text = `${JSON.stringify(results, null, 2)}\n`;
    const history = await claimHistoryFile(paths, finishedAt);
    try {
        await writeFileAtomic(history, text);
    } catch (error) {
        await rm(history, { force: true }).catch(() => undefined);
        throw new ResultsWriteError(history, error);
    }
    try {
        await writeFileAtomic(paths.latest, text);
    } catch (error) {
        throw new ResultsWriteError(paths.latest, error);
    }
    await Promise.all(historyFiles(paths).slice(HISTORY_KEEP).map(f => rm(f, { force: true }).catch(() => undefined)));
    return { latest: paths.latest, history };
}

/** Creates an empty history file of a name no other writer holds (exclusive create), for writeFileAtomic to replace. */
async function claimHistoryFile(paths: ResultsPaths, finishedAt: Date): Promise<string> {
    const first = paths.historyFile(finishedAt);
    try {
        await mkdir(paths.historyDir, { recursive: true });
    } catch (error) {
        throw new ResultsWriteError(paths.historyDir, error);
    }
    for (let n = 0; ; n++) {
        const candidate = n === 0 ? first : first.replace(/\.json$/, `.${n}.json`);
        try {
            await (await open(candidate, 'wx')).close();
            return candidate;
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ResultsWriteError(candidate, error);
        }
    }
}
