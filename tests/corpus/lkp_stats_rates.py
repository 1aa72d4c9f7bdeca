#!/usr/bin/env python3
"""Kernel errors in 0-day's dmesg fixtures against lkp-tests' own dmesg statistics.

lkp-tests turns a boot's dmesg into error statistics (stats/dmesg, lib/dmesg.rb): one key per
error kind it recognises, with the line it took it from. spec/fixtures/stats/dmesg/X.yaml holds
its expected output for the dmesg X: for each key a `message:KEY: LINE` entry (and the counts,
patterns, timestamps, boot_failures and the calltrace:FUNCTION keys of the trace, which name
no error of their own).

Measures, over every message entry of every fixture present: whether btaudit has a report whose
input lines (first_line..last_line) hold that line. lkp counts some messages that are no kernel
report (an IRQ flags mismatch of genirq, "sysctl could not get directory", the OOM killer's
first line, the EIP line of a 32-bit oops whose header was lost): those are listed with -v.
  lkp_stats_rates.py BTAUDIT [--corpora DIR] [-v] [--floor N]
Exits 1 when fewer than --floor messages (default: all of them) are found; 77 without fixtures.
"""
import glob, os, re, sys

from rates_common import arguments, report_spans

FIXTURES = 'lkp-tests/spec/fixtures/stats/dmesg'
# printk's timestamp and caller id ("[   29.493344]", "[    T0 ]", "[    C1]").
STAMP = re.compile(r'\[\s*(?:\d+\.\d+|[TC]\d+)\s*\]\s*')


def messages(yaml_path):
    """(key, line) for each `message:KEY: LINE` entry of an lkp stats fixture."""
    out = []
    with open(yaml_path, encoding='utf-8', errors='replace') as f:
        for raw in f:
            if not raw.startswith('message:'):
                continue
            key, sep, line = raw[len('message:'):].rstrip('\n').partition(': ')
            if sep:
                out.append((key, line))
    return out


def kernel_text(line):
    """lkp's line after its timestamp and caller id ("[   29.493344][    C1] ")."""
    text = line.strip()
    while True:
        m = STAMP.match(text)
        if not m:
            return text
        text = text[m.end():]


def taken_from(text, log_lines):
    """The part of lkp's message that is a line of the log: lkp keeps the line it matched, and for
    some kinds appends what it read from the lines after it (lockdep's "... is trying to acquire
    lock: at: FUNC but task is already holding lock: at: FUNC"): the longest prefix of the
    message that a line of the log holds."""
    for end in range(len(text), 0, -1):
        head = text[:end].rstrip()
        if len(head) < 8:
            break
        if any(head in l for l in log_lines):
            return head
    return text


def main():
    import argparse
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument('--floor', type=int, default=None)
    floor_args, rest = extra.parse_known_args()
    sys.argv = [sys.argv[0]] + rest
    a = arguments()
    root = os.path.join(a.corpora, FIXTURES)
    fixtures = sorted(glob.glob(os.path.join(root, '*.yaml')))
    if not fixtures:
        print(f'no lkp-tests stats fixtures under {root}: skipped')
        return 77
    total = found = 0
    for y in fixtures:
        log = y[:-len('.yaml')]
        wanted = messages(y)
        if not wanted or not os.path.exists(log):
            continue
        _, spans = report_spans(a.btaudit, log)
        log_lines = open(log, 'rb').read().decode('utf-8', 'replace').split('\n')
        for key, line in wanted:
            total += 1
            text = taken_from(kernel_text(line), log_lines)
            ok = bool(text) and any(text in s for s in spans)
            found += ok
            if not ok and a.verbose:
                print(f'{os.path.basename(log)}: not in a report: {key}  ({line.strip()[:100]})')
    floor = total if floor_args.floor is None else floor_args.floor
    print(f'lkp-tests dmesg statistics: {found}/{total} messages in a btaudit report '
          f'({len(fixtures)} fixtures; floor {floor})')
    return 0 if found >= floor else 1


if __name__ == '__main__':
    sys.exit(main())
