#!/usr/bin/env node
// The `tenancy` command: runs the bundled CLI (build it with `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../out/cli/main.mjs', import.meta.url));
if (!existsSync(bundle)) {
    console.error(`tenancy: ${bundle} is missing. Build it first: npm run build`);
    process.exit(2);
}
await import(bundle);
