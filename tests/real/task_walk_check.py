#!/usr/bin/env python3
"""Switched-out tasks walked from their inactive_task_frame (btaudit vmcore bt --pid/--tasks).

  task_walk_check.py BTAUDIT VMCORE_DIR [LOGS_DIR] [--vmlinux V]

1. The kernel's own walk of a sleeping task is the oracle: every "INFO: task COMM:PID blocked"
   report in a console log (the hung-task detector runs sched_show_task on the task) is compared
   with btaudit's walk of that PID in the dump written right after, frame by frame: function,
   offset, '?' mark, order. The task stays blocked until the dump, so its stack is unchanged.
2. Every task of every dump is walked (--tasks): no failure, and each reliable chain ends at
   the bottom of a kernel stack (ret_from_fork, the syscall entry, or an idle task's start). On
   a kernel built with the guess unwinder nothing is reliable: every word is a scanned one
   (reason guess_unwinder, or the machine-code check's), and the scan reaches such a bottom.
Exit 0 pass, 1 fail, 77 when the dumps or vmlinux are absent. (crash 8.0.2 is no oracle here:
it cannot read the PID hash of these 6.1 dumps and lists only the running tasks.)
"""
import argparse, json, os, re, subprocess, sys

# The functions a kernel stack ends in (the outermost frame an unwinder reports), by era:
# ret_from_fork (every era; the C part since 6.7), ret_from_fork_asm (6.7+, "x86/entry:
# Convert ret_from_fork to C"), entry_SYSCALL_64_after_hwframe (4.15+ user tasks in a
# syscall), the boot CPU's and secondaries' startup paths (secondary_startup_64_no_verify
# 5.10-6.8, common_startup_64 6.9+, start_secondary on the idle tasks of CPUs > 0).
BOTTOMS = ('ret_from_fork', 'ret_from_fork_asm', 'entry_SYSCALL_64_after_hwframe', 'start_secondary',
           'x86_64_start_reservations', 'x86_64_start_kernel', 'secondary_startup_64_no_verify',
           'secondary_startup_64', 'common_startup_64', 'rest_init', 'start_kernel', 'arch_call_rest_init',
           'cpu_startup_entry')
NEXT_REPORT = re.compile(r'NMI backtrace for cpu|Sending NMI from CPU|Kernel panic - not syncing|---\[ end |'
                         r'INFO: task .+ blocked for more than')
TRACE = re.compile(r'^\[\s*[\d.]+\]\s+(\? )?([\w.]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+')


def blocked_reports(log):
    """[(pid, [(unreliable, function, offset)])] for each hung-task report of a console log."""
    out, cur = [], None
    for line in open(log, errors='replace'):
        m = re.search(r'INFO: task (.+):(\d+) blocked for more than', line)
        if m:
            cur = (int(m.group(2)), [])
            out.append(cur)
            continue
        if cur is None:
            continue
        # The trace ends at </TASK> (5.16+), or, before the kernel printed that marker (5.10), at
        # the next report's first line.
        if '</TASK>' in line or NEXT_REPORT.search(line):
            cur = None
            continue
        t = TRACE.match(line)
        if t:
            cur[1].append((bool(t.group(1)), t.group(2), int(t.group(3), 16)))
    return out


def walk(btaudit, dump, vmlinux, extra):
    r = subprocess.run([btaudit, 'vmcore', dump, 'bt', '--format', 'json', '--vmlinux', vmlinux, *extra],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f'{os.path.basename(dump)}: exit {r.returncode}: {r.stderr.strip()}')
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    ap.add_argument('vmcores')
    ap.add_argument('logs', nargs='?')
    ap.add_argument('--vmlinux', default='/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64')
    args = ap.parse_args()
    if not os.path.isdir(args.vmcores) or not os.path.exists(args.vmlinux):
        print('task_walk_check: dumps or vmlinux absent, skipped')
        return 77
    dumps = sorted(os.path.join(args.vmcores, f) for f in os.listdir(args.vmcores)
                   if f.endswith('.elf') or f.endswith('.kdump-zlib'))
    if not dumps:
        print('task_walk_check: no dumps, skipped')
        return 77
    logs = args.logs or os.path.join(os.path.dirname(os.path.abspath(args.vmcores)), 'logs')
    failures, compared, frames = [], 0, 0
    for dump in dumps:
        name = os.path.basename(dump).split('.')[0]
        log = os.path.join(logs, name + '.console.log')
        if not os.path.exists(log):
            continue
        for pid, printed in blocked_reports(log):
            doc = walk(args.btaudit, dump, args.vmlinux, ['--pid', str(pid)])
            tasks = [t for t in doc['tasks'] if t['task']['pid'] == pid]
            if not tasks:
                failures.append(f'{os.path.basename(dump)}: PID {pid} was not walked as a switched-out task')
                continue
            got = [(f['printed_unreliable'], f['function'], f['offset']) for f in tasks[0]['frames']]
            compared += 1
            frames += len(printed)
            if got != printed:
                failures.append(f'{os.path.basename(dump)}: PID {pid}: walk {got} != printed {printed}')
    walked = bottomed = 0
    for dump in dumps:
        doc = walk(args.btaudit, dump, args.vmlinux, ['--tasks'])
        guess = doc.get('dump', {}).get('unwinder') == 'guess'
        for t in doc['tasks']:
            walked += 1
            reliable = [f['function'] for f in t['frames'] if not f['printed_unreliable']]
            if guess:
                # unwind_guess.c vouches for no word: the chain is the scan's, bottom included.
                # (The machine-code check may make a word plausible or stale: its trust stays "scan".)
                scanned = [f['function'] for f in t['frames'] if f.get('trust') == 'scan']
                ok = not t['problems'] and not reliable and len(scanned) == len(t['frames']) and \
                    any(f in BOTTOMS for f in scanned)
                if not ok:
                    failures.append(f'{os.path.basename(dump)}: PID {t["task"]["pid"]} ({t["task"]["comm"]}): '
                                    f'guess kernel, reliable {reliable[-3:]}, scanned {scanned[-3:]}, '
                                    f'problems {t["problems"]}')
                else:
                    bottomed += 1
            elif t['problems'] or not reliable or reliable[-1] not in BOTTOMS:
                failures.append(f'{os.path.basename(dump)}: PID {t["task"]["pid"]} ({t["task"]["comm"]}): chain '
                                f'{reliable[-3:]} problems {t["problems"]}')
            else:
                bottomed += 1
    # The comparisons with printed traces first: they are few and say the most.
    for f in sorted(failures, key=lambda f: ' walk ' not in f)[:20]:
        print('FAIL: ' + f)
    differing = sum(' walk ' in f for f in failures)
    print(f'hung-task traces printed by the kernel and walked from the dump: {compared - differing}/{compared} identical ({frames} frames); switched-out tasks walked to a stack bottom: {bottomed}/{walked} '
          f'in {len(dumps)} dumps')
    if not os.path.isdir(logs):
        print(f'(no console logs at {logs}: the comparison with the kernel-printed traces was not made)')
    return 0 if not failures and walked > 0 and (compared > 0 or not os.path.isdir(logs)) else 1


if __name__ == '__main__':
    sys.exit(main())
