#!/usr/bin/env bash
# What loading btaudit's crash extension costs a crash session (hyperfine):
#   crash            crash -s VMLINUX DUMP, then q
#   crash+extend     the same with `extend btaudit.so` first (only registers the command)
#   crash+100 loads  100 times `extend btaudit.so` + `extend -u btaudit.so`: the
#                    cost of one load, multiplied above the noise of crash's own start
#   crash+bt -a      extend, then `btaudit bt -a` (reads vmlinux's DWARF, walks every CPU)
# The first three should not differ beyond noise: the extension's constructor
# only calls register_extension() (no C++ static initializers are linked in);
# vmlinux is opened when a command runs. Compare user+sys times too: wall
# time on a loaded machine varies by seconds from run to run.
# usage: bench/crash-extension-bench.sh BUILD_DIR [DUMP] [VMLINUX] [RUNS]
set -euo pipefail
build=${1:?usage: crash-extension-bench.sh BUILD_DIR [DUMP] [VMLINUX] [RUNS]}
here=$(cd "$(dirname "$0")" && pwd)
dump=${2:-$here/../build-lab/vmcores/panic_irq.elf}
vmlinux=${3:-/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64}
runs=${4:-10}
plugin=$(cd "$build" && pwd)/btaudit.so
for need in hyperfine crash; do command -v "$need" >/dev/null || { echo "crash-extension-bench: $need missing"; exit 2; }; done
[ -f "$plugin" ] || { echo "crash-extension-bench: no $plugin (build the btaudit_crash target)"; exit 2; }
[ -f "$dump" ] || { echo "crash-extension-bench: no dump $dump (run ../shared/lab/make-lab.sh with LAB_OUT=build-lab)"; exit 2; }
[ -f "$vmlinux" ] || { echo "crash-extension-bench: no $vmlinux"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'q\n' > "$work/plain.cmds"
printf 'extend %s\nq\n' "$plugin" > "$work/extend.cmds"
printf 'extend %s\nbtaudit bt -a > /dev/null\nq\n' "$plugin" > "$work/bt.cmds"
for i in $(seq 100); do printf 'extend %s\nextend -u %s\n' "$plugin" "$plugin"; done > "$work/loads.cmds"
echo q >> "$work/loads.cmds"
# A run without the extension must not print "shared object loaded"; one with it must.
HOME=$work crash -s "$vmlinux" "$dump" < "$work/extend.cmds" 2>&1 | grep -q 'btaudit.so: shared object loaded' \
  || { echo "crash-extension-bench: crash did not load $plugin"; exit 1; }
cd "$work"  # no ./.crashrc; HOME too
HOME=$work hyperfine --warmup 1 --runs "$runs" --export-markdown "$work/results.md" \
  -n crash "crash -s '$vmlinux' '$dump' < plain.cmds" \
  -n crash+extend "crash -s '$vmlinux' '$dump' < extend.cmds" \
  -n 'crash+100 loads' "crash -s '$vmlinux' '$dump' < loads.cmds" \
  -n 'crash+extend+btaudit bt -a' "crash -s '$vmlinux' '$dump' < bt.cmds"
cat "$work/results.md"
