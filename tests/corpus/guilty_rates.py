#!/usr/bin/env python3
"""Guilty-file accuracy of `btaudit analyze --format json` against syzkaller's expectations.

  guilty_rates.py BTAUDIT [--corpora DIR] [--min RATE] [-v]

Each syzkaller/linux/guilty/N file is a "FILE: <path>" header (an empty path: none), a blank
line, then a report (pkg/report/testdata/linux/guilty of google/syzkaller; report_test.go's
testGuiltyFile). The first report btaudit finds must have that path as its "guilty_file"
(null for an empty one). Prints the disagreeing files and the rate; exits 1 below --min,
77 when the corpora are missing.
"""
import argparse, glob, json, os, subprocess, sys, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--corpora', default=os.path.join(here, '..', '..', '..', 'shared', 'corpora'))
    ap.add_argument('--min', type=float, default=0.9)
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(os.path.abspath(a.corpora), 'syzkaller', 'linux', 'guilty', '*')))
    if not files:
        print(f'no syzkaller guilty files under {a.corpora}: skipped')
        return 77
    good = total = 0
    with tempfile.TemporaryDirectory() as work:
        for path in files:
            raw = open(path, 'rb').read().decode('utf-8', 'replace')
            head, _, body = raw.partition('\n\n')
            want = [l[5:].strip() for l in head.split('\n') if l.startswith('FILE:')]
            if not want:
                continue
            log = os.path.join(work, 'report.log')
            open(log, 'w').write(body)
            r = subprocess.run([a.btaudit, 'analyze', '--format', 'json', log], capture_output=True, timeout=120)
            reps = json.loads(r.stdout or b'{}').get('reports', [])
            got = (reps[0].get('guilty_file') if reps else None) or ''
            total += 1
            good += got == want[0]
            if got != want[0] or a.verbose:
                print(f'{"ok     " if got == want[0] else "differs"}  {os.path.basename(path)}: expected {want[0]!r}, got {got!r}')
    rate = good / max(1, total)
    print(f'syzkaller guilty files: {good}/{total} = {rate:.1%} (>={a.min:.0%})')
    return 0 if total and rate >= a.min else 1


if __name__ == '__main__':
    sys.exit(main())
