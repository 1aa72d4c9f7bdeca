#!/usr/bin/env bash
# Finds or builds a real-kernel lab of a Debian kernel of another release than the host's (Debian
# 11's 5.10: hardirq_stack_ptr + irq_count, the stack switched by asm_call_irq_on_stack, ORC v1),
# cached between CI runs, and prints its folder on stdout in the layout of scripts/lab-src-cache.sh:
# DIR/out (vmcores/, kernel/vmlinux, kernel/bzImage, labcrash/labcrash.ko, initramfs.cpio.gz) and
# DIR/logs (the console logs). Prints nothing and exits 0 when the packages cannot be had (no
# network to Debian's archive): the tests of that lab then skip (77).
#
#   scripts/lab-debian-cache.sh VERSION          VERSION: 5.10 (the table below)
#
# Nothing is installed on the host: the packages (the image, its -dbg vmlinux, the headers and
# kbuild) are downloaded from Debian's archive, checked against the release's Packages index
# (SHA256) and unpacked under DIR. ../shared/lab/make-lab.sh then builds labcrash.ko against those
# headers, the initramfs and every scenario, exactly as for its own 6.1 lab (KABI=). Its module
# stage reads /usr/src/linux-headers-KVER, which is pointed at DIR's copy for the build only.
# The kernel was built with gcc-10, which Debian 12 lacks; the module is built with the host's gcc
# (the kernel's headers only warn), a symlink named gcc-10 in a private PATH.
# About 280 MB of downloads, 1.2 GB unpacked plus the dumps (about 0.15 GB a scenario, sparse).
# Environment:
#   BTAUDIT_LAB_CACHE  the cache folder (default /var/cache/btaudit/labs)
#   SHARED             the shared folder (default ../shared next to the checkout)
#   DEBIAN_MIRROR      default http://deb.debian.org/debian
#   LAB_BUILD_TIMEOUT  seconds for the lab's stages (default 3600)
#   BTAUDIT_LAB_CACHED_ONLY=1  a cached lab or none: nothing is built
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
cache=${BTAUDIT_LAB_CACHE:-/var/cache/btaudit/labs}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
version=${1:?usage: lab-debian-cache.sh VERSION}

# version | Debian release | kernel ABI (pinned: the point release's, kept in the archive) | gcc it was built with
case "$version" in
  5.10) release=bullseye; kabi=5.10.0-32; kbuild=5.10; kgcc=gcc-10 ;;
  *) echo "lab-debian-cache: unknown version $version (5.10)" >&2; exit 64 ;;
esac
kver=$kabi-cloud-amd64
packages=("linux-image-$kver" "linux-image-$kver-dbg" "linux-headers-$kver" "linux-headers-$kabi-common"
          "linux-kbuild-$kbuild")
log() { echo "[lab-debian-cache $version $(date +%T)] $*" >&2; }

lab_inputs=("$shared/lab/make-lab.sh" "$shared/lab/module/labcrash.c" "$shared/lab/module/Kbuild"
            "$shared/lab/guest-init.sh" "$shared/lab/run-scenario.py" "$0" "$root/scripts/lab-quiet-panic.py")
for f in "${lab_inputs[@]}"; do
  [ -f "$f" ] || { log "$f missing: no lab"; exit 0; }
done
inputs_hash=$(cat "${lab_inputs[@]}" | sha256sum | cut -c1-12)
dir="$cache/$version-$kabi-$inputs_hash"
if [ -f "$dir/done" ]; then
  log "cached: $dir"
  echo "$dir"
  exit 0
fi
if [ "${BTAUDIT_LAB_CACHED_ONLY:-0}" = 1 ]; then
  log "not cached, and BTAUDIT_LAB_CACHED_ONLY=1: no lab (its tests are skipped)"
  exit 0
fi

log "building into $dir; the log: $dir/make-lab.log"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root" "$dir/out/kernel" "$dir/logs"
# The release's index names each package's file and checksum.
if ! curl -sSf --max-time 300 "$mirror/dists/$release/main/binary-amd64/Packages.xz" | xz -dc >"$dir/debs/Packages"; then
  log "no Packages index from $mirror ($release): no lab"
  rm -rf "$dir"
  exit 0
fi
for p in "${packages[@]}"; do
  # The newest stanza of the package (kbuild has one per upload).
  read -r file sum < <(awk -v p="$p" '
    $1 == "Package:" { cur = ($2 == p) } cur && $1 == "Filename:" { f = $2 } cur && $1 == "SHA256:" { s = $2 }
    END { print f, s }' "$dir/debs/Packages")
  if [ -z "$file" ] || [ -z "$sum" ]; then log "$p is not in $release's index: no lab"; rm -rf "$dir"; exit 0; fi
  log "downloading $file"
  if ! curl -sSf --max-time 1800 -o "$dir/debs/$p.deb" "$mirror/$file" ||
     [ "$(sha256sum "$dir/debs/$p.deb" | cut -d' ' -f1)" != "$sum" ]; then
    log "$p: download failed or its checksum differs: no lab"
    rm -rf "$dir"
    exit 0
  fi
done
dpkg-deb -x "$dir/debs/linux-image-$kver.deb" "$dir/out/kpkg"
for p in "${packages[@]:1}"; do dpkg-deb -x "$dir/debs/$p.deb" "$dir/root"; done
rm -rf "$dir/debs"
mv "$dir/root/usr/lib/debug/boot/vmlinux-$kver" "$dir/out/kernel/vmlinux"
cp "$dir/out/kpkg/boot/vmlinuz-$kver" "$dir/out/kernel/bzImage"
rm -rf "$dir/root/usr/lib/debug"

# make-lab.sh's module stage builds against /usr/src/linux-headers-KVER, whose Makefile includes
# the common headers by their absolute path: both paths point at the unpacked copies while the lab
# is made (a host that has the packages installed keeps its own).
links=()
for h in "linux-headers-$kver" "linux-headers-$kabi-common"; do
  if [ ! -e "/usr/src/$h" ]; then
    ln -s "$dir/root/usr/src/$h" "/usr/src/$h"
    links+=("/usr/src/$h")
  fi
done
trap 'rm -f "${links[@]}"' EXIT
# The lab's driver, copied: 5.10 prints panic()'s last line ("---[ end Kernel panic") from NMI and
# #DF context into its per-CPU NMI printk buffer, which nobody flushes once the CPU stops, so the
# driver, which waits for that line, would never dump the NMI and stack-overflow scenarios. The
# copy also takes a panic followed by 5 s of console silence as ended.
mkdir -p "$dir/lab"
cp -r "$shared/lab/make-lab.sh" "$shared/lab/run-scenario.py" "$shared/lab/guest-init.sh" "$shared/lab/module" \
  "$dir/lab/"
python3 "$root/scripts/lab-quiet-panic.py" "$dir/lab/run-scenario.py" ||
  log "run-scenario.py not patched: the NMI and #DF scenarios will time out"
mkdir -p "$dir/bin"
ln -sf "$(command -v gcc)" "$dir/bin/$kgcc"
# The scenarios one at a time, each one's ELF dump made sparse before the next (scripts/lab-disk.sh).
if ! (export PATH="$dir/bin:$PATH" KABI=$kabi LAB_OUT="$dir/out" LAB_LOGS="$dir/logs"
      for stage in module initramfs; do
        timeout "${LAB_BUILD_TIMEOUT:-3600}" bash "$dir/lab/make-lab.sh" "$stage" || exit 1
      done
      timeout "${LAB_BUILD_TIMEOUT:-3600}" bash -c "source '$root/scripts/lab-disk.sh' &&
        lab_run_scenarios '$dir/lab/make-lab.sh' '$dir/lab/make-lab.sh' '$dir/out/vmcores'") >"$dir/make-lab.log" 2>&1; then
  log "lab build failed (see $dir/make-lab.log):"
  tail -n 15 "$dir/make-lab.log" >&2
  exit 0
fi
rm -rf "$dir/root" "$dir/bin" "$dir/lab" "$dir/out/kpkg" "$dir/out/initramfs-root"
touch "$dir/done"
echo "$dir"
