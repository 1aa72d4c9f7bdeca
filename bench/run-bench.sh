#!/usr/bin/env bash
# Throughput of `btaudit analyze` on a >= 200 MB console log made from the
# shared corpora (bench/make-input.sh), against `grep -c ''` on the same file:
# one core (taskset -c 0), median of RUNS runs (default 3), figures only.
# Usage: bench/run-bench.sh [BUILD_DIR=build] [SHARED_CORPORA]
#   env: RUNS=3 MIN_MB=200 BENCH_CPU=0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
shared=${2:-$here/../../shared/corpora}
runs=${RUNS:-3}
cpu=${BENCH_CPU:-0}
btaudit=$build/btaudit
[ -x "$btaudit" ] || { echo "run-bench: $btaudit not built" >&2; exit 1; }

input=$build/bench/bench-input.log
mkdir -p "$build/bench"
reps=$(bash "$here/make-input.sh" "$input" "$shared" "${MIN_MB:-200}")
bytes=$(stat -c %s "$input")
mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1048576}')
# Reports per copy of the corpus, counted once on the small unit file.
per_unit=$("$btaudit" analyze --format json "$input.unit" | grep -o '"corrupted_reason":' | wc -l)
reports=$((per_unit * reps))

# median_seconds OUT CMD...: runs CMD $runs times on one core with stdout to OUT; prints the median wall time.
median_seconds() {
  local out=$1 times=() start end
  shift
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    taskset -c "$cpu" "$@" >"$out"
    end=$(date +%s%N)
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN{printf "%.3f", (e-s)/1e9}')")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
peak_rss_mb() { /usr/bin/time -f %M taskset -c "$cpu" "$@" 2>&1 >/dev/null | tail -n1 | awk '{printf "%.0f", $1/1024}'; }

cat "$input" >/dev/null  # warm the page cache so the first timed run is not a disk benchmark
echo "btaudit $("$btaudit" version | awk '{print $2}') benchmark on $(uname -m), CPU $cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "input: $input"
echo "       $mb MB, $(wc -l <"$input") lines, $reps copies of the shared corpus, ~$reports reports; median of $runs runs"
# grep's count goes to a file: GNU grep stops at the first match when stdout is /dev/null.
t_grep=$(median_seconds "$build/bench/grep.out" grep -c '' "$input")
t_json=$(median_seconds /dev/null "$btaudit" analyze --format json "$input")
t_text=$(median_seconds /dev/null "$btaudit" analyze --format text --color never "$input")
rss_json=$(peak_rss_mb "$btaudit" analyze --format json "$input" || echo "?")
printf '%-40s %8s %10s %12s %10s\n' command seconds MB/s reports/s "x grep"
row() {
  awk -v n="$1" -v t="$2" -v mb="$mb" -v r="$reports" -v g="$t_grep" \
    'BEGIN{printf "%-40s %8.3f %10.1f %12.0f %10.1f\n", n, t, mb/t, r/t, t/g}'
}
row "btaudit analyze --format json" "$t_json"
row "btaudit analyze --format text" "$t_text"
row "grep -c ''" "$t_grep"
echo "peak RSS of the json run: ${rss_json} MB (the input is read in 8 MiB windows, not whole)"
