/**
 * The report webview's HTML: a strict Content-Security-Policy (no remote content, scripts only
 * with this page's nonce, styles only from the extension), theme colours from --vscode-*
 * variables. Pure so that the CSP is unit-tested.
 */

export interface ReportHtmlInput {
    /** webview.cspSource. */
    cspSource: string;
    /** asWebviewUri of out/report-view/main.js. */
    scriptUri: string;
    /** A fresh random nonce per page. */
    nonce: string;
}

/** 32 random alphanumerics. */
export function makeNonce(random: () => number = Math.random): string {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let nonce = '';
    for (let i = 0; i < 32; i++) nonce += alphabet[Math.floor(random() * alphabet.length)];
    return nonce;
}

export function reportCsp(input: ReportHtmlInput): string {
    return [
        "default-src 'none'",
        `img-src ${input.cspSource} data:`,
        `style-src ${input.cspSource} 'nonce-${input.nonce}'`,
        `script-src 'nonce-${input.nonce}'`,
        `font-src ${input.cspSource}`,
    ].join('; ');
}

/** The whole page. */
export function reportHtml(input: ReportHtmlInput): string {
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${reportCsp(input)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Tenancy report</title>
<style nonce="${input.nonce}">
  body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 20px 20px; }
  h1 { font-size: 1.4em; margin-bottom: 0.2em; }
  h2 { font-size: 1.1em; margin-top: 1.6em; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,0.35)); padding-bottom: 4px; }
  .muted { color: var(--vscode-descriptionForeground); }
  .warning { color: var(--vscode-editorWarning-foreground); }
  .error { color: var(--vscode-errorForeground); }
  .bad { color: var(--vscode-errorForeground); font-weight: 600; }
  .good { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
  table { border-collapse: collapse; margin: 6px 0; }
  th, td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid var(--vscode-widget-border, rgba(128,128,128,0.25)); }
  th { color: var(--vscode-descriptionForeground); font-weight: 600; }
  .chart { position: relative; width: 100%; max-width: 960px; }
  a { color: var(--vscode-textLink-foreground); }
</style>
</head>
<body>
<div id="root"><p class="muted">Loading the report…</p></div>
<script nonce="${input.nonce}" src="${input.scriptUri}"></script>
</body>
</html>`;
}
