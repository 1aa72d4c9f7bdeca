#!/usr/bin/env bash
# CPU time of two btaudit binaries and `grep -c ''` on run-bench.sh's input, taken in turn
# (new, old, grep, new, old, grep, ...) on one pinned CPU: on a shared VM whose speed drifts
# by the minute, runs side by side in time are what can be compared. Prints the median of
# user + sys for each, with its range and peak RSS.
# Usage: bench/text-in-turn.sh NEW_BTAUDIT OLD_BTAUDIT [INPUT=build/bench/bench-input.log]
#   env: RUNS=8 BENCH_CPU=0 FORMAT=json|text
# Every command writes to a file: GNU grep with its output on /dev/null stops at the first
# matching line, and a peer timed that way reads as 0.00 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
new=${1:?usage: text-in-turn.sh NEW_BTAUDIT OLD_BTAUDIT [INPUT]}
old=${2:?usage: text-in-turn.sh NEW_BTAUDIT OLD_BTAUDIT [INPUT]}
input=${3:-$here/../build/bench/bench-input.log}
[ -f "$input" ] || { echo "text-in-turn: $input: no such file (bench/run-bench.sh makes it)" >&2; exit 1; }
runs=${RUNS:-8}
cpu=${BENCH_CPU:-0}
args=(analyze)
[ "${FORMAT:-json}" = json ] && args+=(--format json)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$input" >/dev/null  # the page cache warm before the first run
for _ in $(seq "$runs"); do
  for who in new old grep; do
    case $who in
      new) cmd=("$new" "${args[@]}" "$input") ;;
      old) cmd=("$old" "${args[@]}" "$input") ;;
      grep) cmd=(grep -c '' "$input") ;;
    esac
    /usr/bin/time -f "$who %U %S %M" -a -o "$work/times" taskset -c "$cpu" "${cmd[@]}" >"$work/out"
  done
done
for who in new old grep; do
  awk -v w="$who" '$1 == w {print $2 + $3, $4}' "$work/times" | sort -n |
    awk -v w="$who" '{t[NR] = $1; if ($2 > rss) rss = $2}
      END {printf "%-5s %.3f s CPU (median of %d; %.2f-%.2f), peak RSS %d MB\n", w, (t[int((NR + 1) / 2)] + t[int(NR / 2) + 1]) / 2, NR, t[1], t[NR], rss / 1024}'
done
