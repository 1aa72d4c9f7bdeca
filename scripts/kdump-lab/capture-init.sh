#!/bin/sh
# /init of the capture kernel's initramfs (scripts/lab-kdump-cache.sh). The crashed kernel's
# memory is /proc/vmcore here; makedumpfile writes it as the distributions' kdump services do
# (Debian's kdump-tools and Fedora's kdump: -d 31, pages compressed), in its flattened form, to
# the raw virtio disks the host reads back: vda kdump-compressed (zlib), vdb ELF. Lines starting
# with "KDUMP:" are for the host's log.
. /guest-mounts.sh
for m in /lib/modules/*.ko; do [ -e "$m" ] && insmod "$m" 2>/dev/null; done
echo "KDUMP: capture kernel $(uname -r); /proc/vmcore $(stat -c %s /proc/vmcore 2>/dev/null || echo missing) bytes"
n=0
while [ ! -b /dev/vda ] || [ ! -b /dev/vdb ]; do
    n=$((n + 1))
    [ $n -gt 50 ] && { echo "KDUMP: PROBLEM no /dev/vda or /dev/vdb"; poweroff -f; }
    sleep 0.2
done
# (makedumpfile's progress lines go to its stderr, kept out of the console log but for failures.)
if makedumpfile -F -c -d 31 /proc/vmcore > /dev/vda 2>/tmp/c.err; then
    echo "KDUMP: kdump-compressed written"
else
    echo "KDUMP: PROBLEM makedumpfile -c failed: $(tail -c 300 /tmp/c.err)"
fi
if makedumpfile -F -E -d 31 /proc/vmcore > /dev/vdb 2>/tmp/e.err; then
    echo "KDUMP: elf written"
else
    echo "KDUMP: PROBLEM makedumpfile -E failed: $(tail -c 300 /tmp/e.err)"
fi
sync
echo "KDUMP: done"
poweroff -f
