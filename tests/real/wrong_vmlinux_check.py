#!/usr/bin/env python3
"""A vmlinux of another build of the same release is refused, not read into nonsense.

  wrong_vmlinux_check.py BTAUDIT DUMP RIGHT_VMLINUX OTHER_VMLINUX [LOG]

RIGHT_VMLINUX is DUMP's kernel; OTHER_VMLINUX another build with the same release string
(the 6.18 lab's ORC kernel against its frame-pointer twin: both say "6.18.2-lab"). Checks:
  - `vmcore --vmlinux OTHER DUMP bt` exits non-zero with one line naming the dump, both build
    ids and "wrong vmlinux", and prints nothing on stdout (no partial walk);
  - a copy of DUMP whose VMCOREINFO BUILD-ID is defaced (as a kernel before 5.9 has none) is
    still refused, by its linux_banner, and still read with RIGHT_VMLINUX;
  - RIGHT_VMLINUX reads DUMP (no false alarm);
  - with LOG (a console log of RIGHT's kernel): its CPU: line given a build id, as 5.14+
    kernels with CONFIG_STACKTRACE_BUILD_ID print one, `analyze --vmlinux` warns when that id is
    not the vmlinux's and stays quiet when it is.
Exit 77 when an input is absent (ctest skips).
"""
import json, os, re, shutil, subprocess, sys, tempfile

if len(sys.argv) < 5:
    sys.exit(__doc__)
btaudit, dump, right, other = sys.argv[1:5]
log = sys.argv[5] if len(sys.argv) > 5 else None
for p in (dump, right, other):
    if not os.path.exists(p):
        print(f'{p} is absent: skipped')
        sys.exit(77)


def build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else None


bad = 0


def expect_refused(what, dump_path, vmlinux, needles):
    global bad
    r = subprocess.run([btaudit, 'vmcore', '--no-cache', '--vmlinux', vmlinux, dump_path, 'bt'],
                       capture_output=True, text=True, timeout=300)
    lines = r.stderr.strip().splitlines()
    problems = []
    if r.returncode == 0:
        problems.append('exit 0')
    if r.stdout.strip():
        problems.append(f'{len(r.stdout.splitlines())} lines on stdout')
    if len(lines) != 1:
        problems.append(f'{len(lines)} lines on stderr')
    for n in [dump_path, 'wrong vmlinux', *needles]:
        if n not in r.stderr:
            problems.append(f'stderr does not name {n!r}')
    if problems:
        bad += 1
        print(f'{what}: ' + '; '.join(problems) + f'\n  stderr: {r.stderr.strip()[:400]}')
    else:
        print(f'{what}: refused: {lines[0][:200]}')


def expect_read(what, dump_path, vmlinux):
    global bad
    r = subprocess.run([btaudit, 'vmcore', '--no-cache', '--format', 'json', '--vmlinux', vmlinux, dump_path, 'bt'],
                       capture_output=True, text=True, timeout=300)
    cpus = json.loads(r.stdout)['cpus'] if r.returncode == 0 else []
    if r.returncode != 0 or not any(c['frames'] for c in cpus):
        bad += 1
        print(f'{what}: not read (exit {r.returncode}): {r.stderr.strip()[:300]}')
    else:
        print(f'{what}: read, {sum(len(c["frames"]) for c in cpus)} frames')


right_id, other_id = build_id(right), build_id(other)
if not right_id or not other_id or right_id == other_id:
    print(f'the two vmlinux files need two build ids (have {right_id}, {other_id}): skipped')
    sys.exit(77)
expect_refused('another build', dump, other, [other_id])
expect_read('its own build', dump, right)

with tempfile.TemporaryDirectory(prefix='btaudit-wrongvm-') as tmp:
    data = open(dump, 'rb').read()
    if data.count(b'BUILD-ID=') == 0:
        print('the dump has no BUILD-ID in VMCOREINFO: the banner path is the only one, checked above')
    defaced = os.path.join(tmp, 'no-build-id-' + os.path.basename(dump))
    with open(defaced, 'wb') as f:
        f.write(data.replace(b'BUILD-ID=', b'BUILD-XX='))
    del data
    expect_refused('another build, no BUILD-ID', defaced, other, ['linux_banner'])
    expect_read('its own build, no BUILD-ID', defaced, right)

    if log and os.path.exists(log):
        text = open(log, encoding='utf-8', errors='replace').read()
        for given, should_warn in ((other_id, True), (right_id, False)):
            # The CPU: line of each report, ended by the build id as lib/dump_stack.c prints it.
            variant = re.sub(r'^(.*\bCPU: \d+ (?:UID: \d+ )?PID: .*?)\s*$', lambda m: m.group(1) + ' ' + given, text,
                             flags=re.M)
            path = os.path.join(tmp, 'variant.log')
            open(path, 'w').write(variant)
            r = subprocess.run([btaudit, 'analyze', '--format', 'json', '--no-cache', '--vmlinux', right, path],
                               capture_output=True, text=True, timeout=300)
            reports = json.loads(r.stdout)['reports'] if r.returncode == 0 else []
            printed = [x for x in reports if x.get('kernel_build_id')]
            warned = [x for x in printed if any('printed build' in w for w in x['debug_warnings'])]
            if not printed or (len(warned) == len(printed)) != should_warn or (warned and not should_warn):
                bad += 1
                print(f'log with build id {given}: {len(printed)} reports read it, {len(warned)} warned '
                      f'(expected {"all" if should_warn else "none"})')
            else:
                print(f'log with build id {given}: {len(printed)} reports, {len(warned)} warned')
print(f'{bad} problems')
sys.exit(1 if bad else 0)
