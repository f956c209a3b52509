#!/usr/bin/env node
// Packages the extension: one .vsix per VS Code platform target, each carrying only its own
// platform's build of the `webgpu` native module (Dawn). Everything else is the same in every
// .vsix: what .vscodeignore admits (the bundles, grammar, examples, README, LICENSE, docs).
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
// top-level node_modules out. Every written .vsix is then read back: its file list is checked, and
// every relative link of the markdown it ships (README, docs) must name a file it holds (the
// package has no repository URL, so vsce leaves the links as written: they resolve inside the
// installed extension).
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';
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
            /^extension\/docs\/[\w-]+\.md$/,
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

/** The entries of a zip file (a .vsix) as its central directory lists them: name, compression method, sizes, where its local header is. */
function zipDirectory(file) {
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
        const entries = [];
        for (let at = 0, i = 0; i < count; i++) {
            if (directory.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
            const nameLength = directory.readUInt16LE(at + 28);
            entries.push({
                name: directory.toString('utf8', at + 46, at + 46 + nameLength),
                method: directory.readUInt16LE(at + 10),
                compressedSize: directory.readUInt32LE(at + 20),
                localHeader: directory.readUInt32LE(at + 42),
            });
            at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
        }
        return entries;
    } finally {
        closeSync(fd);
    }
}

/** The names of the entries of a zip file (a .vsix), read from its central directory. */
export function zipEntries(file) {
    return zipDirectory(file).map(e => e.name);
}

/** The text (UTF-8) of one entry of a zip file: stored or deflated, as vsce writes them. */
export function zipEntryText(file, name) {
    const size = statSync(file).size;
    const entry = zipDirectory(file).find(e => e.name === name);
    if (!entry) throw new Error(`${file} has no entry ${name}`);
    const fd = openSync(file, 'r');
    try {
        const header = Buffer.alloc(30);
        readSync(fd, header, 0, 30, entry.localHeader);
        if (header.readUInt32LE(0) !== 0x04034b50) throw new Error(`${file}: bad local header for ${name}`);
        const start = entry.localHeader + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
        if (start + entry.compressedSize > size) throw new Error(`${file}: ${name} runs past the end of the file`);
        const data = Buffer.alloc(entry.compressedSize);
        readSync(fd, data, 0, entry.compressedSize, start);
        if (entry.method === 0) return data.toString('utf8');
        if (entry.method === 8) return inflateRawSync(data).toString('utf8');
        throw new Error(`${file}: ${name} uses compression method ${entry.method}; expected stored (0) or deflate (8)`);
    } finally {
        closeSync(fd);
    }
}

/**
 * Relative links of a markdown text (`[text](target)`, outside code blocks and code spans) that
 * name no file in `entries` (zip paths; `base` is the folder the text sits in, e.g. `extension`).
 * Links with a scheme, mail links and links within the page (`#…`) are not files. Empty when every
 * link resolves.
 */
export function brokenRelativeLinks(markdown, entries, base) {
    const present = new Set(entries);
    const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
    const broken = [];
    for (const m of prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const path = posix.normalize(posix.join(base, decodeURI(target.split('#')[0])));
        if (!present.has(path)) broken.push(`${target} (no ${path} in the package)`);
    }
    return broken;
}

/** Broken relative links of every markdown file a .vsix ships (the README, the docs), as `file: link (why)`. */
export function shippedLinkProblems(vsix, entries = zipEntries(vsix)) {
    return entries.filter(e => /\.md$/i.test(e))
        .flatMap(e => brokenRelativeLinks(zipEntryText(vsix, e), entries, posix.dirname(e)).map(link => `${e}: ${link}`));
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
    // No repository URL to rewrite relative links against: they stay relative (vsce would refuse them otherwise).
    await vsce.createVSIX({ cwd: stage, target, dependencies: false, allowMissingRepository: true, rewriteRelativeLinks: false, packagePath });
    rmSync(stage, { recursive: true, force: true });
    const entries = zipEntries(packagePath);
    const problems = checkListing(entries, target);
    if (problems.length > 0) throw new Error(`${packagePath} has the wrong files:\n  ${problems.join('\n  ')}`);
    const broken = shippedLinkProblems(packagePath, entries);
    if (broken.length > 0) throw new Error(`${packagePath}: links to files it does not ship:\n  ${broken.join('\n  ')}`);
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
