#!/usr/bin/env python3
"""Each CPU's IRQ state in every real lab dump agrees with where its SP is.

  irqstate_check.py BTAUDIT VMCORE_DIR [--vmlinux PATH]

For NAME.elf and NAME.kdump-zlib: every CPU has registers, its SP is on a known
stack, hardirq_stack_inuse is set exactly when SP is on the IRQ stack (5.12+),
and the ELF and kdump-compressed dumps of one crash report the same state.
Exit 77 when there is no dump (ctest skips).
"""
import json, os, subprocess, sys

from lab_args import lab_dump_names, split_vmcore_options

(btaudit, dumps), vmcore_opts = split_vmcore_options(sys.argv)
names = lab_dump_names(dumps)
bad = 0
seen = {}
for name in names:
    r = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', os.path.join(dumps, name), 'irqstate'],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f'{name}: irqstate failed: {r.stderr.strip()}')
        bad += 1
        continue
    cpus = json.loads(r.stdout)['cpus']
    for c in cpus:
        st = c['irq_state']
        problems = []
        if c['sp'] is None:
            problems.append('no registers')
        if st['sp_stack'] == 'unknown':
            problems.append('SP on no known stack')
        if st['in_use'] is not None and st['in_use'] != (st['sp_stack'] == 'irq'):
            problems.append(f"in_use={st['in_use']} but SP on {st['sp_stack']}")
        if problems:
            bad += 1
            print(f"{name} cpu {c['cpu']}: " + '; '.join(problems))
    summary = [(c['cpu'], c['task']['pid'], c['sp'], c['irq_state']) for c in cpus]
    stem = os.path.splitext(name)[0]
    if stem in seen and seen[stem] != summary:
        bad += 1
        print(f'{stem}: ELF and kdump-compressed dumps disagree')
    seen[stem] = summary
    print(f"{name}: " + ', '.join(f"cpu{c['cpu']} {c['task']['comm']} on {c['irq_state']['sp_stack']}" for c in cpus))
print(f'{len(names)} dumps, {bad} problems')
sys.exit(1 if bad else 0)
