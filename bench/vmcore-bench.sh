#!/usr/bin/env bash
# All-CPU backtraces of a real lab dump, side by side in one run:
#   btaudit vmcore DUMP bt        (IRQ state, ORC walk of every CPU, verdicts)
#   crash -s vmlinux DUMP <<< 'bt -a'           (Debian crash 8.0.2)
#   drgn: ../shared/lab/drgn-check.py (every CPU's stack; drgn 0.0.22)
# Wall time (median of 3) and peak RSS (GNU time), as ratios to btaudit.
# usage: bench/vmcore-bench.sh BUILD_DIR [DUMP] [VMLINUX]
set -euo pipefail
build=${1:?usage: vmcore-bench.sh BUILD_DIR [DUMP] [VMLINUX]}
here=$(cd "$(dirname "$0")" && pwd)
dump=${2:-$here/../build-lab/vmcores/panic_irq.elf}
vmlinux=${3:-/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64}
drgn_script=$here/../../shared/lab/drgn-check.py
for need in /usr/bin/time crash; do command -v "$need" >/dev/null || { echo "vmcore-bench: $need missing (make-lab.sh install)"; exit 2; }; done
[ -f "$dump" ] || { echo "vmcore-bench: no dump $dump (run ../shared/lab/make-lab.sh with LAB_OUT=build-lab)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # name, command...: prints "name median_s max_rss_kb"
  local name=$1; shift
  local times=() rss=0
  for i in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$work/t" "$@" > "$work/out.$name" 2>&1 || true
    read -r t m < "$work/t"
    times+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
  done
  printf '%s %s %s\n' "$name" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)" "$rss"
}
{
  measure btaudit "$build/btaudit" vmcore "$dump" bt --vmlinux "$vmlinux"
  measure crash bash -c "printf 'bt -a\nq\n' | crash -s '$vmlinux' '$dump'"
  if [ -f "$drgn_script" ] && /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
    measure drgn /usr/bin/python3 "$drgn_script" "$vmlinux" "$dump"
  fi
} > "$work/results"
python3 - "$work/results" "$dump" <<'PY'
import sys
rows = {n: (float(t), int(m)) for n, t, m in (l.split() for l in open(sys.argv[1]))}
bt, bm = rows['btaudit']
print(f"dump: {sys.argv[2]}")
for name, (t, m) in rows.items():
    extra = '' if name == 'btaudit' else f"   btaudit: {t / bt:5.1f}x faster, {m / bm:4.1f}x less memory"
    print(f"{name:8} {t:7.2f} s  {m / 1024:7.1f} MB{extra}")
PY
