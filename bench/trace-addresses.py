#!/usr/bin/env python3
"""The longest report of `btaudit analyze --format json --vmlinux` output, for the debuginfo benchmarks.

  trace-addresses.py ANALYSIS_JSON LOG WORK

Writes WORK/trace.log (that report's console lines, timestamps kept) and WORK/addresses.txt
(its frames' distinct lookup addresses, debug_address - 1, for eu-addr2line); prints the
report's frame count, then its distinct addresses and line range.
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
r = max(doc['reports'], key=lambda r: len(r['frames']))
first, last = r['input']['first_line'], r['input']['last_line']
lines = open(sys.argv[2], errors='replace').read().split('\n')[first - 1:last]
open(sys.argv[3] + '/trace.log', 'w').write('\n'.join(lines) + '\n')
addrs = sorted({f['debug_address'] - 1 for f in r['frames'] if f.get('debug_address')})
open(sys.argv[3] + '/addresses.txt', 'w').write(' '.join(hex(a) for a in addrs) + '\n')
print(len(r['frames']), len(addrs), first, last)
