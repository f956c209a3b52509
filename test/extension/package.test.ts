/**
 * The packages `npm run package` writes (scripts/package.mjs): one .vsix per platform target,
 * each with its own platform's Dawn build and nothing else that should not ship; the LICENSE;
 * `engines.vscode` at the first VS Code whose extension host runs Node 22.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { minimumCliNodeMajor } from '../../src/extension/run.js';

const root = join(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    license: string; engines: { vscode: string; node: string }; devDependencies: Record<string, string>; scripts: Record<string, string>;
};

// The script is plain JavaScript run by node (outside tsconfig): the part of its exports used here.
const pkg = await import(pathToFileURL(join(root, 'scripts/package.mjs')).href) as {
    dawnBuildForTarget: Record<string, string>;
    checkListing(entries: string[], target: string): string[];
    expectedListing(target: string): { required: string[] };
    zipEntries(file: string): string[];
    vsixPath(outDir: string, target: string): string;
};
const targets = Object.keys(pkg.dawnBuildForTarget);
const outDir = mkdtempSync(join(tmpdir(), 'tenancy-vsix-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** `major.minor` of a version range's lower bound (`^1.101.0`, `~1.91.0`). */
const minorOf = (range: string): [number, number] => {
    const m = /(\d+)\.(\d+)/.exec(range);
    if (!m) throw new Error(`no version in '${range}'`);
    return [Number(m[1]), Number(m[2])];
};

describe('package.json', () => {
    it('targets the first VS Code whose extension host runs Node 22 (1.101: Electron 35, Node 22.15.1)', () => {
        expect(manifest.engines.vscode).toBe('^1.101.0');
        expect(minimumCliNodeMajor).toBe(22);
    });

    it('types the vscode API no newer than engines.vscode (vsce refuses newer)', () => {
        const [typesMajor, typesMinor] = minorOf(manifest.devDependencies['@types/vscode']!);
        const [engineMajor, engineMinor] = minorOf(manifest.engines.vscode);
        expect(typesMajor * 1000 + typesMinor).toBeLessThanOrEqual(engineMajor * 1000 + engineMinor);
    });

    it('is MIT, with the LICENSE file packaged (no --skip-license)', () => {
        expect(manifest.license).toBe('MIT');
        expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
        expect(manifest.scripts.package).toBe('node scripts/package.mjs');
    });
});

describe('checkListing', () => {
    const right = (target: string) => [
        ...pkg.expectedListing(target).required,
        'extension/examples/quick-start.tenancy', 'extension/examples/imports/main.tenancy', 'extension/src/language-server/zoo/resnet.tenancy',
    ];

    it('accepts the file list of each target', () => {
        for (const target of targets) expect(pkg.checkListing(right(target), target)).toEqual([]);
    });

    it("fails on another platform's Dawn build, a missing one, sources, source maps and stray node_modules", () => {
        const webgpu = 'extension/out/node_modules/webgpu';
        expect(pkg.checkListing([...right('linux-x64'), `${webgpu}/dist/win32-x64/dawn.node`], 'linux-x64'))
            .toEqual([`unexpected ${webgpu}/dist/win32-x64/dawn.node`]);
        expect(pkg.checkListing(right('linux-x64').filter(f => !f.endsWith('dawn.node')), 'linux-x64'))
            .toEqual([`missing ${webgpu}/dist/linux-x64/dawn.node`]);
        expect(pkg.checkListing(right('darwin-arm64').filter(f => !f.endsWith('LICENSE.txt')), 'darwin-arm64'))
            .toEqual(['missing extension/LICENSE.txt']);
        const strays = ['extension/src/cli/main.ts', 'extension/out/cli/tenancy.mjs.map', 'extension/node_modules/langium/package.json', 'extension/test/cli/launcher.test.ts'];
        expect(pkg.checkListing([...right('win32-x64'), ...strays], 'win32-x64')).toEqual(strays.map(f => `unexpected ${f}`));
    });
});

describe('npm run package', () => {
    it('writes one .vsix per target, each with exactly its platform\'s Dawn build', () => {
        const run = spawnSync(node, [join(root, 'scripts/package.mjs'), '--out-dir', outDir], { cwd: root, encoding: 'utf8' });
        expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(readdirSync(outDir).sort()).toEqual(targets.map(t => `tenancy-${t}.vsix`).sort());
        for (const target of targets) {
            const entries = pkg.zipEntries(pkg.vsixPath(outDir, target));
            expect(pkg.checkListing(entries, target), target).toEqual([]);
            const dawn = pkg.dawnBuildForTarget[target]!;
            const shipped = entries.filter(e => e.includes('/webgpu/dist/')).sort();
            const built = readdirSync(join(root, 'node_modules/webgpu/dist', dawn)).map(f => `extension/out/node_modules/webgpu/dist/${dawn}/${f}`).sort();
            expect(shipped, target).toEqual(built);
            expect(run.stdout).toContain(`tenancy-${target}.vsix — ${target}, ${entries.length} files`);
        }
    }, 300_000);
});
