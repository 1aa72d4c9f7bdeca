#!/usr/bin/env bash
# Formats every C++ file of the tree in place with the repository's .clang-format.
# Usage: scripts/format.sh [--check]   (--check: list the files that would change, exit 1 if any)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cpp' '*.h' '*.hpp' | grep -E '^(src|tests|fuzz|bench|plugins)/')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in "${files[@]}"; do
    clang-format --style=file --dry-run --Werror "$f" 2>/dev/null || { echo "$f"; bad=$((bad + 1)); }
  done
  echo "format: $bad of ${#files[@]} files need formatting"
  [ "$bad" -eq 0 ]
else
  clang-format --style=file -i "${files[@]}"
  echo "format: formatted ${#files[@]} files"
fi
