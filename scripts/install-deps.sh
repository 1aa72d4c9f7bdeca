#!/usr/bin/env bash
# Installs every Debian 12 package btaudit needs to build, test, lint and benchmark.
# Usage: scripts/install-deps.sh [--with-lab]   (--with-lab adds what the real-kernel lab needs)
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(
  build-essential cmake ninja-build pkg-config g++ clang-14 libclang-rt-14-dev clang-format clang-tidy
  libdw-dev libelf-dev elfutils libkdumpfile-dev
  libboost-program-options-dev libboost-test-dev libsqlite3-dev
  nlohmann-json3-dev libzydis-dev libmimalloc-dev
  zlib1g-dev liblzma-dev libzstd-dev
  python3 gzip xz-utils zstd parallel sqlite3
  libdebuginfod-dev liblz4-dev libxxhash-dev debuginfod
  chromium
  gdb  # gdb-add-index: the indexed vmlinux copy the crash tests start crash on (tests/real/crash_session.py)
  systemd-journal-remote  # writes the journals whose every journalctl -o form tests/corpus/metamorphic.py reads
)
# The browser test (tests/browser) runs on Node with puppeteer-core from npm: Debian's nodejs
# and npm, unless the machine already has a Node (another distribution of it would conflict).
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
if [ "${1:-}" = "--with-lab" ]; then
  packages+=(crash python3-drgn makedumpfile kexec-tools qemu-system-x86 busybox-static hyperfine linux-source-6.1)
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: ${#packages[@]} packages present"
