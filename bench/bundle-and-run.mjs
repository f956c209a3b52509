// Bundles one benchmark's TypeScript entry with esbuild into bench/.work/ and runs it on the
// project's Node (node_modules/.bin/node), passing the remaining arguments through.
// Usage: node bench/bundle-and-run.mjs bench/<suite>/<entry>.ts [args…]
import * as esbuild from 'esbuild';
import { cliBuild } from '../esbuild.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
    console.error('usage: node bench/bundle-and-run.mjs bench/<suite>/<entry>.ts [args…]');
    process.exit(64);
}
const work = path.join(root, 'bench/.work');
mkdirSync(work, { recursive: true });
// Named by folder and entry: bench/language/main.ts and bench/language/hints.ts are two bundles.
const outfile = path.join(work, `${path.basename(path.dirname(path.resolve(entry)))}-${path.basename(entry, '.ts')}-bench.mjs`);
await esbuild.build({
    entryPoints: [path.resolve(root, entry)],
    outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning',
    // Native or heavy packages load from node_modules at run time.
    external: ['webgpu', '@tensorflow/*'],
    loader: { '.tenancy': 'text' },
    // The CLI's banner: CommonJS dependencies get require() and __filename in an ESM bundle.
    banner: cliBuild.banner,
});
const node = path.join(root, 'node_modules/.bin/node');
const env = { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? work };
const result = spawnSync(node, [outfile, ...args], { stdio: 'inherit', cwd: root, env });
process.exit(result.status ?? 1);
