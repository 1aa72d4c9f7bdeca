#!/bin/sh
# /init of the crashing kernel's initramfs (scripts/lab-kdump-cache.sh): loads the capture
# kernel with kexec -p, as a kdump service does at boot, then crashes in the context the
# kernel command line's lab=NAME names. The panic (or, for an oops, oops_end's crash_kexec)
# boots the capture kernel, whose /init writes the dumps (capture-init.sh). Lines starting
# with "KDUMP:" are for the host's log.
. /guest-mounts.sh

LAB=none
KDUMP_TO=virtio
for a in $(cat /proc/cmdline); do
    case "$a" in
    lab=*) LAB="${a#lab=}" ;;
    kdump_to=*) KDUMP_TO="${a#kdump_to=}" ;;
    esac
done
echo "KDUMP: init ready scenario=$LAB kernel=$(uname -r) cpus=$(nproc) crashkernel=$(cat /sys/kernel/kexec_crash_size)"
# The capture kernel's command line, as Debian's kdump-tools gives it (one CPU, interrupts polled,
# devices reset), on the same console.
if ! kexec -p /boot/vmlinuz --initrd=/boot/capture.cpio.gz \
        --append="console=ttyS0,115200 irqpoll nr_cpus=1 reset_devices panic=1 lab=capture kdump_to=$KDUMP_TO"; then
    echo "KDUMP: PROBLEM kexec -p failed"
fi
echo "KDUMP: capture kernel loaded=$(cat /sys/kernel/kexec_crash_loaded)"

# A CPU-bound task that spends nearly all its time in the kernel, pinned to CPU 1: the CPU that
# the panicking one stops with an NMI (its registers are saved by crash_nmi_callback).
taskset -c 1 dd if=/dev/urandom of=/dev/null bs=4M 2>/dev/null &
sleep 1

labcrash() {
    insmod /lib/modules/labcrash.ko || { echo "KDUMP: PROBLEM labcrash.ko not loaded"; return 1; }
    taskset -c 0 sh -c "echo $1 > /proc/labcrash"
}

case "$LAB" in
kdump_task|kdump_task_kaslr)
    # panic() from sysrq-c in write(2) on CPU 0 (6.1 calls panic directly: no oops).
    taskset -c 0 sh -c "echo c > /proc/sysrq-trigger"
    ;;
kdump_hardirq)
    # A WARN in an hrtimer callback with panic_on_warn=1: the panic, so the capture, on the IRQ stack.
    labcrash warn_hardirq
    ;;
kdump_nmi)
    # A WARN in an NMI handler (self-NMI) with panic_on_warn=1: the capture from the NMI stack.
    labcrash warn_nmi
    ;;
kdump_oops)
    # A NULL dereference in write(2): oops_end calls crash_kexec with the faulting registers,
    # before any panic.
    labcrash oops_task
    ;;
*)
    echo "KDUMP: unknown scenario $LAB"
    ;;
esac
sleep 5
echo "KDUMP: PROBLEM scenario returned; powering off"
poweroff -f
