#!/usr/bin/env bash
# Finds or builds a lab of dumps written by kdump itself: a lab's kernel (Debian's 6.1 made by
# ../shared/lab/make-lab.sh, or one lab-src-cache.sh built from a source tree) booted under QEMU
# with a capture kernel (the same one) loaded by `kexec -p`, crashed,
# and its memory written from the capture kernel's /proc/vmcore by makedumpfile, as the
# distributions' kdump services write it (-d 31: free, cache and user pages left out). Unlike
# QEMU's dump-guest-memory, the ELF notes are the kernel's own: VMCOREINFO from the crashed
# kernel, NT_PRSTATUS with real PIDs, the panicking CPU's registers taken by crash_setup_regs()
# (or an oops' faulting registers, from oops_end()), every other CPU's as crash_nmi_callback()
# found them when the NMI stopped it. Prints the lab's folder on stdout in the layout of
# scripts/lab-src-cache.sh: DIR/out/vmcores (NAME.kdump-zlib, NAME.elf), DIR/out/kernel/vmlinux
# (a link to the vmlinux with DWARF), DIR/out/labcrash, DIR/logs (each scenario's serial console:
# the crash, then the capture kernel's boot). Prints nothing and exits 0 when the lab or the tools
# are missing: the tests of this lab then skip (77).
#
#   scripts/lab-kdump-cache.sh LAB   LAB: make-lab.sh's LAB_OUT (Debian's 6.1: kpkg/, labcrash/), or a
#                                    lab-src-cache.sh or lab-debian-cache.sh folder (out/kernel/)
#
# A cached lab is used when its key matches: the kernel image, this script, the /init scripts
# (scripts/kdump-lab/), the module's source and the versions of makedumpfile and kexec-tools.
# About 1 minute a scenario under TCG; about 100 MB of dumps in all.
# Environment:
#   BTAUDIT_LAB_CACHE  the cache folder (default /var/cache/btaudit/labs)
#   SHARED             the shared folder (default ../shared next to the checkout)
#   LAB_SCENARIO_TIMEOUT  seconds for one scenario's boot, crash and capture (default 420)
#   KDUMP_SCENARIOS    only these scenarios (space-separated names; for trying one)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
cache=${BTAUDIT_LAB_CACHE:-/var/cache/btaudit/labs}
lab=${1:?usage: lab-kdump-cache.sh LAB}
log() { echo "[lab-kdump-cache $(date +%T)] $*" >&2; }

# The two layouts of a lab: Debian's 6.1 (make-lab.sh's LAB_OUT: the package under kpkg/, vmlinux
# from its -dbg package, virtio as modules) and a lab-src-cache.sh or lab-debian-cache.sh folder
# (out/kernel/: a kernel built from source, without virtio, or Debian 11's 5.10, whose virtio
# modules are split otherwise), whose capture kernel writes to a serial port.
if ls "$lab"/kpkg/boot/vmlinuz-*-cloud-amd64 >/dev/null 2>&1; then
  bzimage=$(ls "$lab"/kpkg/boot/vmlinuz-*-cloud-amd64 | head -1)
  kver=${bzimage##*/vmlinuz-}
  vmlinux=/usr/lib/debug/boot/vmlinux-$kver
  labcrash=$lab/labcrash/labcrash.ko
  modules=$lab/kpkg/lib/modules/$kver/kernel
  transport=virtio
elif [ -f "$lab/out/kernel/bzImage" ]; then
  bzimage=$lab/out/kernel/bzImage
  # The release lab-src-cache.sh wrote, else the one the image names: the setup header's
  # kernel_version field (Documentation/arch/x86/boot.rst: a 16-bit pointer at 0x20e, plus 0x200).
  kver=$(cat "$lab/out/kernel/kernelrelease" 2>/dev/null || true)
  if [ -z "$kver" ]; then
    ver_at=$(od -An -tu2 -j526 -N2 "$bzimage" | tr -d ' ')
    kver=$(dd if="$bzimage" bs=1 skip=$((ver_at + 512)) count=64 2>/dev/null | tr '\0' '\n' | head -n1 | cut -d' ' -f1)
  fi
  kver=${kver:-unknown}
  vmlinux=$lab/out/kernel/vmlinux
  labcrash=$lab/out/labcrash/labcrash.ko
  modules=""
  transport=serial
else
  log "no kernel under $lab (neither kpkg/ nor out/kernel/): no lab"
  exit 0
fi
# The guest CPU: the lab's own. A 5-level-paging lab (lab-src-cache.sh 6.18-la57, whose folder
# its version names) runs where the CPU has LA57, so that its kernel, the capture kernel and
# makedumpfile all use 5-level page tables; every other lab's QEMU driver turns LA57 off.
cpu=max,la57=off
case $(basename "$(cd "$lab" && pwd)") in *-la57-*) cpu=max ;; esac
for f in "$vmlinux" "$labcrash" ${modules:+"$modules/drivers/block/virtio_blk.ko"}; do
  [ -f "$f" ] || { log "$f missing: no lab"; exit 0; }
done
inputs=("$0" "$bzimage" "$root/scripts/kdump-lab/first-init.sh" "$root/scripts/kdump-lab/capture-init.sh"
        "$root/scripts/kdump-lab/guest-mounts.sh"
        "$shared/lab/module/labcrash.c")
key=$( (cat "${inputs[@]}"; echo "$kver $transport $cpu"; dpkg-query -W -f '${Version}\n' makedumpfile kexec-tools) | sha256sum | cut -c1-12)
dir="$cache/kdump-$kver-$key"
if [ -f "$dir/done" ]; then
  log "cached: $dir"
  echo "$dir"
  exit 0
fi
log "building into $dir"
rm -rf "$dir"
mkdir -p "$dir/out/vmcores" "$dir/out/kernel" "$dir/out/labcrash" "$dir/logs" "$dir/work"
ln -s "$vmlinux" "$dir/out/kernel/vmlinux"
cp "$labcrash" "$dir/out/labcrash/"
work=$dir/work

# copy_with_libs BIN ROOT: BIN and the shared libraries it loads (ldd) into ROOT.
copy_with_libs() {
  mkdir -p "$2/bin"
  cp "$1" "$2/bin/"
  ldd "$1" | grep -o '/[^ ]*' | while read -r lib; do
    mkdir -p "$2$(dirname "$lib")"
    cp -L "$lib" "$2$lib"
  done
}
# make_cpio ROOT OUT
make_cpio() {
  mkdir -p "$1/dev" "$1/proc" "$1/sys" "$1/tmp"
  [ -e "$1/dev/console" ] || mknod -m 600 "$1/dev/console" c 5 1
  [ -e "$1/dev/null" ] || mknod -m 666 "$1/dev/null" c 1 3
  (cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner=0:0 --reproducible --quiet) |
    gzip -9 -n >"$2"
}

# The capture kernel's initramfs: busybox, makedumpfile, the virtio block driver (a module in
# Debian's cloud kernel), loaded in dependency order by the glob of capture-init.sh.
cap=$work/capture-root
mkdir -p "$cap/bin" "$cap/lib/modules"
cp "$(command -v busybox)" "$cap/bin/busybox"
ln -s busybox "$cap/bin/sh"
copy_with_libs "$(command -v makedumpfile)" "$cap"
n=1
for m in ${modules:+drivers/virtio/virtio_ring.ko drivers/virtio/virtio.ko drivers/virtio/virtio_pci_legacy_dev.ko \
         drivers/virtio/virtio_pci_modern_dev.ko drivers/virtio/virtio_pci.ko drivers/block/virtio_blk.ko}; do
  cp "$modules/$m" "$cap/lib/modules/$n-$(basename "$m")"
  n=$((n + 1))
done
install -m 0755 "$root/scripts/kdump-lab/capture-init.sh" "$cap/init"
install -m 0644 "$root/scripts/kdump-lab/guest-mounts.sh" "$cap/guest-mounts.sh"
make_cpio "$cap" "$work/capture.cpio.gz"

# The crashing kernel's initramfs: busybox, kexec, the module, and the capture kernel with its initramfs.
first=$work/first-root
mkdir -p "$first/bin" "$first/boot" "$first/lib/modules"
cp "$(command -v busybox)" "$first/bin/busybox"
ln -s busybox "$first/bin/sh"
copy_with_libs "$(command -v kexec)" "$first"
cp "$bzimage" "$first/boot/vmlinuz"
cp "$work/capture.cpio.gz" "$first/boot/capture.cpio.gz"
cp "$labcrash" "$first/lib/modules/"
install -m 0755 "$root/scripts/kdump-lab/first-init.sh" "$first/init"
install -m 0644 "$root/scripts/kdump-lab/guest-mounts.sh" "$first/guest-mounts.sh"
make_cpio "$first" "$work/first.cpio.gz"

# name | extra kernel command line (crashkernel= reserves the capture kernel's memory)
scenarios=(
  "kdump_task|nokaslr"
  "kdump_task_kaslr|"
  "kdump_hardirq|panic_on_warn=1"
  "kdump_nmi|panic_on_warn=1"
  "kdump_oops|nokaslr oops=panic"
)
made=0
for s in "${scenarios[@]}"; do
  name=${s%%|*}
  extra=${s#*|}
  [ -z "${KDUMP_SCENARIOS:-}" ] || [[ " $KDUMP_SCENARIOS " == *" $name "* ]] || continue
  console=$dir/logs/$name.console.log
  truncate -s 0 "$work/vda.img" "$work/vdb.img"
  outputs=(-serial "file:$work/vda.img")
  if [ "$transport" = virtio ]; then
    truncate -s 2G "$work/vda.img" "$work/vdb.img"
    outputs=(-drive "file=$work/vda.img,if=virtio,format=raw" -drive "file=$work/vdb.img,if=virtio,format=raw")
  fi
  log "scenario $name"
  # TCG: KVM does not work on these machines (../shared/lab/README.md). -no-reboot: a kernel that
  # panics without kdump (panic=1) ends the run instead of booting again.
  timeout "${LAB_SCENARIO_TIMEOUT:-420}" qemu-system-x86_64 -machine pc -accel tcg,thread=multi -cpu "$cpu" \
    -smp 2 -m 768M -display none -vga none -no-reboot -serial "file:$console" "${outputs[@]}" -monitor none \
    -kernel "$bzimage" -initrd "$work/first.cpio.gz" \
    -append "console=ttyS0,115200 sysrq_always_enabled panic=1 crashkernel=192M lab=$name kdump_to=$transport $extra" \
    >"$work/$name.qemu.log" 2>&1 || log "scenario $name: qemu exited with $? (see $work/$name.qemu.log)"
  sed -i 's/\r$//' "$console"
  if ! grep -q '^KDUMP: done' "$console"; then
    log "scenario $name: no capture (see $console)"
    continue
  fi
  if makedumpfile -R "$dir/out/vmcores/$name.kdump-zlib" <"$work/vda.img" >/dev/null 2>&1 &&
     { [ "$transport" = serial ] || makedumpfile -R "$dir/out/vmcores/$name.elf" <"$work/vdb.img" >/dev/null 2>&1; }; then
    made=$((made + 1))
  else
    log "scenario $name: the flattened dumps could not be rearranged"
    rm -f "$dir/out/vmcores/$name.kdump-zlib" "$dir/out/vmcores/$name.elf"
  fi
done
[ -n "${KDUMP_KEEP:-}" ] || rm -rf "$work"
if [ "$made" -eq 0 ]; then
  log "no scenario captured: no lab"
  [ -n "${KDUMP_KEEP:-}" ] || rm -rf "$dir"
  exit 0
fi
# A lab missing a scenario is used (its tests read what is there) but not kept as done: the next
# run builds it again.
if [ "$made" -eq "${#scenarios[@]}" ]; then touch "$dir/done"; else log "only $made of ${#scenarios[@]} scenarios captured"; fi
echo "$dir"
