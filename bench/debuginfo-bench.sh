#!/usr/bin/env bash
# Symbolizing one real 40+ frame trace against the Debian kernel's debug
# vmlinux, side by side in one run:
#   btaudit analyze --vmlinux   (symbols, lines, inline chains, call-site checks)
#   scripts/decode_stacktrace.sh from linux-source-6.1 (the kernel's own tool)
#   one eu-addr2line -i -f call over the same addresses (the lower bound)
# usage: bench/debuginfo-bench.sh BUILD_DIR [VMLINUX] [LOG]
# Needs: linux-source-6.1 (scripts/decode_stacktrace.sh is extracted from it),
# the kernel -dbg package (see ../shared/lab/make-lab.sh install), hyperfine.
set -euo pipefail
build=${1:?usage: debuginfo-bench.sh BUILD_DIR [VMLINUX] [LOG]}
here=$(cd "$(dirname "$0")" && pwd)
vmlinux=${2:-/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64}
log=${3:-$here/../../shared/lab/logs/hung_task.console.log}
work=${BTAUDIT_BENCH_DIR:-/tmp/btaudit-bench}
mkdir -p "$work"
for need in hyperfine eu-addr2line python3; do
  command -v "$need" >/dev/null || { echo "debuginfo-bench: $need is missing (apt-get install hyperfine elfutils)"; exit 2; }
done
[ -f "$vmlinux" ] || { echo "debuginfo-bench: no $vmlinux (run ../shared/lab/make-lab.sh install)"; exit 2; }
decode="$work/decode_stacktrace.sh"
if [ ! -x "$decode" ]; then
  [ -f /usr/src/linux-source-6.1.tar.xz ] || { echo "debuginfo-bench: apt-get install linux-source-6.1"; exit 2; }
  tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$work" --wildcards '*/scripts/decode_stacktrace.sh'
  cp "$work"/linux-source-6.1/scripts/decode_stacktrace.sh "$decode"
  chmod +x "$decode"
fi
# The trace alone (timestamps kept: decode_stacktrace.sh handles them) and its addresses.
"$build/btaudit" analyze --format json --vmlinux "$vmlinux" "$log" > "$work/analysis.json"
read -r nframes naddrs first last < <(python3 "$here/trace-addresses.py" "$work/analysis.json" "$log" "$work")
echo "trace: $nframes frames ($naddrs distinct addresses), lines $first-$last of $log"
hyperfine -N --warmup 1 --runs 5 --export-json "$work/hyperfine.json" \
  -n btaudit "$build/btaudit analyze --format json --vmlinux $vmlinux $work/trace.log" \
  -n decode_stacktrace.sh "bash -c '$decode $vmlinux < $work/trace.log'" \
  -n eu-addr2line "eu-addr2line -i -f -e $vmlinux $(cat "$work/addresses.txt")" > "$work/hyperfine.txt"
python3 - "$work/hyperfine.json" <<'PY'
import json, sys
res = {r['command']: r['median'] for r in json.load(open(sys.argv[1]))['results']}
b, d, e = res['btaudit'], res['decode_stacktrace.sh'], res['eu-addr2line']
print(f"btaudit              {b*1000:9.1f} ms (median of 5)")
print(f"decode_stacktrace.sh {d*1000:9.1f} ms   btaudit is {d/b:.1f}x faster (goal >= 20x)")
print(f"eu-addr2line -i -f   {e*1000:9.1f} ms   btaudit takes {b/e:.2f}x its time (goal <= 2x)")
PY
