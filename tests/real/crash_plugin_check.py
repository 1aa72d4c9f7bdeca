#!/usr/bin/env python3
"""btaudit inside crash: the extension loads cleanly and says what btaudit vmcore says.

  crash_plugin_check.py PLUGIN BTAUDIT VMLINUX VMCORE_DIR [--crash CRASH] [--jobs N] [--only NAME...]
                        [--session-cache DIR]

For every lab dump (NAME.elf, NAME.kdump-zlib) the real crash binary runs once,
non-interactively (crash -s VMLINUX DUMP < commands, crash_session.py): `extend
PLUGIN`, then every btaudit command, each redirected to its own file by crash
itself. With --session-cache the session is shared with words_check.py (the same
crash run answers both; whichever check comes first runs it). Checks:
  - extend prints only "PLUGIN: shared object loaded" (no warning);
  - irqstate, bt -a and log in text equal `btaudit vmcore` (irqstate, bt, and
    the reports part of analyze), and their -j documents equal the JSON of
    `btaudit vmcore --format json` (irqstate, bt, analyze): frames, verdicts,
    transitions and everything else;
  - bt -c CPU and bt -c CPU -j show that CPU alone; `help btaudit` and a
    usage error print crash-style help;
  - after `mod -s` loads the lab's own labcrash.ko (beside the vmcores folder), `btaudit log -j`
    equals `btaudit vmcore --modules DIR --format json` and gives every labcrash frame file:line;
  - the expected stack transitions: IRQ -> task on the hard-IRQ panics
    (panic_irq, panic_warn_hardirq), NMI -> task, #DF -> task (directly or through the
    IRQ stack: stack_path.py).
crash 8.0.2 aborts during start-up on stack_overflow (make-lab.sh
stage_validate): a run that did not get through start-up is retried with
--no_panic. Exit 77 (ctest: skipped) when crash, the plugin, vmlinux or the
dumps are absent.
"""
import argparse, concurrent.futures, json, os, shutil, subprocess, sys

import crash_session
from stack_path import goes, transitions_in_text

EXPECTED_TRANSITIONS = {'panic_irq': ('irq', 'task'), 'panic_warn_hardirq': ('irq', 'task'),
                        'panic_nmi': ('NMI', 'task'), 'stack_overflow': ('#DF', 'task')}
# The extension's commands (crash_session.EXTENSION_COMMANDS, by name) -> (standalone arguments
# or None, kind of comparison)
COMMANDS = {
    'irqstate': (['irqstate'], 'text'),
    'irqstate_json': (['--format', 'json', 'irqstate'], 'json'),
    'bt': (['bt'], 'text'),
    'bt_json': (['--format', 'json', 'bt'], 'json'),
    'log': (['--color', 'never', 'analyze'], 'tail'),
    'log_json': (['--format', 'json', 'analyze'], 'json'),
    'analyze': (['--color', 'never', 'analyze'], 'text'),
    'bt_cpu1': (None, 'cpu1'),
    'bt_cpu1_json': (None, 'cpu1_json'),
    'bt_current': (None, 'current'),
    'help': (None, 'help'),
    'usage': (None, 'usage'),
}
assert sorted(COMMANDS) == sorted(n for n, _ in crash_session.EXTENSION_COMMANDS)


def json_diff(a, b, where='$', out=None, limit=5):
    """The first few paths where two JSON documents differ."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f'{where}.{k}: only in {"plugin" if k in a else "btaudit vmcore"}')
            else:
                json_diff(a[k], b[k], f'{where}.{k}', out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f'{where}: {len(a)} entries in the plugin, {len(b)} in btaudit vmcore')
        for i, (x, y) in enumerate(zip(a, b)):
            json_diff(x, y, f'{where}[{i}]', out, limit)
    elif a != b:
        out.append(f'{where}: plugin {a!r}, btaudit vmcore {b!r}')
    return out


def session(args, name):
    return crash_session.session(args.crash, args.vmlinux, os.path.join(args.dumps, name), args.plugin,
                                 args.session_cache)


def check_dump(args, name, doc):
    dump = os.path.join(args.dumps, name)
    stem = os.path.splitext(name)[0]
    problems, notes = [], []
    if doc['no_panic']:
        # crash 8.0.2 gives up during start-up on some dumps (stack_overflow): as make-lab.sh does.
        notes.append('crash start-up failed; retried with --no_panic')
    console, out, extend = doc['console'], doc['out'], doc['out']['extend']
    if extend != f'{args.plugin}: shared object loaded\n':
        problems.append(f'extend printed {extend!r}')
    for line in console.splitlines():
        if 'btaudit' in line:
            problems.append(f'crash console mentions btaudit: {line.strip()}')
    standalone = {}
    for n, (sargs, kind) in COMMANDS.items():
        if out[n] is None or out[n] == '':
            problems.append(f'{n}: no output')
            continue
        if 'btaudit: ' in out[n] and kind not in ('usage', 'current'):
            problems.append(f'{n}: {out[n].strip().splitlines()[0]}')
            continue
        if sargs is None:
            continue
        key = tuple(sargs)
        if key not in standalone:
            # The vmlinux crash was given (crash_session: maybe a copy with a .gdb_index), which the
            # extension names in its output.
            r = subprocess.run([args.btaudit, 'vmcore', '--vmlinux', doc['vmlinux']] + sargs[:-1] + [dump, sargs[-1]], capture_output=True,
                               text=True)
            standalone[key] = r.stdout if r.returncode == 0 else None
            if r.returncode != 0:
                problems.append(f'btaudit vmcore {" ".join(sargs)}: {r.stderr.strip()}')
        ref = standalone[key]
        if ref is None:
            continue
        if kind == 'text' and out[n] != ref:
            problems.append(f'{n}: text differs from btaudit vmcore {" ".join(sargs)}')
        elif kind == 'tail' and not ref.endswith('\n' + out[n]):
            problems.append(f'{n}: text is not the reports part of btaudit vmcore analyze')
        elif kind == 'json':
            try:
                diffs = json_diff(json.loads(out[n]), json.loads(ref))
            except json.JSONDecodeError as e:
                diffs = [f'not JSON: {e}']
            problems += [f'{n}: {d}' for d in diffs]
    # bt -c 1 is the second CPU's part of bt -a; its JSON has that CPU alone.
    if out['bt_cpu1'] and out['bt']:
        cpu1 = out['bt'][out['bt'].find('\nCPU 1:'):]
        if '\nCPU 1:' not in out['bt'] or not out['bt_cpu1'].endswith(cpu1) or '\nCPU 0:' in out['bt_cpu1']:
            problems.append('bt -c 1: not the CPU 1 part of bt -a')
    if out['bt_cpu1_json']:
        try:
            cpus = json.loads(out['bt_cpu1_json'])['cpus']
            full = json.loads(out['bt_json'] or '{}').get('cpus', [])
            if [c['cpu'] for c in cpus] != [1] or cpus != [c for c in full if c['cpu'] == 1]:
                problems.append('bt -c 1 -j: not CPU 1 of bt -a -j alone')
        except (json.JSONDecodeError, KeyError) as e:
            problems.append(f'bt -c 1 -j: {e}')
    # After `mod -s` loaded the lab's labcrash.ko: the log as btaudit vmcore --modules has it, and
    # every labcrash frame of its reports and walks with a source line.
    modules = crash_session.lab_modules(dump)
    if modules and out.get('log_modules_json') is not None:
        r = subprocess.run([args.btaudit, 'vmcore', '--vmlinux', doc['vmlinux'], '--modules', modules, '--format',
                            'json', dump, 'analyze'], capture_output=True, text=True)
        try:
            got = json.loads(out['log_modules_json'])
            problems += [f'log -j after mod -s: {d}' for d in json_diff(got, json.loads(r.stdout))]
            frames = [f for part in ('reports', 'cpus') for entry in got.get(part, []) for f in entry['frames']
                      if f.get('module') == 'labcrash' and not f['function'].startswith(('__pfx_', '__cfi_'))]
            unlocated = [f['function'] for f in frames if not f.get('source')]
            if unlocated:
                problems.append(f'log -j after mod -s: labcrash frames without a source line: {unlocated[:3]}')
            elif frames:
                notes.append(f'{len(frames)} labcrash frames with file:line after mod -s')
        except (json.JSONDecodeError, KeyError) as e:
            problems.append(f'log -j after mod -s: {e}')
    elif modules:
        problems.append('log -j after mod -s: no output')
    cur = out['bt_current'] or ''
    if '\nCPU ' not in cur and 'switched out' not in cur:
        problems.append(f'bt (current context): {cur.strip()[:120]!r}')
    if not (out['help'] or '').startswith('\nNAME\n  btaudit - ') or 'SYNOPSIS' not in (out['help'] or ''):
        problems.append('help btaudit: not crash-style help')
    if 'Usage:' not in (out['usage'] or '') or "unknown subcommand 'nosuchcommand'" not in (out['usage'] or ''):
        problems.append(f'usage error: {(out["usage"] or "").strip()[:120]!r}')
    if stem in EXPECTED_TRANSITIONS and out['bt_json']:
        frm, to = EXPECTED_TRANSITIONS[stem]
        try:
            walks = json.loads(out['bt_json'])['cpus']
        except json.JSONDecodeError:
            walks = []
        try:  # the CPU whose report the log's cross-check matched: the one that panicked
            panicked = json.loads(out['log_json'] or '{}')['crosscheck'][0]['cpu']
        except (json.JSONDecodeError, KeyError, IndexError):
            panicked = None
        hits = [c['cpu'] for c in walks if goes(((t['from'], t['to']) for t in c['transitions']), frm, to)]
        if panicked not in hits or not goes(transitions_in_text(out['bt']), frm, to):
            problems.append(f'the walk of the panicking CPU ({panicked}) does not go {frm} -> {to}')
        else:
            notes.append(f'{frm} -> {to} on the panicking CPU {panicked}')
    return name, problems, notes


def main():
    p = argparse.ArgumentParser()
    p.add_argument('plugin')
    p.add_argument('btaudit')
    p.add_argument('vmlinux')
    p.add_argument('dumps')
    p.add_argument('--crash', default=shutil.which('crash') or '/usr/bin/crash')
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--only', nargs='*', default=[])
    p.add_argument('--session-cache', help='folder of crash sessions shared with words_check.py (crash_session.py)')
    args = p.parse_args()
    args.plugin = os.path.abspath(args.plugin)
    names = sorted(n for n in (os.listdir(args.dumps) if os.path.isdir(args.dumps) else [])
                   if n.endswith(('.elf', '.kdump-zlib')))
    if args.only:
        names = [n for n in names if os.path.splitext(n)[0] in args.only or n in args.only]
    for what, path in (('crash', args.crash), ('the extension', args.plugin), ('vmlinux', args.vmlinux)):
        if not path or not os.path.exists(path):
            print(f'{what} not found ({path}): skipped')
            return 77
    if not names:
        print('no lab dumps found: skipped (run ../shared/lab/make-lab.sh)')
        return 77
    first = session(args, names[0])
    why = crash_session.start_failure(first)
    if why:
        version = crash_session.crash_version(args.crash)
        print(f'{version} cannot open this kernel\'s dumps by itself ({why}): skipped')
        return 77
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        checks = pool.map(lambda n: check_dump(args, n, first if n == names[0] else session(args, n)), names)
        for name, problems, notes in checks:
            bad += len(problems)
            print(f'{name}: {"ok" if not problems else "FAILED"}' + (f' ({"; ".join(notes)})' if notes else ''))
            for pr in problems[:10]:
                print(f'    {pr}')
    print(f'{len(names)} dumps through crash with {os.path.basename(args.plugin)}: {bad} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
