#!/usr/bin/env python3
"""Every lab dump in makedumpfile's flattened format reads as its unflattened twin.

  flattened_check.py BTAUDIT VMCORE_DIR [--jobs N]

For each NAME.kdump-zlib.flat beside NAME.kdump-zlib (the lab writes both from one
capture), every `btaudit vmcore` view (info, irqstate, bt, log, analyze, and
analyze as JSON) prints byte for byte the same on both once the dump's own path
is replaced, exits the same, and the flat run says on stderr that it reassembled
the file. Also checks the file-format errors of cut and corrupted copies of one
flat dump, made under $TMPDIR. Exit 77 when the lab has no flat dump (ctest skips).
"""
import argparse, os, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

from view_compare import VIEWS, first_difference, run_view

ap = argparse.ArgumentParser()
ap.add_argument('btaudit')
ap.add_argument('dumps')
ap.add_argument('--jobs', type=int, default=2)
args = ap.parse_args()

flats = sorted(n for n in (os.listdir(args.dumps) if os.path.isdir(args.dumps) else [])
               if n.endswith('.kdump-zlib.flat') and os.access(os.path.join(args.dumps, n), os.R_OK))
if not flats:
    print('no flattened lab dumps found: skipped (run ../shared/lab/make-lab.sh)')
    sys.exit(77)

def run(path, view):
    return run_view(args.btaudit, path, view)


def compare(name):
    flat = os.path.join(args.dumps, name)
    twin = flat[:-len('.flat')]
    if not os.path.exists(twin):
        return [f'{name}: no unflattened twin {os.path.basename(twin)}']
    problems = []
    for view in VIEWS:
        fs, fo, fe = run(flat, view)
        ts, to, te = run(twin, view)
        label = f"{name} {' '.join(view)}"
        if fs != ts:
            problems.append(f'{label}: exit {fs}, the twin exits {ts}: {fe.decode(errors="replace").strip()}')
        elif fo != to:
            problems.append(f'{label}: output differs from the twin first at {first_difference(fo, to)}')
        elif b'reassembled' not in fe:
            problems.append(f'{label}: no note on stderr that the flattened file was reassembled')
        elif not fo:
            problems.append(f'{label}: no output')
    return problems


def hostile_copies():
    """Cut and corrupted copies of the smallest flat dump: one-line errors, exit 2, no temporary file left."""
    smallest = min(flats, key=lambda n: os.path.getsize(os.path.join(args.dumps, n)))
    src = os.path.join(args.dumps, smallest)
    problems = []
    with tempfile.TemporaryDirectory(prefix='btaudit-flat-') as tmp:
        data = open(src, 'rb').read()
        size_at = 4096 + 8  # the first record's size field
        cases = {
            'cut in a record': (data[:len(data) // 2], 'truncated flattened dump'),
            'no end marker': (data[:-16], 'no end marker'),
            'negative size': (data[:size_at] + (2**64 - 5).to_bytes(8, 'big') + data[size_at + 8:],
                              'corrupt flattened dump'),
            'huge size': (data[:size_at] + (2**40).to_bytes(8, 'big') + data[size_at + 8:], 'corrupt flattened dump'),
            'huge offset': (data[:4096] + (2**62).to_bytes(8, 'big') + data[4104:], 'corrupt flattened dump'),
            'wrong version': (data[:24] + (7).to_bytes(8, 'big') + data[32:], 'version 7'),
            'header only': (data[:100], 'truncated flattened dump'),
        }
        scratch = os.path.join(tmp, 'scratch')
        os.mkdir(scratch)
        env = dict(os.environ, TMPDIR=scratch)
        for label, (blob, want) in cases.items():
            path = os.path.join(tmp, label.replace(' ', '_') + '.flat')
            with open(path, 'wb') as f:
                f.write(blob)
            r = subprocess.run([args.btaudit, 'vmcore', path, 'info'], capture_output=True, text=True, env=env,
                               timeout=120)
            err = r.stderr.strip()
            if r.returncode != 2 or want not in err or len(err.splitlines()) != 1 or path not in err:
                problems.append(f'{label}: exit {r.returncode}, stderr {err!r} (want exit 2 and one line with {want!r})')
            else:
                print(f'hostile copy, {label}: {err}')
        if os.listdir(scratch):
            problems.append(f'temporary files left in TMPDIR: {os.listdir(scratch)}')
    return problems


with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
    results = list(pool.map(compare, flats))
bad = 0
for name, problems in zip(flats, results):
    for p in problems:
        print(p)
    bad += len(problems)
    if not problems:
        print(f'{name}: {len(VIEWS)} views identical to its twin')
hostile = hostile_copies()
for p in hostile:
    print(p)
bad += len(hostile)
print(f'{len(flats)} flattened dumps x {len(VIEWS)} views: {len(flats) * len(VIEWS) - sum(map(len, results))} '
      f'identical to the unflattened twin; {bad} problems')
sys.exit(1 if bad else 0)
