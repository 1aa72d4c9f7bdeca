#!/usr/bin/env python3
"""Bucket accuracy of `btaudit batch` on the syzkaller reports of the shared corpora.

  bucket_rates.py BTAUDIT [--corpora DIR] [--jobs N]

Each syzkaller file's TITLE/ALT header is stripped (as ../shared/tools/score.py does), the
bodies go through ONE batch run over a folder (so bucketing is what batch does, not what
analyze does per file), and every pair of files with a report is checked: the same TITLE
must share a bucket (goal >= 95% of pairs), different TITLEs must not (goal >= 99%).
Exits 0 when both hold, 1 when not, 77 when the corpora are absent.
"""
import argparse, itertools, json, os, subprocess, sys, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    ap.add_argument('--corpora', default=os.path.join(os.path.dirname(__file__), '../../../shared/corpora'))
    ap.add_argument('--jobs', default='2')
    args = ap.parse_args()
    root = os.path.join(args.corpora, 'syzkaller/linux/report')
    if not os.path.isdir(root):
        print(f'bucket_rates: {root} absent, skipped')
        return 77
    with tempfile.TemporaryDirectory() as work:
        titles = {}
        for name in sorted(os.listdir(root)):
            raw = open(os.path.join(root, name), 'rb').read().decode('utf-8', 'replace')
            title = None
            if raw.startswith('\n'):
                body = raw[1:]
            else:
                head, _, body = raw.partition('\n\n')
                for line in head.split('\n'):
                    if line.startswith('TITLE: '):
                        title = line[7:].strip()
            body = body.split('\n\nREPORT:\n')[0]
            path = os.path.join(work, 'in', name + '.log')
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, 'w').write(body)
            titles[path] = title
        out = os.path.join(work, 'reports.ndjson')
        r = subprocess.run([args.btaudit, 'batch', '--jobs', args.jobs, '-q', '-o', out, os.path.join(work, 'in')],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(f'bucket_rates: batch failed (exit {r.returncode}): {r.stderr.strip()}')
            return 1
        bucket = {}
        for line in open(out):
            rep = json.loads(line)
            bucket.setdefault(rep['input']['path'], rep['signature'])  # the file's first report
    pos = [p for p, t in titles.items() if t and p in bucket]
    same = diff = same_ok = diff_ok = 0
    for a, b in itertools.combinations(pos, 2):
        if titles[a] == titles[b]:
            same += 1
            same_ok += bucket[a] == bucket[b]
        else:
            diff += 1
            diff_ok += bucket[a] != bucket[b]
    rs, rd = same_ok / max(1, same), diff_ok / max(1, diff)
    print(f'{len(pos)} syzkaller reports in {len(set(bucket[p] for p in pos))} buckets: same-title pairs together '
          f'{rs:.1%} of {same} (>=95%), different-title pairs apart {rd:.2%} of {diff} (>=99%)')
    return 0 if pos and rs >= 0.95 and rd >= 0.99 else 1


if __name__ == '__main__':
    sys.exit(main())
