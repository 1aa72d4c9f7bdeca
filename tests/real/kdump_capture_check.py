#!/usr/bin/env python3
"""Dumps kdump wrote itself (scripts/lab-kdump-cache.sh) walk from the registers the kernel saved.

  kdump_capture_check.py BTAUDIT VMCORE_DIR [--vmlinux PATH]

Every CPU's registers come from the kernel's crash_notes. A panic's capture starts in
__crash_kexec, which objtool skips (STACK_FRAME_NON_STANDARD): its RIP line names it, the first
reliable frame is panic() (vpanic() where panic() wraps it), read from __crash_kexec's machine code (trust machine_code;
on a kernel built with frame pointers instead of ORC, from its frame pointer: trust frame_pointer), and no
CPU's walk ends on "undefined ORC entry". An oops' capture (oops_end() calls crash_kexec() with
the oops' registers) starts at the faulting instruction, the crash site of the report that ended
the CPU: a report of the die path, neither a panic nor a warning (a WARN reaches kdump through
panic_on_warn's panic()). Which one a scenario makes depends on the kernel: sysrq-c writes
through a NULL pointer on the 4.19 lab's kernel (an oops) and calls panic() on the others'
(drivers/tty/sysrq.c, sysrq_handle_crash, as their stable releases have it). The cross-check against the printed
traces is crosscheck_check.py's. The other CPUs, stopped by kdump's NMI (crash_nmi_callback()
saved what the NMI interrupted), start on their NMI stack: crash_nmi_callback's frame (trust
nmi_stop_handler), reliable frames up to the NMI's pt_regs, whose RIP is the crash site, and the
way back to the interrupted stack. A kernel built with the guess unwinder (the dump's unwinder
"guess") vouches for no word: there no frame may be called reliable, a stopped CPU's walk starts
at the registers the NMI interrupted (nothing leads from crash_nmi_callback's frame to them), and
the panicking CPU's scan holds panic() or vpanic() as a plausible caller. Exit 77 when there is
no dump.
"""
import json, os, subprocess, sys

from lab_args import split_vmcore_options

(btaudit, dumps), vmcore_opts = split_vmcore_options(sys.argv)
names = sorted(n for n in (os.listdir(dumps) if os.path.isdir(dumps) else [])
               if n.startswith('kdump_') and n.endswith(('.elf', '.kdump-zlib')))
if not names:
    print('no kdump lab dumps found: skipped (scripts/lab-kdump-cache.sh)')
    sys.exit(77)
bad = 0


def fail(name, what):
    global bad
    bad += 1
    print(f'{name}: {what}')


for name in names:
    path = os.path.join(dumps, name)
    r = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(name, f'failed: {r.stderr.strip()}')
        continue
    doc = json.loads(r.stdout)
    cpus = doc.get('cpus', [])
    if len(cpus) < 2:
        fail(name, f'{len(cpus)} CPUs walked, 2 expected')
    for c in cpus:
        if 'crash_notes' not in c.get('registers_from', ''):
            fail(name, f"CPU {c['cpu']}: registers from {c.get('registers_from')!r}, not the kernel's crash_notes")
        for p in c.get('problems', []):
            if 'undefined ORC entry' in p:
                fail(name, f"CPU {c['cpu']}: {p}")
        for f in c.get('frames', []):
            if f.get('trust') == 'machine_code' and f.get('verdict') != 'reliable':
                fail(name, f"CPU {c['cpu']}: a machine_code frame judged {f.get('verdict')}")
    guess = doc.get('dump', {}).get('unwinder') == 'guess'
    if guess:
        for c in cpus:
            claimed = [f.get('function') for f in c.get('frames', []) if f.get('verdict') == 'reliable']
            if claimed:
                fail(name, f"CPU {c['cpu']}: the guess unwinder vouches for no word, and {claimed[:3]} were called reliable")
    for c in cpus:
        if 'NMI interrupted' not in c.get('registers_from', ''):
            continue
        if guess:
            started = any('walk starts at the registers the NMI interrupted' in p for p in c.get('problems', []))
            site = (c.get('crash_site') or {}).get('function')
            if not started or not site:
                fail(name, f"CPU {c['cpu']} (stopped by the NMI, guess unwinder): the walk should start at the "
                           f"interrupted registers and say so; crash site {site!r}, {c.get('problems')}")
            else:
                print(f"{name}: CPU {c['cpu']} stopped by the NMI, walked from the interrupted {site}")
            continue
        frames = c.get('frames', [])
        first = frames[0] if frames else {}
        nmi = [f for f in frames if f.get('stack') == 'nmi' and f.get('verdict') == 'reliable']
        if (first.get('function') != 'crash_nmi_callback' or first.get('trust') != 'nmi_stop_handler'
                or first.get('stack') != 'nmi' or len(nmi) < 3):
            fail(name, f"CPU {c['cpu']} (stopped by the NMI): starts at {first.get('function')!r} "
                       f"(trust {first.get('trust')!r}, stack {first.get('stack')!r}), {len(nmi)} reliable NMI "
                       f"frames: crash_nmi_callback by nmi_stop_handler, then the NMI path expected; {c.get('problems')}")
        elif not any(t.get('from') == 'NMI' for t in c.get('transitions', [])):
            fail(name, f"CPU {c['cpu']} (stopped by the NMI): no way from the NMI stack to the interrupted one")
        else:
            print(f"{name}: CPU {c['cpu']} stopped by the NMI: "
                  f"{' <- '.join(f.get('function') or '?' for f in nmi)} -> {(c.get('crash_site') or {}).get('function')}")
    checks = doc.get('crosscheck', [])
    if not checks:
        fail(name, 'no report ended a CPU (the crashing CPU was not found)')
        continue
    crashing = next((c for c in cpus if c['cpu'] == checks[0]['cpu']), None)
    if crashing is None:
        fail(name, f"no walk of CPU {checks[0]['cpu']}")
        continue
    site = (crashing.get('crash_site') or {}).get('function') or ''
    reliable = [f for f in crashing.get('frames', []) if f.get('verdict') == 'reliable']
    reports = doc.get('reports', [])
    ended = reports[checks[0]['report']] if 0 <= checks[0].get('report', -1) < len(reports) else {}
    faulted = ((ended.get('crash_site') or {}).get('function') or '')
    oops = ended.get('kind') not in (None, 'panic', 'warning') and not ended.get('warn_site') and faulted
    if name.startswith('kdump_oops') and not oops:
        fail(name, f"the labcrash oops scenario ended in a {ended.get('kind')!r} report, not an oops")
    if oops:
        ok = site == faulted
        if not ok:
            fail(name, f'the oops capture starts at {site!r}, not the faulting {faulted!r} of the report')
    elif guess:
        callers = [f.get('function') for f in crashing.get('frames', [])[:6] if f.get('verdict') == 'plausible']
        ok = site == '__crash_kexec' and bool({'panic', 'vpanic'} & set(callers))
        if not ok:
            fail(name, f"starts at {site!r}, plausible callers {callers}: __crash_kexec, then panic or vpanic expected")
    else:
        first = reliable[0] if reliable else {}
        # panic() itself, or vpanic() where panic() calls it (kernel/panic.c; 6.18, not 6.14).
        # ORC has no entry for __crash_kexec (objtool skips it): its frame is read from its code. A
        # frame-pointer kernel's __crash_kexec set up its frame as every function there does.
        trust = 'frame_pointer' if doc.get('dump', {}).get('unwinder') == 'frame_pointer' else 'machine_code'
        ok = (site == '__crash_kexec' and first.get('function') in ('panic', 'vpanic')
              and first.get('trust') == trust)
        if not ok:
            fail(name, f"starts at {site!r}, first reliable frame {first.get('function')!r} "
                       f"(trust {first.get('trust')!r}): __crash_kexec, then panic or vpanic by {trust} expected")
    print(f"{name}: CPU {crashing['cpu']} from {site} ({'an oops' if oops else 'a panic'}), "
          f"{len(reliable)} reliable frames{'' if ok else ' DIFFERS'}")
print(f'{len(names)} kdump dumps; {bad} problems')
sys.exit(1 if bad else 0)
