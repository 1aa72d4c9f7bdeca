#!/usr/bin/env bash
# The output of each test the last ctest run in BUILD failed, its last LINES lines (default 25),
# for the end of .ci/run: a CI log is often read from its tail, and ctest prints a failing test's
# output where it ran, hundreds of lines up. (ctest keeps each test's output in LastTest.log and
# the failed ones' names in LastTestsFailed.log.)
# Usage: scripts/ctest-failures.sh BUILD [LINES]
set -uo pipefail
build=${1:?usage: ctest-failures.sh BUILD [LINES]}
lines=${2:-25}
failed=$build/Testing/Temporary/LastTestsFailed.log
log=$build/Testing/Temporary/LastTest.log
[ -s "$failed" ] && [ -f "$log" ] || exit 0
while IFS=: read -r _ name; do
  [ -n "$name" ] || continue
  echo "--- $build: $name failed; the end of its output:"
  # A test's section runs from its "N/M Test: NAME" line to the "<end of output>" after it.
  awk -v name="$name" '
    $0 ~ /^[0-9]+\/[0-9]+ Test: / { inside = (substr($0, index($0, "Test: ") + 6) == name); out = 0; next }
    inside && /^<end of output>/ { inside = 0; next }
    inside && out { print }
    inside && /^Output:/ { getline; out = 1 }' "$log" | tail -n "$lines"
done <"$failed"
