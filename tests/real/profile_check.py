#!/usr/bin/env python3
"""vmlinux's profile (debuginfo/kernel_profile.h) changes nothing but speed, on a real lab.

  profile_check.py BTAUDIT VMLINUX VMCORE_DIR [LOG...] [--elf-only]

In a cache directory of its own ($XDG_CACHE_HOME under $TMPDIR):
  1. every lab dump's `vmcore analyze --format json` and `bt --tasks` equal the --no-cache
     output byte for byte, first with the profile being made (the first dump runs cold, the
     others add their addresses to it), then again with every answer in it (warm);
  2. a warm run that learns nothing leaves the profile file untouched;
  3. a truncated, a bit-flipped and a foreign profile (another build id's, renamed) are each
     named on stderr ("rebuilt"), give the same output, and are rewritten whole;
  4. `analyze --vmlinux` on each LOG equals its --no-cache output, cold and warm;
  5. `batch --vmlinux -j 2` over the logs equals its --no-cache output.
--elf-only takes the ELF dumps alone (the profile is vmlinux's: the dump's format does not
reach it; the 6.1 lab runs both formats). Exit 77 when the dumps or vmlinux are absent.
"""
import hashlib, os, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

if len(sys.argv) < 4:
    sys.exit(__doc__)
elf_only = '--elf-only' in sys.argv
argv = [a for a in sys.argv[1:] if a != '--elf-only']
btaudit, vmlinux, dumps_dir, logs = argv[0], argv[1], argv[2], argv[3:]
logs = [l for l in logs if os.path.isfile(l)]
dumps = sorted(os.path.join(dumps_dir, n) for n in (os.listdir(dumps_dir) if os.path.isdir(dumps_dir) else [])
               if n.endswith('.elf') or (n.endswith('.kdump-zlib') and not elf_only))
if not dumps or not os.path.isfile(vmlinux):
    print(f'no lab dumps under {dumps_dir} or no {vmlinux}: skipped')
    sys.exit(77)

work = tempfile.mkdtemp(prefix='btaudit-profile-check.')
cache = os.path.join(work, 'cache')
env = dict(os.environ, XDG_CACHE_HOME=cache)
problems = []


def run(argv, expect_note=None):
    r = subprocess.run([btaudit, *argv], capture_output=True, env=env, timeout=600)
    err = r.stderr.decode(errors='replace')
    if r.returncode != 0:
        problems.append(f'{" ".join(argv)}: exit {r.returncode}: {err.strip()[:300]}')
    noted = 'rebuilt' in err
    if expect_note is not None and noted != expect_note:
        problems.append(f'{" ".join(argv)}: stderr {"lacks" if expect_note else "has"} a "rebuilt" note: '
                        f'{err.strip()[:300]}')
    return r.stdout


def profile_file():
    d = os.path.join(cache, 'btaudit')
    files = [os.path.join(d, f) for f in os.listdir(d)] if os.path.isdir(d) else []
    return files[0] if len(files) == 1 else None


views = [['--format', 'json'], ['--tasks']]
actions = {'--format': 'analyze', '--tasks': 'bt'}


def dump_argv(dump, view, cached):
    return ['vmcore', *([] if cached else ['--no-cache']), '--vmlinux', vmlinux, *view, dump, actions[view[0]]]


keys = [(d, i) for d in dumps for i in range(len(views))]
with ThreadPoolExecutor(max_workers=2) as pool:  # independent runs: both cores
    plain = dict(zip(keys, pool.map(lambda k: run(dump_argv(k[0], views[k[1]], False), False), keys)))
if os.path.exists(cache):
    problems.append('--no-cache wrote into the cache directory')
compared = 0
for label in ('cold/growing', 'warm'):
    for d in dumps:
        for i, v in enumerate(views):
            out = run(dump_argv(d, v, True), False)
            compared += 1
            if out != plain[(d, i)]:
                problems.append(f'{label}: {os.path.basename(d)} {" ".join(v)} differs from --no-cache')
profile = profile_file()
if not profile:
    problems.append(f'no single profile under {cache}/btaudit')
else:
    before = os.stat(profile).st_mtime_ns
    run(dump_argv(dumps[0], views[1], True), False)
    if os.stat(profile).st_mtime_ns != before:
        problems.append('a warm run that learned nothing rewrote the profile')
    good = open(profile, 'rb').read()
    flipped = bytearray(good)
    flipped[len(good) // 3] ^= 0x04
    # Another build id's profile under this one's name: a copy whose header names another id
    # (the checksum covers the payload only, so the id is all that is wrong).
    foreign = bytearray(good)
    id_at = 8 + 4 + 8 + 8 + 4  # magic, version, payload size, checksum (XXH3-64), id length
    foreign[id_at] = ord('0') if foreign[id_at] != ord('0') else ord('1')
    for what, data in (('truncated', good[:len(good) - 4096]), ('bit-flipped', bytes(flipped)),
                       ('foreign', bytes(foreign))):
        with open(profile, 'wb') as f:
            f.write(data)
        out = run(dump_argv(dumps[0], views[0], True), True)
        if out != plain[(dumps[0], 0)]:
            problems.append(f'{what} profile: the output differs from --no-cache')
        if hashlib.sha256(open(profile, 'rb').read()).digest() == hashlib.sha256(data).digest():
            problems.append(f'{what} profile: not rewritten')
        run(dump_argv(dumps[0], views[0], True), False)  # the rewritten one is trusted again

for log in logs:
    base = ['analyze', '--format', 'json', '--vmlinux', vmlinux, log]
    want = run([*base, '--no-cache'])
    shutil.rmtree(cache, ignore_errors=True)
    for label in ('cold', 'warm'):
        if run(base, False) != want:
            problems.append(f'analyze --vmlinux {os.path.basename(log)}: {label} differs from --no-cache')
if logs:
    corpus = os.path.join(work, 'logs')
    os.makedirs(corpus)
    for i, log in enumerate(logs):
        shutil.copy(log, os.path.join(corpus, f'{i}-{os.path.basename(log)}'))
    base = ['batch', '--vmlinux', vmlinux, '-j', '2', '--progress', 'never', '-q', corpus]
    want = run([*base, '--no-cache'])
    if run(base, False) != want:
        problems.append('batch --vmlinux -j 2: differs from --no-cache')

shutil.rmtree(work, ignore_errors=True)
print(f'{len(dumps)} dumps x {len(views)} views, {compared} cached runs against --no-cache; '
      f'3 damaged profiles; {len(logs)} logs through analyze and batch')
for p in problems:
    print('FAIL', p)
sys.exit(1 if problems else 0)
