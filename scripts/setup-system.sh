#!/usr/bin/env bash
# Installs the Debian packages Tenancy needs on a machine without a GPU:
#   - the Vulkan loader and Mesa's lavapipe (software Vulkan) from bookworm-backports,
#     so that Dawn (the `webgpu` package) finds an adapter;
#   - Slurm (slurm-wlm) and munge, for the sweep's integration test, which starts a private
#     single-node cluster (test/runtime/sweep/slurm-cluster.ts);
#   - Chromium (for the browser end-to-end tests) and the build tools code-server needs.
# Idempotent; run as root (or with sudo). Usage: scripts/setup-system.sh [--gpu-only]
set -euo pipefail
want_browser=1
[ "${1:-}" = "--gpu-only" ] && want_browser=0

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
lavapipe_ok() {
  have mesa-vulkan-drivers && have libvulkan1 &&
    dpkg-query -W -f='${Version}' mesa-vulkan-drivers | grep -qv '^22\.'
}

need_update=1
apt_update() { if [ $need_update = 1 ]; then $SUDO apt-get update -qq; need_update=0; fi; }

if ! lavapipe_ok; then
  if [ ! -f /etc/apt/sources.list.d/backports.sources ] && grep -q bookworm /etc/os-release; then
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/backports.sources >/dev/null
  fi
  apt_update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libvulkan1 >/dev/null
  if grep -q bookworm /etc/os-release; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers >/dev/null
  else
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers >/dev/null
  fi
fi
echo "software Vulkan: mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"

if [ $want_browser = 1 ]; then
  pkgs=""
  for p in chromium build-essential python3 pkg-config libkrb5-dev ripgrep; do
    have "$p" || pkgs="$pkgs $p"
  done
  if [ -n "$pkgs" ]; then
    apt_update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null
  fi
  echo "browser: $(chromium --version 2>/dev/null || echo missing)"
fi

# Slurm and munge (skipped with --gpu-only): the sweep's integration test starts its own daemons.
if [ $want_browser = 1 ]; then
  if ! have slurm-wlm || ! have munge; then
    apt_update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
  fi
  echo "slurm: slurm-wlm $(dpkg-query -W -f='${Version}' slurm-wlm), munge $(dpkg-query -W -f='${Version}' munge)"
fi
