# Sourced by both /init scripts of the kdump lab (first-init.sh, capture-init.sh): busybox's
# commands and the file systems every step reads.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
