import { startLanguageServer } from 'langium/lsp';
import { NodeFileSystem } from 'langium/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { registerResultsHandlers } from './lsp/results-watch.js';
import { createTenancyServices } from './tenancy-module.js';

// Over IPC when started by the VS Code client, over stdio with `--stdio` for any other LSP client.
const connection = createConnection(ProposedFeatures.all);
const { shared, Tenancy } = createTenancyServices({ connection, ...NodeFileSystem });
registerResultsHandlers(connection, Tenancy);
startLanguageServer(shared);
