#!/usr/bin/env python3
"""analyze --vmlinux on a lab's console logs: every vmlinux frame the kernel printed is
named, offset and sized by btaudit's kallsyms exactly as the kernel printed it.

  kallsyms_text_check.py BTAUDIT VMLINUX LOG... [--modules DIR]

For each printed frame "f+0xoff/0xsize" that debuginfo resolves, btaudit looks its
address up the way %pB does (the kernel's own kallsyms table in vmlinux, the byte
before a return address) and reports it as "kallsyms" in the JSON: the two must be
equal. Also: no frame printed without '?' is called stale. Exit 77 without vmlinux or logs.
"""
import json, os, subprocess, sys

args = sys.argv[1:]
modules = []
if '--modules' in args:
    i = args.index('--modules')
    modules = ['--modules', args[i + 1]]
    del args[i:i + 2]
btaudit, vmlinux, logs = args[0], args[1], [p for p in args[2:] if os.path.exists(p)]
if not os.path.exists(vmlinux) or not logs:
    print('kallsyms_text_check: no vmlinux or no console logs: skipped')
    sys.exit(77)
r = subprocess.run([btaudit, 'analyze', '--format', 'json', '--vmlinux', vmlinux, *modules, *logs],
                   capture_output=True, text=True, timeout=1200)
if r.returncode not in (0, 2):
    print(f'btaudit analyze failed: {r.stderr.strip()}')
    sys.exit(1)
doc = json.loads(r.stdout)
same = total = pfx = reliable_stale = 0
bad = []
for rep in doc['reports']:
    for f in rep['frames']:
        if not f.get('kallsyms') or f['offset'] is None or f['size'] is None:
            continue
        total += 1
        printed = f"{f['function']}+{f['offset']:#x}/{f['size']:#x}"
        pfx += f['function'].startswith('__pfx_')
        if printed == f['kallsyms']:
            same += 1
        elif len(bad) < 10:
            bad.append(f"{rep['input']['path']}:{f['line']}: printed {printed}, kallsyms {f['kallsyms']}")
        if not f['printed_unreliable'] and f['verdict'] == 'stale':
            reliable_stale += 1
for b in bad:
    print('DIFFERS: ' + b)
print(f'{same}/{total} vmlinux frames named, offset and sized as the kernel printed them ({pfx} in __pfx_ '
      f'padding) over {len(logs)} logs; {reliable_stale} frames printed without \'?\' called stale')
sys.exit(0 if total and same == total and reliable_stale == 0 else 1)
