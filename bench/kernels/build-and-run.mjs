// Bundles bench/kernels/run.ts with esbuild into bench/.work/ and runs it on the project's Node.
// Usage: node bench/kernels/build-and-run.mjs [--quick] [--only matmul|conv|bert|overhead]
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(root, 'bench/.work');
mkdirSync(work, { recursive: true });
await esbuild.build({
    entryPoints: [path.join(root, 'bench/kernels/run.ts')],
    outfile: path.join(work, 'kernels-bench.mjs'),
    bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning',
    external: ['webgpu', '@tensorflow/*'],
    banner: { js: "import { createRequire as __req } from 'node:module'; const require = __req(import.meta.url);" },
});
const node = path.join(root, 'node_modules/.bin/node');
const env = { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? work };
const r = spawnSync(node, [path.join(work, 'kernels-bench.mjs'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root, env });
process.exit(r.status ?? 1);
