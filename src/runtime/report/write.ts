/**
 * Where results files live and how they are written: atomically (a temp file in the same
 * folder, fsync, rename), so a reader (the language server, the extension) never sees half a
 * file, plus a timestamped copy in `history/`. Node fs only; no webgpu.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
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

/** Writes results JSON to the latest file and a history copy; returns both paths. */
export async function writeResultsFiles(paths: ResultsPaths, results: unknown, finishedAt: Date): Promise<{ latest: string; history: string }> {
    // Serialise first: a value that cannot be serialised must not touch the existing files.
    const text = `${JSON.stringify(results, null, 2)}\n`;
    let history = paths.historyFile(finishedAt);
    for (let n = 1; existsSync(history); n++) history = history.replace(/(\.\d+)?\.json$/, `.${n}.json`);
    await writeFileAtomic(history, text);
    await writeFileAtomic(paths.latest, text);
    return { latest: paths.latest, history };
}

