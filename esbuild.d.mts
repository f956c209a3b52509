// Types of what esbuild.mjs exports (tests and benchmarks bundle with the same options).
import type { BuildOptions } from 'esbuild';

export declare const cliBuild: BuildOptions & { entryPoints: Record<string, string>; banner: { js: string } };
