// One test per text-only verdict rule (man/btaudit.1, RULES).
#include <boost/test/unit_test.hpp>
#include <string>

#include "analysis/analyze_report.h"
#include "model_printers.h"
#include "text/log_parser.h"

namespace {

using namespace btaudit;

Report analyze_one(const std::string& log) {
  auto reports = parse_log(log, "test.log");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  analyze_report(reports[0]);
  return reports[0];
}

const Frame& frame_named(const Report& r, const std::string& fn, std::size_t nth = 0) {
  for (const Frame& f : r.frames)
    if (f.function && *f.function == fn && nth-- == 0) return f;
  BOOST_FAIL("no frame " + fn);
  return r.frames.front();
}

// A modern (6.1, ORC) WARN in hard IRQ, trimmed from ../shared/lab/logs/warn_hardirq.console.log.
const std::string kModernIrqWarn =
    "------------[ cut here ]------------\n"
    "WARNING: CPU: 0 PID: 97 at /work/lab/labcrash.c:60 labcrash_hrtimer_fn+0x29/0x40 [labcrash]\n"
    "Modules linked in: labcrash(OE) loop\n"
    "CPU: 0 PID: 97 Comm: sh Tainted: G           OE      6.1.0-57-cloud-amd64 #1  Debian 6.1.192-3\n"
    "RIP: 0010:labcrash_hrtimer_fn+0x29/0x40 [labcrash]\n"
    "Call Trace:\n"
    " <IRQ>\n"
    " __hrtimer_run_queues+0x10d/0x250\n"
    " hrtimer_interrupt+0xf4/0x210\n"
    " __sysvec_apic_timer_interrupt+0x5d/0x110\n"
    " sysvec_apic_timer_interrupt+0x69/0x90\n"
    " </IRQ>\n"
    " <TASK>\n"
    " asm_sysvec_apic_timer_interrupt+0x16/0x20\n"
    " ? __ndelay+0x10/0x10\n"
    " labcrash_wait+0x17/0x40 [labcrash]\n"
    " vfs_write+0xc7/0x3f0\n"
    " ? vfs_write+0xc7/0x3f0\n"
    " ? __x64_sys_fcntl+0x0/0xc0\n"
    " ksys_write+0x6b/0xf0\n"
    " entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"
    " ? do_user_addr_fault+0x1b0/0x560\n"
    " </TASK>\n"
    "---[ end trace 0000000000000000 ]---\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(text_verdicts)

BOOST_AUTO_TEST_CASE(frames_without_question_mark_are_reliable) {
  const Report r = analyze_one(kModernIrqWarn);
  const Frame& f = frame_named(r, "hrtimer_interrupt");
  BOOST_TEST(f.verdict == Verdict::Reliable);
  BOOST_TEST(f.reason == Reason::Unwinder);
  BOOST_TEST(f.stack == StackKind::Irq);
}

BOOST_AUTO_TEST_CASE(question_mark_followed_by_reliable_frame_is_skipped_by_unwinder) {
  const Report r = analyze_one(kModernIrqWarn);
  const Frame& f = frame_named(r, "__ndelay");
  BOOST_TEST(f.printed_unreliable);
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::SkippedByUnwinder);
  BOOST_TEST(f.stack == StackKind::Task);
}

BOOST_AUTO_TEST_CASE(offset_zero_is_a_function_pointer) {
  const Report r = analyze_one(kModernIrqWarn);
  const Frame& f = frame_named(r, "__x64_sys_fcntl");
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::FunctionStart);
}

BOOST_AUTO_TEST_CASE(copy_of_the_frame_above_is_a_duplicate) {
  const Report r = analyze_one(kModernIrqWarn);
  const Frame& f = frame_named(r, "vfs_write", 1);
  BOOST_TEST(f.printed_unreliable);
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::DuplicateOfAbove);
}

// A stack overflow on a kernel with the frame-pointer unwinder (the 6.18 frame-pointer lab's
// stack_overflow.console.log, trimmed): unwind_frame.c started from the #DF regs, whose SP is in
// the guard page, never reached its first frame, and printed the whole trace with '?'.
const std::string kFramePointerOverflow =
    "BUG: TASK stack guard page was hit at 000000002a006442 (stack is 00000000c6cea0ab..0000000001fefe23)\n"
    "Oops: stack guard page: 0000 [#1] SMP NOPTI\n"
    "CPU: 0 UID: 0 PID: 53 Comm: sh Tainted: G           O        6.18.2-lab #1 PREEMPT(voluntary) \n"
    "RIP: 0010:labcrash_recurse+0x3b/0x80 [labcrash]\n"
    "RSP: 0018:ffffb04b0015ff80 EFLAGS: 00000217\n"
    "Call Trace:\n"
    " <TASK>\n"
    " ? labcrash_recurse+0x6b/0x80 [labcrash]\n"
    " ? labcrash_recurse+0x6b/0x80 [labcrash]\n"
    " ? labcrash_recurse+0x6b/0x80 [labcrash]\n"
    " ? labcrash_write+0x1fa/0x3a0 [labcrash]\n"
    " ? proc_reg_write+0x62/0xa0\n"
    " ? vfs_write+0xdb/0x3e0\n"
    " ? ksys_write+0x75/0xf0\n"
    " </TASK>\n"
    "Modules linked in: labcrash(O) qemu_fw_cfg\n"
    "---[ end trace 0000000000000000 ]---\n";

BOOST_AUTO_TEST_CASE(a_recursion_printed_all_with_question_marks_is_not_called_a_duplicate) {
  const Report r = analyze_one(kFramePointerOverflow);
  for (std::size_t nth = 0; nth < 3; ++nth) {
    const Frame& f = frame_named(r, "labcrash_recurse", nth);
    BOOST_TEST(f.printed_unreliable);
    BOOST_TEST(f.verdict == Verdict::Unknown);
    BOOST_TEST(f.reason == Reason::NoReliableFrames);
  }
}

BOOST_AUTO_TEST_CASE(question_mark_after_the_stack_bottom_is_after_chain_end) {
  const Report r = analyze_one(kModernIrqWarn);
  const Frame& f = frame_named(r, "do_user_addr_fault");
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::AfterChainEnd);
}

BOOST_AUTO_TEST_CASE(die_path_before_the_first_reliable_frame_is_the_reporting_path) {
  const Report r = analyze_one(
      "BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
      "Oops: 0002 [#1] PREEMPT SMP NOPTI\n"
      "CPU: 1 PID: 97 Comm: sh Tainted: G           OE      6.1.0-57-cloud-amd64 #1\n"
      "RIP: 0010:labcrash_write+0x1a1/0x2c0 [labcrash]\n"
      "Call Trace:\n"
      " <TASK>\n"
      " ? __die_body.cold+0x1a/0x1f\n"
      " ? page_fault_oops+0xd2/0x2b0\n"
      " ? exc_page_fault+0x70/0x170\n"
      " ? asm_exc_page_fault+0x22/0x30\n"
      " proc_reg_write+0x56/0xa0\n"
      " vfs_write+0xc7/0x3f0\n"
      " </TASK>\n");
  BOOST_TEST(frame_named(r, "__die_body.cold").verdict == Verdict::Plausible);
  BOOST_TEST(frame_named(r, "__die_body.cold").reason == Reason::ReportingPath);
  BOOST_TEST(frame_named(r, "asm_exc_page_fault").reason == Reason::ReportingPath);
  BOOST_TEST(frame_named(r, "proc_reg_write").verdict == Verdict::Reliable);
}

BOOST_AUTO_TEST_CASE(question_marks_after_the_unwinder_stopped_are_plausible) {
  const Report r = analyze_one(
      "WARNING: CPU: 0 PID: 1 at mm/foo.c:1 foo+0x1/0x10\n"
      "Call Trace:\n"
      " foo+0x1/0x10\n"
      " bar+0x22/0x40\n"
      " ? baz+0x33/0x80\n"
      " ? qux+0x44/0x90\n");
  BOOST_TEST(frame_named(r, "baz").verdict == Verdict::Plausible);
  BOOST_TEST(frame_named(r, "baz").reason == Reason::AfterUnwinderStopped);
}

BOOST_AUTO_TEST_CASE(a_trace_with_no_reliable_frame_is_unknown) {
  // 2.6-era kernels without frame pointers print every entry with '?'.
  const Report r = analyze_one(
      "BUG: unable to handle kernel paging request at 0000000000001234\n"
      "Oops: 0000 [#1] SMP\n"
      "Call Trace:\n"
      " [<ffffffff8134d2f3>] ? foo+0x63/0x90\n"
      " [<ffffffff8134d400>] ? bar+0x10/0x30\n");
  BOOST_TEST(frame_named(r, "foo").verdict == Verdict::Unknown);
  BOOST_TEST(frame_named(r, "foo").reason == Reason::NoReliableFrames);
  BOOST_TEST(*frame_named(r, "foo").address == 0xffffffff8134d2f3ULL);
}

BOOST_AUTO_TEST_CASE(entry_code_in_frame_pointer_era_is_plausible) {
  const Report r = analyze_one(
      "WARNING: at kernel/foo.c:10 foo+0x10/0x20()\n"
      "Call Trace:\n"
      " <IRQ>  [<ffffffff81050000>] warn_slowpath_common+0x87/0xc0\n"
      " [<ffffffff81050100>] foo+0x10/0x20\n"
      " <EOI>  [<ffffffff81003000>] ? apic_timer_interrupt+0x13/0x20\n"
      " [<ffffffff81060000>] bar+0x30/0x60\n"
      " [<ffffffff81070000>] kthread+0x96/0xa0\n");
  const Frame& f = frame_named(r, "apic_timer_interrupt");
  BOOST_TEST(f.verdict == Verdict::Plausible);
  BOOST_TEST(f.reason == Reason::EntryCode);
  BOOST_TEST(f.stack == StackKind::Task);
  BOOST_TEST(frame_named(r, "foo").stack == StackKind::Irq);
}

BOOST_AUTO_TEST_CASE(arm64_frames_come_from_an_exact_unwinder) {
  const Report r = analyze_one(
      "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000\n"
      "Internal error: Oops: 96000005 [#1] PREEMPT SMP\n"
      "pc : foo+0x10/0x20\n"
      "lr : bar+0x20/0x30\n"
      "x29: ffff800008003d80 x28: ffff000002b38000 x27: 0000000000000000\n"
      "Call trace:\n"
      " foo+0x10/0x20\n"
      " bar+0x20/0x30\n");
  BOOST_TEST(frame_named(r, "foo").reason == Reason::ExactUnwinder);
  BOOST_TEST(frame_named(r, "foo").stack == StackKind::Unknown);
}

BOOST_AUTO_TEST_SUITE_END()
