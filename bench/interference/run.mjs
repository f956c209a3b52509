// Bundles bench/interference/main.ts into bench/.work/ and runs it on the project's Node.
// Usage: node bench/interference/run.mjs [--duration 1s] [--only mlp,cnn]
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outfile = join(root, 'bench/.work/interference.mjs');
await build({
    entryPoints: [join(root, 'bench/interference/main.ts')], outfile, bundle: true, platform: 'node', format: 'esm',
    target: 'node22', external: ['webgpu'], logLevel: 'warning',
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
const node = join(root, 'node_modules/.bin/node');
const result = spawnSync(node, [outfile, ...process.argv.slice(2)], { stdio: 'inherit', env: { XDG_RUNTIME_DIR: '/tmp', ...process.env } });
process.exit(result.status ?? 1);
