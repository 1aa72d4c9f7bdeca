#!/usr/bin/env python3
"""The text benchmark's unit file cut in two, for ratios.sh's breakdown of the text row.

  split-input.py ANALYSIS_JSON UNIT OUT_PREFIX

ANALYSIS_JSON is `btaudit analyze --format json UNIT`. Writes OUT_PREFIX.reports (every line
inside some report's input span, first_line..last_line, in order) and OUT_PREFIX.outside (every
other line); prints the two parts' line counts and bytes. Where the time of the whole goes:
the lines a report is built from against the lines only searched for a report's start.
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
with open(sys.argv[2], 'rb') as f:
    lines = f.read().split(b'\n')
if lines and lines[-1] == b'':
    lines.pop()
marks = bytearray(len(lines) + 2)
for r in doc['reports']:
    first, last = r['input']['first_line'], r['input']['last_line']
    for n in range(max(first, 1), min(last, len(lines)) + 1):
        marks[n] = 1
parts = {1: [], 0: []}
for n, line in enumerate(lines, 1):
    parts[marks[n]].append(line)
for flag, suffix in ((1, '.reports'), (0, '.outside')):
    body = b'\n'.join(parts[flag]) + b'\n'
    with open(sys.argv[3] + suffix, 'wb') as out:
        out.write(body)
    print(len(parts[flag]), len(body))
