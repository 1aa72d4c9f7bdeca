#!/usr/bin/env bash
# Runs the libFuzzer targets of a BTAUDIT_FUZZ build for a bounded time each.
# Usage: fuzz/run-fuzz.sh BUILD_DIR SECONDS [TARGET...]
#   (targets: analyze read_input batch dump_header vmcoreinfo store_open profile; default all)
# The working corpus grows in BUILD_DIR/fuzz-corpus/<target>/ (kept between runs),
# crashes land in BUILD_DIR/fuzz-artifacts/<target>/. A crash makes the script fail:
# copy the input to fuzz/regressions/<target>/ and keep it there after the fix.
# FUZZ_KEEP_GOING=1 runs libFuzzer in fork mode and goes on after a crash, so one
# known bug does not hide the next during a long run; every crash is still saved.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(analyze read_input batch dump_header vmcoreinfo store_open profile)

seeds=$build/fuzz-seeds
[ -d "$seeds" ] || bash "$here/make-seeds.sh" "$seeds"
status=0
for t in "${targets[@]}"; do
  bin=$build/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "run-fuzz: $bin missing (cmake -DBTAUDIT_FUZZ=ON, build fuzz_$t)"; exit 1; }
  corpus=$build/fuzz-corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  extra=()
  [ "$t" = analyze ] && extra+=(-dict="$here/kernel-log.dict" -max_len=32768)
  [ "$t" = batch ] && extra+=(-dict="$here/kernel-log.dict" -max_len=16384)
  [ "$t" = dump_header ] && extra+=(-max_len=262144)
  [ "${FUZZ_KEEP_GOING:-0}" = 1 ] && extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "run-fuzz: fuzz_$t for ${seconds}s"
  # The first directory is the growing corpus; seeds and regressions are read only.
  # (git keeps no empty folder: a target with no finding yet has none in a clone.)
  # libFuzzer stops at a corpus folder that does not exist: a seeds folder made before a
  # target had seeds (fuzz-seeds is made once and kept) gets an empty one.
  mkdir -p "$here/regressions/$t" "$seeds/$t"
  [ -d "$here/seeds/$t" ] && [ -z "$(ls -A "$seeds/$t")" ] && cp "$here/seeds/$t"/* "$seeds/$t/"
  if ! "$bin" "$corpus" "$seeds/$t" "$here/regressions/$t" -max_total_time="$seconds" -timeout=30 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" \
      >"$build/fuzz-$t.log" 2>&1; then
    status=1
    echo "run-fuzz: fuzz_$t FOUND A FAILURE; see $build/fuzz-$t.log and $artifacts/"
    grep -m1 -A25 -E 'ERROR: |runtime error|invariant broken|==[0-9]+==' "$build/fuzz-$t.log" || tail -n 40 "$build/fuzz-$t.log"
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^stat::new_units_added' "$build/fuzz-$t.log" | sed "s/^/  fuzz_$t /" || true
done
exit $status
