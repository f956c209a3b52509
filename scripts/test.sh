#!/usr/bin/env bash
# Quick start, part 2: installs what is needed (software Vulkan driver, Chromium and build tools
# for the browser tests, npm packages), builds, and runs every test: unit and language tests,
# GPU tests on the software adapter, the VS Code integration suite and the end-to-end UI test
# in code-server. With CI set, a missing GPU adapter fails the GPU tests instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
bash scripts/ensure-deps.sh
# Every npm script and tool from here on runs on the project's Node 24 (Langium needs >= 22).
export PATH="$PWD/node_modules/.bin:$PATH"
npm run --silent build
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
mkdir -p .test-results
npm test -- --reporter=default --reporter=json --outputFile.json=.test-results/unit.json
npm run test:e2e -- --reporter=default --reporter=json --outputFile.json=.test-results/e2e.json
# One plain closing line for both suites (vitest's JSON reports).
node -e '
const r = ["unit", "e2e"].map(n => require(`./.test-results/${n}.json`));
const sum = k => r.reduce((a, x) => a + x[k], 0);
console.log(`tests: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests") + sum("numTodoTests")} skipped`);'
