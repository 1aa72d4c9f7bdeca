#!/usr/bin/env python3
"""Real QEMU dumps made other ways than the labs': the lab kernel crashed again and dumped.

  qemu_dump_forms_check.py BTAUDIT LAB_DIR SHARED_LAB [--vmlinux VMLINUX]

LAB_DIR is a lab built from source (out/kernel/bzImage, out/initramfs.cpio.gz); SHARED_LAB is
../shared/lab, whose run-scenario.py boots a scenario under QEMU and dumps it (an ELF core,
and kdump-compressed through QEMU's flattened -z output). Here it runs changed as each form
below asks:
  no vmcoreinfo device   "-device vmcoreinfo" taken out: QEMU writes no VMCOREINFO, as
                         `virsh dump --memory-only` for a guest without <vmcoreinfo/>;
                         btaudit must find the kernel's copy in memory (info says so);
  paging ELF             `dump-guest-memory -p`: the ELF core through the guest's page
                         tables, one PT_LOAD per mapping (65,000 program headers, PN_XNUM);
  both                   the two at once.
For each scenario and file, the walk of the panicking CPU must reproduce the trace the kernel
printed (analyze's cross-check: every printed frame matched). Dumps go under $TMPDIR and are
removed. (Debian 12's QEMU writes no kdump-lzo or kdump-snappy: kdump_compression_check.py
rewrites the labs' dumps in those.) Exit 77 when the lab, QEMU or run-scenario.py is missing.
"""
import json, os, shutil, struct, subprocess, sys, tempfile

from lab_args import split_vmcore_options

(btaudit, lab, shared_lab), vmcore_opts = split_vmcore_options(sys.argv)
bzimage = os.path.join(lab, 'out', 'kernel', 'bzImage')
initrd = os.path.join(lab, 'out', 'initramfs.cpio.gz')
runner = os.path.join(shared_lab, 'run-scenario.py')
missing = [p for p in (bzimage, initrd, runner) if not os.path.exists(p)]
if missing or not shutil.which('qemu-system-x86_64'):
    print(f'missing {missing or "qemu-system-x86_64"}: skipped (scripts/lab-src-cache.sh builds the lab)')
    sys.exit(77)

DEVICE = '"-device", "vmcoreinfo",'
ELF_DUMP = '"dump-guest-memory %s" % ef'
source = open(runner).read()
for needle in (DEVICE, ELF_DUMP):
    if needle not in source:
        print(f'{runner} no longer holds {needle!r}: this check cannot change it')
        sys.exit(1)
NO_DEVICE = (DEVICE, '')
PAGING = (ELF_DUMP, '"dump-guest-memory -p %s" % ef')
# (form, changes to run-scenario.py, [(scenario, kernel command line as make-lab.sh's rows)]).
FORMS = [('no vmcoreinfo device', [NO_DEVICE], [('panic_task_kaslr', 'oops=panic'), ('panic_irq', 'oops=panic')]),
         ('paging ELF', [PAGING], [('panic_irq', 'oops=panic')]),
         ('paging ELF, no vmcoreinfo device', [NO_DEVICE, PAGING], [('panic_task_kaslr', 'oops=panic')])]



def elf_has_vmcoreinfo_note(path):
    """Whether an ELF core's PT_NOTE segments hold a note named VMCOREINFO (program headers
    counted past PN_XNUM as a paging dump needs: section 0's sh_info)."""
    with open(path, 'rb') as f:
        head = f.read(64)
        phoff, shoff = struct.unpack_from('<QQ', head, 0x20)
        phentsize, phnum = struct.unpack_from('<HH', head, 0x36)
        if phnum == 0xffff:
            f.seek(shoff + 0x2c)
            phnum = struct.unpack('<I', f.read(4))[0]
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        for i in range(phnum):
            p_type, = struct.unpack_from('<I', table, i * phentsize)
            if p_type != 4:  # PT_NOTE
                continue
            p_offset, = struct.unpack_from('<Q', table, i * phentsize + 8)
            p_filesz, = struct.unpack_from('<Q', table, i * phentsize + 0x20)
            f.seek(p_offset)
            notes = f.read(min(p_filesz, 1 << 24))
            at = 0
            while at + 12 <= len(notes):
                namesz, descsz, _ = struct.unpack_from('<III', notes, at)
                name = notes[at + 12:at + 12 + namesz].rstrip(b'\0')
                if name == b'VMCOREINFO':
                    return True
                at += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


bad = runs = 0
with tempfile.TemporaryDirectory(prefix='btaudit-qemu-forms-') as tmp:
    for form, changes, scenarios in FORMS:
        patched = os.path.join(tmp, 'run-scenario.py')
        text = source
        for old, new in changes:
            text = text.replace(old, new)
        with open(patched, 'w') as f:
            f.write(text)
        recovered = NO_DEVICE in changes
        for name, append in scenarios:
            runs += 1
            out = os.path.join(tmp, 'vmcores')
            run = ['/usr/bin/python3', patched, '--name', name, '--kernel', bzimage, '--initrd', initrd, '--out', out,
                   '--log', os.path.join(tmp, name + '.console.log'), '--append', append, '--timeout', '240']
            r = subprocess.run(run, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                # A guest that did not crash and dump in time (QEMU under TCG on a loaded machine) says
                # nothing of btaudit: booted once more. What btaudit reads is checked below, once.
                print(f'{form}, {name}: run-scenario.py failed ({r.returncode}), run again: '
                      f'{r.stdout[-300:]} {r.stderr[-300:]}')
                shutil.rmtree(out, ignore_errors=True)
                r = subprocess.run(run, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                print(f'{form}, {name}: run-scenario.py failed ({r.returncode}): {r.stdout[-400:]} {r.stderr[-400:]}')
                bad += 1
                continue
            for kind in ('elf', 'kdump-zlib'):
                path = os.path.join(out, f'{name}.{kind}')
                label = f'{form}, {name}.{kind}'
                if not os.path.exists(path):
                    print(f'{label}: QEMU wrote no such file')
                    bad += 1
                    continue
                if kind == 'elf':
                    # Its notes, not its bytes: guest memory may hold the word anywhere.
                    holds = elf_has_vmcoreinfo_note(path)
                else:
                    with open(path, 'rb') as f:
                        holds = b'VMCOREINFO' in f.read(1 << 20)  # the headers, where QEMU puts it
                if recovered and holds:
                    print(f'{label}: the file holds a VMCOREINFO note: the device was not taken out')
                    bad += 1
                    continue
                info = subprocess.run([btaudit, 'vmcore', *vmcore_opts, path, 'info'], capture_output=True, text=True)
                said = 'vmcoreinfo: none in the file; the kernel\'s copy in memory at' in info.stdout
                if info.returncode != 0 or said != recovered:
                    print(f'{label}: info exit {info.returncode}, says where VMCOREINFO came from: {said}, '
                          f'expected {recovered}: {info.stdout[:300]!r} {info.stderr[:300]!r}')
                    bad += 1
                    continue
                an = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', path, 'analyze'],
                                    capture_output=True, text=True)
                checks = json.loads(an.stdout).get('crosscheck', []) if an.returncode == 0 else []
                ok = checks and all(c['matched_frames'] == c['printed_frames'] and not c['mismatches'] for c in checks)
                summary = [(c['cpu'], c['printed_frames'], c['matched_frames'], c['mismatches']) for c in checks]
                print(f'{label}: {"ok" if ok else "DIFFERS"}: cross-checks (cpu, printed, matched, mismatches) '
                      f'{summary}' + ('' if ok else f': {an.stderr.strip()[:300]}'))
                bad += 0 if ok else 1
                os.unlink(path)
print(f'{runs} scenario runs in {len(FORMS)} QEMU dump forms: {bad} problems')
sys.exit(1 if bad else 0)
