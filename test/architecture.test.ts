/**
 * The layering of docs/architecture.md on the transitive import graph of src/ (dependency-cruiser,
 * rules in .dependency-cruiser.cjs), plus what an import graph cannot see: WebGPU's globals
 * (GPUBufferUsage, navigator.gpu) need no import once any file references their types.
 */
import { readdirSync, readFileSync, statSync, mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { cruise, type IConfiguration, type IViolation } from 'dependency-cruiser';
import { describe, expect, test } from 'vitest';

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as IConfiguration;
const PURE_FOLDERS = ['ir', 'kernels', 'plan', 'schedule', 'predict', 'report', 'reference'];

/** Violations of the project's rules on `src/` of a tree (default: this project). */
async function violations(baseDir = process.cwd()): Promise<string[]> {
    const result = await cruise(['src'], { ...config.options, baseDir, ruleSet: { forbidden: config.forbidden }, validate: true });
    if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text, not a result');
    return result.output.summary.violations.map((v: IViolation) =>
        `${v.rule.name}: ${v.from} → ${v.to}${v.via && v.via.length > 1 ? ` (via ${v.via.map(x => x.name).join(' → ')})` : ''}`);
}

function sources(dir: string): string[] {
    return readdirSync(dir).flatMap(name => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
}

describe('layering', () => {
    test('src/ keeps every rule of .dependency-cruiser.cjs, transitively', async () => {
        expect(await violations()).toEqual([]);
    }, 60_000);

    test('the rules catch a pure module that reaches device code through another module, and the server reaching it', async () => {
        // A throwaway tree shaped like src/ (the rules match paths from the project root).
        const root = mkdtempSync(join('test', '.arch-'));
        try {
            const file = (path: string, text: string) => {
                mkdirSync(join(root, 'src', path, '..'), { recursive: true });
                writeFileSync(join(root, 'src', path), text);
            };
            file('runtime/gpu/wait.ts', 'export const wait = 1;\n');
            file('runtime/plan/helper.ts', "import { wait } from '../gpu/wait.js';\nexport const helper = wait;\n");
            file('runtime/predict/model.ts', "import { helper } from '../plan/helper.js';\nexport const model = helper;\n");
            file('runtime/schedule/typed.ts', '/// <reference types="@webgpu/types" />\nexport const typed = 1;\n');
            file('language-server/hover.ts', "import { model } from '../runtime/predict/model.js';\nexport const hover = model;\n");
            expect((await violations(resolve(root))).sort()).toEqual([
                'pure-runtime-without-device: src/runtime/plan/helper.ts → src/runtime/gpu/wait.ts',
                'pure-runtime-without-device: src/runtime/predict/model.ts → src/runtime/gpu/wait.ts (via src/runtime/plan/helper.ts → src/runtime/gpu/wait.ts)',
                'pure-runtime-without-device: src/runtime/schedule/typed.ts → @webgpu/types',
                'server-without-gpu: src/language-server/hover.ts → src/runtime/gpu/wait.ts (via src/runtime/predict/model.ts → src/runtime/plan/helper.ts → src/runtime/gpu/wait.ts)',
            ].sort());
        } finally {
            rmSync(root, { recursive: true, force: true });
        }
    }, 60_000);

    test('pure runtime folders and the language server use no WebGPU global', () => {
        const files = [...PURE_FOLDERS.flatMap(f => sources(join('src/runtime', f))), ...sources('src/language-server')];
        const found = files.flatMap(file => {
            const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
            return [...text.matchAll(/\b(GPU[A-Z]\w+|navigator\.gpu)\b/g)].map(m => `${file}: ${m[1]}`);
        });
        expect(found).toEqual([]);
    });
});
