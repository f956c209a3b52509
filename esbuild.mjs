// Bundles the three programs Tenancy ships:
//   out/extension/main.cjs        the VS Code client (CommonJS, `vscode` external)
//   out/language-server/main.cjs  the language server (CommonJS, runs over IPC or --stdio)
//   out/cli/main.mjs              the `tenancy` command: a launcher that runs the next one, filtering its stderr
//   out/cli/tenancy.mjs           the CLI and runtime (ESM, `webgpu` native module external)
//   out/report-view/main.js       the report webview's script (browser, chart.js inlined)
// Usage: node esbuild.mjs [--watch] [--minify]
// Tests and benchmarks that bundle a program themselves import its options from here (`cliBuild`, `serverBuild`).
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const watch = process.argv.includes('--watch');
const minify = process.argv.includes('--minify');

const common = {
    bundle: true,
    platform: 'node',
    target: 'node22',
    sourcemap: !minify,
    minify,
    logLevel: 'info',
};

/**
 * One copy of the LSP protocol packages in a bundle. Langium imports vscode-languageserver-protocol
 * itself, and npm may install it (with vscode-jsonrpc and -types) twice: once beside Langium and
 * once inside vscode-languageserver, the connection. Then Langium's `ResponseError` for a
 * cancelled request is not the connection's class, and the request is answered with the error
 * object as its *result*. These packages are resolved from where the connection resolves them.
 */
export const oneProtocolCopy = {
    name: 'one-lsp-protocol-copy',
    setup(build) {
        const require = createRequire(import.meta.url);
        const connection = require.resolve('vscode-languageserver');
        const protocol = createRequire(connection).resolve('vscode-languageserver-protocol');
        const from = { 'vscode-languageserver-protocol': path.dirname(connection), 'vscode-languageserver-types': path.dirname(protocol), 'vscode-jsonrpc': path.dirname(protocol) };
        build.onResolve({ filter: /^vscode-(languageserver-protocol|languageserver-types|jsonrpc)(\/|$)/ }, args => {
            if (args.pluginData === 'one-lsp-protocol-copy') return undefined;
            const resolveDir = from[args.path.split('/')[0]];
            return build.resolve(args.path, { kind: args.kind, resolveDir, importer: args.importer, pluginData: 'one-lsp-protocol-copy' });
        });
    },
};

/** The language server bundle's options. */
export const serverBuild = {
    ...common,
    entryPoints: { 'language-server/main': 'src/language-server/main.ts' },
    outdir: 'out',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    plugins: [oneProtocolCopy],
};

/** The CLI bundle's options. */
export const cliBuild = {
    ...common,
    entryPoints: { 'cli/main': 'src/cli/launcher.ts', 'cli/tenancy': 'src/cli/main.ts' },
    outdir: 'out',
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    external: ['webgpu'],
    plugins: [oneProtocolCopy],
    // Some CommonJS dependencies call require() or read __filename (write-file-atomic names its temp files by it); give the ESM bundle both.
    banner: { js: "import { createRequire as __tenancyRequire } from 'node:module'; import { fileURLToPath as __tenancyPath } from 'node:url'; const require = __tenancyRequire(import.meta.url); const __filename = __tenancyPath(import.meta.url);" },
};

const builds = [
    {
        ...common,
        entryPoints: { 'extension/main': 'src/extension/main.ts' },
        outdir: 'out',
        outExtension: { '.js': '.cjs' },
        format: 'cjs',
        external: ['vscode'],
    },
    serverBuild,
    cliBuild,
    {
        // The report webview's script: runs in the browser, chart.js bundled in (no remote content).
        ...common,
        platform: 'browser',
        target: 'es2022',
        entryPoints: { 'report-view/main': 'src/extension/report-view/webview/main.ts' },
        outdir: 'out',
        format: 'iife',
    },
];

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (isMain) {
    const existing = [];
    for (const b of builds) {
        const entry = Object.values(b.entryPoints)[0];
        try {
            await import('node:fs').then(fs => fs.accessSync(entry));
            existing.push(b);
        } catch {
            console.warn(`esbuild: skipping ${entry} (not written yet)`);
        }
    }
    if (watch) {
        for (const b of existing) await (await esbuild.context(b)).watch();
    } else {
        await Promise.all(existing.map(b => esbuild.build(b)));
    }
}
