import { startLanguageServer } from 'langium/lsp';
import { NodeFileSystem } from 'langium/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { registerResultsHandlers } from './lsp/results-watch.js';
import { createTenancyServices } from './tenancy-module.js';

// A rejection nothing awaited (a listener, an unawaited workspace write) is logged as the bug it is; the server keeps serving.
process.on('unhandledRejection', reason => console.error('Tenancy: internal error (a promise nothing awaited was rejected):', reason instanceof Error ? reason.stack : reason));
// Over IPC when started by the VS Code client, over stdio with `--stdio` for any other LSP client.
const connection = createConnection(ProposedFeatures.all);
const { shared, Tenancy } = createTenancyServices({ connection, ...NodeFileSystem });
registerResultsHandlers(connection, Tenancy);
startLanguageServer(shared);
