#!/usr/bin/env python3
"""The kernel log read from each real lab dump holds the reports its console printed.

  vmcore_log_check.py BTAUDIT VMCORE_DIR CONSOLE_LOG_DIR [--vmlinux PATH] [--console-may-stop]

For every NAME.elf / NAME.kdump-zlib in VMCORE_DIR with NAME.console.log in
CONSOLE_LOG_DIR: `btaudit vmcore DUMP --format json` must list the same report
titles, in order, as `btaudit analyze` on the console log. Exit 77 when no dump
is there (ctest skips), 1 on any difference.

--console-may-stop (kdump's dumps): the console may have stopped before the last reports
reached it -- printk in NMI context only queues its lines, and a panic there kexecs into the
capture kernel before they are flushed -- so the console's titles must be the first of the
dump's, and the dump may hold more.
"""
import json, os, subprocess, sys

from lab_args import split_vmcore_options

may_stop = '--console-may-stop' in sys.argv
(btaudit, dumps, logs), vmcore_opts = split_vmcore_options([a for a in sys.argv if a != '--console-may-stop'])
checked = bad = 0
for name in sorted(os.listdir(dumps)) if os.path.isdir(dumps) else []:
    stem, ext = os.path.splitext(name)
    if ext not in ('.elf', '.kdump-zlib'):
        continue
    console = os.path.join(logs, stem + '.console.log')
    if not os.path.exists(console):
        continue
    got = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', os.path.join(dumps, name)], capture_output=True, text=True)
    want = subprocess.run([btaudit, 'analyze', '--format', 'json', console], capture_output=True, text=True)
    if got.returncode != 0:
        print(f'{name}: btaudit vmcore failed: {got.stderr.strip()}')
        bad += 1
        continue
    t_got = [r['title'] for r in json.loads(got.stdout)['reports']]
    t_want = [r['title'] for r in json.loads(want.stdout)['reports']]
    checked += 1
    if may_stop and t_got[:len(t_want)] == t_want and len(t_got) > len(t_want):
        print(f'{name}: the console\'s {len(t_want)} reports, then {len(t_got) - len(t_want)} it never showed: '
              f'{t_got[len(t_want):]}')
    elif t_got != t_want:
        bad += 1
        print(f'{name}: dump log titles {t_got} != console titles {t_want}')
    else:
        print(f'{name}: {len(t_got)} reports, same as the console')
if checked == 0:
    print('no lab dumps found: skipped (run ../shared/lab/make-lab.sh)')
    sys.exit(77)
print(f'{checked - bad}/{checked} dumps: the log in the dump holds the console\'s reports')
sys.exit(1 if bad else 0)
