import { defineConfig } from 'vitest/config';

export default defineConfig({
    test: {
        include: ['test/**/*.test.ts'],
        // Test files run in parallel, one worker per core; GPU tests then share the software adapter's
        // cores with each other, so tests bound only what must hold on a loaded host (a cancelled
        // run stops within a second), never speed: speed is the benchmarks' business.
        fileParallelism: true,
        testTimeout: 60_000,
        hookTimeout: 120_000,
    },
});
