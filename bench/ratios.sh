#!/usr/bin/env bash
# The ratios of issue 14, each measured in one run beside its peer on this
# machine: whole-process CPU time (user + sys) and peak RSS (run_timed.py: wait4(2) and GNU time),
# medians of RUNS runs (default 3). Batch is a throughput ratio (wall time of
# -j 1 over -j 2, the same corpus). A peer that is not installed is reported as
# "peer missing"; there is no pass/fail.
#   (a) analyze --format json on run-bench.sh's input    vs  grep -c ''
#   (b) vmcore --vmlinux V DUMP bt                        vs  drgn, every CPU's stack (SHARED/lab/drgn-check.py)
#   (c) analyze --vmlinux V on the hung_task trace       vs  one eu-addr2line -i -f over its addresses
#   (d) batch --vmlinux V -j 2                            vs  batch --vmlinux V -j 1 (lab logs repeated)
# usage: bench/ratios.sh BUILD [SHARED=../shared] [LAB=BUILD_LAB_DIR]
#   env: RUNS=3 MIN_MB=200 VMLINUX=/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64 BATCH_COPIES=8
#        PIN=0: the CPU every one-process row (a)-(c) runs on, btaudit and peer alike (taskset -c):
#             the vCPUs of a VM need not run at one speed (on this project's VM one was 1.5x slower
#             than the other for days), and an unpinned pair of runs would measure where each landed.
#             PIN= (empty) runs unpinned.
#        BASE=path to an earlier commit's btaudit (bench/build-base.sh REV): the cold vmcore run
#        is also measured against that binary's, each starting without a profile.
set -euo pipefail
[ -x /usr/bin/time ] || { echo "ratios: GNU time is missing (apt-get install time)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: ratios.sh BUILD [SHARED] [LAB]}" && pwd)
shared=${2:-$here/../../shared}
lab=${3:-$(sed -n 's/^BTAUDIT_LAB_DIR:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)}
lab=${lab:-$here/../build-lab}
vmlinux=${VMLINUX:-/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64}
runs=${RUNS:-3}
btaudit=$build/btaudit
[ -x "$btaudit" ] || { echo "ratios: $btaudit not built" >&2; exit 1; }
work=$(mktemp -d /tmp/btaudit-ratios.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The kernel profiles (debuginfo/kernel_profile.h) of this run only: "warm" rows
# run after one run made the profile; "cold" rows start each run without one.
export XDG_CACHE_HOME=$work/cache
pin=()
if [ -n "${PIN-0}" ] && command -v taskset >/dev/null; then pin=(taskset -c "${PIN-0}"); fi
cold=$work/cold.sh  # runs a command with an empty profile cache of its own
printf '#!/bin/sh\nrm -rf "%s/cold"; XDG_CACHE_HOME="%s/cold" exec "$@"\n' "$work" "$work" >"$cold"
chmod +x "$cold"

# medians FILE: the median of each column of FILE's "wall_s cpu_s rss_mb" rows, on one line.
medians() {
  local col
  for col in 1 2 3; do
    cut -d' ' -f$col "$1" | sort -n | awk '{a[NR]=$1} END{printf "%s ", a[int((NR+1)/2)]}'
  done
  echo
}

# timed OUT TIMES CMD...: one run of CMD with stdout to OUT, its figures appended to TIMES
# (run_timed.py: CPU to the microsecond from wait4's rusage, not GNU time's centiseconds).
timed() {
  local out=$1 times=$2
  shift 2
  python3 "$here/run_timed.py" "$out" "$work/err" ${measure_prefix[@]+"${measure_prefix[@]}"} "$@" >"$work/t" ||
    return 1
  cat "$work/t" >>"$times"
}

# measure OUT CMD...: runs CMD $runs times with stdout to OUT; prints
# "wall_s cpu_s rss_mb" (each the median), or "missing" when CMD fails.
measure() {
  local out=$1 i
  shift
  : >"$work/times"
  for i in $(seq "$runs"); do
    timed "$out" "$work/times" "$@" || { echo missing; return; }
  done
  medians "$work/times"
}

# as_script NAME CMD...: writes a script that runs CMD and prints its path (for measure_pair).
as_script() {
  local f=$work/$1.sh
  shift
  { echo '#!/bin/sh'; printf 'exec'; printf ' %q' "$@"; echo; } >"$f"
  chmod +x "$f"
  echo "$f"
}

# measure_pair A B: the scripts A and B in turn, A B A B ..., $runs times each, stdout to
# /dev/null; prints A's figures on one line and B's on the next, as measure does. A wall-time
# ratio on a VM drifts with the host: taken in turn, both sides see the same drift, where
# five runs of one side and then five of the other can land in two different minutes.
measure_pair() {
  local i
  : >"$work/times.a"
  : >"$work/times.b"
  for i in $(seq "$runs"); do
    timed /dev/null "$work/times.a" "$1" && timed /dev/null "$work/times.b" "$2" || { printf 'missing\nmissing\n'; return; }
  done
  medians "$work/times.a"
  medians "$work/times.b"
}

printf '%-44s %-22s %-30s %-22s %s\n' work btaudit peer ratio goal
measure_prefix=(${pin[@]+"${pin[@]}"})  # rows (a)-(c): one process each, all on one CPU
# row WORK BTAUDIT_FIGURES PEER_NAME PEER_FIGURES GOAL [wall]: CPU ratio (wall ratio for throughput).
row() {
  local what=$1 ours=$2 peer_name=$3 theirs=$4 goal=$5 kind=${6:-cpu}
  if [ "$ours" = missing ]; then
    printf '%-44s %-22s %-30s %-22s %s\n' "$what" "failed (see below)" "-" "-" "$goal"
    sed 's/^/    /' "$work/err" | head -n 5
    return
  fi
  if [ "$theirs" = missing ]; then
    read -r w c m <<<"$ours"
    printf '%-44s %-22s %-30s %-22s %s\n' "$what" "${c} s CPU, ${m} MB" "$peer_name: peer missing" "-" "$goal"
    return
  fi
  awk -v what="$what" -v o="$ours" -v t="$theirs" -v p="$peer_name" -v goal="$goal" -v kind="$kind" 'BEGIN{
    split(o, a, " "); split(t, b, " ")
    if (kind == "wall") {
      printf "%-44s %-22s %-30s %-22s %s\n", what, sprintf("%.3f s wall, %.0f MB", a[1], a[3]),
        sprintf("%s %.3f s wall, %.0f MB", p, b[1], b[3]), sprintf("%.2fx throughput", b[1] / a[1]), goal
    } else {
      printf "%-44s %-22s %-30s %-22s %s\n", what, sprintf("%.3f s CPU, %.0f MB", a[2], a[3]),
        sprintf("%s %.3f s, %.0f MB", p, b[2], b[3]), sprintf("%.2fx CPU, %.2fx RSS", a[2] / b[2], a[3] / b[3]), goal
    }}'
}

# (a) text: the input bench/run-bench.sh measures.
input=$build/bench/bench-input.log
mkdir -p "$build/bench"
if bash "$here/make-input.sh" "$input" "$shared/corpora" "${MIN_MB:-200}" >/dev/null; then
  cat "$input" >/dev/null  # page cache warm: not a disk benchmark
  mb=$(($(stat -c %s "$input") >> 20))
  # grep's count goes to a file: GNU grep stops at the first match when stdout is /dev/null.
  grep_all=$(measure "$work/grep.out" grep -c '' "$input")
  row "analyze --format json, ${mb} MB" "$(measure /dev/null "$btaudit" analyze --format json "$input")" \
    "grep -c ''" "$grep_all" "<= 4x grep CPU, <= 64 MB"
  # Where that time goes: the input's lines inside some report's span (what reports are built
  # from: frames, title, verdicts, JSON) and the lines outside every report (only searched for a
  # report's start), each part repeated as the input repeats its unit, each against grep over
  # the whole input: the peer of the goal above. (split-input.py cuts them.)
  unit=$input.unit
  if [ -f "$unit" ] && "$btaudit" analyze --format json "$unit" >"$work/unit.json" 2>/dev/null &&
    python3 "$here/split-input.py" "$work/unit.json" "$unit" "$work/part" >/dev/null; then
    reps=$(($(stat -c %s "$input") / $(stat -c %s "$unit")))
    for part in reports outside; do
      for _ in $(seq "$reps"); do cat "$work/part.$part"; done >"$work/all.$part"
      part_mb=$(($(stat -c %s "$work/all.$part") >> 20))
      where="inside reports"
      [ "$part" = outside ] && where="outside every report"
      row "  its lines $where alone, ${part_mb} MB" \
        "$(measure /dev/null "$btaudit" analyze --format json "$work/all.$part")" "grep -c '' (${mb} MB)" \
        "$grep_all" "-"
      rm -f "$work/all.$part"
    done
  fi
else
  echo "(a) skipped: no corpora under $shared/corpora"
fi

# (b) dumps.
dump=$lab/vmcores/panic_irq.elf
if [ -f "$dump" ] && [ -f "$vmlinux" ]; then
  "$btaudit" vmcore --vmlinux "$vmlinux" "$dump" bt >/dev/null  # makes the profile
  ours=$(measure /dev/null "$btaudit" vmcore --vmlinux "$vmlinux" "$dump" bt)
  ours_cold=$(measure /dev/null "$cold" "$btaudit" vmcore --vmlinux "$vmlinux" "$dump" bt)
  ours_none=$(measure /dev/null "$btaudit" vmcore --no-cache --vmlinux "$vmlinux" "$dump" bt)
  theirs=missing
  if [ -f "$shared/lab/drgn-check.py" ] && /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
    theirs=$(measure /dev/null /usr/bin/python3 "$shared/lab/drgn-check.py" "$vmlinux" "$dump")
  fi
  row "vmcore bt, panic_irq.elf, warm profile" "$ours" "drgn" "$theirs" "<= 0.1x drgn CPU, <= 64 MB"
  row "vmcore bt, cold (makes the profile)" "$ours_cold" "drgn" "$theirs" "not slower than --no-cache"
  row "vmcore bt, --no-cache" "$ours_none" "drgn" "$theirs" "(no profile read or written)"
  if [ -n "${BASE:-}" ]; then
    # The same cold run of an earlier binary, in this run: "cold: not slower than before".
    base_rev=$(git -C "$(dirname "$BASE")" rev-parse --short HEAD 2>/dev/null || true)
    row "vmcore bt, cold" "$ours_cold" "base ${base_rev:-binary} cold" \
      "$(measure /dev/null "$cold" "$BASE" vmcore --vmlinux "$vmlinux" "$dump" bt)" "<= 1x the base"
  fi
else
  echo "(b) skipped: no $dump or $vmlinux"
fi

# (c) symbolization: the hung_task report's trace alone, and its distinct addresses.
log=$shared/lab/logs/hung_task.console.log
if [ -f "$log" ] && [ -f "$vmlinux" ]; then
  "$btaudit" analyze --format json --vmlinux "$vmlinux" "$log" >"$work/analysis.json"
  read -r nframes _ < <(python3 "$here/trace-addresses.py" "$work/analysis.json" "$log" "$work")
  "$btaudit" analyze --format json --vmlinux "$vmlinux" "$work/trace.log" >/dev/null  # makes the profile
  ours=$(measure /dev/null "$btaudit" analyze --format json --vmlinux "$vmlinux" "$work/trace.log")
  ours_cold=$(measure /dev/null "$cold" "$btaudit" analyze --format json --vmlinux "$vmlinux" "$work/trace.log")
  theirs=missing
  if command -v eu-addr2line >/dev/null; then
    # shellcheck disable=SC2046  # one argument per address
    theirs=$(measure /dev/null eu-addr2line -i -f -e "$vmlinux" $(cat "$work/addresses.txt"))
  fi
  row "analyze --vmlinux, hung_task (${nframes} frames), warm" "$ours" "eu-addr2line -i -f" "$theirs" \
    "<= 1.5x eu-addr2line CPU, RSS <= its"
  row "analyze --vmlinux, cold (makes the profile)" "$ours_cold" "eu-addr2line -i -f" "$theirs" "-"
  # The common warm case: a new report on a kernel a run has seen before, so the profile
  # holds the tables but not these addresses. Each run starts from a copy of a profile made
  # by another lab report (the copy, ~8 MB, is inside the measured time).
  other=$shared/lab/logs/warn_task.console.log
  if [ -f "$other" ]; then
    XDG_CACHE_HOME=$work/seen.base "$btaudit" analyze --format json --vmlinux "$vmlinux" "$other" >/dev/null 2>&1
    seen=$work/seen.sh
    printf '#!/bin/sh
rm -rf "%s/seen.run"; cp -a "%s/seen.base" "%s/seen.run"; XDG_CACHE_HOME="%s/seen.run" exec "$@"
' \
      "$work" "$work" "$work" "$work" >"$seen"
    chmod +x "$seen"
    row "analyze --vmlinux, profile of another report" \
      "$(measure /dev/null "$seen" "$btaudit" analyze --format json --vmlinux "$vmlinux" "$work/trace.log")" \
      "eu-addr2line -i -f" "$theirs" "-"
  fi
else
  echo "(c) skipped: no $log or $vmlinux"
fi

# (d) batch: the lab logs, BATCH_COPIES copies of each.
corpus=$work/corpus
mkdir -p "$corpus"
n=0
for copy in $(seq "${BATCH_COPIES:-8}"); do
  for f in "$lab"/logs/*.log "$shared"/lab/logs/*.log; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    cp "$f" "$corpus/$copy-$n-$(basename "$f")"
  done
done
measure_prefix=()  # (d) needs both CPUs
if [ "$n" -gt 0 ] && [ -f "$vmlinux" ]; then
  batch_row() {  # batch_row CORPUS GOAL
    local reports
    reports=$("$btaudit" batch --vmlinux "$vmlinux" -j 1 --progress never -q "$1" 2>/dev/null | wc -l)
    local figures
    figures=$(measure_pair "$(as_script j2 "$btaudit" batch --vmlinux "$vmlinux" -j 2 --progress never -q "$1")" \
      "$(as_script j1 "$btaudit" batch --vmlinux "$vmlinux" -j 1 --progress never -q "$1")")
    row "batch --vmlinux -j 2 vs -j 1, ${reports} reports" "$(sed -n 1p <<<"$figures")" "-j 1" \
      "$(sed -n 2p <<<"$figures")" "$2" wall
    echo "$reports $(sed -n 2p <<<"$figures" | cut -d' ' -f1)" >>"$work/batch-rows"  # reports, -j 1 wall
  }
  # The part of a run a second job cannot shorten: a run over one file (the process, the
  # options, the vmlinux and its profile opened, one report) -- the bound below uses it.
  mkdir -p "$work/one"
  cp "$(find "$corpus" -type f | sort | head -n 1)" "$work/one/"
  start_s=$(measure /dev/null "$btaudit" batch --vmlinux "$vmlinux" -j 1 --progress never -q "$work/one" | cut -d' ' -f1)
  batch_row "$corpus" ">= 1.8x throughput"
  # The same corpus 8 times over: with call-site answers shared across the run a report
  # costs a tenth of a millisecond, and the small corpus's ratio is mostly the run's start.
  big=$work/corpus-x8
  mkdir -p "$big"
  for copy in $(seq 8); do
    for f in "$corpus"/*; do cp "$f" "$big/$copy-$(basename "$f")"; done
  done
  batch_row "$big" "(start-up amortized)"
  # What the machine gives two independent jobs: the big corpus in two halves, a -j 1 process
  # on each, side by side, against one -j 1 process on all of it. The two share no lock, answer
  # or cache line, so this row moves with the vCPUs' speeds and the host's load and not with
  # btaudit's threads; each also pays the run's start (process, vmlinux, profile) that -j 2
  # pays once, so -j 2 should beat it. Read the -j 2 rows against it.
  mkdir -p "$work/half1" "$work/half2"
  i=0
  for f in "$big"/*; do
    i=$((i + 1))
    ln -s "$f" "$work/half$((i % 2 + 1))/$(basename "$f")"
  done
  pair=$work/pair.sh
  printf '#!/bin/sh\n"%s" batch --vmlinux "%s" -j 1 --progress never -q "%s" >/dev/null 2>&1 &\n"%s" batch --vmlinux "%s" -j 1 --progress never -q "%s" >/dev/null 2>&1\nwait\n' \
    "$btaudit" "$vmlinux" "$work/half1" "$btaudit" "$vmlinux" "$work/half2" >"$pair"
  chmod +x "$pair"
  figures=$(measure_pair "$pair" "$(as_script j1big "$btaudit" batch --vmlinux "$vmlinux" -j 1 --progress never -q "$big")")
  row "two -j 1 processes on halves, side by side" "$(sed -n 1p <<<"$figures")" "-j 1" \
    "$(sed -n 2p <<<"$figures")" "(the machine, for the rows above)" wall
else
  echo "(d) skipped: no lab logs under $lab/logs or $shared/lab/logs, or no $vmlinux"
fi
# What two CPU-bound jobs that share nothing get from this machine at this moment: sha256sum of
# the (cached) text input twice at once against twice in a row. No start-up, no I/O, no lock:
# 2.00x on two idle physical cores; less when the host runs the two vCPUs on one core's two
# hyperthreads or is busy. It bounds every -j 2 row above.
if [ -f "$input" ] && command -v sha256sum >/dev/null; then
  printf '#!/bin/sh\nsha256sum "%s" >/dev/null &\nsha256sum "%s" >/dev/null\nwait\n' "$input" "$input" >"$work/hash2.sh"
  printf '#!/bin/sh\nsha256sum "%s" >/dev/null\nsha256sum "%s" >/dev/null\n' "$input" "$input" >"$work/hash1.sh"
  chmod +x "$work/hash2.sh" "$work/hash1.sh"
  figures=$(measure_pair "$work/hash2.sh" "$work/hash1.sh")
  row "two sha256sum side by side vs in a row" "$(sed -n 1p <<<"$figures")" "in a row" \
    "$(sed -n 2p <<<"$figures")" "(the machine's two-job ceiling)" wall
  # The best -j 2 can do on this machine at this moment (Amdahl): a -j 1 run of T seconds is a
  # start of S (the one-file run) and T - S of reports, which two jobs finish at best in
  # (T - S) / C, C the two-job ceiling just measured.
  ceiling=$(awk -v a="$(sed -n 1p <<<"$figures")" -v b="$(sed -n 2p <<<"$figures")" \
    'BEGIN{split(a, x, " "); split(b, y, " "); if (x[1] > 0) printf "%.4f", y[1] / x[1]}')
  if [ -f "$work/batch-rows" ] && [ -n "${start_s:-}" ] && [ -n "$ceiling" ]; then
    while read -r reports t1; do
      awk -v r="$reports" -v t="$t1" -v s="$start_s" -v c="$ceiling" 'BEGIN{
        w = t - s; if (w < 0) w = 0
        printf "%-44s %-22s %-30s %-22s %s\n", "  -j 2 bound, " r " reports", sprintf("start %.3f s", s),
          sprintf("-j 1 %.3f s, ceiling %.2fx", t, c), sprintf("%.2fx at best", t / (s + w / c)), "(start + reports / ceiling)"
      }'
    done <"$work/batch-rows"
  fi
fi
echo "CPU = user + sys of the whole process, RSS = peak; medians of $runs runs on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rows (a)-(c) pinned: ${pin[*]:-no}"
