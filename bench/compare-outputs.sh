#!/usr/bin/env bash
# Checks that a change to the text path changed no output: runs a reference btaudit
# and a candidate over every file under the given folders with `analyze --format json`
# and `analyze` (text), and compares stdout, stderr and the exit code of each run.
# Speed work on the parser and the JSON writer must keep outputs byte-identical; this
# is the check over every log at hand, the sha256 of the benchmark output the one over
# the large input.
# Usage: bench/compare-outputs.sh REF_BTAUDIT NEW_BTAUDIT DIR...
# Prints one line per difference and a summary; exits 1 when any run differs.
set -uo pipefail
ref=$1
new=$2
shift 2
[ $# -gt 0 ] || { echo "usage: $0 REF_BTAUDIT NEW_BTAUDIT DIR..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runs=0
diffs=0
while IFS= read -r -d '' f; do
  for fmt in json text; do
    args=(analyze)
    [ "$fmt" = json ] && args+=(--format json)
    "$ref" "${args[@]}" "$f" >"$tmp/ref.out" 2>"$tmp/ref.err"
    ref_rc=$?
    "$new" "${args[@]}" "$f" >"$tmp/new.out" 2>"$tmp/new.err"
    new_rc=$?
    runs=$((runs + 1))
    what=()
    cmp -s "$tmp/ref.out" "$tmp/new.out" || what+=(stdout)
    cmp -s "$tmp/ref.err" "$tmp/new.err" || what+=(stderr)
    [ "$ref_rc" = "$new_rc" ] || what+=("exit $ref_rc vs $new_rc")
    if [ ${#what[@]} -gt 0 ]; then
      diffs=$((diffs + 1))
      echo "DIFF $fmt $f: ${what[*]}"
    fi
  done
done < <(find "$@" -type f -print0 | sort -z)

echo "compare-outputs: $runs runs, $diffs differ"
[ "$diffs" -eq 0 ]
