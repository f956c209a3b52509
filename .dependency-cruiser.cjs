/**
 * The layering of docs/architecture.md, checked on the transitive import graph of src/ by
 * test/architecture.test.ts (and by hand: `npx depcruise src`). Pure parts of the runtime are
 * importable by the language server; device parts touch a GPUDevice; the CLI is the only place
 * that joins the server and the runtime; the extension talks to them through the CLI and LSP.
 */
const PURE_RUNTIME = '^src/runtime/(ir|kernels|plan|schedule|predict|report|reference|sweep)/';
const DEVICE_RUNTIME = '^src/runtime/(gpu|execute|tune|calibrate)/';
const WEBGPU = '(^|/)node_modules/(webgpu|@webgpu/types)/|^(webgpu|@webgpu/types)$';
const EDITOR = '(^|/)node_modules/(langium|vscode-languageserver[^/]*|vscode-languageclient|vscode-jsonrpc)/|^vscode$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
    forbidden: [
        {
            name: 'runtime-without-editor',
            comment: 'The runtime knows nothing of Langium, VS Code, the language server, the CLI or the extension.',
            severity: 'error',
            from: { path: '^src/runtime/' },
            to: { path: [EDITOR, '^src/(language-server|extension|cli)/'] },
        },
        {
            name: 'pure-runtime-without-device',
            comment: 'Pure runtime folders never reach a device folder or webgpu, even through another module.',
            severity: 'error',
            from: { path: PURE_RUNTIME },
            to: { path: [DEVICE_RUNTIME, WEBGPU], reachable: true },
        },
        {
            name: 'server-without-gpu',
            comment: 'The language server never reaches webgpu or the device parts of the runtime, even through another module.',
            severity: 'error',
            from: { path: '^src/language-server/' },
            to: { path: [DEVICE_RUNTIME, WEBGPU, '^src/(extension|cli)/'], reachable: true },
        },
        {
            name: 'extension-through-protocol',
            comment: 'The extension reaches the runtime only through the CLI (a child process) and the server only through LSP and src/protocol.',
            severity: 'error',
            from: { path: '^src/extension/' },
            to: { path: ['^src/(runtime|language-server|cli)/', WEBGPU, '(^|/)node_modules/langium/'] },
        },
        {
            name: 'protocol-without-dependencies',
            comment: 'src/protocol is shared by all three programs: it imports nothing but itself.',
            severity: 'error',
            from: { path: '^src/protocol/' },
            to: { pathNot: '^src/protocol/' },
        },
    ],
    options: {
        doNotFollow: { path: 'node_modules' },
        tsPreCompilationDeps: true,
        tsConfig: { fileName: 'tsconfig.json' },
        exclude: { path: '^src/language-server/generated/' },
    },
};
