#!/usr/bin/env bash
# Makes sure the npm dependencies are installed (plain `npm ci`) and that the npm-installed
# Node 24 works (Langium 4.4 needs Node >= 22; the machine's own Node may be older).
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.tenancy-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund
  cp package-lock.json "$stamp"
fi
if ! node_modules/.bin/node --version >/dev/null 2>&1; then
  # npm 11 may skip the `node` package's preinstall script (allowScripts notwithstanding): rebuild it.
  npm rebuild node
fi
v=$(node_modules/.bin/node --version)
case "$v" in
  v2[2-9].*|v[3-9][0-9].*) ;;
  *) echo "ensure-deps: node_modules/.bin/node is $v; Tenancy needs Node >= 22" >&2; exit 2 ;;
esac
