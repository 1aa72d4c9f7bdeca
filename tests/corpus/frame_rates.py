#!/usr/bin/env python3
"""Frame-list accuracy of `btaudit analyze --format json` against satyr and lkp-tests expectations.

  frame_rates.py BTAUDIT [--corpora DIR] [--min RATE] [-v]

satyr (satyr/expected/*.expected.tsv, transcribed from satyr's tests/koops_stacktrace.c):
  satyr parses every frame line of the whole oops text into ONE list and prepends the crash-site
  frame when an x86 "RIP:"/"EIP:" line carries "[<address>] function+off/size" (its parse_IP knows
  no other architecture's, and not the modern "RIP: 0010:function+off/size" form). btaudit keeps the crash site out of `frames`
  (it is the report's `crash_site`) and may split the text into several reports, so the list
  compared with satyr's is:
      [first x86_64/i386 report's crash_site.function, when it has both a function and an address]
      + the frames of every report, in file order.
  first_function / last_function / frame_count are compared on that list.
  taint_count  = taint letters of the first report that names a taint, minus 'G' (satyr keeps one
                 boolean per flag and 'G' only means "no proprietary module").
  module_count = modules of the first report that lists any.
  *_frame_stack: satyr says "IRQ", "NMI" or "" (process stack); btaudit's stack irq -> IRQ,
                 nmi -> NMI, anything else -> "".
  A satyr sample's frame list is right when first, last and count all match.
  Known divergence: rhbz-836206's last trace line is glued behind paste residue
  ("--2012-06-28 06:[  120.833075]  [<...>] system_call_fastpath+0x16/0x1b"); satyr drops that
  frame (23), btaudit finds the kernel record behind the residue and keeps it (24). The
  expectation is left as transcribed, so this sample counts as a miss.

lkp-tests (spec/fixtures/dmesg/calltrace/dmesg-NNN -> calltrace-NNN):
  calltrace-NNN holds the expected report chunks separated by '---' lines. The frames of each chunk
  (read here with a deliberately simple, independent line matcher: optional "[<addr>]", optional
  '?', func+0xoff/0xsize) must appear contiguously, '?' marks and offsets included, in the
  concatenation of all frames btaudit reports for dmesg-NNN (its frames with an offset: the
  matcher does not read decode_stacktrace.sh's "func (file:line)" frames). One chunk = one frame list.

Prints per-source rates and the overall rate over frame lists; exits 1 when it is below --min.
"""
import argparse, glob, json, os, re, subprocess, sys

TS = re.compile(r'^(?:<\d+>)?(?:\[\s*\d+\.\d+\])?(?:\[\s*[TC]\d+\])?')
LKP_FRAME = re.compile(r'^\s*(?:\[<[0-9a-f]+>\]\s*)?(\? )?\(?([A-Za-z_.$][\w.$]*)\+(0x[0-9a-f]+)/0x[0-9a-f]+')


def analyze(btaudit, path):
    r = subprocess.run([btaudit, 'analyze', '--format', 'json', path], capture_output=True, timeout=120)
    try:
        return json.loads(r.stdout).get('reports', [])
    except ValueError:
        sys.exit(f'analyze printed no JSON for {path} (exit {r.returncode}): {r.stderr[:200]!r}')


def stack_name(f):
    return {'irq': 'IRQ', 'nmi': 'NMI'}.get(f.get('stack'), '')


def satyr(btaudit, root, verbose):
    rows = []
    for tsv in sorted(glob.glob(os.path.join(root, 'satyr/expected/*.expected.tsv'))):
        lines = open(tsv).read().rstrip('\n').split('\n')
        head = lines[0].split('\t')
        for line in lines[1:]:
            rows.append(dict(zip(head, line.split('\t'))))
    fields = ['first_function', 'last_function', 'frame_count', 'taint_count', 'module_count',
              'first_frame_stack', 'last_frame_stack']
    field_ok = {k: 0 for k in fields}
    lists_ok = 0
    for row in rows:
        reps = analyze(btaudit, os.path.join(root, 'satyr', row['file']))
        frames = [f for r in reps for f in r.get('frames', [])]
        names = [f.get('function') or '' for f in frames]
        stacks = [stack_name(f) for f in frames]
        site = next((r['crash_site'] for r in reps if r.get('crash_site') and r['crash_site'].get('function')
                     and r['crash_site'].get('address') is not None and r.get('arch') in ('x86_64', 'i386')), None)
        if site:
            names.insert(0, site['function'])
            stacks.insert(0, stacks[0] if stacks else '')
        taint = next((r['tainted'] for r in reps if r.get('tainted') is not None), '')
        mods = next((r['modules'] for r in reps if r.get('modules')), [])
        got = {
            'first_function': names[0] if names else '',
            'last_function': names[-1] if names else '',
            'frame_count': str(len(names)),
            'taint_count': str(len(taint.replace('G', ''))),
            'module_count': str(len(mods)),
            'first_frame_stack': stacks[0] if stacks else '',
            'last_frame_stack': stacks[-1] if stacks else '',
        }
        bad = [k for k in fields if got[k] != row.get(k, '')]
        for k in fields:
            field_ok[k] += k not in bad
        ok = not ({'first_function', 'last_function', 'frame_count'} & set(bad))
        lists_ok += ok
        if bad and verbose:
            print('satyr differs:', row['file'], ', '.join(f'{k}: want {row.get(k)!r} got {got[k]!r}' for k in bad))
    n = max(1, len(rows))
    print(f'satyr: {len(rows)} samples, frame lists {lists_ok}/{len(rows)} = {lists_ok / n:.1%}; fields: ' +
          ', '.join(f'{k} {field_ok[k] / n:.0%}' for k in fields))
    return lists_ok, len(rows)


def lkp(btaudit, root, verbose):
    good = total = 0
    for exp in sorted(glob.glob(os.path.join(root, 'lkp-tests/spec/fixtures/dmesg/calltrace/calltrace-*'))):
        dmesg = exp.replace('calltrace-', 'dmesg-')
        if not os.path.exists(dmesg):
            continue
        reps = analyze(btaudit, dmesg)
        # The matcher reads "func+0xoff/0xsize" frames only: decode_stacktrace.sh's "func (file:line)"
        # frames (offsets replaced by locations) are left out of both sides.
        got = [(bool(f.get('printed_unreliable')), f.get('function'), f.get('offset')) for r in reps
               for f in r.get('frames', []) if f.get('offset') is not None]
        chunks = re.split(r'\n---\n', open(exp, errors='replace').read())
        for i, chunk in enumerate(chunks):
            want = []
            for line in chunk.split('\n'):
                m = LKP_FRAME.match(TS.sub('', line))
                if m:
                    want.append((bool(m.group(1)), m.group(2), int(m.group(3), 16)))
            if not want:
                continue
            total += 1
            ok = any(got[j:j + len(want)] == want for j in range(len(got) - len(want) + 1))
            good += ok
            if not ok and verbose:
                print(f'lkp differs: {os.path.basename(exp)} chunk {i} ({len(want)} frames, first {want[0][1]})')
    print(f'lkp-tests: {total} expected traces, found {good}/{total} = {good / max(1, total):.1%}')
    return good, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    ap.add_argument('--corpora', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'corpora'))
    ap.add_argument('--min', type=float, default=0.95)
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    root = os.path.abspath(a.corpora)
    if not os.path.isdir(root):
        print(f'no corpora at {root}: skipped')
        sys.exit(77)
    s_ok, s_n = satyr(a.btaudit, root, a.verbose)
    l_ok, l_n = lkp(a.btaudit, root, a.verbose)
    rate = (s_ok + l_ok) / max(1, s_n + l_n)
    print(f'overall frame lists: {s_ok + l_ok}/{s_n + l_n} = {rate:.1%} (>={a.min:.0%})')
    sys.exit(0 if rate >= a.min else 1)


if __name__ == '__main__':
    main()
