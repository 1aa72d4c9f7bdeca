// The dump side above the walker, on walks the tests build by hand: names from
// a symbol provider (the %pB rule), the words of each stack, the view a
// command shows, the cross-check by printing convention, the call-site check on code bytes and its
// verdict policy, the reasons' table, and the dump renderer's text, JSON,
// words and SVG. No dump file and no debuginfo: model in, model or bytes out.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <vector>

#include "analysis/call_site_check.h"
#include "analysis/call_site_verdict.h"
#include "analysis/crosscheck.h"
#include "analysis/stack_words.h"
#include "analysis/view_selection.h"
#include "analysis/walk_verdicts.h"
#include "dump_render/dump_render.h"
#include "dump_render/dump_svg.h"
#include "planted_memory.h"

namespace {

using namespace btaudit;
using nlohmann::json;

constexpr std::uint64_t kText = 0xffffffff81000000;
constexpr std::uint64_t kTask = 0xffffc90000010000;
constexpr std::uint64_t kIrq = 0xffffc90000100000;
constexpr std::uint64_t kSize = 16384;

StackFrame frame(std::uint64_t pc, std::uint64_t slot, Trust trust, Reason reason, StackKind stack = StackKind::Task) {
  StackFrame f;
  f.pc = pc;
  f.slot = slot;
  f.trust = trust;
  f.reason = reason;
  f.stack = stack;
  f.verdict = trust == Trust::Scan ? Verdict::Stale : Verdict::Reliable;
  return f;
}

StackFrame named(StackFrame f, const std::string& fn, std::uint64_t off, std::uint64_t size) {
  f.function = fn;
  f.offset = off;
  f.size = size;
  return f;
}

// CPU 0 interrupted on its IRQ stack: registers, two IRQ frames, the backlink, a task frame.
StackWalk irq_walk() {
  StackWalk w;
  w.state.cpu = 0;
  w.state.pid = 1;
  w.state.comm = "sh";
  w.state.sp = kIrq + kSize - 64;
  w.state.sp_stack = "irq";
  w.state.stacks = {{StackKind::Task, "", kTask, kTask + kSize}, {StackKind::Irq, "", kIrq, kIrq + kSize}};
  w.segments = {{w.state.stacks[1], SegmentEntry::Start, kIrq + kSize - 64},
                {w.state.stacks[0], SegmentEntry::Backlink, kTask + kSize - 256}};
  StackFrame rip;
  rip.pc = kText + 0x105;
  rip.from_regs = true;
  rip.trust = Trust::Registers;
  rip.reason = Reason::CpuRegisters;
  rip.verdict = Verdict::Reliable;
  rip = named(rip, "delay_tsc", 0x5, 0x40);
  w.frames.push_back(rip);
  w.frames.push_back(
      named(frame(kText + 0x210, kIrq + kSize - 64, Trust::Orc, Reason::Orc, StackKind::Irq), "panic", 0x10, 0x390));
  w.frames.push_back(named(frame(kText + 0x344, kIrq + kSize - 48, Trust::Scan, Reason::StaleByOrc, StackKind::Irq),
                           "_printk", 0x44, 0x60));
  StackFrame t =
      named(frame(kText + 0x422, kTask + kSize - 200, Trust::Backlink, Reason::Backlink), "vfs_write", 0x22, 0x100);
  t.segment = 1;
  w.frames.push_back(t);
  w.transitions = {{"irq", "task", kIrq + kSize - 8, kTask + kSize - 256}};
  return w;
}

DumpModel model_of(StackWalk w) {
  DumpModel d;
  d.path = "test.vmcore";
  d.format = "elf";
  d.release = "6.14.0";
  d.vmlinux = "vmlinux";
  d.layout = "pcpu_hot";
  d.orc_version = 3;
  d.cpus.push_back(std::move(w));
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(walk_names)

BOOST_AUTO_TEST_CASE(return_addresses_are_named_by_the_byte_before_and_rips_by_themselves) {
  test::FakeSymbols symbols;
  symbols.add("_stext", kText).add("a", kText + 0x10).add("b", kText + 0x40).add("_etext", kText + 0x100);
  StackWalk w;
  w.frames.push_back(frame(kText + 0x40, kTask, Trust::Orc, Reason::Orc));  // after a noreturn call at a's end
  StackFrame rip = frame(kText + 0x40, kTask + 8, Trust::PtRegs, Reason::PtRegs);
  rip.from_regs = true;
  w.frames.push_back(rip);
  w.frames.push_back(frame(kText + 0x200, kTask + 16, Trust::Scan, Reason::StaleByOrc));  // outside the text
  symbolize_walk(w, symbols);
  BOOST_TEST(*w.frames[0].function == "a");
  BOOST_TEST(w.frames[0].offset == 0x30u);
  BOOST_TEST(w.frames[0].size == 0x30u);
  BOOST_TEST(*w.frames[1].function == "b");
  BOOST_TEST(w.frames[1].offset == 0u);
  BOOST_TEST(!w.frames[2].function.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(stack_words)

BOOST_AUTO_TEST_CASE(every_word_from_the_scan_start_has_a_role) {
  SyntheticMemory mem;
  StackWalk w = irq_walk();
  test::Image irq(kIrq, kSize), task(kTask, kSize);
  irq.u64(kIrq + kSize - 64, kText + 0x210);       // panic's return address: a frame
  irq.u64(kIrq + kSize - 56, kIrq + kSize - 32);   // a saved frame pointer: into a stack
  irq.u64(kIrq + kSize - 48, kText + 0x344);       // a stale word: a frame too
  irq.u64(kIrq + kSize - 40, 0x1234);              // data
  irq.u64(kIrq + kSize - 8, kTask + kSize - 256);  // the backlink
  task.u64(kTask + kSize - 200, kText + 0x422);    // the first task frame
  irq.map_into(mem);
  task.map_into(mem);
  read_stack_words(w, mem);
  std::map<std::uint64_t, StackWord> at;
  for (const StackWord& word : w.words) at[word.slot] = word;
  BOOST_TEST(w.words.size() == 8u + 32u);  // 64 bytes of the IRQ stack, 256 of the task stack
  BOOST_TEST(at[kIrq + kSize - 64].role == WordRole::Frame);
  BOOST_TEST(*at[kIrq + kSize - 64].frame == 1u);
  BOOST_TEST(at[kIrq + kSize - 56].role == WordRole::StackPointer);
  BOOST_TEST(at[kIrq + kSize - 48].role == WordRole::Frame);
  BOOST_TEST(at[kIrq + kSize - 40].role == WordRole::Data);
  BOOST_TEST(at[kIrq + kSize - 8].role == WordRole::Backlink);
  BOOST_TEST(at[kTask + kSize - 200].segment == 1u);
  BOOST_TEST(*at[kTask + kSize - 200].frame == 3u);
}

BOOST_AUTO_TEST_CASE(a_pt_regs_rip_slot_is_regs_ip) {
  SyntheticMemory mem;
  StackWalk w = irq_walk();
  StackFrame rip = frame(kText + 0x500, kIrq + kSize - 24, Trust::PtRegs, Reason::PtRegs, StackKind::Irq);
  rip.from_regs = true;
  rip.regs = kIrq + kSize - 24 - 128;
  w.frames.push_back(rip);
  test::Image irq(kIrq, kSize);
  irq.map_into(mem);
  read_stack_words(w, mem);
  bool seen = false;
  for (const StackWord& word : w.words)
    seen = seen || (word.slot == kIrq + kSize - 24 && word.role == WordRole::RegsIp);
  BOOST_TEST(seen);
}

BOOST_AUTO_TEST_CASE(words_the_dump_does_not_hold_are_left_out) {
  SyntheticMemory mem;  // nothing mapped
  StackWalk w = irq_walk();
  read_stack_words(w, mem);
  BOOST_TEST(w.words.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(view_selection)

BOOST_AUTO_TEST_CASE(no_request_shows_every_cpu) {
  DumpModel d = model_of(irq_walk());
  BOOST_TEST(select_view(d, std::nullopt, {}).only_cpu == kAllCpus);
}

BOOST_AUTO_TEST_CASE(a_cpu_by_number_must_exist) {
  DumpModel d = model_of(irq_walk());
  BOOST_TEST(select_view(d, 0, {}).only_cpu == 0);
  BOOST_TEST(select_view(d, 0, {}).error.empty());
  BOOST_TEST(select_view(d, 5, {}).error == "no CPU 5 in this dump (1 CPUs)");
}

BOOST_AUTO_TEST_CASE(a_running_task_is_shown_on_its_cpu) {
  DumpModel d = model_of(irq_walk());
  d.running_pids = {1};
  BOOST_TEST(select_view(d, std::nullopt, {1}).only_cpu == 0);
}

BOOST_AUTO_TEST_CASE(a_switched_out_task_is_shown_alone) {
  DumpModel d = model_of(irq_walk());
  StackWalk t;
  t.state.cpu = -1;
  t.state.pid = 42;
  d.tasks.push_back(t);
  BOOST_TEST(select_view(d, std::nullopt, {42}).only_cpu == kNoCpus);
}

BOOST_AUTO_TEST_CASE(a_mix_of_running_and_switched_out_tasks_shows_everything) {
  DumpModel d = model_of(irq_walk());
  d.running_pids = {1};
  d.tasks.push_back(StackWalk{});
  BOOST_TEST(select_view(d, std::nullopt, {1, 42}).only_cpu == kAllCpus);
}

BOOST_AUTO_TEST_CASE(a_pid_the_task_list_lacks_is_an_error) {
  DumpModel d = model_of(irq_walk());
  d.missing_pids = {7};
  const ViewSelection v = select_view(d, std::nullopt, {7});
  BOOST_TEST(v.missing_pids == std::vector<int>{7});
  BOOST_TEST(v.error == "no task with PID 7");
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the cross-check ----

namespace {

Frame printed(const std::string& fn, std::uint64_t off, std::uint64_t size, bool unreliable,
              StackKind stack = StackKind::Task) {
  Frame f;
  f.function = fn;
  f.offset = off;
  f.size = size;
  f.printed_unreliable = unreliable;
  f.stack = stack;
  return f;
}

Report report_of(std::vector<Frame> frames) {
  Report r;
  r.frames = std::move(frames);
  Trace t;
  t.frame_count = static_cast<std::uint32_t>(r.frames.size());
  r.traces.push_back(t);
  return r;
}

// A trap's walk at dump time: panic -> oops_end -> die -> do_trap -> asm_exc_invalid_op,
// the pt_regs (RIP lab_write+0x1d8), then lab_write's caller.
StackWalk trap_walk() {
  StackWalk w;
  w.state.cpu = 0;
  std::uint64_t slot = kTask + 0x100;
  auto add = [&](const std::string& fn, std::uint64_t off, Trust t) {
    StackFrame f =
        named(frame(kText + off, slot += 8, t, t == Trust::Scan ? Reason::StaleByOrc : Reason::Orc), fn, off, 0x100);
    w.frames.push_back(f);
  };
  add("panic", 0x22d, Trust::Orc);
  add("oops_end", 0xd6, Trust::Orc);
  add("die", 0x4e, Trust::Orc);
  add("lab_write", 0x1d8, Trust::Scan);  // a copy of regs->ip in a trap handler's frame
  add("do_trap", 0xf6, Trust::Orc);
  add("asm_exc_invalid_op", 0x1a, Trust::Orc);
  StackFrame rip = named(frame(kText + 0x1d8, slot += 8, Trust::PtRegs, Reason::PtRegs), "lab_write", 0x1d8, 0x100);
  rip.from_regs = true;
  rip.regs = *rip.slot - 128;
  w.frames.push_back(rip);
  add("proc_reg_write", 0x59, Trust::Orc);
  add("vfs_write", 0xfb, Trust::Orc);
  return w;
}

// A stack overflow's walk on a frame-pointer kernel: the #DF handler's pt_regs (RIP lab_recurse+0x3b)
// on the #DF stack, whose SP lies in the guard page below the task stack; above them, the
// recursion the frame-pointer chain holds. `entry`: how the walk came to the task stack.
StackWalk overflow_walk(bool frame_pointer_unwinder, SegmentEntry entry) {
  StackWalk w;
  w.state.cpu = 0;
  w.unwinder = frame_pointer_unwinder ? KernelUnwinder::FramePointer : KernelUnwinder::Orc;
  const StackRange df{StackKind::Exception, "#DF", kTask + 0x100000, kTask + 0x101000};
  const StackRange task{StackKind::Task, "", kTask, kTask + kSize};
  w.state.stacks = {task, df};
  w.segments = {{df, SegmentEntry::Start, df.end - 512}, {task, entry, kTask}};
  StackFrame rip = named(frame(kText + 0x3b, df.end - 168 + 128, Trust::PtRegs, Reason::PtRegs, StackKind::Exception),
                         "lab_recurse", 0x3b, 0x80);
  rip.exception = "#DF";
  rip.from_regs = true;
  rip.regs = df.end - 168;
  w.frames.push_back(rip);
  for (std::uint64_t k = 0; k < 3; ++k) {
    StackFrame f = named(frame(kText + 0x6b, kTask + 0x108 + 0x110 * k, Trust::FramePointer, Reason::FramePointer),
                         "lab_recurse", 0x6b, 0x80);
    f.segment = 1;
    w.frames.push_back(f);
  }
  return w;
}

// A report whose trace was printed from a pt_regs with RIP fn+off/size.
Report report_from_regs(std::vector<Frame> trace, const std::string& fn, std::uint64_t off, std::uint64_t size) {
  Report r = report_of(std::move(trace));
  CodeLocation loc;
  loc.function = fn;
  loc.offset = off;
  loc.size = size;
  r.rip = loc;
  return r;
}

Report overflow_report() {
  return report_from_regs({printed("lab_recurse", 0x6b, 0x80, true), printed("lab_recurse", 0x6b, 0x80, true),
                           printed("lab_recurse", 0x6b, 0x80, true)},
                          "lab_recurse", 0x3b, 0x80);
}

Report trap_report(std::vector<Frame> trace) { return report_from_regs(std::move(trace), "lab_write", 0x1d8, 0x100); }

}  // namespace

BOOST_AUTO_TEST_SUITE(printed_trace_crosscheck)

BOOST_AUTO_TEST_CASE(a_current_frame_trace_matches_frame_for_frame) {
  StackWalk w = irq_walk();
  const Report r =
      report_of({printed("panic", 0x10, 0x390, false, StackKind::Irq),
                 printed("_printk", 0x44, 0x60, true, StackKind::Irq), printed("vfs_write", 0x22, 0x100, false)});
  const Crosscheck c = crosscheck(r, 0, w);
  BOOST_TEST(c.printed_frames == 3u);
  BOOST_TEST(c.matched_frames == 3u);
  BOOST_TEST(c.mismatches.empty());
  BOOST_TEST(c.convention.starts_with("current"));
}

BOOST_AUTO_TEST_CASE(a_different_mark_size_or_stack_is_a_mismatch) {
  StackWalk w = irq_walk();
  const Report r = report_of({printed("panic", 0x10, 0x390, false, StackKind::Irq),
                              printed("_printk", 0x44, 0x60, false, StackKind::Irq),       // the walk says '?'
                              printed("vfs_write", 0x22, 0x120, false, StackKind::Irq)});  // size and stack
  const Crosscheck c = crosscheck(r, 0, w);
  BOOST_TEST(c.matched_frames == 1u);
  BOOST_REQUIRE_EQUAL(c.mismatches.size(), 3u);
  BOOST_TEST(c.mismatches[0].problem.find("'?'") != std::string::npos);
  BOOST_TEST(c.mismatches[1].problem.find("size") != std::string::npos);
  BOOST_TEST(c.mismatches[2].problem.find("stack") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(frames_above_panic_are_out_of_scope_and_panics_offset_may_move) {
  StackWalk w = irq_walk();
  const Report r = report_of({printed("dump_stack_lvl", 0x4a, 0x60, false, StackKind::Irq),
                              printed("panic", 0x1ff, 0x390, false, StackKind::Irq),  // printed from another call
                              printed("vfs_write", 0x22, 0x100, false)});
  const Crosscheck c = crosscheck(r, 0, w);
  BOOST_TEST(c.printed_frames == 2u);
  BOOST_TEST(c.matched_frames == 2u);
  BOOST_TEST(c.scope.find("panic()") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_frame_no_longer_on_the_stack_is_a_mismatch) {
  StackWalk w = irq_walk();
  const Report r = report_of({printed("ksys_write", 0x6e, 0x80, false)});
  const Crosscheck c = crosscheck(r, 0, w);
  BOOST_REQUIRE_EQUAL(c.mismatches.size(), 1u);
  BOOST_TEST(c.mismatches[0].problem.find("not found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_trace_printed_from_pt_regs_marks_everything_below_them_by_design) {
  // The 6.14 die path: the scan starts at show_trace_log_lvl's frame, the unwinder at the
  // regs: die's return address was overwritten since, the trap frames are '?' by design.
  const Report r =
      trap_report({printed("die", 0x36, 0x90, true), printed("do_trap", 0xf6, 0x100, true),
                   printed("asm_exc_invalid_op", 0x1a, 0x100, true),
                   printed("lab_write", 0x1d8, 0x100, true),  // regs->ip's own slot
                   printed("proc_reg_write", 0x59, 0x100, false), printed("vfs_write", 0xfb, 0x100, false)});
  const Crosscheck c = crosscheck(r, 0, trap_walk());
  BOOST_TEST(c.convention.starts_with("pt_regs"));
  BOOST_TEST(c.mismatches.empty());
  BOOST_TEST(c.matched_frames == 6u);
  BOOST_REQUIRE_EQUAL(c.explained.size(), 4u);
  BOOST_TEST(c.explained[0].frame == "die+0x36");
  BOOST_TEST(c.explained[0].problem.find("overwritten") != std::string::npos);
  BOOST_TEST(c.explained[1].problem.find("by design") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(above_the_regs_a_trace_printed_from_pt_regs_is_held_to_the_walk) {
  const Report r = trap_report({printed("do_trap", 0xf6, 0x100, true),
                                printed("proc_reg_write", 0x59, 0x100, true),  // the walk vouches for it
                                printed("vfs_write", 0xfb, 0x100, false)});
  const Crosscheck c = crosscheck(r, 0, trap_walk());
  BOOST_REQUIRE_EQUAL(c.mismatches.size(), 1u);
  BOOST_TEST(c.mismatches[0].frame == "proc_reg_write+0x59");
  BOOST_TEST(c.explained.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_frame_pointer_kernel_prints_nothing_reliable_from_regs_whose_sp_is_in_a_guard_page) {
  // unwind_frame.c's __unwind_start() unwinds until it stands on regs->sp's stack: from a guard
  // page it never does, and the trace of a stack overflow is all '?' (the 6.18 lab, 67 frames).
  const Crosscheck c = crosscheck(overflow_report(), 0, overflow_walk(true, SegmentEntry::GuardPage));
  BOOST_TEST(c.mismatches.empty());
  BOOST_TEST(c.matched_frames == 3u);
  BOOST_REQUIRE_EQUAL(c.explained.size(), 3u);
  BOOST_TEST(c.explained[0].problem.find("guard page") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_guard_page_rule_is_the_frame_pointer_unwinders_alone) {
  // ORC's __unwind_start() steps over the regs frame and prints the chain from there.
  const Crosscheck orc = crosscheck(overflow_report(), 0, overflow_walk(false, SegmentEntry::GuardPage));
  BOOST_TEST(orc.mismatches.size() == 3u);
  // A frame-pointer kernel whose regs' SP was on a stack finds its first frame there.
  const Crosscheck fp = crosscheck(overflow_report(), 0, overflow_walk(true, SegmentEntry::Backlink));
  BOOST_TEST(fp.mismatches.size() == 3u);
  BOOST_TEST(fp.explained.empty());
}

BOOST_AUTO_TEST_CASE(a_panic_trace_is_from_the_current_frame_even_with_a_rip_line) {
  const Report r = trap_report({printed("panic", 0x22d, 0x100, false), printed("oops_end", 0xd6, 0x100, false)});
  const Crosscheck c = crosscheck(r, 0, trap_walk());
  BOOST_TEST(c.convention.starts_with("current"));
  BOOST_TEST(c.matched_frames == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(call_site_verdict)

namespace {
CallSiteFinding finding(CallKind k) {
  CallSiteFinding f;
  f.decided = true;
  f.site.kind = k;
  f.site.target = "do_fcntl";
  return f;
}
}  // namespace

BOOST_AUTO_TEST_CASE(no_call_before_proves_a_question_mark_stale) {
  Verdict v = Verdict::Stale;
  Reason r = Reason::StaleByOrc;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::None);
  BOOST_TEST(!apply_call_site_evidence(false, false, v, r, d, {f, Reach::Unknown, ""}));
  BOOST_TEST(r == Reason::NoCallBefore);
}

BOOST_AUTO_TEST_CASE(a_direct_call_elsewhere_is_likely_stale_with_a_note) {
  Verdict v = Verdict::Plausible;
  Reason r = Reason::AfterUnwindError;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::Direct);
  apply_call_site_evidence(false, false, v, r, d, {f, Reach::No, "vfs_write"});
  BOOST_TEST(v == Verdict::Stale);
  BOOST_TEST(r == Reason::CallTargetMismatch);
  BOOST_TEST(d.note == "direct call to do_fcntl cannot reach vfs_write");
}

BOOST_AUTO_TEST_CASE(a_real_call_does_not_overturn_what_the_unwinder_showed) {
  for (Reason stays : {Reason::StaleByOrc, Reason::StaleByFramePointer, Reason::AfterStackEnd,
                       Reason::SkippedByUnwinder, Reason::AfterChainEnd, Reason::DuplicateOfAbove}) {
    Verdict v = Verdict::Stale;
    Reason r = stays;
    FrameDebugInfo d;
    const CallSiteFinding f = finding(CallKind::Indirect);
    apply_call_site_evidence(false, false, v, r, d, {f, Reach::Unknown, ""});
    BOOST_TEST(r == stays);
    BOOST_TEST(stays_stale_with_a_call_site(stays));
  }
}

BOOST_AUTO_TEST_CASE(otherwise_a_call_site_makes_a_question_mark_plausible) {
  Verdict v = Verdict::Plausible;
  Reason r = Reason::AfterUnwindError;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::Indirect);
  BOOST_TEST(apply_call_site_evidence(false, false, v, r, d, {f, Reach::Unknown, ""}));
  BOOST_TEST(r == Reason::CallSitePlausible);
  BOOST_TEST(v == Verdict::Plausible);
}

BOOST_AUTO_TEST_CASE(a_function_pointer_stays_a_function_pointer) {
  Verdict v = Verdict::Stale;
  Reason r = Reason::FunctionStart;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::None);
  apply_call_site_evidence(false, false, v, r, d, {f, Reach::Unknown, ""});
  BOOST_TEST(r == Reason::FunctionStart);
}

// Before 6.2 a pointer to f prints as "g+size/size" (g laid out before f, %pB's minus one):
// padding before it makes it f's address; a call before it, a return address after a noreturn
// call that ends g. Every prior reason and every kind of site is tried.
BOOST_AUTO_TEST_CASE(padding_before_the_next_symbols_first_byte_makes_a_function_pointer) {
  for (Reason prior : {Reason::StaleByOrc, Reason::AfterUnwindError, Reason::SkippedByUnwinder, Reason::ReportingPath,
                       Reason::ScannedTextAddress}) {
    for (CallKind kind : {CallKind::None, CallKind::Direct, CallKind::Indirect}) {
      for (bool at_end : {false, true}) {
        Verdict v = Verdict::Plausible;
        Reason r = prior;
        FrameDebugInfo d;
        const CallSiteFinding f = finding(kind);
        CallSiteEvidence e{f, Reach::Unknown, ""};
        e.at_symbol_end = at_end;
        const bool live = apply_call_site_evidence(false, false, v, r, d, e);
        BOOST_TEST_CONTEXT("prior " << reason_code(prior) << ", call kind " << static_cast<int>(kind) << ", at end "
                                    << at_end) {
          if (kind == CallKind::None) {
            BOOST_TEST(!live);
            BOOST_TEST(r == (at_end ? Reason::FunctionStart : Reason::NoCallBefore));
          } else {
            BOOST_TEST(r != Reason::FunctionStart);
          }
        }
      }
    }
  }
  // A reliable frame at a symbol's end (a noreturn call's return address) keeps its reason.
  Verdict v = Verdict::Reliable;
  Reason r = Reason::Orc;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::Direct);
  CallSiteEvidence e{f, Reach::Unknown, ""};
  e.at_symbol_end = true;
  BOOST_TEST(apply_call_site_evidence(true, false, v, r, d, e));
  BOOST_TEST(r == Reason::Orc);
}

BOOST_AUTO_TEST_CASE(a_reliable_frame_failing_the_check_is_flagged_not_relabelled) {
  Verdict v = Verdict::Reliable;
  Reason r = Reason::Orc;
  FrameDebugInfo d;
  const CallSiteFinding f = finding(CallKind::None);
  BOOST_TEST(apply_call_site_evidence(true, false, v, r, d, {f, Reach::Unknown, ""}));
  BOOST_TEST(r == Reason::Orc);
  BOOST_TEST(d.corruption_evidence);
  FrameDebugInfo asm_d;
  apply_call_site_evidence(true, true, v, r, asm_d, {f, Reach::Unknown, ""});
  BOOST_TEST(!asm_d.corruption_evidence);  // entry assembly pushes return addresses by hand
}

BOOST_AUTO_TEST_SUITE_END()

// The instruction before a return address, from the code bytes alone (CallSiteChecker over a
// CodeSource holding one function). ALTERNATIVE pads an original shorter than its replacement
// with NOPs, and patching at boot writes the replacement over both: 5.8-5.11's asm_call_on_stack
// is "call *%rsi; nop; nop; nop", a retpoline thunk's 5-byte call in memory.
BOOST_AUTO_TEST_SUITE(call_site_check)

namespace {
constexpr std::uint64_t kBase = 0xffffffff81a010d8;

class OneFunction final : public CodeSource {
 public:
  // The function, after the int3 padding that ends the one before it.
  explicit OneFunction(const std::vector<std::uint8_t>& code) : code_(kBefore + code.size(), 0xcc) {
    std::copy(code.begin(), code.end(), code_.begin() + static_cast<std::ptrdiff_t>(kBefore));
  }
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override {
    const std::uint64_t first = kBase - kBefore;
    if (address < first || address >= first + code_.size()) return 0;
    const std::size_t n = std::min<std::size_t>(out.size(), code_.size() - (address - first));
    std::copy_n(code_.begin() + static_cast<std::ptrdiff_t>(address - first), n, out.begin());
    return n;
  }
  std::optional<Symbol> symbol_at(std::uint64_t) override { return std::nullopt; }
  std::optional<Symbol> relocation_target(std::uint64_t) override { return std::nullopt; }

 private:
  static constexpr std::size_t kBefore = 32;
  std::vector<std::uint8_t> code_;
};

// push rbp; mov rbp, rsp; mov [rdi], rsp; mov rsp, rdi; mov rdi, rdx: then the site.
const std::vector<std::uint8_t> kPrologue = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0x27,
                                             0x48, 0x89, 0xfc, 0x48, 0x89, 0xd7};
// leave; ret; int3 padding to the next function.
const std::vector<std::uint8_t> kEpilogue = {0xc9, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc};

struct Built {
  std::vector<std::uint8_t> code;
  std::uint64_t ret = 0;  // the address after the site
};

Built function_with(const std::vector<std::uint8_t>& site, const std::vector<std::uint8_t>& tail = kEpilogue) {
  Built b{kPrologue, 0};
  b.code.insert(b.code.end(), site.begin(), site.end());
  b.ret = kBase + b.code.size();
  b.code.insert(b.code.end(), tail.begin(), tail.end());
  return b;
}

CallSiteFinding check(const Built& b, std::uint64_t size) {
  OneFunction code(b.code);
  CallSiteChecker checker(code);
  return checker.find_call(b.ret, Symbol{"asm_call_on_stack", kBase, size, ""});
}

std::vector<std::uint8_t> concat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// NOPs of every form the kernel pads with (0x90s, then x86's recommended long NOPs).
const std::vector<std::vector<std::uint8_t>> kPaddings = {{0x90},
                                                          {0x90, 0x90},
                                                          {0x90, 0x90, 0x90},
                                                          {0x0f, 0x1f, 0x00},
                                                          {0x0f, 0x1f, 0x40, 0x00},
                                                          {0x0f, 0x1f, 0x44, 0x00, 0x00},
                                                          {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
                                                          {0x66, 0x90, 0x0f, 0x1f, 0x00}};
// Short calls an alternative may stand in for a longer one.
const std::vector<std::vector<std::uint8_t>> kShortCalls = {{0xff, 0xd6}, {0xff, 0xd2}, {0x41, 0xff, 0xd3}};
}  // namespace

BOOST_AUTO_TEST_CASE(a_call_padded_with_nops_is_a_call_site_patched_at_boot) {
  for (const auto& call : kShortCalls)
    for (const auto& pad : kPaddings) {
      const Built b = function_with(concat(call, pad));
      const CallSiteFinding f = check(b, b.code.size());
      BOOST_TEST_CONTEXT("call of " << call.size() << " bytes, " << pad.size() << " bytes of NOPs") {
        BOOST_TEST(f.decided);
        BOOST_TEST((f.site.kind == CallKind::Indirect));
        BOOST_TEST((f.site.address == std::optional<std::uint64_t>(kBase + kPrologue.size())));
        BOOST_TEST(f.note.find("padded with NOPs") != std::string::npos);
      }
    }
}

BOOST_AUTO_TEST_CASE(nops_without_a_call_before_them_are_no_call) {
  for (const auto& pad : kPaddings) {
    const Built b = function_with(concat({0x48, 0x89, 0xc7}, pad));  // mov rdi, rax; NOPs
    const CallSiteFinding f = check(b, b.code.size());
    BOOST_TEST(f.decided);
    BOOST_TEST((f.site.kind == CallKind::None));
  }
}

// copy_user_generic's ALTERNATIVE("rep movsb", "call rep_movs_alternative", ALT_NOT(X86_FEATURE_FSRM)):
// the file holds the 2-byte original and 3 NOPs, memory on a CPU without FSRM the 5-byte call.
// The file has no call there, and the finding says an original padded to a call's length stands
// before the address; an instruction and NOPs shorter than a call together cannot hide one.
BOOST_AUTO_TEST_CASE(an_original_padded_to_a_calls_length_may_hide_the_call_patched_at_boot) {
  for (const auto& pad : kPaddings) {
    const Built b = function_with(concat({0xf3, 0xa4}, pad));  // rep movsb; NOPs
    const CallSiteFinding f = check(b, b.code.size());
    BOOST_TEST_CONTEXT(pad.size() << " bytes of NOPs") {
      BOOST_TEST(f.decided);
      BOOST_TEST((f.site.kind == CallKind::None));
      BOOST_TEST(f.after_padded_original == (2 + pad.size() >= 5));
    }
  }
}

namespace {
// OneFunction with an alternatives table: the function's bytes at kBase, replacements at
// kReplacements, and rep_movs_alternative (the replacement's call target) at kTarget.
constexpr std::uint64_t kReplacements = 0xffffffff83c00000;
constexpr std::uint64_t kTarget = 0xffffffff81f00000;

class PatchedFunction final : public CodeSource {
 public:
  PatchedFunction(const Built& b, std::vector<std::uint8_t> replacement, std::vector<CodePatch> patches,
                  bool known = true)
      : function_(b.code), replacement_(std::move(replacement)), patches_(std::move(patches)), known_(known) {}
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override {
    if (address >= kReplacements && address - kReplacements < replacement_.size()) {
      const std::size_t n = std::min<std::size_t>(out.size(), replacement_.size() - (address - kReplacements));
      std::copy_n(replacement_.begin() + static_cast<std::ptrdiff_t>(address - kReplacements), n, out.begin());
      return n;
    }
    return function_.read_code(address, out);
  }
  std::optional<Symbol> symbol_at(std::uint64_t address) override {
    if (address >= kTarget && address < kTarget + 0x80) return Symbol{"rep_movs_alternative", kTarget, 0x80, ""};
    return std::nullopt;
  }
  std::optional<Symbol> relocation_target(std::uint64_t) override { return std::nullopt; }
  std::vector<CodePatch> patches_holding(std::uint64_t address) override {
    std::vector<CodePatch> out;
    for (const CodePatch& p : patches_)
      if (address >= p.address && address - p.address < p.length) out.push_back(p);
    return out;
  }
  bool patches_known(std::uint64_t) override { return known_; }

 private:
  OneFunction function_;
  std::vector<std::uint8_t> replacement_;
  std::vector<CodePatch> patches_;
  bool known_;
};

// "call rep_movs_alternative" assembled at kReplacements + at.
std::vector<std::uint8_t> call_to_target_at(std::uint64_t at) {
  const auto rel = static_cast<std::int32_t>(static_cast<std::int64_t>(kTarget - (kReplacements + at + 5)));
  std::vector<std::uint8_t> c = {0xe8, 0, 0, 0, 0};
  std::memcpy(c.data() + 1, &rel, 4);
  return c;
}

CallSiteFinding check_patched(const Built& b, const std::vector<std::uint8_t>& replacement,
                              const std::vector<CodePatch>& patches, bool known = true) {
  PatchedFunction code(b, replacement, patches, known);
  CallSiteChecker checker(code);
  return checker.find_call(b.ret, Symbol{"_copy_to_iter", kBase, b.code.size(), ""});
}
}  // namespace

// With .altinstructions read, the call a replacement writes over the file's original is the call
// site: copy_user_generic's "rep movsb" and NOPs become "call rep_movs_alternative" on a CPU
// without FSRM (feature 9*32+4, ALT_NOT), and the call keeps its target when copied.
BOOST_AUTO_TEST_CASE(an_alternatives_call_written_at_boot_is_the_call_site) {
  for (const auto& pad : kPaddings) {
    if (2 + pad.size() < 5) continue;  // the original is at least as long as its replacement
    Built b = function_with(concat({0xf3, 0xa4}, pad));
    const std::uint64_t site = kBase + kPrologue.size();
    b.ret = site + 5;  // after the call, wherever the file's NOPs end
    const CodePatch patch{site, static_cast<std::uint8_t>(2 + pad.size()), kReplacements, 5, 9 * 32 + 4, true, false};
    const CallSiteFinding f = check_patched(b, call_to_target_at(0), {patch});
    BOOST_TEST_CONTEXT(pad.size() << " bytes of NOPs") {
      BOOST_TEST(f.decided);
      BOOST_TEST((f.site.kind == CallKind::Direct));
      BOOST_TEST((f.site.address == std::optional<std::uint64_t>(site)));
      BOOST_TEST((f.site.target == std::optional<std::string>("rep_movs_alternative")));
      BOOST_TEST((f.target_address == std::optional<std::uint64_t>(kTarget)));
      BOOST_TEST(!f.after_padded_original);
      BOOST_TEST(f.note.find("ALTERNATIVE") != std::string::npos);
      BOOST_TEST(f.note.find("9:4 absent") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_replacement_whose_call_ends_elsewhere_is_no_call_site) {
  // "rep movsb; 6 NOPs" replaced by "call ...; mov rdi, rax": the call ends 3 bytes before
  // the return address, which follows the mov.
  const Built b = function_with(concat({0xf3, 0xa4}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}));
  const std::uint64_t site = kBase + kPrologue.size();
  const CodePatch patch{site, 8, kReplacements, 8, 9 * 32 + 4, false, false};
  const CallSiteFinding f = check_patched(b, concat(call_to_target_at(0), {0x48, 0x89, 0xc7}), {patch});
  BOOST_TEST(f.decided);
  BOOST_TEST((f.site.kind == CallKind::None));
  BOOST_TEST(!f.after_padded_original);  // the table was read: its patch writes no call there
}

BOOST_AUTO_TEST_CASE(a_call_inside_a_longer_replacement_ends_where_its_bytes_say) {
  // The replacement "mov rdi, rax; call rep_movs_alternative" over 8 bytes: the call ends at
  // offset 8, the return address after the whole patch.
  const Built b = function_with(concat({0xf3, 0xa4}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}));
  const std::uint64_t site = kBase + kPrologue.size();
  BOOST_TEST(b.ret == site + 8);
  const CodePatch patch{site, 8, kReplacements, 8, 18 * 32 + 1, false, false};
  const CallSiteFinding f = check_patched(b, concat({0x48, 0x89, 0xc7}, call_to_target_at(3)), {patch});
  BOOST_TEST((f.site.kind == CallKind::Direct));
  BOOST_TEST((f.site.address == std::optional<std::uint64_t>(site + 3)));
  BOOST_TEST((f.site.target == std::optional<std::string>("rep_movs_alternative")));
  BOOST_TEST(f.note.find("18:1)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_pv_ops_direct_call_goes_where_its_pointer_said) {
  // ALT_FLAG_DIRECT_CALL: "call BUG_func" in the table, pointed at pv_ops' target at boot.
  const Built b = function_with(concat({0xf3, 0xa4}, {0x90, 0x90, 0x90}));
  const std::uint64_t site = kBase + kPrologue.size();
  const CodePatch patch{site, 5, kReplacements, 5, 3 * 32 + 0, false, true};
  const CallSiteFinding f = check_patched(b, call_to_target_at(0), {patch});
  BOOST_TEST((f.site.kind == CallKind::Indirect));
  BOOST_TEST(!f.site.target.has_value());
}

// Calls into the replacement block itself, as 4.19's kernels write them.
BOOST_AUTO_TEST_CASE(a_call_into_its_own_block_is_a_retpoline_when_the_block_returns) {
  // RETPOLINE_CALL %rbx: jmp 1f; 2: call 3f; 4: pause; lfence; jmp 4b; 3: mov [rsp], rbx; ret;
  // 1: call 2b. The last call ends the block (19 + 5 bytes); the return address follows it.
  const std::vector<std::uint8_t> retpoline = {0xeb, 0x11,                     // jmp +17
                                               0xe8, 0x07, 0x00, 0x00, 0x00,   // call +7
                                               0xf3, 0x90, 0x0f, 0xae, 0xe8,   // pause; lfence
                                               0xeb, 0xf9,                     // jmp -7
                                               0x48, 0x89, 0x1c, 0x24, 0xc3,   // mov [rsp], rbx; ret
                                               0xe8, 0xea, 0xff, 0xff, 0xff};  // call -22
  Built b = function_with(concat({0xff, 0xd3}, std::vector<std::uint8_t>(22, 0x90)));
  const std::uint64_t site = kBase + kPrologue.size();
  b.ret = site + retpoline.size();
  const CodePatch patch{site,        24,    kReplacements, static_cast<std::uint8_t>(retpoline.size()),
                        7 * 32 + 12, false, false};
  const CallSiteFinding f = check_patched(b, retpoline, {patch});
  BOOST_TEST((f.site.kind == CallKind::Indirect));
  BOOST_TEST(!f.target_address.has_value());
  BOOST_TEST(f.site.insn.find("inline retpoline") != std::string::npos);
  // RSB stuffing: call 1f; int3; 1: call 2f; int3; 2: add rsp, 16. The return addresses the
  // calls push are dropped: each call goes to its label, where the block is written.
  const std::vector<std::uint8_t> stuffing = {0xe8, 0x01, 0x00, 0x00, 0x00, 0xcc, 0xe8, 0x01,
                                              0x00, 0x00, 0x00, 0xcc, 0x48, 0x83, 0xc4, 0x10};
  Built c = function_with(concat({0xeb, 0x0e}, std::vector<std::uint8_t>(14, 0x90)));  // jmp over, as the file has it
  c.ret = site + 5;
  const CodePatch rsb{site, 16, kReplacements, 16, 7 * 32 + 19, false, false};
  const CallSiteFinding g = check_patched(c, stuffing, {rsb});
  BOOST_TEST((g.site.kind == CallKind::Direct));
  BOOST_TEST((g.target_address == std::optional<std::uint64_t>(site + 6)));
}

// 6.14's _copy_to_iter: "rep movsb" and 3 NOPs (an ALTERNATIVE writing a call), then 3 NOPs
// (another writing clac). After all six NOPs no call ends: with the table read, the padding
// is known not to hide one, and the address is after no call.
BOOST_AUTO_TEST_CASE(nops_the_table_names_no_call_for_are_no_call) {
  const Built b = function_with(concat({0xf3, 0xa4}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}));
  const std::uint64_t site = kBase + kPrologue.size();
  const CodePatch call{site, 5, kReplacements, 5, 9 * 32 + 4, true, false};
  const CodePatch clac{site + 5, 3, kReplacements + 5, 3, 9 * 32 + 20, false, false};
  const std::vector<std::uint8_t> replacements = concat(call_to_target_at(0), {0x0f, 0x01, 0xca});
  const CallSiteFinding f = check_patched(b, replacements, {call, clac});
  BOOST_TEST(f.decided);
  BOOST_TEST((f.site.kind == CallKind::None));
  BOOST_TEST(!f.after_padded_original);
  BOOST_TEST(f.note.find("no alternative writes a call here") != std::string::npos);
  // Without a table (a module's code) the padding still proves nothing.
  const CallSiteFinding g = check_patched(b, replacements, {}, false);
  BOOST_TEST(g.after_padded_original);
}

BOOST_AUTO_TEST_CASE(the_files_own_call_is_read_before_any_patch) {
  const Built b = function_with({0xff, 0xd6});  // call rsi, as the file has it
  const std::uint64_t site = kBase + kPrologue.size();
  const CodePatch patch{site, 2, kReplacements, 2, 0, false, false};
  const CallSiteFinding f = check_patched(b, {0x0f, 0x0b}, {patch});  // ud2 in the replacement
  BOOST_TEST((f.site.kind == CallKind::Indirect));
  BOOST_TEST(f.note.find("ALTERNATIVE") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_live_frame_after_a_padded_original_is_no_corruption_evidence) {
  CallSiteFinding finding;
  finding.decided = true;
  finding.after_padded_original = true;
  for (const bool reliable : {true, false}) {
    Verdict verdict = reliable ? Verdict::Reliable : Verdict::Plausible;
    Reason reason = reliable ? Reason::Unwinder : Reason::SkippedByUnwinder;
    FrameDebugInfo debug;
    apply_call_site_evidence(reliable, false, verdict, reason, debug,
                             CallSiteEvidence{finding, Reach::Unknown, std::string(), false});
    BOOST_TEST(!debug.corruption_evidence);
    BOOST_TEST((verdict == (reliable ? Verdict::Reliable : Verdict::Plausible)));
    BOOST_TEST(debug.note.find("ALTERNATIVE") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(more_nops_than_an_alternative_pads_are_no_call) {
  // 14 bytes of NOPs after the call: more than any replacement's extra length.
  const Built b = function_with(concat({0xff, 0xd6}, std::vector<std::uint8_t>(14, 0x90)));
  const CallSiteFinding f = check(b, b.code.size());
  BOOST_TEST(f.decided);
  BOOST_TEST((f.site.kind == CallKind::None));
}

BOOST_AUTO_TEST_CASE(nops_that_end_the_function_after_a_noreturn_call_are_no_call) {
  // "call panic; nopw" aligning the next function: the word is the next function's address,
  // the end of this one (its size), not a return address.
  for (const auto& pad : kPaddings) {
    const Built b = function_with(concat({0xe8, 0x00, 0x00, 0x00, 0x00}, pad), {});
    const CallSiteFinding f = check(b, b.code.size());
    BOOST_TEST(f.decided);
    BOOST_TEST((f.site.kind == CallKind::None));
  }
}

BOOST_AUTO_TEST_CASE(an_unpadded_call_is_read_as_before) {
  const Built direct = function_with({0xe8, 0x10, 0x00, 0x00, 0x00});
  BOOST_TEST((check(direct, direct.code.size()).site.kind == CallKind::Direct));
  const Built indirect = function_with({0xff, 0xd6});
  const CallSiteFinding f = check(indirect, indirect.code.size());
  BOOST_TEST((f.site.kind == CallKind::Indirect));
  BOOST_TEST(f.note.find("padded") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reasons)

BOOST_AUTO_TEST_CASE(every_reason_has_a_unique_code_a_description_and_a_scope) {
  std::set<std::string_view> codes;
  int dump = 0, text = 0, code = 0;
  for (int i = 0; i <= static_cast<int>(Reason::ScannedTextAddress); ++i) {
    const auto r = static_cast<Reason>(i);
    BOOST_TEST(codes.insert(reason_code(r)).second, reason_code(r));
    BOOST_TEST(!reason_description(r).empty());
    BOOST_TEST(reason_code(r) != "unknown");
    switch (reason_scope(r)) {
      case ReasonScope::Dump: ++dump; break;
      case ReasonScope::Text: ++text; break;
      case ReasonScope::Code: ++code; break;
    }
  }
  BOOST_TEST(dump == 14);
  BOOST_TEST(code == 5);  // function_start, no_call_before, call_target_mismatch, call_site_plausible, unchecked_budget
  BOOST_TEST(text == 10);
}

BOOST_AUTO_TEST_CASE(trust_codes_are_the_json_names) {
  BOOST_TEST(to_string(Trust::Registers) == "registers");
  BOOST_TEST(to_string(Trust::Orc) == "orc");
  BOOST_TEST(to_string(Trust::FramePointer) == "frame_pointer");
  BOOST_TEST(to_string(Trust::PtRegs) == "pt_regs");
  BOOST_TEST(to_string(Trust::Backlink) == "backlink");
  BOOST_TEST(to_string(Trust::MachineCode) == "machine_code");
  BOOST_TEST(to_string(Trust::NmiStopHandler) == "nmi_stop_handler");
  BOOST_TEST(to_string(Trust::Scan) == "scan");
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the dump renderer ----

BOOST_AUTO_TEST_SUITE(dump_render)

BOOST_AUTO_TEST_CASE(json_frames_carry_trust_and_reason_and_leave_rips_out) {
  const json doc = json::parse(render_dump_json(model_of(irq_walk())));
  const json& cpu = doc["cpus"][0];
  BOOST_REQUIRE_EQUAL(cpu["frames"].size(), 3u);
  BOOST_TEST(cpu["frames"][0]["trust"] == "orc");
  BOOST_TEST(cpu["frames"][0]["reason"] == "orc");
  BOOST_TEST(cpu["frames"][1]["trust"] == "scan");
  BOOST_TEST(cpu["frames"][1]["reason"] == "stale_by_orc");
  BOOST_TEST(cpu["frames"][1]["printed_unreliable"] == true);
  BOOST_TEST(cpu["frames"][2]["trust"] == "backlink");
  BOOST_TEST(cpu["crash_site"]["function"] == "delay_tsc");
  BOOST_TEST(cpu["transitions"][0]["from"] == "irq");
  BOOST_TEST(!cpu.contains("words"));
}

BOOST_AUTO_TEST_CASE(json_words_point_into_the_json_frames) {
  SyntheticMemory mem;
  StackWalk w = irq_walk();
  test::Image irq(kIrq, kSize), task(kTask, kSize);
  irq.u64(kIrq + kSize - 64, kText + 0x210);
  task.u64(kTask + kSize - 200, kText + 0x422);
  irq.map_into(mem);
  task.map_into(mem);
  read_stack_words(w, mem);
  const json doc = json::parse(render_dump_json(model_of(w)));
  const json& words = doc["cpus"][0]["words"];
  BOOST_REQUIRE_EQUAL(words.size(), w.words.size());
  BOOST_TEST(words[0]["slot"] == kIrq + kSize - 64);
  BOOST_TEST(words[0]["function"] == "panic");
  BOOST_TEST(words[0]["frame"] == 0);  // the RIP of registers is not a JSON frame
  BOOST_TEST(words[0]["verdict"] == "reliable");
  BOOST_TEST(words[1]["frame"].is_null());
  BOOST_TEST(words[1]["verdict"].is_null());
  for (const json& word : words)
    for (const char* key : {"slot", "value", "function", "frame", "verdict", "role", "stack"})
      BOOST_TEST(word.contains(key), key);
}

BOOST_AUTO_TEST_CASE(json_crosschecks_carry_the_convention_and_what_it_explains) {
  DumpModel d = model_of(irq_walk());
  Crosscheck c;
  c.convention = "pt_regs: printed by show_regs()";
  c.explained.push_back({0, "die+0x36", "overwritten"});
  d.checks.push_back(c);
  const json doc = json::parse(render_dump_json(d));
  BOOST_TEST(doc["crosscheck"][0]["convention"] == "pt_regs: printed by show_regs()");
  BOOST_TEST(doc["crosscheck"][0]["explained"][0]["frame"] == "die+0x36");
}

BOOST_AUTO_TEST_CASE(text_shows_rip_lines_banners_and_the_backlink_followed) {
  const std::string text = render_dump_text(model_of(irq_walk()), TextStyle{}, kAllCpus, false);
  BOOST_TEST(text.find("RIP: delay_tsc+0x5/0x40  (CPU registers)") != std::string::npos);
  BOOST_TEST(text.find("<IRQ>") != std::string::npos);
  BOOST_TEST(text.find("--- irq -> task: followed the backlink") != std::string::npos);
  BOOST_TEST(text.find("? _printk+0x44/0x60") != std::string::npos);
  BOOST_TEST(text.find("stale_by_orc") != std::string::npos);
  BOOST_TEST(text.find("<TASK>") > text.find("<IRQ>"));
}

BOOST_AUTO_TEST_CASE(a_view_of_no_cpus_shows_no_cpu) {
  const std::string text = render_dump_text(model_of(irq_walk()), TextStyle{}, kNoCpus, false);
  BOOST_TEST(text.find("CPU 0:") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_words_view_lines_up_slots_values_and_frames) {
  SyntheticMemory mem;
  StackWalk w = irq_walk();
  test::Image irq(kIrq, kSize), task(kTask, kSize);
  irq.u64(kIrq + kSize - 64, kText + 0x210);
  irq.u64(kIrq + kSize - 8, kTask + kSize - 256);
  irq.map_into(mem);
  task.map_into(mem);
  read_stack_words(w, mem);
  const std::string text = render_words_text(model_of(w));
  BOOST_TEST(text.find("<irq> ffffc90000100000-ffffc90000104000, from ffffc90000103fc0") != std::string::npos);
  BOOST_TEST(text.find("ffffc90000103fc0: ffffffff81000210  #0   reliable    panic+0x10/0x390") != std::string::npos);
  BOOST_TEST(text.find("backlink: irq -> task") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_svg_draws_words_beside_frames_only_when_asked) {
  SyntheticMemory mem;
  StackWalk w = irq_walk();
  const std::string plain = render_dump_svg(model_of(w));
  BOOST_TEST(plain.find(" words</text>") == std::string::npos);
  test::Image irq(kIrq, kSize), task(kTask, kSize);
  irq.map_into(mem);
  task.map_into(mem);
  read_stack_words(w, mem);
  const std::string with_words = render_dump_svg(model_of(w));
  BOOST_TEST(with_words.find("IRQ words</text>") != std::string::npos);
  BOOST_TEST(with_words.find("backlink @") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(frames_without_a_symbol_are_shown_by_address) {
  StackFrame f = frame(0xffffffffc0001234, kTask, Trust::Scan, Reason::ScannedTextAddress);
  BOOST_TEST(describe_frame(f) == "0xffffffffc0001234");
  f = named(f, "labcrash_write", 0x1f, 0x2c0);
  f.module = "labcrash";
  BOOST_TEST(describe_frame(f) == "labcrash_write+0x1f/0x2c0 [labcrash]");
}

BOOST_AUTO_TEST_SUITE_END()
