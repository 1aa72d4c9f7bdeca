#!/usr/bin/env bash
# Runs every file under the given files/directories once through a fuzz target
# (libFuzzer binary or the replay driver), so fixed crashes stay fixed.
# Usage: replay.sh [--require] FUZZ_BINARY PATH...
#   --require  exit 77 (ctest: skipped) when none of the PATHs exists
# Files are passed one by one rather than as a corpus directory because
# libFuzzer would truncate corpus inputs to -max_len and treat the first
# directory as an output corpus.
set -euo pipefail
require=0
if [ "${1:-}" = "--require" ]; then require=1; shift; fi
binary=$1; shift
existing=()
for p in "$@"; do [ -e "$p" ] && existing+=("$p"); done
if [ ${#existing[@]} -eq 0 ]; then
  if [ "$require" = 1 ]; then echo "replay: none of $* exists; skipped"; exit 77; fi
  echo "replay: nothing to run"; exit 0
fi
mapfile -d '' files < <(find "${existing[@]}" -type f ! -name 'README*' ! -name '.*' -print0 | sort -z)
echo "replay: ${#files[@]} inputs through $(basename "$binary")"
[ ${#files[@]} -eq 0 ] && exit 0
# Batches keep the command line short; a failing input stops the run with its name printed.
printf '%s\0' "${files[@]}" | xargs -0 -n 200 "$binary" -rss_limit_mb=4096 -timeout=60 >/dev/null 2>"${TMPDIR:-/tmp}/replay.$$.log" || {
  status=$?
  tail -n 60 "${TMPDIR:-/tmp}/replay.$$.log"; rm -f "${TMPDIR:-/tmp}/replay.$$.log"
  echo "replay: FAILED (status $status)"; exit 1
}
rm -f "${TMPDIR:-/tmp}/replay.$$.log"
echo "replay: all ${#files[@]} inputs passed"
