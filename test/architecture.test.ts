import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

// The layering rules of STYLE.md, checked on every import statement of the sources.
function sources(dir: string): string[] {
    return readdirSync(dir).flatMap(name => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return sources(path);
        return path.endsWith('.ts') ? [path] : [];
    });
}

function imports(file: string): string[] {
    const text = readFileSync(file, 'utf8');
    const found: string[] = [];
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g)) found.push(m[1]);
    for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
    return found;
}

function violations(folder: string, forbidden: (specifier: string, file: string) => boolean): string[] {
    return sources(folder).flatMap(file =>
        imports(file).filter(s => forbidden(s, file)).map(s => `${relative('.', file)} imports ${s}`));
}

const resolvesInto = (specifier: string, file: string, target: string): boolean =>
    specifier.startsWith('.') && join(file, '..', specifier).startsWith(target);

describe('layering (STYLE.md)', () => {
    test('the runtime never imports langium, vscode or the language server', () => {
        expect(violations('src/runtime', (s, f) =>
            /^(langium|vscode|vscode-languageserver|vscode-languageclient)(\/|$)/.test(s)
            || resolvesInto(s, f, 'src/language-server') || resolvesInto(s, f, 'src/extension') || resolvesInto(s, f, 'src/cli'))).toEqual([]);
    });

    test('the language server never imports webgpu nor the GPU parts of the runtime', () => {
        expect(violations('src/language-server', (s, f) =>
            /^webgpu(\/|$)/.test(s)
            || ['execute', 'compile', 'gpu', 'calibrate'].some(part => resolvesInto(s, f, `src/runtime/${part}`))
            || resolvesInto(s, f, 'src/extension') || resolvesInto(s, f, 'src/cli'))).toEqual([]);
    });

    test('the extension reaches the runtime only through the CLI and the server only through LSP', () => {
        expect(violations('src/extension', (s, f) =>
            /^(webgpu|langium)(\/|$)/.test(s)
            || resolvesInto(s, f, 'src/runtime') || resolvesInto(s, f, 'src/language-server') || resolvesInto(s, f, 'src/cli'))).toEqual([]);
    });

    test('the protocol has no dependencies', () => {
        expect(violations('src/protocol', s => !s.startsWith('.'))).toEqual([]);
    });
});
