#!/usr/bin/env node
// Packages the extension: one .vsix per VS Code platform target, each carrying only its own
// platform's build of the `webgpu` native module (Dawn). Everything else is the same in every
// .vsix: what .vscodeignore admits (the bundles, grammar, examples, README, LICENSE).
//
// Usage: node scripts/package.mjs [--host | --target <t>…] [--out-dir <dir>] [--no-build]
//   (no target)   all six targets below, into dist/tenancy-<target>.vsix
//   --host        only this machine's target (what `npm run test:e2e` installs)
//   --target <t>  only <t> (repeatable)
//   --no-build    package the bundles already in out/ (default: bundle first with esbuild.mjs)
//
// Each .vsix is assembled in a staging folder and packed by vsce there, with the Dawn build at
// out/node_modules/webgpu/ beside the bundles: the CLI bundle (out/cli/) resolves `webgpu` from
// there, and vsce's --no-dependencies mode (which keeps npm out of packaging) leaves only the
// top-level node_modules out. Every written .vsix is then read back and its file list checked.
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** VS Code platform target → the folder of node_modules/webgpu/dist with its Dawn build (macOS has one universal build). */
export const dawnBuildForTarget = {
    'darwin-arm64': 'darwin-universal',
    'darwin-x64': 'darwin-universal',
    'linux-arm64': 'linux-arm64',
    'linux-x64': 'linux-x64',
    'win32-arm64': 'win32-arm64',
    'win32-x64': 'win32-x64',
};

/** This machine's VS Code target, or undefined where no Dawn build exists. */
export function hostTarget() {
    const target = `${process.platform}-${process.arch}`;
    return Object.hasOwn(dawnBuildForTarget, target) ? target : undefined;
}

/** The .vsix file of one target in `outDir`. */
export function vsixPath(outDir, target) {
    return join(outDir, `tenancy-${target}.vsix`);
}

/** Files of the `webgpu` package that the runtime loads (index.js picks dist/<platform>-<arch>/dawn.node). */
const webgpuFiles = ['package.json', 'index.js', 'LICENSE.md'];

/**
 * What the .vsix of `target` must hold and may hold (paths inside the zip). Written out on its
 * own, not derived from .vscodeignore, so that a wrong ignore rule or staging step fails here.
 */
export function expectedListing(target) {
    const dawn = dawnBuildForTarget[target];
    if (!dawn) throw new Error(`unknown target '${target}'; expected one of ${Object.keys(dawnBuildForTarget).join(', ')}`);
    const webgpu = 'extension/out/node_modules/webgpu';
    return {
        required: [
            'extension.vsixmanifest', '[Content_Types].xml',
            'extension/package.json', 'extension/readme.md', 'extension/LICENSE.txt',
            'extension/language-configuration.json', 'extension/syntaxes/tenancy.tmLanguage.json', 'extension/bin/tenancy.mjs',
            'extension/out/extension/main.cjs', 'extension/out/language-server/main.cjs',
            'extension/out/cli/main.mjs', 'extension/out/cli/tenancy.mjs', 'extension/out/report-view/main.js',
            ...webgpuFiles.map(f => `${webgpu}/${f}`), `${webgpu}/dist/${dawn}/dawn.node`,
        ],
        allowed: [
            /^extension\/examples\/(?:[\w-]+\/)*[\w-]+\.tenancy$/,
            /^extension\/src\/language-server\/zoo\/[\w-]+\.tenancy$/,
            new RegExp(`^${webgpu}/dist/${dawn}/[\\w.-]+$`),
        ],
    };
}

/** Problems of a .vsix file list against {@link expectedListing}: missing files and files that must not ship. Empty when right. */
export function checkListing(entries, target) {
    const { required, allowed } = expectedListing(target);
    const present = new Set(entries);
    const missing = required.filter(f => !present.has(f)).map(f => `missing ${f}`);
    const unexpected = entries.filter(f => !required.includes(f) && !allowed.some(p => p.test(f))).map(f => `unexpected ${f}`);
    return [...missing, ...unexpected];
}

/** The names of the entries of a zip file (a .vsix), read from its central directory. */
export function zipEntries(file) {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
        const read = (position, length) => {
            const buffer = Buffer.alloc(length);
            readSync(fd, buffer, 0, length, position);
            return buffer;
        };
        // The end-of-central-directory record: its 22 bytes plus a comment of up to 65535.
        const tailLength = Math.min(size, 22 + 65535);
        const tail = read(size - tailLength, tailLength);
        const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
        if (eocd < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
        const count = tail.readUInt16LE(eocd + 10);
        const directory = read(tail.readUInt32LE(eocd + 16), tail.readUInt32LE(eocd + 12));
        const names = [];
        for (let at = 0, i = 0; i < count; i++) {
            if (directory.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
            const nameLength = directory.readUInt16LE(at + 28);
            names.push(directory.toString('utf8', at + 46, at + 46 + nameLength));
            at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
        }
        return names;
    } finally {
        closeSync(fd);
    }
}

function copy(from, to) {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
}

/** Packages one target into `outDir`; returns the .vsix path and its entries. Throws when the file list is wrong. */
export async function packageTarget(target, outDir) {
    const require = createRequire(import.meta.url);
    const vsce = require('@vscode/vsce');
    const stage = join(outDir, `.stage-${target}`);
    rmSync(stage, { recursive: true, force: true });
    // What .vscodeignore admits, node_modules aside (vsce lists them without running npm).
    const files = await vsce.listFiles({ cwd: root, packageManager: vsce.PackageManager.None });
    for (const file of files) copy(join(root, file), join(stage, file));
    const webgpu = join(root, 'node_modules', 'webgpu');
    const staged = join(stage, 'out', 'node_modules', 'webgpu');
    for (const file of webgpuFiles) copy(join(webgpu, file), join(staged, file));
    const dawn = join('dist', dawnBuildForTarget[target]);
    for (const file of readdirSync(join(webgpu, dawn))) copy(join(webgpu, dawn, file), join(staged, dawn, file));
    // The staging folder holds exactly what ships.
    writeFileSync(join(stage, '.vscodeignore'), '# Staged by scripts/package.mjs: everything here ships.\n');
    const packagePath = vsixPath(outDir, target);
    await vsce.createVSIX({ cwd: stage, target, dependencies: false, allowMissingRepository: true, packagePath });
    rmSync(stage, { recursive: true, force: true });
    const entries = zipEntries(packagePath);
    const problems = checkListing(entries, target);
    if (problems.length > 0) throw new Error(`${packagePath} has the wrong files:\n  ${problems.join('\n  ')}`);
    return { packagePath, entries };
}

function parseArgs(argv) {
    const targets = [];
    let outDir = join(root, 'dist');
    let build = true;
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--host') {
            const host = hostTarget();
            if (!host) throw new Error(`this machine (${process.platform}-${process.arch}) has no Dawn build; targets: ${Object.keys(dawnBuildForTarget).join(', ')}`);
            targets.push(host);
        } else if (arg === '--target') {
            const target = argv[++i];
            if (!target || !Object.hasOwn(dawnBuildForTarget, target)) throw new Error(`--target must be one of ${Object.keys(dawnBuildForTarget).join(', ')}; found '${target ?? ''}'`);
            targets.push(target);
        } else if (arg === '--out-dir') {
            if (!argv[i + 1]) throw new Error('--out-dir needs a folder');
            outDir = resolve(argv[++i]);
        } else if (arg === '--no-build') {
            build = false;
        } else {
            throw new Error(`unknown argument '${arg}'; usage: node scripts/package.mjs [--host | --target <t>…] [--out-dir <dir>] [--no-build]`);
        }
    }
    return { targets: targets.length > 0 ? [...new Set(targets)] : Object.keys(dawnBuildForTarget), outDir, build };
}

async function main() {
    let options;
    try {
        options = parseArgs(process.argv.slice(2));
    } catch (error) {
        console.error(`package: ${error.message}`);
        process.exit(64);
    }
    if (options.build) {
        const bundled = spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' });
        if (bundled.status !== 0) process.exit(bundled.status ?? 1);
    }
    for (const target of options.targets) {
        const { packagePath, entries } = await packageTarget(target, options.outDir);
        const mb = (statSync(packagePath).size / 1e6).toFixed(1);
        const shown = relative(process.cwd(), packagePath);
        console.log(`package: ${shown.startsWith('..') ? packagePath : shown} — ${target}, ${entries.length} files, ${mb} MB, file list checked`);
    }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
    main().catch(error => {
        console.error(`package: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
    });
}
