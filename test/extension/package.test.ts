/**
 * The packages `npm run package` writes (scripts/package.mjs): one .vsix per platform target,
 * each with its own platform's Dawn build and nothing else that should not ship; the LICENSE;
 * the README as written, every relative link of it (and of the docs it links to) naming a file
 * the package holds; `engines.vscode` at the first VS Code whose extension host runs Node 22.
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
    zipEntryText(file: string, name: string): string;
    brokenRelativeLinks(markdown: string, entries: string[], base: string): string[];
    shippedLinkProblems(vsix: string, entries?: string[]): string[];
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

describe('brokenRelativeLinks', () => {
    const entries = ['extension/readme.md', 'extension/docs/language.md', 'extension/examples/quick-start.tenancy'];

    it('resolves relative links against the folder of the text, fragments and ./ .. included', () => {
        const readme = 'See [the reference](docs/language.md#schedules), [an example](./examples/quick-start.tenancy).';
        expect(pkg.brokenRelativeLinks(readme, entries, 'extension')).toEqual([]);
        expect(pkg.brokenRelativeLinks('[back](../readme.md) [self](language.md#operators)', entries, 'extension/docs')).toEqual([]);
    });

    it('reports links to files the package lacks, case included (vsce ships README.md as readme.md)', () => {
        const readme = '[tests](test/fuzz/README.md) and [the readme](README.md) and [docs](docs/architecture.md "title")';
        expect(pkg.brokenRelativeLinks(readme, entries, 'extension')).toEqual([
            'test/fuzz/README.md (no extension/test/fuzz/README.md in the package)',
            'README.md (no extension/README.md in the package)',
            'docs/architecture.md (no extension/docs/architecture.md in the package)',
        ]);
    });

    it('leaves out web and mail links, links within the page, code spans and code blocks', () => {
        const readme = [
            '[VS Code](https://code.visualstudio.com/updates/v1_101) [mail](mailto:a@b.c) [up](#quick-start)',
            '`[not a link](nowhere.md)`',
            '```md', '[inside a block](nowhere.md)', '```',
        ].join('\n');
        expect(pkg.brokenRelativeLinks(readme, entries, 'extension')).toEqual([]);
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

    it('ships the README as written, and every relative link of its markdown names a shipped file', () => {
        const readme = readFileSync(join(root, 'README.md'), 'utf8');
        for (const target of targets) {
            const vsix = pkg.vsixPath(outDir, target);
            expect(pkg.zipEntryText(vsix, 'extension/readme.md'), target).toBe(readme);
            expect(pkg.shippedLinkProblems(vsix), target).toEqual([]);
        }
        // Not vacuous: the README links to the docs, and each of them ships.
        const linked = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)/g)].map(m => m[1]!);
        expect(new Set(linked)).toEqual(new Set(['docs/language.md', 'docs/measurement.md', 'docs/architecture.md', 'docs/sweeps.md']));
        const entries = pkg.zipEntries(pkg.vsixPath(outDir, targets[0]!));
        for (const doc of linked) expect(pkg.zipEntryText(pkg.vsixPath(outDir, targets[0]!), `extension/${doc}`)).toBe(readFileSync(join(root, doc), 'utf8'));
        expect(entries.filter(e => e.startsWith('extension/docs/')).sort()).toEqual(readdirSync(join(root, 'docs')).map(f => `extension/docs/${f}`).sort());
    });
});
