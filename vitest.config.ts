import { defineConfig } from 'vitest/config';

export default defineConfig({
    test: {
        include: ['test/**/*.test.ts'],
        // GPU tests share one software adapter on two cores: keep files sequential there.
        fileParallelism: true,
        testTimeout: 60_000,
        hookTimeout: 120_000,
    },
});
