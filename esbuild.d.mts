// Types of what esbuild.mjs exports (tests and benchmarks bundle with the same options).
import type { BuildOptions, Plugin } from 'esbuild';

export declare const cliBuild: BuildOptions & { entryPoints: Record<string, string>; banner: { js: string } };
export declare const oneProtocolCopy: Plugin;
export declare const serverBuild: BuildOptions & { entryPoints: Record<string, string> };
