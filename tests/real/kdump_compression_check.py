#!/usr/bin/env python3
"""Lab dumps with their pages compressed by LZO, snappy and zstd read as the zlib originals.

  kdump_compression_check.py BTAUDIT VMCORE_DIR [--vmlinux VMLINUX] [--jobs N]

The labs' kdump-compressed dumps are zlib (QEMU's dump-guest-memory -z). Other tools write
other compressions: makedumpfile -l (LZO, the default of Fedora's and RHEL's kdump), -p
(snappy), -z (zstd); QEMU's -l and -s. Each dump below is rewritten with its pages in each of
them (kdump_recompress.py, the same pages and headers) and every view (info, irqstate, bt,
log, analyze, analyze as JSON) must print byte for byte as on the original. Then one copy
whose compressed pages are all damaged: btaudit must exit 0 or 2 (one line on stderr, naming
the file), never by a signal. Copies go under $TMPDIR. Exit 77 when the lab has none of the
dumps, or a compression library cannot be loaded.
"""
import argparse, os, subprocess, sys

from kdump_recompress import PAGE_DESC, Compressors, recompress
from view_compare import compare_views, present_or_skip, run_copies

ap = argparse.ArgumentParser()
ap.add_argument('btaudit')
ap.add_argument('dumps')
ap.add_argument('--vmlinux')
ap.add_argument('--jobs', type=int, default=2)
args = ap.parse_args()

WANTED = ['panic_irq.kdump-zlib', 'panic_task_kaslr.kdump-zlib']
HOW = ['lzo', 'snappy', 'zstd']
dumps = present_or_skip(args.dumps, WANTED)
try:
    compressors = Compressors()
except OSError as e:
    print(f'a compression library cannot be loaded ({e}): skipped')
    sys.exit(77)
extra = ['--vmlinux', args.vmlinux] if args.vmlinux else []


def compare(job, tmp):
    name, how = job
    src = os.path.join(args.dumps, name)
    copy = os.path.join(tmp, f'{how}-{name}')
    recompress(src, copy, how, compressors)
    try:
        return compare_views(args.btaudit, copy, src, extra)
    finally:
        os.unlink(copy)


def damaged(tmp):
    """Every compressed page of an LZO copy garbled in its middle: no signal, at most one line."""
    src = os.path.join(args.dumps, dumps[0])
    copy = os.path.join(tmp, 'damaged-lzo-' + dumps[0])
    recompress(src, copy, 'lzo', compressors)
    with open(copy, 'r+b') as f:
        data = bytearray(f.read())
        head = data[:4096]
        block = int.from_bytes(head[428:432], 'little')
        sub_blocks = int.from_bytes(head[432:436], 'little')
        bitmap_blocks = int.from_bytes(head[436:440], 'little')
        at = (1 + sub_blocks + bitmap_blocks) * block
        first_data = int.from_bytes(data[at:at + 8], 'little')
        seen = set()
        while at + PAGE_DESC.size <= first_data:
            off, size, flags, _ = PAGE_DESC.unpack_from(data, at)
            if flags and off not in seen and size > 8:
                seen.add(off)
                for k in range(off + size // 2, off + size // 2 + 4):
                    data[k] ^= 0xA5
            at += PAGE_DESC.size
        f.seek(0)
        f.write(data)
    problems = []
    try:
        for view in (['info'], ['bt'], ['log'], ['analyze']):
            r = subprocess.run([args.btaudit, 'vmcore', *extra, copy, view[0]], capture_output=True, timeout=600)
            err = r.stderr.decode(errors='replace').strip()
            lines = [x for x in err.splitlines() if not x.startswith('btaudit: note:')]
            if r.returncode not in (0, 2) or (r.returncode == 2 and (len(lines) != 1 or copy not in lines[0])):
                problems.append(f'damaged LZO pages, {view[0]}: exit {r.returncode}, stderr {err!r}')
            else:
                print(f'damaged LZO pages, {view[0]}: exit {r.returncode}' + (f': {lines[0]}' if lines else ''))
    finally:
        os.unlink(copy)
    return problems


jobs = [(name, how) for name in dumps for how in HOW]
sys.exit(run_copies(jobs, compare, lambda j: f'{j[0]} in {j[1]}', args.jobs, damaged, 'btaudit-kdumpc-'))
