#!/usr/bin/env python3
"""Every word of every stack in use (btaudit vmcore DUMP words) against the walk and against crash's bt -T.

  words_check.py BTAUDIT VMLINUX VMCORE_DIR [--crash CRASH] [--jobs N] [--only NAME...]
                 [--plugin PLUGIN --session-cache DIR]

For every lab dump:
  1. `btaudit vmcore --format json DUMP words`: each CPU's words carry slot, value, function,
     frame and verdict; every frame of the walk (the bt view) appears in the words at its slot,
     with its address; every word that belongs to a frame has a verdict.
  2. crash 8.0.2's `bt -T -a` (every text address from the last known stack location to the top
     of each active task's stack) is the independent oracle for "a text address": every slot
     crash lists that btaudit's words cover holds the same value, belongs to a frame (so it has
     a verdict), and the frame's function is the symbol crash names (crash looks the address up
     as it is, btaudit as the kernel's %pB does: the two differ only for a return address at a
     function's first byte -- after a call to a noreturn function, or a __pfx_ padding symbol's
     end -- which btaudit prints as the previous symbol's +size/size, counted apart; and for a
     GCC clone "f.isra.N", which crash's symbol table names "f", also counted apart).
Slots only one of the two reaches are counted, not compared: crash starts each task stack at
its own idea of the last stack location and knows no IRQ or exception stack of these dumps;
btaudit starts at SP and follows backlinks. Exit 77 when crash, vmlinux or the dumps are absent.
"""
import argparse, concurrent.futures, json, os, re, shutil, subprocess, sys

import crash_session

LINE = re.compile(r'^\s*\[([0-9a-f]+)\] (\S+) at ([0-9a-f]+)(?: \[(\S+)\])?\s*$')
HEADER = re.compile(r'^PID:\s+\d+\s+TASK:\s+[0-9a-f]+\s+CPU:\s+(\d+)')
# GCC's interprocedural-SRA clone suffix, which crash drops from its symbol table's names (observed
# on Debian's 6.1: `sym finish_task_switch.isra.0` is "not found", the address is named
# "finish_task_switch+144"), while kallsyms and the ELF symbol table keep it.
ISRA = re.compile(r'\.isra\.\d+$')


def crash_bt_t(args, dump):
    """{cpu: [(slot, symbol, address, module)]} from crash's bt -T -a (crash_session.py: one crash run
    per dump, shared with crash_plugin_check.py when both are given the same --session-cache and
    --plugin; the extension is loaded after bt -T and cannot change it)."""
    text = crash_session.session(args.crash, args.vmlinux, dump, args.plugin, args.session_cache)['out']['bt_T'] or ''
    cpus, cur = {}, None
    for line in text.splitlines():
        h = HEADER.match(line)
        if h:
            cur = cpus.setdefault(int(h.group(1)), [])
            continue
        m = LINE.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), int(m.group(3), 16), m.group(4)))
    return cpus


def check(args, name):
    dump = os.path.join(args.dumps, name)
    problems, stats = [], dict(frames=0, words=0, crash=0, compared=0, first_byte=0, isra=0, crash_only=0)
    r = subprocess.run([args.btaudit, 'vmcore', '--format', 'json', '--vmlinux', args.vmlinux, dump, 'words'],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return name, [f'btaudit failed: {r.stderr.strip()}'], stats
    doc = json.loads(r.stdout)
    ours = {}
    for cpu in doc['cpus']:
        words = cpu.get('words', [])
        by_slot = {w['slot']: w for w in words}
        ours[cpu['cpu']] = by_slot
        stats['words'] += len(words)
        for key in ('slot', 'value', 'function', 'frame', 'verdict'):
            if words and any(key not in w for w in words):
                problems.append(f'CPU {cpu["cpu"]}: a word without "{key}"')
        for i, f in enumerate(cpu['frames']):
            stats['frames'] += 1
            w = by_slot.get(f.get('slot'))
            if w is None or w['frame'] != i or w['value'] != f['address'] or w['function'] != f['function']:
                problems.append(f'CPU {cpu["cpu"]}: frame {i} ({f["function"]}) not in the words at its slot')
        for w in words:
            if w['frame'] is not None and w['verdict'] is None:
                problems.append(f'CPU {cpu["cpu"]}: word at {w["slot"]:x} belongs to a frame but has no verdict')
    if args.crash and not args.crash_cannot_open:
        for cpu, lines in crash_bt_t(args, dump).items():
            by_slot = ours.get(cpu, {})
            for slot, symbol, address, module in lines:
                stats['crash'] += 1
                w = by_slot.get(slot)
                if w is None:
                    stats['crash_only'] += 1
                    continue
                stats['compared'] += 1
                if w['value'] != address:
                    problems.append(f'CPU {cpu}: {slot:x} holds {w["value"]:x} for btaudit, {address:x} for crash')
                elif w['function'] is None or w['verdict'] is None:
                    problems.append(f'CPU {cpu}: text address {address:x} at {slot:x} ({symbol}) has no verdict')
                elif w['function'] != symbol:
                    if ISRA.sub('', w['function']) == symbol:
                        stats['isra'] += 1  # crash 8.0.2 stores "f.isra.0" as "f" (sym f.isra.0: not found)
                    elif w['offset'] == w['size']:
                        stats['first_byte'] += 1  # %pB names the byte before a function's first byte
                    else:
                        problems.append(f'CPU {cpu}: {slot:x}: btaudit {w["function"]}, crash {symbol}')
    return name, problems, stats


def main():
    p = argparse.ArgumentParser()
    p.add_argument('btaudit')
    p.add_argument('vmlinux')
    p.add_argument('dumps')
    p.add_argument('--crash', default=shutil.which('crash'))
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--only', nargs='*', default=[])
    p.add_argument('--plugin', help='the crash extension crash_plugin_check.py loads, to share its sessions')
    p.add_argument('--session-cache', help='folder of crash sessions (crash_session.py)')
    args = p.parse_args()
    names = sorted(n for n in (os.listdir(args.dumps) if os.path.isdir(args.dumps) else [])
                   if n.endswith(('.elf', '.kdump-zlib')))
    if args.only:
        names = [n for n in names if os.path.splitext(n)[0] in args.only or n in args.only]
    if not names or not os.path.exists(args.vmlinux):
        print('words_check: no lab dumps or no vmlinux: skipped')
        return 77
    if not args.crash or not os.path.exists(args.crash):
        print('words_check: crash not found: skipped')
        return 77
    # crash 8.0.2 cannot start on 6.4+ kernels (crash_session.start_failure): then the words are
    # checked against the walk alone, and crash is not started once more per dump to fail again.
    args.crash_cannot_open = crash_session.start_failure(
        crash_session.session(args.crash, args.vmlinux, os.path.join(args.dumps, names[0]), args.plugin,
                              args.session_cache))
    if args.crash_cannot_open:
        print(f'words_check: {crash_session.crash_version(args.crash)} cannot open this kernel\'s dumps '
              f'({args.crash_cannot_open}): the words are checked against the walk alone')
    total, bad = {}, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, problems, stats in pool.map(lambda n: check(args, n), names):
            for k, v in stats.items():
                total[k] = total.get(k, 0) + v
            bad += len(problems)
            print(f'{name}: {"ok" if not problems else "FAILED"} ({stats["words"]} words, {stats["frames"]} frames; '
                  f'{stats["compared"]}/{stats["crash"]} of crash\'s bt -T lines compared)')
            for pr in problems[:8]:
                print(f'    {pr}')
    print(f'{len(names)} dumps: {total.get("words", 0)} words, every one of {total.get("frames", 0)} frames at its '
          f'slot; crash bt -T: {total.get("compared", 0)} of {total.get("crash", 0)} text words compared, same value '
          f'and symbol ({total.get("first_byte", 0)} named by %pB\'s byte before a function start, '
          f'{total.get("isra", 0)} by crash without an .isra.N suffix), '
          f'{total.get("crash_only", 0)} below where btaudit starts; {bad} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
