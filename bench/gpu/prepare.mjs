// Builds the kit bench/gpu/run.sh runs on a machine without this checkout's node_modules (a lent
// GPU machine has no registry and takes at most 64 MiB of ignored files): the CLI and the
// benchmark entries bundled with esbuild, and the `webgpu` package with only its Linux x64 Dawn
// build, in bench/.work/gpu-kit/ (about 31 MB). Carry that folder to the machine.
// Usage: node bench/gpu/prepare.mjs
import * as esbuild from 'esbuild';
import { cliBuild } from '../../esbuild.mjs';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const kit = path.join(root, 'bench/.work/gpu-kit');
rmSync(kit, { recursive: true, force: true });
mkdirSync(kit, { recursive: true });
const entries = {
    'cli': 'src/cli/main.ts',
    'schedules': 'bench/schedules/main.ts',
    'kernels': 'bench/kernels/run.ts',
    'accuracy': 'bench/accuracy/run.ts',
};
await esbuild.build({
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(root, file)])),
    outdir: kit, outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning',
    // TF.js is bundled (the kernel benchmark's comparison column): only Dawn's native module stays outside.
    external: ['webgpu'], loader: { '.tenancy': 'text' }, banner: cliBuild.banner, plugins: cliBuild.plugins,
});
// The bundles resolve `webgpu` from their folder upwards: kit/node_modules/webgpu.
const webgpu = path.join(root, 'node_modules/webgpu');
const staged = path.join(kit, 'node_modules/webgpu');
for (const f of ['package.json', 'index.js', 'LICENSE.md']) cpSync(path.join(webgpu, f), path.join(staged, f));
cpSync(path.join(webgpu, 'dist/linux-x64'), path.join(staged, 'dist/linux-x64'), { recursive: true });
console.log(`gpu kit: ${path.relative(root, kit)} (${Object.keys(entries).join(', ')}, webgpu linux-x64)`);
