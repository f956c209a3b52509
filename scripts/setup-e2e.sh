#!/usr/bin/env bash
# Installs the pinned code-server used by the VS Code tests (test/e2e) into a cache folder
# outside the project's node_modules, so that a user's `npm ci` never pulls ~600 MB of editor.
# Idempotent: a finished install is marked with .complete and reused.
# Needs: the project's Node 24 (node_modules/.bin/node, from `npm ci`), Debian packages
# chromium build-essential python3 pkg-config libkrb5-dev ripgrep (scripts/setup-system.sh).
# Usage: scripts/setup-e2e.sh            prints the code-server entry script path on its last line
# Env:   CODE_SERVER_VERSION (default 4.139.1 — the DOM selectors of test/e2e are pinned to it)
#        TENANCY_E2E_CACHE   (default <project>/.test-cache)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${CODE_SERVER_VERSION:-4.139.1}
cache=${TENANCY_E2E_CACHE:-$root/.test-cache}
dir=$cache/code-server-$version
entry=$dir/node_modules/code-server/out/node/entry.js
node=$root/node_modules/.bin/node

fail() { echo "setup-e2e: $*" >&2; exit 2; }

[ -x "$node" ] || fail "expected the project's Node at $node; run 'npm ci' first"
node_major=$("$node" -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 24 ] || fail "expected Node >= 24 at $node, found $("$node" --version)"
[ -x /usr/bin/chromium ] || fail "expected /usr/bin/chromium; run scripts/setup-system.sh (as root)"

if [ -f "$dir/.complete" ] && [ -f "$entry" ]; then
  echo "setup-e2e: code-server $version already installed in $dir"
  echo "$entry"
  exit 0
fi

command -v rg >/dev/null || fail "expected ripgrep (rg) on PATH; run scripts/setup-system.sh"
command -v make >/dev/null || fail "expected build-essential (make, g++); run scripts/setup-system.sh"

rm -rf "$dir"
mkdir -p "$dir"
# code-server and argon2 have install scripts (native build); npm 11 wants them approved by name.
cat > "$dir/package.json" <<JSON
{
  "name": "tenancy-e2e-code-server",
  "private": true,
  "description": "code-server for Tenancy's VS Code tests, installed by scripts/setup-e2e.sh",
  "allowScripts": { "code-server": true, "argon2": true }
}
JSON

# code-server < 4.101 pulls @vscode/ripgrep 1.15.11, whose postinstall downloads from GitHub
# (unreachable here) and rolls the whole install back: pre-seed its cache with Debian's rg.
tmp=${TMPDIR:-/tmp}
case "$version" in
  4.100.*|4.9*)
    seed=$tmp/vscode-ripgrep-cache-1.15.11
    tarball=$seed/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
    if [ ! -f "$tarball" ]; then
      mkdir -p "$seed/stage/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl"
      cp "$(command -v rg)" "$seed/stage/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl/rg"
      tar -C "$seed/stage/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl" -czf "$tarball" rg
      rm -rf "$seed/stage"
    fi ;;
esac

echo "setup-e2e: installing code-server $version into $dir (about 1-2 minutes)"
start=$(date +%s)
# The Node 24 from node_modules/.bin first on PATH: code-server 4.139 requires it, and its
# nested install (npx node-gyp) inherits it.
# An outer `npm run` exports npm_config_user_agent naming its own Node, which the nested npm
# inherits as config and code-server's postinstall reads as "the" Node version: drop it.
( cd "$dir" && env -u npm_config_user_agent PATH="$root/node_modules/.bin:$PATH" npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --no-audit --no-fund --loglevel=error "code-server@$version" ) \
  || fail "npm install code-server@$version failed (see the npm log above)"
[ -f "$entry" ] || fail "expected $entry after the install, found nothing"
touch "$dir/.complete"
echo "setup-e2e: installed in $(( $(date +%s) - start )) s"
echo "$entry"
