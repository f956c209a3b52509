#!/usr/bin/env bash
# The GPU benchmarks in one go, for a lent machine with a real GPU (≤ 8 minutes): the schedules
# benchmark on bench/gpu/mixes.tenancy (the mixes at the papers' sizes), the kernel benchmark,
# and the accuracy benchmark after a quick calibration. Everything it writes goes under $OUT
# (default bench/.work/gpu-out): one markdown and one JSON file per suite, the device list and
# the profile, and run.log. The calibration replaces this machine's profile as `tenancy
# calibrate` does (.tenancy/device-profile.json and the user's profile cache).
#
# Here (with node_modules): `bash bench/gpu/run.sh` builds the kit itself. On a machine without
# node_modules (no registry there): run `node bench/gpu/prepare.mjs` here first and carry
# bench/.work/gpu-kit; the machine's own Node (22 or later) runs it.
# Each step has its own time limit so the whole stays within 8 minutes; a step that fails or
# runs out is said in run.log and the others still run.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/.work/gpu-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}

NODE=node_modules/.bin/node
[ -x "$NODE" ] || NODE=$(command -v node || true)
if [ -z "$NODE" ]; then echo "run.sh: no Node here: install Node 22 or later, or run where node_modules exists"; exit 2; fi
major=$("$NODE" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then echo "run.sh: Node $("$NODE" --version) is too old: the bundles need 22 or later"; exit 2; fi
KIT=bench/.work/gpu-kit
if [ -d node_modules/esbuild ]; then "$NODE" bench/gpu/prepare.mjs || exit 1; fi
if [ ! -f "$KIT/cli.mjs" ]; then echo "run.sh: no $KIT: run 'node bench/gpu/prepare.mjs' where node_modules exists and carry $KIT"; exit 2; fi

# step NAME SECONDS COMMAND…: one step with its time limit (bench/gpu/step.sh)
source bench/gpu/step.sh

echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%FT%TZ), $(nproc) cores"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step devices 60 "$NODE" "$KIT/cli.mjs" devices --json > "$OUT/devices.json"
step schedules 240 "$NODE" "$KIT/schedules.mjs" --mixes bench/gpu/mixes.tenancy --capacity-budget 10s --quick > "$OUT/schedules.md"
cp bench/.work/schedules.json "$OUT/" 2>/dev/null
step kernels 90 "$NODE" "$KIT/kernels.mjs" --quick > "$OUT/kernels.md"
cp bench/.work/kernels.json "$OUT/" 2>/dev/null
step calibrate 60 "$NODE" "$KIT/cli.mjs" calibrate --quick
cp .tenancy/device-profile.json "$OUT/" 2>/dev/null
step accuracy 60 "$NODE" "$KIT/accuracy.mjs" --duration-ms 1000 --no-zoo > "$OUT/accuracy.md"
cp bench/.work/accuracy.json "$OUT/" 2>/dev/null
echo "results in $OUT"
