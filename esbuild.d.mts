// Types of what esbuild.mjs exports (tests bundle the server with the same options).
import type { BuildOptions, Plugin } from 'esbuild';

export declare const oneProtocolCopy: Plugin;
export declare const serverBuild: BuildOptions & { entryPoints: Record<string, string> };
