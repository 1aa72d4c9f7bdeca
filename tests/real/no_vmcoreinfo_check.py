#!/usr/bin/env python3
"""Lab dumps without VMCOREINFO read as the dumps they were copied from.

  no_vmcoreinfo_check.py BTAUDIT VMCORE_DIR [--vmlinux VMLINUX] [--jobs N]

QEMU's dump-guest-memory writes VMCOREINFO only when the guest has a vmcoreinfo device
(`virsh dump --memory-only` without <vmcoreinfo/>, older QEMU: never). Such a dump is made
here from each lab dump of the list below by taking VMCOREINFO out of the file and nothing
else: an ELF core's note is renamed (the note is then another owner's, which every reader
skips), a kdump-compressed file's sub-header says it holds none and its notes' copy is
renamed. btaudit must find the kernel's own copy in the dump's memory and print every view
(info, irqstate, bt, log, analyze, and analyze as JSON) byte for byte as on the original,
once the dump's path is replaced (info adds a line saying where VMCOREINFO came from), and say
on stderr where it found the copy.
A further ELF copy has every "OSRELEASE=" of its memory overwritten too (a kernel built
without kdump support keeps no copy): btaudit must say so on stderr, and not crash.
Copies go under $TMPDIR. Exit 77 when the lab has none of the dumps.
"""
import argparse, os, shutil, struct, sys

from view_compare import compare_views, present_or_skip, run_copies, run_view

ap = argparse.ArgumentParser()
ap.add_argument('btaudit')
ap.add_argument('dumps')
ap.add_argument('--vmlinux')
ap.add_argument('--jobs', type=int, default=2)
args = ap.parse_args()

# KASLR on and off, task and IRQ stacks, both formats; one ELF (512 MiB copies are slow to make).
WANTED = ['panic_task_kaslr.elf', 'panic_task_kaslr.kdump-zlib', 'panic_irq.kdump-zlib', 'warn_softirq.kdump-zlib']
dumps = present_or_skip(args.dumps, WANTED)

FOUND = b'the dump carries no VMCOREINFO note'
NONE = b'no copy of the kernel\'s was found in its memory'


def rename_vmcoreinfo_notes(blob, start, end):
    """Renames every VMCOREINFO note between start and end (ELF notes: namesz, descsz, type, name, desc)."""
    at = start
    while at + 12 <= end:
        namesz, descsz, _ = struct.unpack_from('<III', blob, at)
        name_at = at + 12
        if blob[name_at:name_at + namesz] == b'VMCOREINFO\0':
            blob[name_at] = ord('X')
        at = name_at + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4


def strip_elf(src, dst):
    shutil.copyfile(src, dst)
    with open(dst, 'r+b') as f:
        head = bytearray(f.read(1 << 20))
        phoff, = struct.unpack_from('<Q', head, 32)
        phentsize, phnum = struct.unpack_from('<HH', head, 54)
        for i in range(phnum):
            ptype, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', head, phoff + i * phentsize)
            if ptype == 4 and off + filesz <= len(head):  # PT_NOTE
                rename_vmcoreinfo_notes(head, off, off + filesz)
        f.seek(0)
        f.write(head)


def strip_kdump(src, dst):
    shutil.copyfile(src, dst)
    with open(dst, 'r+b') as f:
        head = bytearray(f.read(1 << 20))
        block, = struct.unpack_from('<i', head, 428)  # disk_dump_header.block_size
        sub = block  # kdump_sub_header: the block after the header
        _, _, off_note, size_note = struct.unpack_from('<qQqQ', head, sub + 32)
        struct.pack_into('<Q', head, sub + 40, 0)  # size_vmcoreinfo
        if off_note + size_note <= len(head):
            rename_vmcoreinfo_notes(head, off_note, off_note + size_note)
        f.seek(0)
        f.write(head)


def vmlinux_args():
    return ['--vmlinux', args.vmlinux] if args.vmlinux else []


def run(path, view):
    return run_view(args.btaudit, path, view, vmlinux_args())


def compare(name, tmp):
    src = os.path.join(args.dumps, name)
    copy = os.path.join(tmp, 'no-vmcoreinfo-' + name)
    (strip_elf if name.endswith('.elf') else strip_kdump)(src, copy)
    try:
        problems = compare_views(args.btaudit, copy, src, vmlinux_args(), FOUND,
                                 copy_line=b'vmcoreinfo: none in the file; the kernel\'s copy in memory at ')
    finally:
        os.unlink(copy)
    return problems


def no_copy_at_all(tmp):
    """An ELF copy whose memory holds no "OSRELEASE=" either: said on stderr, no signal."""
    elf = next((n for n in dumps if n.endswith('.elf')), None)
    if elf is None:
        return []
    copy = os.path.join(tmp, 'no-copy-' + elf)
    strip_elf(os.path.join(args.dumps, elf), copy)
    with open(copy, 'r+b') as f:
        data = bytearray(f.read())
        at = data.find(b'OSRELEASE=')
        while at >= 0:
            data[at + 9] = ord('#')
            at = data.find(b'OSRELEASE=', at + 1)
        f.seek(0)
        f.write(data)
    problems = []
    try:
        for view in (['info'], ['bt']):
            code, out, err = run(copy, view)
            if code < 0 or code not in (0, 2) or NONE not in err:
                problems.append(f'no copy at all, {view[0]}: exit {code}, stderr {err.decode(errors="replace")!r}')
            else:
                print(f'no copy at all, {view[0]}: exit {code}: {err.decode(errors="replace").strip().splitlines()[0]}')
    finally:
        os.unlink(copy)
    return problems


sys.exit(run_copies(dumps, compare, lambda n: f'{n} without VMCOREINFO', args.jobs, no_copy_at_all,
                    'btaudit-novmci-'))
