// Lint for src/, test/, bench/ and scripts/, run by `npm test` before the unit tests.
// typescript-eslint's recommended rules without type information: the type-aware set needs a
// TypeScript program per run and more than doubles the lint time on this codebase, and `tsc`
// (npm run typecheck / build) already checks types.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Node's globals for the plain .mjs scripts (TypeScript files get theirs from @types/node).
const nodeGlobals = Object.fromEntries([
    'process', 'console', 'Buffer', 'URL', 'TextDecoder', 'TextEncoder', 'AbortController',
    'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'performance',
    'structuredClone', 'queueMicrotask', 'fetch',
].map(name => [name, 'readonly']));

export default defineConfig(
    {
        ignores: [
            'src/language-server/generated/**',
            'src/language-server/zoo/sources.generated.ts',
            'out/**', 'dist/**', 'node_modules/**', '.test-cache/**', 'coverage/**',
            'test/e2e/.work/**', 'test/fuzz/.work/**', 'bench/.work/**',
        ],
    },
    {
        files: ['{src,test,bench,scripts}/**/*.{ts,mjs}'],
        extends: [js.configs.recommended, tseslint.configs.recommended],
        languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
        rules: {
            // A parameter an interface requires but this implementation does not read is named `_x`;
            // `{ a: _a, ...rest }` drops `a` from `rest`.
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
            // IssueCodes and the custom LSP messages are namespaces on purpose: one name per message
            // carrying its `method` and `type` (vscode-eslint's customMessages.ts), see STYLE.md.
            '@typescript-eslint/no-namespace': 'off',
        },
    },
    {
        files: ['test/**/*.ts'],
        rules: {
            // Tests build deliberately malformed inputs and read raw JSON-RPC, where `any` is the
            // honest type; production code keeps the rule.
            '@typescript-eslint/no-explicit-any': 'off',
        },
    },
);
