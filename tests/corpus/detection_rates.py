#!/usr/bin/env python3
"""Report detection and splitting against abrt's expectations.

For every abrt example input (tests/examples/*.test and *.test.template) that has a
.right file next to it, runs `btaudit analyze --format json` and compares the number
of reports with the first line of the .right file ("abrt-dump-oops: Found oopses: N";
an empty .right means 0). Prints the disagreeing files and the agreement rate.

  detection_rates.py BTAUDIT [--corpora DIR] [-v]
Exits 0 when every file agrees.
"""
import glob, json, os, re, subprocess, sys

from rates_common import arguments


# Inputs without a .right whose count abrt's test suite states elsewhere (corpora/README.md, section 3).
KNOWN_COUNTS = {'no_oops.test': 0, '10_oopses.test': 10}


def expected_count(right_path):
    with open(right_path, encoding='utf-8', errors='replace') as f:
        first = f.readline()
    m = re.search(r'Found oopses: (\d+)', first)
    return int(m.group(1)) if m else 0


def report_count(btaudit, path):
    r = subprocess.run([btaudit, 'analyze', '--format', 'json', path], capture_output=True, timeout=120)
    try:
        return len(json.loads(r.stdout).get('reports', []))
    except ValueError:
        return None


def main():
    a = arguments()
    examples = os.path.join(os.path.abspath(a.corpora), 'abrt', 'tests', 'examples')
    inputs = sorted(glob.glob(os.path.join(examples, '*.test')) + glob.glob(os.path.join(examples, '*.test.template')))
    if not inputs:
        print(f'no abrt examples under {a.corpora}: skipped')
        sys.exit(77)
    total = agree = 0
    for path in inputs:
        base = path[:-len('.template')] if path.endswith('.template') else path
        right = base[:-len('.test')] + '.right'
        if os.path.exists(right):
            want = expected_count(right)
        elif os.path.basename(base) in KNOWN_COUNTS:
            want = KNOWN_COUNTS[os.path.basename(base)]
        else:
            continue
        got = report_count(a.btaudit, path)
        total += 1
        if got == want:
            agree += 1
            if a.verbose:
                print(f'ok       {os.path.basename(path)}: {got}')
        else:
            print(f'differs  {os.path.basename(path)}: expected {want}, got {got}')
    rate = agree / max(1, total)
    print(f'abrt "Found oopses" agreement: {agree}/{total} = {rate:.1%} (target 100%)')
    sys.exit(0 if total and agree == total else 1)


if __name__ == '__main__':
    main()
