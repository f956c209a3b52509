#!/usr/bin/env bash
# The VS Code tests (npm run test:e2e): installs the pinned code-server once (cached in
# .test-cache/), bundles and packages this machine's .vsix (dist/tenancy-<platform>-<arch>.vsix),
# then runs in order: the report webview in plain Chromium, the mocha integration suite in
# code-server's extension host (extension loaded from the source tree), and the user's path
# through the UI with the installed .vsix.
# Screenshots: test/e2e/screenshots/. Needs scripts/setup-system.sh (chromium, build tools).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup-e2e.sh
npm run --silent package -- --host
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
export TENANCY_E2E_VSIX="${TENANCY_E2E_VSIX:-$PWD/dist/tenancy-$(node -p 'process.platform + "-" + process.arch').vsix}"
npx vitest run --config test/e2e/vitest.config.ts "$@"
echo "test:e2e finished in $(( $(date +%s) - start )) s"
