#!/usr/bin/env bash
# `btaudit batch` on a corpus of many files: the visible shared corpora (every
# file, headers and all, as a fleet would collect them) copied into numbered
# folders until the corpus holds at least MIN_MB (default 1024). Measures
# --jobs 1 and --jobs 2 (NDJSON reports to /dev/null, bucket summary to a file)
# and `grep -rc ''` over the same files: wall time (median of RUNS, default 3),
# MB/s, reports/s, peak RSS, the 1 -> 2 jobs speed-up and the ratio to grep.
# Usage: bench/batch-bench.sh [BUILD_DIR=build] [SHARED_CORPORA]   env: RUNS=3 MIN_MB=1024
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
shared=$(cd "${2:-$here/../../shared/corpora}" && pwd)
runs=${RUNS:-3}
min_mb=${MIN_MB:-1024}
btaudit=$build/btaudit
[ -x "$btaudit" ] || { echo "batch-bench: $btaudit not built" >&2; exit 1; }

corpus=$build/bench/batch-corpus
unit_kb=$(du -sk --apparent-size "$shared" | cut -f1)
copies=$(( (min_mb * 1024 + unit_kb - 1) / unit_kb ))
if [ ! -f "$corpus.complete-$copies" ]; then
  rm -rf "$corpus"
  mkdir -p "$corpus"
  for i in $(seq -w 1 "$copies"); do cp -r "$shared" "$corpus/$i"; done
  rm -f "$corpus".complete-*; touch "$corpus.complete-$copies"
fi
bytes=$(du -sb --apparent-size "$corpus" | cut -f1)
files=$(find "$corpus" -type f | wc -l)
mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
cat -- $(find "$corpus" -type f | head -2000) >/dev/null  # warm the page cache a little; the runs below warm it all

# median_seconds CMD...: median wall time of $runs runs, output to /dev/null.
median_seconds() {
  local times=() start end
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN{printf "%.3f", (e-s)/1e9}')")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
peak_rss_mb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n1 | awk '{printf "%.0f", $1/1024}'; }

grep -rc '' "$corpus" >/dev/null  # page cache
buckets=$build/bench/batch-buckets.ndjson
summary=$("$btaudit" batch -j 2 --progress never -o /dev/null --buckets "$buckets" "$corpus" 2>&1 | tail -n1)
reports=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) reports in.*/\1/p')

echo "btaudit $("$btaudit" version | awk '{print $2}') batch benchmark, $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "corpus: $files files, $mb MB ($copies copies of $shared), $reports reports"
echo "last run: $summary"
t_grep=$(median_seconds grep -rc '' "$corpus")
t1=$(median_seconds "$btaudit" batch -j 1 --progress never -o /dev/null --buckets "$buckets" "$corpus")
t2=$(median_seconds "$btaudit" batch -j 2 --progress never -o /dev/null --buckets "$buckets" "$corpus")
rss1=$(peak_rss_mb "$btaudit" batch -j 1 --progress never -o /dev/null --buckets "$buckets" "$corpus")
rss2=$(peak_rss_mb "$btaudit" batch -j 2 --progress never -o /dev/null --buckets "$buckets" "$corpus")
awk -v mb="$mb" -v r="$reports" -v g="$t_grep" -v t1="$t1" -v t2="$t2" -v m1="$rss1" -v m2="$rss2" 'BEGIN{
  printf "%-22s %8s %10s %12s %9s %10s\n", "command", "seconds", "MB/s", "reports/s", "RSS MB", "x grep";
  printf "%-22s %8.2f %10.1f %12s %9s %10.2f\n", "grep -rc '\'''\''", g, mb/g, "-", "-", 1;
  printf "%-22s %8.2f %10.1f %12.0f %9d %10.2f\n", "btaudit batch -j 1", t1, mb/t1, r/t1, m1, t1/g;
  printf "%-22s %8.2f %10.1f %12.0f %9d %10.2f\n", "btaudit batch -j 2", t2, mb/t2, r/t2, m2, t2/g;
  printf "speed-up from 1 to 2 jobs: %.2fx\n", t1/t2 }'
