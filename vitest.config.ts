import { defineConfig } from 'vitest/config';

export default defineConfig({
    test: {
        include: ['test/**/*.test.ts'],
        // Test files run in parallel on vitest's default pool: one worker fewer than the cores, at
        // least one (so one file at a time on a two-core host). GPU tests in parallel files share the
        // software adapter's cores, and every test shares the host, so tests bound only what must
        // hold on a loaded host (a cancelled run stops within a second), never speed: speed is the
        // benchmarks' business.
        fileParallelism: true,
        testTimeout: 60_000,
        hookTimeout: 120_000,
    },
});
