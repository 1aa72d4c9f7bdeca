#!/usr/bin/env python3
"""The panicking CPU's walk reproduces the trace the kernel printed, on every lab dump.

  crosscheck_check.py BTAUDIT VMCORE_DIR [--vmlinux PATH]

`btaudit vmcore --format json DUMP` cross-checks each report that ended its
CPU (a panic, or what panicked) with that CPU's walk: every printed frame that
can still be on the stack is found in order, with the same '?' mark and stack
section. Also checks the expected stack transitions per scenario (IRQ -> task
on the hard-IRQ panics, NMI -> task and #DF -> task on the exception ones, directly or
through the IRQ stack: stack_path.py).
Exit 77 when there is no dump.
"""
import json, os, subprocess, sys

EXPECTED_TRANSITIONS = {'panic_irq': ('irq', 'task'), 'panic_warn_hardirq': ('irq', 'task'),
                        'panic_nmi': ('NMI', 'task'), 'stack_overflow': ('#DF', 'task'),
                        # scripts/lab-kdump-cache.sh: the capture's registers on the IRQ and NMI stacks
                        'kdump_hardirq': ('irq', 'task'), 'kdump_nmi': ('NMI', 'task')}
from lab_args import lab_dump_names, split_vmcore_options, vmcore_docs
from stack_path import goes, transitions_in_text

(btaudit, dumps), vmcore_opts = split_vmcore_options(sys.argv)
names, failed = lab_dump_names(dumps), []
bad = printed = matched = 0
for name, path, doc in vmcore_docs(btaudit, vmcore_opts, dumps, failed):
    checks = doc.get('crosscheck', [])
    if not checks:
        print(f"{name}: no cross-check ({doc.get('crosscheck_note', 'no report ended a CPU')})")
        bad += 1
    for c in checks:
        printed += c['printed_frames']
        matched += c['matched_frames']
        status = 'ok' if c['matched_frames'] == c['printed_frames'] and not c['mismatches'] else 'DIFFERS'
        bad += status != 'ok'
        print(f"{name}: report {c['report'] + 1} on CPU {c['cpu']}: {c['matched_frames']}/{c['printed_frames']} {status}")
        for m in c['mismatches'][:5]:
            print(f"    {m['frame']}: {m['problem']}")
    stem = os.path.splitext(name)[0]
    if stem in EXPECTED_TRANSITIONS and checks:
        bt = subprocess.run([btaudit, 'vmcore', *vmcore_opts, path, 'bt', '-c', str(checks[0]['cpu'])], capture_output=True, text=True).stdout
        frm, to = EXPECTED_TRANSITIONS[stem]
        if not goes(transitions_in_text(bt), frm, to):
            bad += 1
            print(f'{name}: the walk does not go {frm} -> {to}')
bad += len(failed)
print(f'{matched}/{printed} printed frames reproduced across {len(names)} dumps; {bad} problems')
sys.exit(1 if bad else 0)
