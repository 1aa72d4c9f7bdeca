#!/usr/bin/env python3
"""Kernel errors in KernelCI's serial logs against kernelci/logspec's expectations.

logspec (tests/test_linux_boot.py, test_baseline.py, test_kselftest.py; transcribed into
logspec/expected/<log>.expected.json) names each kernel error of a boot log: its type
(linux.kernel.bug, .warning, .panic, .ubsan, ...) and summary. These logs are whole serial
consoles: the boot loader and firmware (U-Boot, coreboot, depthcharge, Trusted Firmware) print
there before every boot, some of it in the kernel's words ("WARNING: RO_VPD is uninitialized").

Measures, over every log with an expectation:
  found   each kernel error logspec names (bug, warning, panic, ubsan) lies in the lines of a
          btaudit report (its input first_line..last_line), as often as logspec counts it;
  others  btaudit's reports whose lines hold no error logspec names: reports of kinds logspec
          does not look for (kmemleak, lockdep) and false reports (boot loader or user space
          lines), listed with -v.
  logspec_rates.py BTAUDIT [--corpora DIR] [-v]
Exits 0 when every error is found; 77 when there is no logspec data.
"""
import glob, json, os, sys

from rates_common import arguments, report_spans

KERNEL_TYPES = ('linux.kernel.bug', 'linux.kernel.warning', 'linux.kernel.panic', 'linux.kernel.ubsan')


def key_of(summary):
    """The words of logspec's summary that the kernel printed as they stand."""
    if summary.startswith('WARNING at '):  # logspec drops __warn()'s "CPU: N PID: N"
        return ' at ' + summary[len('WARNING at '):]
    kind, sep, detail = summary.partition(': ')
    if sep and kind == 'shift-out-of-bounds':  # UBSAN's header line, then its detail line
        return detail
    return summary


def main():
    a = arguments()
    root = os.path.join(os.path.abspath(a.corpora), 'logspec')
    expected = sorted(glob.glob(os.path.join(root, 'expected', '*.expected.json')))
    if not expected:
        print(f'no logspec expectations under {a.corpora}: skipped')
        sys.exit(77)
    want_total = found_total = others_total = reports_total = 0
    for exp_path in expected:
        exp = json.load(open(exp_path))
        log = os.path.join(root, exp['log_file'])
        if not os.path.exists(log):
            continue
        reports, spans = report_spans(a.btaudit, log)
        keys = [key_of(e['error_summary']) for e in exp['expected'].get('errors', []) if e['error_type'] in KERNEL_TYPES]
        used = set()
        for k in keys:
            hit = next((i for i, s in enumerate(spans) if i not in used and k in s), None)
            if hit is None:  # logspec may count one report's panic and its error both: share
                hit = next((i for i, s in enumerate(spans) if k in s), None)
            if hit is None:
                print(f'missed   {os.path.basename(log)}: {k}')
            else:
                used.add(hit)
                found_total += 1
        named = {i for i, s in enumerate(spans) if any(k in s for k in keys)}
        others = [rep for i, rep in enumerate(reports) if i not in named]
        want_total += len(keys)
        others_total += len(others)
        reports_total += len(reports)
        if a.verbose:
            for rep in others:
                print(f'other    {os.path.basename(log)}:{rep["input"]["first_line"]}: {rep["title"]}')
    print(f'logspec: kernel errors found {found_total}/{want_total}; '
          f'{others_total} of {reports_total} reports hold none of them')
    sys.exit(0 if found_total == want_total else 1)


if __name__ == '__main__':
    main()
