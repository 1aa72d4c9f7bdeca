#!/usr/bin/env python3
"""Makes a copy of ../shared/lab/run-scenario.py take a panic followed by 5 s of console
silence as ended, for the labs of kernels before 5.15 (scripts/lab-debian-cache.sh's 5.10,
scripts/lab-src-cache.sh's 4.19).

Those kernels print panic()'s last line ("---[ end Kernel panic") from NMI and #DF context
into the CPU's NMI printk buffer (kernel/printk/printk_safe.c), which nobody flushes once the
CPU stops; the driver, which waits for that line before it dumps the guest, would never dump
the NMI and stack-overflow scenarios.

usage: lab-quiet-panic.py RUN_SCENARIO_PY   (edited in place; exit 1 when its code is not
       the one these edits were written for)
"""
import sys

EDITS = [
    ("            pending += chunk\n", "            pending += chunk\n            last_output = time.time()\n"),
    ("    panicked = None\n", "    panicked = None\n    last_output = time.time()\n"),
    ("        if panicked is not None and time.time() - panicked > 3:\n",
     "        if 'panic_start' in marks and panicked is None and time.time() - last_output > 5:\n"
     "            mark('panic_quiet')\n"
     "            panicked = time.time() - 3\n"
     "        if panicked is not None and time.time() - panicked > 3:\n"),
]


def main():
    path = sys.argv[1]
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for old, new in EDITS:
        if text.count(old) != 1:
            print(f'lab-quiet-panic: {path}: not the code these edits expect', file=sys.stderr)
            return 1
        text = text.replace(old, new)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
