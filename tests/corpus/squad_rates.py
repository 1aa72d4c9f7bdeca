#!/usr/bin/env python3
"""Kernel errors in LKFT's LAVA consoles against Linaro/squad's expectations.

squad's linux_log_parser plugin files each kernel error of a test run's console (its boot part
and its test part, split at " login:") as a failed test named after the error's line:
check-kernel-oops-..., -panic-, -bug-, -warning-, -fault-, -invalid-opcode-, -exception- (a
"cut here" .. "end trace" stretch), -kasan-, -kfence-. test/plugins/test_linux_log_parser.py
asserts, per log, which tests exist and which lines their logs hold (assertIn). Those
assertions are transcribed below, one row each: the log, words of the error's line as the
kernel printed them, and the test method that asserts it. (squad keeps no expectation file;
the shared corpora left them untranscribed.)

Measures, over every row whose log is present:
  found   the words lie in the lines of a btaudit report (its input first_line..last_line);
  others  btaudit's reports whose lines hold none of the words squad's parser files an error
          for (SQUAD_WORDS; listed with -v): kinds it does not look for (x86's "general
          protection fault", arm's "Alignment trap:", lockdep's "INFO:"), or false reports.
  squad_rates.py BTAUDIT [--corpora DIR] [-v]
Exits 0 when every row is found; 77 when no squad log is present.
"""
import os, subprocess, sys

from rates_common import arguments, report_spans

LOGS = 'squad/test/plugins/linux_log_parser'

# (log, words of the error's line, the test that asserts it)
EXPECTED = [
    ('oops.log', 'Internal error: Oops - BUG: 0 [#1] PREEMPT SMP', 'test_detects_oops'),
    ('oops.log', 'Internal error: Oops - BUG: 0 [#0] PREEMPT SMP', 'test_boot_log'),
    ('oops.log', 'BUG: spinlock lockup suspected on CPU#3, gdbus', 'test_detects_kernel_bug'),
    ('kernelpanic.log', 'Kernel panic - not syncing: Attempted to kill the idle task!', 'test_detects_kernel_panic'),
    ('kernelexceptiontrace.log', 'WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 smp_call_function_many_cond+0x3c4/0x3c8',
     'test_detects_kernel_exception'),
    ('kernelexceptiontrace.log', '5fe0: 0000000b be963e80 b6f142d9 b6f0e648 60000030 ffffffff',
     'test_detects_kernel_exception'),
    ('kernelexceptiontrace_without_squarebraces.log',
     'WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 smp_call_function_many_cond+0x3c4/0x3c8',
     'test_detects_kernel_exception_without_square_braces'),
    ('kernelexceptiontrace_without_squarebraces.log', '5fe0: 0000000b be963e80 b6f142d9 b6f0e648 60000030 ffffffff',
     'test_detects_kernel_exception_without_square_braces'),
    ('kasan.log', 'BUG: KASAN: slab-out-of-bounds in kmalloc_oob_right+0x190/0x3b8', 'test_detects_kernel_kasan'),
    ('kasan.log', 'Write of size 1 at addr c6aaf473 by task kunit_try_catch/191', 'test_detects_kernel_kasan'),
    ('kfence.log', 'BUG: KFENCE: memory corruption in kfree+0x8c/0x174', 'test_detects_kernel_kfence'),
    ('kfence.log', 'Corrupted memory at 0x00000000c5d55ff8 [ ! ! ! . . . . . . . . . . . . . ] (in kfence-#214):',
     'test_detects_kernel_kfence'),
    ('kernel_bug_and_invalid_opcode.log', '] kernel BUG at /usr/src/kernel/arch/x86/kvm/mmu/mmu.c',
     'test_detects_kernel_bug'),
    ('kernel_bug_and_invalid_opcode.log', '] invalid opcode: 0000 [#1] SMP PTI', 'test_detects_kernel_invalid_opcode'),
    ('multiple_issues_dmesg.log', 'Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: ',
     'test_detects_multiple'),
    ('multiple_issues_dmesg.log', 'at ../drivers/gpu/drm/radeon/radeon_object.c:84 radeon_ttm_bo_destroy',
     'test_detects_multiple'),
    ('multiple_issues_dmesg.log', 'at drivers/regulator/core.c:2042 _regulator_put.part', 'test_detects_multiple'),
    ('multiple_issues_dmesg.log', 'Oops: 0003 [#5] PREEMPT SMP', 'test_detects_multiple'),
    ('multiple_issues_dmesg.log', 'Unhandled fault: external abort on non-linefetch', 'test_detects_multiple'),
    ('rcu_warning.log', 'WARNING: suspicious RCU usage', 'test_rcu_warning'),
]


# The words whose line squad's parser files as an error (squad/plugins/linux_log_parser.py, its
# MULTILINERS and ONELINERS: the exception, KASAN and KFENCE stretches, then one line each).
SQUAD_WORDS = ['cut here', 'BUG: KASAN:', 'BUG: KFENCE:', 'Oops -', 'Oops:', 'Unhandled fault', 'WARNING:',
               ' kernel BUG at', 'BUG:', 'invalid opcode:', 'Kernel panic - not syncing']


def main():
    a = arguments()
    root = os.path.join(os.path.abspath(a.corpora), LOGS)
    logs = sorted({row[0] for row in EXPECTED if os.path.exists(os.path.join(root, row[0]))})
    if not logs:
        print(f'no squad logs under {a.corpora}: skipped')
        sys.exit(77)
    want = found = others_total = reports_total = 0
    for name in logs:
        path = os.path.join(root, name)
        try:
            reports, spans = report_spans(a.btaudit, path)
        except subprocess.CalledProcessError as e:
            print(f'failed   {name}: exit {e.returncode}: {e.stderr.decode(errors="replace").strip()}')
            want += sum(1 for row in EXPECTED if row[0] == name)
            continue
        for w, test in [(w, t) for log, w, t in EXPECTED if log == name]:
            want += 1
            if any(w in s for s in spans):
                found += 1
            else:
                print(f'missed   {name}: {w} ({test})')
        others = [rep for s, rep in zip(spans, reports) if not any(w in s for w in SQUAD_WORDS)]
        others_total += len(others)
        reports_total += len(reports)
        if a.verbose:
            for rep in others:
                print(f'other    {name}:{rep["input"]["first_line"]}: {rep["title"]}')
    print(f'squad: kernel errors found {found}/{want} in {len(logs)} logs; '
          f'{others_total} of {reports_total} reports hold none of the words it files')
    sys.exit(0 if found == want else 1)


if __name__ == '__main__':
    main()
