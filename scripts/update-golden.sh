#!/usr/bin/env bash
# Rewrites tests/golden/expected/*.json from the current analyzer, then shows what changed.
# Usage: scripts/update-golden.sh [BUILD_DIR=build]
# Review the diff before committing: every changed line is a changed title, verdict or frame.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -G Ninja
cmake -S "$root" -B "$build" >/dev/null  # picks up samples added to corpora/
cmake --build "$build" --target btaudit btaudit_golden_tests
(cd "$build" && BTAUDIT_UPDATE_GOLDEN=1 ctest -L golden --output-on-failure)
(cd "$root" && git status --short -- tests/golden/expected && git diff --stat -- tests/golden/expected) || true
