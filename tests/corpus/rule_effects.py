#!/usr/bin/env python3
"""How often each verdict rule fires over a corpus (the man page's RULES figures).

  rule_effects.py BTAUDIT [DIR]    (DIR defaults to ../shared/corpora)
"""
import collections, json, os, subprocess, sys

btaudit = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'corpora')
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
               if not f.endswith(('.json', '.tsv', '.yaml', '.md', '.right', '.expected')))
count = collections.Counter()
frames = q = reports = 0
for i in range(0, len(files), 200):
    out = subprocess.run([btaudit, 'analyze', '--format', 'json', *files[i:i + 200]], capture_output=True).stdout
    for r in json.loads(out)['reports']:
        reports += 1
        for f in r['frames']:
            frames += 1
            q += f['printed_unreliable']
            count[(f['printed_unreliable'], f['verdict'], f['reason'])] += 1
print(f'{len(files)} files, {reports} reports, {frames} frames, {q} printed with "?"')
for (pq, v, r), n in sorted(count.items(), key=lambda x: -x[1]):
    print(f"  {'?' if pq else ' '} {v:9} {r:24} {n:6}  {100.0 * n / max(1, frames):5.1f}% of frames")
