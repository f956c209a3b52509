#!/usr/bin/env bash
# Quick start, part 1: installs what is needed (software Vulkan driver, npm packages), builds,
# and runs the `tenancy` CLI on an example workload, printing the interference table.
# Usage: scripts/demo.sh [example.tenancy] [extra `tenancy run` options]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh --gpu-only
bash scripts/ensure-deps.sh
# Every npm script and tool from here on runs on the project's Node 24 (Langium needs >= 22).
export PATH="$PWD/node_modules/.bin:$PATH"
npm run --silent build
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
file="${1:-examples/zoo-mix.tenancy}"
shift || true
node_modules/.bin/node bin/tenancy.mjs run "$file" "$@"
