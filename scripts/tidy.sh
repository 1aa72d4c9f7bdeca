#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) over the sources of src/, fuzz/ and bench/, using the
# compile_commands.json of a configured build (a g++ build's too: GCC-only warning flags are
# ignored); tests are left out to keep the run short (Boost.Test macros make them slow to
# analyze and they hold little production logic).
# Usage: scripts/tidy.sh BUILD_DIR [REGEX]   (REGEX narrows the files, default '(src|fuzz|bench)/.*\.cpp$')
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
regex=${2:-"^$root/(src|fuzz|bench)/.*\.cpp$"}
[ -f "$build/compile_commands.json" ] || { echo "tidy: $build/compile_commands.json missing (configure first)" >&2; exit 1; }
n=$(python3 -c 'import json, re, sys; print(len({e["file"] for e in json.load(open(sys.argv[1])) if re.search(sys.argv[2], e["file"])}))' \
  "$build/compile_commands.json" "$regex")
echo "tidy: $n files matching $regex"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy-14 -quiet -extra-arg=-Wno-unknown-warning-option -p "$build" -j "$(nproc)" "$regex" >"$log" 2>&1 || status=$?
grep -E '(warning|error): ' "$log" | grep -v 'warnings generated' | sort -u || true
if [ "$status" -ne 0 ]; then
  echo "tidy: FAILED (clang-tidy status $status)"
  exit 1
fi
echo "tidy: clean"
