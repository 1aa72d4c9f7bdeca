#!/bin/sh
# /init of the capture kernel's initramfs (scripts/lab-kdump-cache.sh). The crashed kernel's
# memory is /proc/vmcore here; makedumpfile writes it as the distributions' kdump services do
# (Debian's kdump-tools and Fedora's kdump: -d 31, pages compressed), in its flattened form, to
# where the host reads them back: kdump-compressed (zlib) first, then ELF. Lines starting with
# "KDUMP:" are for the host's log.
. /guest-mounts.sh
for m in /lib/modules/*.ko; do [ -e "$m" ] && insmod "$m" 2>/dev/null; done
echo "KDUMP: capture kernel $(uname -r); /proc/vmcore $(stat -c %s /proc/vmcore 2>/dev/null || echo missing) bytes"
# Where the dumps go (kdump_to= on the command line first-init.sh gives): two raw virtio disks,
# or, for a kernel without virtio, the second serial port in raw mode, which carries the
# kdump-compressed dump alone (the ELF one is five times larger, and a serial port under TCG
# moves about 0.3 MB/s).
OUT_C=/dev/vda
OUT_E=/dev/vdb
for a in $(cat /proc/cmdline); do
    case "$a" in kdump_to=serial) OUT_C=/dev/ttyS1; OUT_E="" ;; esac
done
outputs_ready() { [ -e "$OUT_C" ] && { [ -z "$OUT_E" ] || [ -e "$OUT_E" ]; }; }
n=0
while ! outputs_ready; do
    n=$((n + 1))
    [ $n -gt 50 ] && { echo "KDUMP: PROBLEM no $OUT_C or $OUT_E"; poweroff -f; }
    sleep 0.2
done
for d in "$OUT_C" $OUT_E; do
    [ -c "$d" ] && stty -F "$d" raw -echo
done
# (makedumpfile's progress lines go to its stderr, kept out of the console log but for failures.)
if makedumpfile -F -c -d 31 /proc/vmcore > "$OUT_C" 2>/tmp/c.err; then
    echo "KDUMP: kdump-compressed written"
else
    echo "KDUMP: PROBLEM makedumpfile -c failed: $(tail -c 300 /tmp/c.err)"
fi
if [ -z "$OUT_E" ]; then
    echo "KDUMP: elf not written (serial)"
elif makedumpfile -F -E -d 31 /proc/vmcore > "$OUT_E" 2>/tmp/e.err; then
    echo "KDUMP: elf written"
else
    echo "KDUMP: PROBLEM makedumpfile -E failed: $(tail -c 300 /tmp/e.err)"
fi
sync
echo "KDUMP: done"
poweroff -f
