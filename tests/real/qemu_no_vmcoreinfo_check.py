#!/usr/bin/env python3
"""Real QEMU dumps without VMCOREINFO: a lab kernel crashed and dumped with no vmcoreinfo device.

  qemu_no_vmcoreinfo_check.py BTAUDIT LAB_DIR SHARED_LAB [--vmlinux VMLINUX]

LAB_DIR is a lab built from source (out/kernel/bzImage, out/initramfs.cpio.gz); SHARED_LAB is
../shared/lab, whose run-scenario.py boots a scenario under QEMU and dumps it (ELF, and
kdump-compressed through QEMU's flattened -z output). Here it runs as it is but for the
"-device vmcoreinfo" argument, which is taken out: QEMU then writes no VMCOREINFO, as
`virsh dump --memory-only` does for a guest without <vmcoreinfo/>. For each scenario below
and each file QEMU wrote, btaudit must find the kernel's copy in memory (info says so),
and its walk of the panicking CPU must reproduce the trace the kernel printed (analyze's
cross-check, every printed frame matched). The dumps are made under $TMPDIR and removed.
Exit 77 when the lab, QEMU or run-scenario.py is missing.
"""
import json, os, shutil, subprocess, sys, tempfile

from lab_args import split_vmcore_options

(btaudit, lab, shared_lab), vmcore_opts = split_vmcore_options(sys.argv)
bzimage = os.path.join(lab, 'out', 'kernel', 'bzImage')
initrd = os.path.join(lab, 'out', 'initramfs.cpio.gz')
runner = os.path.join(shared_lab, 'run-scenario.py')
missing = [p for p in (bzimage, initrd, runner) if not os.path.exists(p)]
if missing or not shutil.which('qemu-system-x86_64'):
    print(f'missing {missing or "qemu-system-x86_64"}: skipped (scripts/lab-src-cache.sh builds the lab)')
    sys.exit(77)

# (scenario, kernel command line): make-lab.sh's rows; KASLR on, a task and a hard-IRQ panic.
SCENARIOS = [('panic_task_kaslr', 'oops=panic'), ('panic_irq', 'oops=panic')]
DEVICE = '"-device", "vmcoreinfo",'
source = open(runner).read()
if DEVICE not in source:
    print(f'{runner} no longer adds the vmcoreinfo device the way this check takes it out')
    sys.exit(1)

bad = 0
with tempfile.TemporaryDirectory(prefix='btaudit-qemu-novmci-') as tmp:
    patched = os.path.join(tmp, 'run-scenario.py')
    with open(patched, 'w') as f:
        f.write(source.replace(DEVICE, ''))
    for name, append in SCENARIOS:
        out = os.path.join(tmp, 'vmcores')
        r = subprocess.run(['/usr/bin/python3', patched, '--name', name, '--kernel', bzimage, '--initrd', initrd,
                            '--out', out, '--log', os.path.join(tmp, name + '.console.log'), '--append', append,
                            '--timeout', '240'], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(f'{name}: run-scenario.py failed ({r.returncode}): {r.stdout[-400:]} {r.stderr[-400:]}')
            bad += 1
            continue
        for kind in ('elf', 'kdump-zlib'):
            path = os.path.join(out, f'{name}.{kind}')
            label = f'{name}.{kind}'
            if not os.path.exists(path):
                print(f'{label}: QEMU wrote no such file')
                bad += 1
                continue
            with open(path, 'rb') as f:
                if b'VMCOREINFO' in f.read(1 << 16):
                    print(f'{label}: the file holds a VMCOREINFO note: the device was not taken out')
                    bad += 1
                    continue
            info = subprocess.run([btaudit, 'vmcore', *vmcore_opts, path, 'info'], capture_output=True, text=True)
            if 'vmcoreinfo: none in the file; the kernel\'s copy in memory at' not in info.stdout:
                print(f'{label}: info does not say where VMCOREINFO came from: {info.stdout[:300]!r} {info.stderr!r}')
                bad += 1
                continue
            an = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', path, 'analyze'],
                                capture_output=True, text=True)
            checks = json.loads(an.stdout).get('crosscheck', []) if an.returncode == 0 else []
            ok = checks and all(c['matched_frames'] == c['printed_frames'] and not c['mismatches'] for c in checks)
            summary = [(c['cpu'], c['printed_frames'], c['matched_frames'], c['mismatches']) for c in checks]
            print(f'{label}: {"ok" if ok else "DIFFERS"}: cross-checks (cpu, printed, matched, mismatches) {summary}'
                  + ('' if ok else f': {an.stderr.strip()[:300]}'))
            bad += 0 if ok else 1
            os.unlink(path)
print(f'{len(SCENARIOS)} scenarios dumped by QEMU without a vmcoreinfo device: {bad} problems')
sys.exit(1 if bad else 0)
