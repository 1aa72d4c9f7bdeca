#!/usr/bin/env python3
"""Verdict figures over real kernel traces analyzed with debuginfo.

  verdict_stats.py BTAUDIT VMLINUX LOG... [--modules DIR]

Prints: frames printed without '?' called stale (must be 0), reliable frames
flagged as corruption evidence, and the share of '?' frames proven stale
(no call before the return address), likely stale and plausible.
"""
import argparse, os, collections, json, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument('btaudit')
ap.add_argument('vmlinux')
ap.add_argument('logs', nargs='+')
ap.add_argument('--modules')
a = ap.parse_args()
if not os.path.exists(a.vmlinux):
    print(f'{a.vmlinux} is absent: skipped (../shared/lab/make-lab.sh install brings it)')
    sys.exit(77)
a.logs = [l for l in a.logs if os.path.exists(l)]
if not a.logs:
    print('no lab console logs: skipped')
    sys.exit(77)
reasons = collections.Counter()
false_stale = flagged = q = 0
flagged_frames = []
for log in a.logs:
    cmd = [a.btaudit, 'analyze', '--format', 'json', '--vmlinux', a.vmlinux, log]
    if a.modules:
        cmd += ['--modules', a.modules]
    doc = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
    for r in doc['reports']:
        for f in r['frames']:
            if not f['printed_unreliable']:
                false_stale += f['verdict'] == 'stale'
                if f.get('corruption_evidence'):
                    flagged += 1
                    flagged_frames.append((log, f['function'], f.get('debug_note')))
                continue
            q += 1
            reasons[(f['verdict'], f['reason'])] += 1
print(f"frames printed without '?' called stale: {false_stale}")
print(f"reliable frames flagged as corruption evidence: {flagged}")
for fr in flagged_frames[:10]:
    print('  flagged:', fr)
print(f"'?' frames: {q}")
for (v, r), n in sorted(reasons.items(), key=lambda x: -x[1]):
    print(f"  {v:9} {r:24} {n:5}  {100.0 * n / max(1, q):5.1f}%")
proven = reasons[('stale', 'no_call_before')]
stale = sum(n for (v, _), n in reasons.items() if v == 'stale')
print(f"'?' frames proven stale (no call before): {proven}/{q} = {100.0 * proven / max(1, q):.1f}%; "
      f"stale in all: {stale}/{q} = {100.0 * stale / max(1, q):.1f}%")
# Nothing in a lab's stacks is corrupt: a reliable frame flagged as evidence of corruption is a
# call site the check misread (5.10's asm_call_irq_on_stack, whose call the file pads with NOPs).
sys.exit(1 if false_stale or flagged else 0)
