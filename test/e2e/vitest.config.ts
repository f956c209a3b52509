import { defineConfig } from 'vitest/config';

// The VS Code and browser tests (npm run test:e2e): one file at a time — each starts a Chromium
// (and code-server), which two cores and the shared machine cannot run in parallel.
export default defineConfig({
    test: {
        include: ['test/e2e/**/*.e2e.ts'],
        fileParallelism: false,
        testTimeout: 180_000,
        hookTimeout: 240_000,
    },
});
