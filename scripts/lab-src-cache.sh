#!/usr/bin/env bash
# Finds or builds a real-kernel lab made from a kernel source tree (../shared/lab/make-lab-src.sh),
# cached between CI runs, and prints its folder on stdout: DIR/out (make-lab-src.sh's OUT:
# vmcores/, kernel/vmlinux, labcrash/labcrash.ko) and DIR/logs (the console logs). Prints nothing and exits 0 when the tree is not on this
# machine: the tests of that lab then skip (77).
#
#   scripts/lab-src-cache.sh VERSION     VERSION: 4.19, 6.14, 6.18, 6.18-fp, 6.18-guess, 6.18-la57 or
#                                        6.18-clang (the table below)
#
# 4.19 is the era before 5.2 renamed the IRQ stack's per-CPU pointer: irq_stack_ptr with
# irq_count, the IRQ stack inside the per-CPU irq_stack_union whose first 40 bytes hold the
# stack canary, ORC v1. Its tree is a board vendor's copy of 4.19.304 in a folder of its
# repository (kernel/), whose Makefile pins ARCH=arm: the export drops those two lines. The
# lab's copy for it names the 4.19 spellings of the fragment's options (DEBUG_INFO with DWARF 4,
# RETPOLINE, PAGE_TABLE_ISOLATION; EMBEDDED off, which in 4.19 selects the EXPERT the fragment turns off), builds labcrash.c against 4.19's API (file_operations for
# the /proc file, HRTIMER_MODE_REL_PINNED), and its QEMU driver takes a panic followed by 5 s
# of console silence as ended (scripts/lab-quiet-panic.py: like 5.10, 4.19 leaves panic's last
# line in the NMI printk buffer of a CPU that stops).
#
# 6.18-fp is the 6.18 tree configured as a distribution that keeps frame pointers would have it
# (CONFIG_UNWINDER_FRAME_POINTER instead of ORC: no .orc_unwind in vmlinux, and the kernel's own
# unwinder follows RBP, arch/x86/kernel/unwind_frame.c); 6.18-guess with neither ORC nor frame
# pointers (CONFIG_UNWINDER_GUESS, unwind_guess.c: every text word of the stack printed with '?';
# it needs EXPERT and no SLUB_DEBUG, as an embedded kernel's configuration has them).
# Each is the lab's kconfig fragment with that one choice changed, in a copy of ../shared/lab
# that the lab is built from. 6.18-la57 is the 6.18 kernel on a guest CPU with 5-level paging,
# which the lab's QEMU driver otherwise turns off (la57=off): since 6.16 every x86-64 kernel
# uses it where the CPU has it, and its direct map, vmalloc area and per-CPU stacks move.
# 6.18-clang is the 6.18 kernel built by clang 16 (make LLVM=-16, Debian's clang-16, lld-16 and
# llvm-16, installed for the build) with kCFI (CONFIG_CFI: a __cfi_ preamble before each
# function that may be called indirectly), as Android and ChromeOS build theirs: other inlining,
# no .cold clones, other ORC.
#
# A cached lab is used when its key matches: the tree's commit plus a hash of every lab input
# (make-lab.sh's scenarios, make-lab-src.sh, the kernel config fragment, the module, the guest
# init and the QEMU driver). Otherwise the tree is exported from its git directory and the
# kernel built and crashed (about 20 minutes for 6.14, 12 for 6.18 on 2 idle cores), then the
# source and objects are removed (the dumps, sparse, the logs, vmlinux and module stay: about 1.3 GB).
# Environment:
#   BTAUDIT_LAB_CACHE  the cache folder (default /var/cache/btaudit/labs)
#   BTAUDIT_KERNEL_GIT_6_14, BTAUDIT_KERNEL_GIT_6_18
#                      a bare git directory of the tree (default: the search tool's fetch
#                      location, /work/.mirror/OWNER+NAME/repo)
#   SHARED             the shared folder (default ../shared next to the checkout)
#   LAB_BUILD_TIMEOUT  seconds for one lab build (default 3600)
#   BTAUDIT_LAB_CACHED_ONLY=1  a cached lab or none: nothing is built
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
cache=${BTAUDIT_LAB_CACHE:-/var/cache/btaudit/labs}
version=${1:?usage: lab-src-cache.sh VERSION}

# version | default git directory | commit | the kernel's folder in the repository
subdir=
case "$version" in
  4.19) git_dir=${BTAUDIT_KERNEL_GIT_4_19:-/work/.mirror/maxiangpan+linux-4.19/repo}; commit=c46e277ca; subdir=kernel ;;
  6.14) git_dir=${BTAUDIT_KERNEL_GIT_6_14:-/work/.mirror/perishh+linux-6.14/repo}; commit=HEAD ;;
  # 6.18.2's newest commits add the MuQSS scheduler, which does not build when turned off.
  6.18|6.18-fp|6.18-guess|6.18-la57|6.18-clang) git_dir=${BTAUDIT_KERNEL_GIT_6_18:-/work/.mirror/gfunkmonk+linux-6.18.2/repo}; commit=57dc26c98 ;;
  *) echo "lab-src-cache: unknown version $version (4.19, 6.14, 6.18, 6.18-fp, 6.18-guess, 6.18-la57, 6.18-clang)" >&2; exit 64 ;;
esac
# The unwinder a variant's kernel is configured with, in place of the fragment's
# CONFIG_UNWINDER_ORC line (the guess unwinder also without frame pointers).
case "$version" in
  *-fp) unwinder='CONFIG_UNWINDER_FRAME_POINTER=y\nCONFIG_FRAME_POINTER=y' ;;
  *-guess) unwinder='CONFIG_UNWINDER_GUESS=y\n# CONFIG_FRAME_POINTER is not set' ;;
  *) unwinder= ;;
esac
# Paths left out of the export (the snapshots lack them).
exclude=':(exclude)drivers/gpu/drm/amd/include/asic_reg'
log() { echo "[lab-src-cache $version $(date +%T)] $*" >&2; }

lab=$shared/lab
variant=
private_copy() {  # a private copy of the lab, made once, for a variant's edits (its key follows them)
  [ -n "$variant" ] && return 0
  variant=$(mktemp -d)
  trap 'rm -rf "$variant"' EXIT
  cp -r "$lab" "$variant/lab"
  rm -rf "$variant/lab/logs"
  lab=$variant/lab
}
if [ -n "$unwinder" ] && [ -f "$lab/kconfig-src.config" ]; then
  # The fragment selects the variant's unwinder.
  private_copy
  grep -q '^CONFIG_UNWINDER_ORC=y$' "$lab/kconfig-src.config" ||
    { log "kconfig-src.config selects no ORC unwinder to replace: no lab"; exit 0; }
  sed -i "s/^CONFIG_UNWINDER_ORC=y\$/# CONFIG_UNWINDER_ORC is not set\n$unwinder/" "$lab/kconfig-src.config"
  # The guess unwinder depends on EXPERT and on no STACKDEPOT, which SLUB_DEBUG selects
  # (arch/x86/Kconfig.debug); the fragment's "# CONFIG_UNWINDER_GUESS is not set" would undo it.
  if [ "${version%-guess}" != "$version" ]; then
    sed -i -e '/^# CONFIG_UNWINDER_GUESS is not set$/d' -e 's/^# CONFIG_EXPERT is not set$/CONFIG_EXPERT=y/' \
      "$lab/kconfig-src.config"
    echo '# CONFIG_SLUB_DEBUG is not set' >>"$lab/kconfig-src.config"
  fi
fi
if [ "$version" = 4.19 ] && [ -f "$lab/kconfig-src.config" ]; then
  # 4.19's option names and API (the header says what and why).
  private_copy
  printf '%s\n' '# --- 4.19 spellings' CONFIG_DEBUG_INFO=y CONFIG_DEBUG_INFO_DWARF4=y CONFIG_RETPOLINE=y \
    CONFIG_PAGE_TABLE_ISOLATION=y CONFIG_COREDUMP=y '# CONFIG_EMBEDDED is not set' >>"$lab/kconfig-src.config"
  sed -i -e 's/^static const struct proc_ops labcrash_proc_ops/static const struct file_operations labcrash_proc_ops/' \
    -e 's/^\t\.proc_write = /\t.write = /' -e 's/HRTIMER_MODE_REL_PINNED_HARD/HRTIMER_MODE_REL_PINNED/g' \
    "$lab/module/labcrash.c"
  grep -q 'struct file_operations labcrash_proc_ops' "$lab/module/labcrash.c" ||
    { log "labcrash.c: its /proc file is not declared as expected: no lab"; exit 0; }
  python3 "$root/scripts/lab-quiet-panic.py" "$lab/run-scenario.py" ||
    { log "run-scenario.py not patched: no lab"; exit 0; }
fi
llvm=
if [ "${version%-clang}" != "$version" ]; then
  # The toolchain is no kconfig option: a line of the fragment's copy names it, for the key.
  private_copy
  llvm=-16
  printf '%s\n' "# --- built with LLVM=$llvm (scripts/lab-src-cache.sh)" CONFIG_CFI=y >>"$lab/kconfig-src.config"
fi
if [ "${version%-la57}" != "$version" ]; then
  # The guest's CPU with 5-level paging (the lab's driver turns it off): the kernel maps its
  # memory at 5-level addresses (page_offset_base 0xff11..., vmalloc'd stacks at 0xffa0...).
  private_copy
  grep -q 'default="max,la57=off"' "$lab/run-scenario.py" ||
    { log "run-scenario.py has no la57=off CPU default to replace: no lab"; exit 0; }
  sed -i 's/default="max,la57=off"/default="max"/' "$lab/run-scenario.py"
fi
lab_inputs=("$lab/make-lab.sh" "$lab/make-lab-src.sh" "$lab/kconfig-src.config"
            "$lab/module/labcrash.c" "$lab/module/Kbuild" "$lab/guest-init.sh"
            "$lab/run-scenario.py")
for f in "${lab_inputs[@]}"; do
  [ -f "$f" ] || { log "$f missing: no lab"; exit 0; }
done
if ! tree=$(git --git-dir="$git_dir" rev-parse --verify -q "$commit^{commit}" 2>/dev/null); then
  # No tree here: use any complete cached lab of this version (CI machines that keep the
  # cache but not the tree), else none.
  # (The version's own labs only: 6.18's name is also the start of 6.18-fp's.)
  found=$(ls -d "$cache/$version"-*/done 2>/dev/null |
          grep -E "/${version//./\\.}-[0-9a-f]{12}-[0-9a-f]{12}/done\$" | head -n 1 || true)
  if [ -n "$found" ]; then
    log "no tree at $git_dir; using the cached $(dirname "$found")"
    dirname "$found"
  else
    log "no tree at $git_dir and no cached lab: its tests are skipped"
  fi
  exit 0
fi
inputs_hash=$(cat "${lab_inputs[@]}" | sha256sum | cut -c1-12)
dir="$cache/$version-${tree:0:12}-$inputs_hash"
if [ -f "$dir/done" ]; then
  log "cached: $dir"
  echo "$dir"
  exit 0
fi

if [ "${BTAUDIT_LAB_CACHED_ONLY:-0}" = 1 ]; then
  log "not cached, and BTAUDIT_LAB_CACHED_ONLY=1: no lab (its tests are skipped)"
  exit 0
fi
log "building into $dir (tree ${tree:0:12}); make-lab-src.sh's log: $dir/make-lab.log"
rm -rf "$dir"
mkdir -p "$dir/src"
git --git-dir="$git_dir" archive "$tree${subdir:+:$subdir}" -- . "$exclude" | tar -x -C "$dir/src"
# A vendor tree's Makefile may pin another architecture (the 4.19 one: ARCH=arm).
sed -i -e '/^export ARCH=/d' -e '/^export CROSS_COMPILE=/d' "$dir/src/Makefile"
# Every stage but crash/drgn validation, which the tests do not read; the scenarios one at a
# time, each one's ELF dump made sparse before the next (scripts/lab-disk.sh).
# shellcheck source=lab-disk.sh
source "$root/scripts/lab-disk.sh"
if ! (export SRC="$dir/src" LAB_OUT="$dir/out" LAB_LOGS="$dir/logs"
      if [ -n "$llvm" ]; then
        export LLVM=$llvm
        command -v "clang$llvm" >/dev/null && command -v "ld.lld$llvm" >/dev/null && command -v "llvm-nm$llvm" >/dev/null ||
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "clang$llvm" "lld$llvm" "llvm$llvm" ||
          exit 1
      fi
      for stage in install config kernel module initramfs; do
        timeout "${LAB_BUILD_TIMEOUT:-3600}" bash "$lab/make-lab-src.sh" "$stage" || exit 1
      done
      timeout "${LAB_BUILD_TIMEOUT:-3600}" bash -c "source '$root/scripts/lab-disk.sh' &&
        lab_run_scenarios '$lab/make-lab-src.sh' '$lab/make-lab.sh' '$dir/out/vmcores'" || exit 1
      bash "$lab/make-lab-src.sh" check || exit 1) >"$dir/make-lab.log" 2>&1; then
  log "lab build failed (see $dir/make-lab.log):"
  tail -n 15 "$dir/make-lab.log" >&2
  exit 0
fi
rm -rf "$dir/src"
lab_sparsify "$dir/out/vmcores"
touch "$dir/done"
echo "$dir"
