// The dump walker on synthetic memory: stacks, ORC tables and registers laid
// out word by word here, independent of the production structs. Each planted
// word is commented with what it stands for.
#include "unwind/stack_walk.h"

#include <boost/test/unit_test.hpp>

#include "memory/synthetic_memory.h"
#include "model_printers.h"
#include "unwind/nmi_stop.h"

namespace {

using namespace btaudit;

constexpr std::uint64_t kText = 0xffffffff81000000;   // fake kernel text
constexpr std::uint64_t kOrcIp = 0xffffffff82000000;  // .orc_unwind_ip
constexpr std::uint64_t kOrc = 0xffffffff82100000;    // .orc_unwind
constexpr std::uint64_t kTask = 0xffffc90000010000;   // task stack [kTask, +16K)
constexpr std::uint64_t kIrq = 0xffffc90000100000;    // IRQ stack  [kIrq, +16K)
constexpr std::uint64_t kNmi = 0xfffffe0000010000;    // NMI stack  [kNmi, +8K)
constexpr std::uint64_t kStack = 16384;

// Functions of the fake text, 0x100 bytes each.
constexpr std::uint64_t fn(int i) { return kText + 0x100 * static_cast<std::uint64_t>(i); }
enum Fn { kLeaf, kMid, kTop, kIrqHandler, kIrqEntry, kBottom, kNmiHandler, kNmiEntry, kLoop, kCount };

struct OrcRow {
  std::uint64_t ip;
  std::int16_t sp_offset;
  unsigned sp_reg;  // v1 numbering: 5 SP, 9 SP_INDIRECT, 0 undefined
  unsigned type;    // v1: 0 CALL, 1 REGS, 2 REGS_PARTIAL
  bool end;
};

struct Fixture {
  SyntheticMemory mem;
  OrcTable orc;
  WalkInput in;

  Fixture() {
    mem.map(kText, std::vector<std::uint8_t>(0x100 * kCount, 0xcc));
    mem.map(kTask, std::vector<std::uint8_t>(kStack, 0));
    mem.map(kIrq, std::vector<std::uint8_t>(kStack, 0));
    mem.map(kNmi, std::vector<std::uint8_t>(8192, 0));
    // Every function: a plain frame (return address right above SP, 8 bytes).
    std::vector<OrcRow> rows;
    for (int i = 0; i < kCount; ++i) rows.push_back({fn(i), 8, 5, 0, false});
    // mid keeps a local: its return address is 16 bytes above its SP.
    rows[kMid] = {fn(kMid), 16, 5, 0, false};
    // The IRQ entry switched stacks: the previous SP is the word at SP (call_on_irqstack).
    // (call_on_irqstack: the word at the IRQ stack's top is the task SP; the
    // entry's own return address lies just above it on the task stack.)
    rows[kIrqEntry] = {fn(kIrqEntry), 8, 9, 0, false};
    // The NMI entry: a full pt_regs sits at SP.
    rows[kNmiEntry] = {fn(kNmiEntry), 0, 5, 1, false};
    // The bottom of the task stack: end of stack.
    rows[kBottom] = {fn(kBottom), 0, 0, 0, true};
    // A broken entry whose CFA does not move: SP would not grow.
    rows[kLoop] = {fn(kLoop), 0, 5, 0, false};
    rows.push_back({fn(kCount), 0, 0, 0, true});  // terminator after the text
    std::vector<std::uint8_t> ips(rows.size() * 4), entries(rows.size() * 6);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::int32_t rel = static_cast<std::int32_t>(rows[i].ip - (kOrcIp + i * 4));
      std::memcpy(ips.data() + i * 4, &rel, 4);
      std::memcpy(entries.data() + i * 6, &rows[i].sp_offset, 2);
      const std::int16_t bp = 0;
      std::memcpy(entries.data() + i * 6 + 2, &bp, 2);
      const unsigned bits = rows[i].sp_reg | (0u << 4) | (rows[i].type << 8) | (rows[i].end ? 1u << 10 : 0u);
      entries[i * 6 + 4] = static_cast<std::uint8_t>(bits & 0xff);
      entries[i * 6 + 5] = static_cast<std::uint8_t>(bits >> 8);
    }
    mem.map(kOrcIp, ips);
    mem.map(kOrc, entries);
    BOOST_REQUIRE(orc.add(mem, kOrcIp, kOrc, rows.size(), 1));
    in.orc = &orc;
    in.is_kernel_text = [](std::uint64_t a) { return a >= kText && a < fn(kCount); };
    in.stacks = {{StackKind::Task, "", kTask, kTask + kStack},
                 {StackKind::Irq, "", kIrq, kIrq + kStack},
                 {StackKind::Exception, "NMI", kNmi, kNmi + 8192}};
  }

  void regs(std::uint64_t rip, std::uint64_t rsp) { in.regs = {{"rip", rip}, {"rsp", rsp}, {"rbp", 0}}; }

  // A task stack: leaf's caller mid, a stale word, then top, then the bottom frame.
  void plant_task_chain(std::uint64_t sp) {
    mem.put_u64(sp, fn(kMid) + 0x10);        // leaf returns into mid      (reliable)
    mem.put_u64(sp + 8, fn(kTop) + 0x20);    // mid returns into top       (reliable)
    mem.put_u64(sp + 16, fn(kLeaf) + 0x44);  // stack residue of an older call ('?')
    mem.put_u64(sp + 24, 0x1234);            // not text: never printed
    // top's frame: 8 bytes above its own SP (sp + 16), so its return slot is sp + 16?
  }

  WalkResult walk() { return walk_stacks(mem, in); }
};

std::vector<std::pair<std::uint64_t, bool>> entries(const WalkResult& w) {
  std::vector<std::pair<std::uint64_t, bool>> out;
  for (const StackFrame& f : w.frames)
    if (!f.from_regs) out.emplace_back(f.pc, f.reliable());
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(stack_walk, Fixture)

BOOST_AUTO_TEST_CASE(task_stack_reliable_chain_and_stale_residue) {
  const std::uint64_t sp = kTask + kStack - 64;
  regs(fn(kLeaf) + 4, sp);
  mem.put_u64(sp, fn(kMid) + 0x10);         // leaf -> mid     (reliable: leaf's CFA is sp + 8)
  mem.put_u64(sp + 8, fn(kLeaf) + 0x44);    // mid's local: residue of an older call ('?')
  mem.put_u64(sp + 16, fn(kBottom) + 0x8);  // mid -> bottom   (reliable: mid's CFA is sp + 24; bottom ends the stack)
  mem.put_u64(sp + 24, fn(kTop) + 0x30);    // after the end   ('?')
  const WalkResult w = walk();
  const auto e = entries(w);
  BOOST_REQUIRE_EQUAL(e.size(), 4u);
  BOOST_TEST(e[0].first == fn(kMid) + 0x10);
  BOOST_TEST(e[0].second);
  BOOST_TEST(!e[1].second);
  BOOST_TEST(e[2].second);
  BOOST_TEST(!e[3].second);
  BOOST_TEST(w.transitions.empty());
}

BOOST_AUTO_TEST_CASE(irq_stack_backlink_leads_to_the_task_stack) {
  const std::uint64_t top = kIrq + kStack;
  const std::uint64_t tsp = kTask + kStack - 128;  // where the interrupted task's SP was
  const std::uint64_t isp = top - 16;
  regs(fn(kIrqHandler) + 4, isp);
  mem.put_u64(isp, fn(kIrqEntry) + 0x18);    // handler -> irq entry (reliable)
  mem.put_u64(top - 8, tsp);                 // irq_stack_end[-1]: the backlink; the entry's CFA is *(SP) + 8
  mem.put_u64(tsp, fn(kMid) + 0x22);         // the entry's return slot, CFA - 8, on the task stack (reliable)
  mem.put_u64(tsp + 8, fn(kLeaf) + 0x9);     // mid's local ('?')
  mem.put_u64(tsp + 16, fn(kBottom) + 0x8);  // mid -> bottom (reliable)
  const WalkResult w = walk();
  BOOST_REQUIRE_EQUAL(w.transitions.size(), 1u);
  BOOST_TEST(w.transitions[0].from == "irq");
  BOOST_TEST(w.transitions[0].to == "task");
  BOOST_TEST(w.transitions[0].slot == top - 8);
  BOOST_TEST(w.transitions[0].value == tsp);
  bool saw_task_reliable = false;
  for (const StackFrame& f : w.frames)
    if (f.stack == StackKind::Task && f.reliable() && f.pc == fn(kBottom) + 0x8) saw_task_reliable = true;
  BOOST_TEST(saw_task_reliable);
}

BOOST_AUTO_TEST_CASE(nmi_over_irq_follows_pt_regs_then_the_irq_backlink) {
  const std::uint64_t nmi_top = kNmi + 8192;
  const std::uint64_t regs_at = nmi_top - 168;  // struct pt_regs at the top of the NMI stack
  const std::uint64_t irq_top = kIrq + kStack;
  const std::uint64_t isp = irq_top - 16;  // the interrupted IRQ handler's SP
  const std::uint64_t tsp = kTask + kStack - 64;
  regs(fn(kNmiHandler) + 4, regs_at - 8);
  mem.put_u64(regs_at - 8, fn(kNmiEntry) + 0x10);   // NMI handler -> NMI entry (reliable)
  mem.put_u64(regs_at + 128, fn(kIrqHandler) + 8);  // pt_regs->ip: the interrupted IRQ handler
  mem.put_u64(regs_at + 152, isp);                  // pt_regs->sp: on the IRQ stack
  mem.put_u64(isp, fn(kIrqEntry) + 0x18);           // IRQ handler -> IRQ entry
  mem.put_u64(irq_top - 8, tsp);                    // the IRQ stack's backlink
  mem.put_u64(tsp, fn(kMid) + 0x22);
  const WalkResult w = walk();
  BOOST_REQUIRE_GE(w.transitions.size(), 2u);
  BOOST_TEST(w.transitions[0].from == "NMI");
  BOOST_TEST(w.transitions[0].to == "irq");
  BOOST_TEST(w.transitions[0].value == isp);
  BOOST_TEST(w.transitions[1].from == "irq");
  BOOST_TEST(w.transitions[1].to == "task");
  bool regs_line = false;
  for (const StackFrame& f : w.frames) regs_line = regs_line || (f.from_regs && f.pc == fn(kIrqHandler) + 8);
  BOOST_TEST(regs_line);
}

BOOST_AUTO_TEST_CASE(stale_backlink_after_leaving_the_irq_stack_is_not_followed) {
  const std::uint64_t sp = kTask + kStack - 64;
  regs(fn(kLeaf) + 4, sp);                        // the CPU is back on its task stack
  mem.put_u64(kIrq + kStack - 8, kTask + 0x100);  // an old backlink, never cleared
  mem.put_u64(kIrq + kStack - 64, fn(kMid) + 1);  // old IRQ-stack residue
  mem.put_u64(sp, fn(kBottom) + 0x8);
  const WalkResult w = walk();
  BOOST_TEST(w.transitions.empty());
  for (const StackFrame& f : w.frames) BOOST_TEST((f.stack != StackKind::Irq));
}

BOOST_AUTO_TEST_CASE(corrupted_backlink_ends_the_walk_with_a_problem) {
  const std::uint64_t top = kIrq + kStack;
  regs(fn(kIrqHandler) + 4, top - 32);
  mem.put_u64(top - 32, fn(kIrqEntry) + 0x18);
  mem.put_u64(top - 8, 0xdead000000000000);  // a backlink into nowhere
  const WalkResult w = walk();
  BOOST_REQUIRE_EQUAL(w.transitions.size(), 1u);
  BOOST_TEST(w.transitions[0].to == "unknown");
  BOOST_TEST(!w.problems.empty());
}

BOOST_AUTO_TEST_CASE(a_frame_chain_that_does_not_grow_stops_without_hanging) {
  const std::uint64_t sp = kTask + kStack - 64;
  regs(fn(kLoop) + 4, sp);  // the loop function's CFA equals SP: SP never grows
  for (int i = 0; i < 8; ++i) mem.put_u64(sp + 8 * i, fn(kLoop) + 4);
  const WalkResult w = walk();
  BOOST_TEST(!w.problems.empty());
  BOOST_TEST(w.frames.size() < 64u);
}

BOOST_AUTO_TEST_CASE(a_truncated_dump_gives_a_short_walk_not_a_crash) {
  SyntheticMemory sparse;  // the task stack's upper half is missing
  sparse.map(kTask, std::vector<std::uint8_t>(kStack / 2, 0));
  in.stacks = {{StackKind::Task, "", kTask, kTask + kStack}};
  in.regs = {{"rip", fn(kLeaf) + 4}, {"rsp", kTask + kStack / 2 - 16}, {"rbp", 0}};
  sparse.put_u64(kTask + kStack / 2 - 16, fn(kMid) + 0x10);
  const WalkResult w = walk_stacks(sparse, in);
  BOOST_TEST(w.frames.size() <= 3u);
}

BOOST_AUTO_TEST_CASE(no_registers_or_a_wild_sp_is_reported) {
  regs(fn(kLeaf), 0x1000);
  const WalkResult w = walk();
  BOOST_TEST(!w.problems.empty());
}

BOOST_AUTO_TEST_CASE(frame_pointer_kernel_finds_pt_regs_through_the_encoded_rbp) {
  in.orc = nullptr;  // a kernel without ORC tables
  in.unwinder = KernelUnwinder::FramePointer;
  const std::uint64_t regs_at = kTask + kStack - 512;  // pt_regs of an interrupt on the task stack
  const std::uint64_t frame = regs_at - 32;            // the C handler's frame below it
  const std::uint64_t outer = kTask + kStack - 64;     // the interrupted function's frame
  in.regs = {{"rip", fn(kIrqHandler) + 4}, {"rsp", frame - 8}, {"rbp", frame}};
  mem.put_u64(frame, regs_at | 1);               // ENCODE_FRAME_POINTER: the saved RBP is pt_regs + 1
  mem.put_u64(frame + 8, fn(kIrqEntry) + 0x18);  // handler -> entry (reliable)
  mem.put_u64(regs_at + 32, outer);              // pt_regs->bp
  mem.put_u64(regs_at + 128, fn(kMid) + 0x22);   // pt_regs->ip: the RIP line
  mem.put_u64(regs_at + 152, outer - 16);        // pt_regs->sp
  mem.put_u64(outer, 0);                         // the first frame saved no RBP: the chain ends
  mem.put_u64(outer + 8, fn(kTop) + 0x30);       // mid -> top (reliable)
  const WalkResult w = walk();
  BOOST_TEST(w.problems.empty());
  const auto e = entries(w);
  BOOST_REQUIRE_EQUAL(e.size(), 2u);
  BOOST_TEST(e[0].first == fn(kIrqEntry) + 0x18);
  BOOST_TEST(e[0].second);
  BOOST_TEST(e[1].first == fn(kTop) + 0x30);
  BOOST_TEST(e[1].second);
  bool regs_line = false;
  for (const StackFrame& f : w.frames) regs_line = regs_line || (f.from_regs && f.slot == regs_at + 128);
  BOOST_TEST(regs_line);
}

// ---- what each frame is stamped with ----

BOOST_AUTO_TEST_CASE(every_frame_carries_the_trust_and_reason_of_what_found_it) {
  const std::uint64_t sp = kTask + kStack - 64;
  regs(fn(kLeaf) + 4, sp);
  mem.put_u64(sp, fn(kMid) + 0x10);         // leaf -> mid (ORC)
  mem.put_u64(sp + 8, fn(kLeaf) + 0x44);    // residue while the unwinder is alive: stale_by_orc
  mem.put_u64(sp + 16, fn(kBottom) + 0x8);  // mid -> bottom (ORC), which ends the stack
  mem.put_u64(sp + 24, fn(kTop) + 0x30);    // after the end: after_stack_end
  const WalkResult w = walk();
  BOOST_REQUIRE_EQUAL(w.frames.size(), 5u);
  BOOST_TEST(w.frames[0].from_regs);
  BOOST_TEST(w.frames[0].trust == Trust::Registers);
  BOOST_TEST(w.frames[0].reason == Reason::CpuRegisters);
  BOOST_TEST(!w.frames[0].slot.has_value());
  BOOST_TEST(w.frames[1].trust == Trust::Orc);
  BOOST_TEST(w.frames[1].reason == Reason::Orc);
  BOOST_TEST(w.frames[2].trust == Trust::Scan);
  BOOST_TEST(w.frames[2].reason == Reason::StaleByOrc);
  BOOST_TEST(w.frames[3].reason == Reason::Orc);
  BOOST_TEST(w.frames[4].trust == Trust::Scan);
  BOOST_TEST(w.frames[4].reason == Reason::AfterStackEnd);
  for (const StackFrame& f : w.frames) BOOST_TEST(f.stack == StackKind::Task);
}

BOOST_AUTO_TEST_CASE(the_first_frame_after_the_irq_backlink_is_stamped_backlink) {
  const std::uint64_t top = kIrq + kStack;
  const std::uint64_t tsp = kTask + kStack - 128;
  regs(fn(kIrqHandler) + 4, top - 16);
  mem.put_u64(top - 16, fn(kIrqEntry) + 0x18);  // handler -> irq entry (ORC)
  mem.put_u64(top - 8, tsp);                    // the backlink
  mem.put_u64(tsp, fn(kMid) + 0x22);            // reached through the backlink word
  mem.put_u64(tsp + 16, fn(kBottom) + 0x8);     // mid -> bottom (ORC again)
  const WalkResult w = walk();
  std::vector<std::pair<std::uint64_t, Trust>> got;
  for (const StackFrame& f : w.frames)
    if (!f.from_regs) got.emplace_back(f.pc, f.trust);
  BOOST_REQUIRE_EQUAL(got.size(), 3u);
  BOOST_TEST(got[0].second == Trust::Orc);
  BOOST_TEST(got[1].first == fn(kMid) + 0x22);
  BOOST_TEST(got[1].second == Trust::Backlink);
  BOOST_TEST(got[2].second == Trust::Orc);
  BOOST_REQUIRE_EQUAL(w.segments.size(), 2u);
  BOOST_TEST(w.segments[0].entry == SegmentEntry::Start);
  BOOST_TEST(w.segments[0].scan_from == top - 16);
  BOOST_TEST(w.segments[1].entry == SegmentEntry::Backlink);
  BOOST_TEST(w.segments[1].scan_from == tsp);
  BOOST_TEST(w.frames.back().segment == 1u);
}

BOOST_AUTO_TEST_CASE(a_pt_regs_rip_is_a_register_frame_that_knows_its_regs) {
  const std::uint64_t nmi_top = kNmi + 8192;
  const std::uint64_t regs_at = nmi_top - 168;
  regs(fn(kNmiHandler) + 4, regs_at - 8);
  mem.put_u64(regs_at - 8, fn(kNmiEntry) + 0x10);   // NMI handler -> NMI entry (ORC)
  mem.put_u64(regs_at + 128, fn(kIrqHandler) + 8);  // pt_regs->ip
  mem.put_u64(regs_at + 152, kIrq + kStack - 16);   // pt_regs->sp
  const WalkResult w = walk();
  const StackFrame* rip = nullptr;
  for (const StackFrame& f : w.frames)
    if (f.from_regs && f.slot) rip = &f;
  BOOST_REQUIRE(rip);
  BOOST_TEST(rip->trust == Trust::PtRegs);
  BOOST_TEST(rip->reason == Reason::PtRegs);
  BOOST_TEST(*rip->regs == regs_at);
  BOOST_TEST(rip->stack == StackKind::Nmi);
  BOOST_TEST(*rip->exception == "NMI");
}

BOOST_AUTO_TEST_CASE(words_after_an_unwinder_error_are_plausible_leftovers) {
  const std::uint64_t sp = kTask + kStack - 64;
  regs(fn(kLoop) + 4, sp);
  mem.put_u64(sp, fn(kLoop) + 4);        // the loop's CFA is SP: the unwinder fails here
  mem.put_u64(sp + 8, fn(kMid) + 0x10);  // a caller the unwinder lost
  const WalkResult w = walk();
  BOOST_TEST(!w.problems.empty());
  BOOST_REQUIRE_GE(w.frames.size(), 2u);
  BOOST_TEST(w.frames.back().reason == Reason::AfterUnwindError);
}

BOOST_AUTO_TEST_CASE(a_frame_pointer_kernel_stamps_frame_pointer_reasons) {
  in.orc = nullptr;
  in.unwinder = KernelUnwinder::FramePointer;
  const std::uint64_t frame = kTask + kStack - 96;  // leaf's frame record
  in.regs = {{"rip", fn(kLeaf) + 4}, {"rsp", frame - 16}, {"rbp", frame}};
  mem.put_u64(frame - 8, fn(kTop) + 3);        // residue below the frame record
  mem.put_u64(frame, frame + 32);              // saved RBP: mid's frame
  mem.put_u64(frame + 8, fn(kMid) + 0x10);     // leaf -> mid
  mem.put_u64(frame + 16, fn(kLeaf) + 0x20);   // mid's local: residue
  mem.put_u64(frame + 32, 0);                  // mid's saved RBP: the first frame, the chain ends
  mem.put_u64(frame + 40, fn(kBottom) + 0x8);  // mid -> bottom
  mem.put_u64(frame + 48, fn(kTop) + 0x9);     // past the end
  const WalkResult w = walk();
  std::vector<Reason> reasons;
  for (const StackFrame& f : w.frames)
    if (!f.from_regs) reasons.push_back(f.reason);
  const std::vector<Reason> expected = {Reason::StaleByFramePointer, Reason::FramePointer, Reason::StaleByFramePointer,
                                        Reason::FramePointer, Reason::AfterStackEnd};
  BOOST_TEST(reasons == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_switched_out_task_starts_with_the_scheduler_frame) {
  const std::uint64_t thread_sp = kTask + kStack - 128;  // the inactive_task_frame
  in.regs = {{"rip", fn(kMid) + 0x10}, {"rsp", thread_sp + 16}, {"rbp", 0}};
  in.blocked_scan_from = thread_sp;
  mem.put_u64(thread_sp, 0x1111);                // the frame's saved RBP
  mem.put_u64(thread_sp + 8, fn(kMid) + 0x10);   // ret_addr: __schedule's return address
  mem.put_u64(thread_sp + 16, fn(kLeaf) + 0x3);  // residue
  mem.put_u64(thread_sp + 24, fn(kBottom) + 8);  // mid -> bottom
  const WalkResult w = walk();
  BOOST_REQUIRE_EQUAL(w.frames.size(), 3u);
  BOOST_TEST(!w.frames[0].from_regs);
  BOOST_TEST(w.frames[0].trust == Trust::Registers);
  BOOST_TEST(w.frames[0].reason == Reason::SchedulerFrame);
  BOOST_TEST(w.frames[1].reason == Reason::StaleByOrc);
  BOOST_TEST(w.frames[2].reason == Reason::Orc);
  BOOST_TEST(w.segments[0].scan_from == thread_sp);
}

BOOST_AUTO_TEST_CASE(a_guess_unwinder_kernel_vouches_for_no_word) {
  // unwind_guess.c: no return-address pointer, every text word printed with '?'. The chain the
  // other unwinders would take (ORC's, or RBP's frame records) is not followed.
  const std::uint64_t sp = kTask + kStack - 128;
  plant_task_chain(sp);
  regs(fn(kLeaf) + 4, sp);
  in.regs["rbp"] = sp + 64;               // what a frame-pointer walk would read
  mem.put_u64(sp + 64, sp + 80);          // a frame record...
  mem.put_u64(sp + 72, fn(kTop) + 0x20);  // ...and its return address
  in.unwinder = KernelUnwinder::Guess;
  for (const bool blocked : {false, true}) {
    BOOST_TEST_CONTEXT((blocked ? "a switched-out task" : "a CPU's registers")) {
      if (blocked) in.blocked_scan_from = sp;
      const WalkResult w = walk();
      std::size_t scanned = 0;
      for (const StackFrame& f : w.frames) {
        if (f.from_regs) continue;
        ++scanned;
        BOOST_TEST(!f.reliable());
        BOOST_TEST(f.reason == Reason::GuessUnwinder);
      }
      BOOST_TEST(scanned >= 4u);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_overflowed_stack_is_entered_at_the_page_above_the_guard) {
  regs(fn(kLeaf) + 4, kTask - 16);  // SP in the guard page below the task stack
  mem.put_u64(kTask + 8, fn(kMid) + 1);
  const WalkResult w = walk();
  BOOST_REQUIRE(!w.segments.empty());
  BOOST_TEST(w.segments[0].entry == SegmentEntry::GuardPage);
  BOOST_TEST(w.segments[0].scan_from == kTask);
}

BOOST_AUTO_TEST_CASE(each_stack_type_is_visited_once) {
  // An IRQ stack whose backlink points back into itself: no second visit.
  const std::uint64_t top = kIrq + kStack;
  regs(fn(kIrqHandler) + 4, top - 64);
  mem.put_u64(top - 8, top - 64);
  const WalkResult w = walk();
  BOOST_TEST(w.segments.size() == 1u);
  BOOST_TEST(w.transitions.size() == 1u);
}

BOOST_AUTO_TEST_CASE(the_frame_budget_caps_the_scan) {
  const std::uint64_t sp = kTask + 64;
  regs(fn(kLeaf) + 4, sp);
  for (std::uint64_t a = sp; a < kTask + kStack; a += 8) mem.put_u64(a, fn(kTop) + 1);  // text everywhere
  in.max_frames = 100;
  const WalkResult w = walk();
  BOOST_TEST(w.frames.size() <= 100u);
}

BOOST_AUTO_TEST_SUITE_END()

// A CPU kdump's NMI stopped: the dump's registers are the context the NMI interrupted (the pt_regs
// the NMI entry pushed, copied by crash_nmi_callback()); the handler halted on the NMI stack.
// kMid stands for crash_nmi_callback (its frame keeps a local: its return address 16 bytes above
// its SP), kNmiEntry for the NMI entry code.
struct StoppedCpu : Fixture {
  const std::uint64_t regs_at = kNmi + 8192 - 168;  // the NMI's pt_regs at the NMI stack's top
  const std::uint64_t tsp = kTask + kStack - 64;    // the interrupted SP, on the task stack
  const std::uint64_t handler_ret = fn(kMid) + 0x20;

  StoppedCpu() {
    // The pt_regs, word by word (r15 .. ss), and the same values as the dump's registers.
    const char* names[] = {"r15", "r14", "r13", "r12", "rbp",      "rbx", "r11", "r10",    "r9",  "r8", "rax",
                           "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs",  "rflags", "rsp", "ss"};
    in.regs.clear();
    for (std::uint64_t i = 0; i < 21; ++i) {
      std::uint64_t v = 0x1000 + i;    // GPRs no text and no stack address
      if (i == 16) v = fn(kLeaf) + 4;  // rip: the interrupted leaf
      if (i == 19) v = tsp;            // rsp
      mem.put_u64(regs_at + i * 8, v);
      in.regs[names[i]] = v;
    }
    mem.put_u64(tsp, fn(kBottom) + 8);               // leaf returns into the task's bottom frame
    mem.put_u64(regs_at - 8, fn(kNmiEntry) + 0x10);  // handler -> NMI entry
    mem.put_u64(regs_at - 16, fn(kMid));             // the handler's local: a pointer to itself
    mem.put_u64(regs_at - 24, handler_ret);          // the handler's own last call (its halt)
    mem.put_u64(regs_at - 64, fn(kMid) + 0x30);      // an earlier call of the handler: deeper, older
    mem.put_u64(regs_at - 72, fn(kLeaf) + 3);        // what that call ran
  }

  NmiStopQuery query() const { return {in, in.stacks[2], fn(kMid), fn(kMid) + 0x100}; }
};

BOOST_FIXTURE_TEST_SUITE(nmi_stop, StoppedCpu)

BOOST_AUTO_TEST_CASE(the_pt_regs_equal_to_the_dumps_registers_is_found_on_the_nmi_stack) {
  std::vector<std::uint8_t> stack(8192);
  BOOST_REQUIRE_EQUAL(mem.read(kNmi, stack), stack.size());
  BOOST_TEST((find_saved_pt_regs(stack, kNmi, in.regs) == regs_at));
  // One word differs (here RBX): that pt_regs is not the one the dump's registers came from.
  auto other = in.regs;
  other["rbx"] ^= 1;
  BOOST_TEST(!find_saved_pt_regs(stack, kNmi, other));
  // Without RIP or RSP there is nothing to identify it by.
  other = in.regs;
  other.erase("rip");
  BOOST_TEST(!find_saved_pt_regs(stack, kNmi, other));
  // A stack shorter than a pt_regs holds none.
  BOOST_TEST(!find_saved_pt_regs(std::span(stack).first(100), kNmi, in.regs));
}

BOOST_AUTO_TEST_CASE(a_stopped_cpu_starts_at_the_handlers_highest_return_address) {
  const auto w = walk_from_nmi_stop(mem, query());
  BOOST_REQUIRE(w);
  BOOST_REQUIRE_EQUAL(w->frames.size(), 5u);
  const StackFrame& first = w->frames[0];
  BOOST_TEST(first.pc == handler_ret);
  BOOST_TEST((first.slot == regs_at - 24));  // not the older call's, deeper
  BOOST_TEST(first.trust == Trust::NmiStopHandler);
  BOOST_TEST(first.reason == Reason::NmiStopHandler);
  BOOST_TEST(first.stack == StackKind::Nmi);
  BOOST_TEST(w->frames[1].pc == fn(kMid));  // the local: scanned, not vouched for
  BOOST_TEST(!w->frames[1].reliable());
  BOOST_TEST(w->frames[2].pc == fn(kNmiEntry) + 0x10);
  BOOST_TEST(w->frames[2].reason == Reason::Orc);
  BOOST_TEST(w->frames[3].from_regs);
  BOOST_TEST((w->frames[3].regs == regs_at));
  BOOST_TEST(w->frames[3].pc == fn(kLeaf) + 4);
  BOOST_REQUIRE(!w->transitions.empty());
  BOOST_TEST(w->transitions[0].from == "NMI");
  BOOST_TEST(w->transitions[0].to == "task");
  BOOST_TEST(w->frames[4].pc == fn(kBottom) + 8);
  BOOST_TEST(w->frames[4].reason == Reason::Orc);
}

BOOST_AUTO_TEST_CASE(on_a_frame_pointer_kernel_the_handlers_chain_starts_at_the_frame_pointer_its_callee_saved) {
  // No ORC: the halt the handler called pushed the handler's RBP just below its return address;
  // the handler's frame record links to the NMI entry, whose RBP encodes the pt_regs (regs | 1).
  const std::uint64_t handler_bp = regs_at - 16;
  mem.put_u64(regs_at - 32, handler_bp);  // the callee's push %rbp
  mem.put_u64(handler_bp, regs_at | 1);   // the handler's saved RBP: the entry code's encoded regs
  auto q = query();
  q.base.orc = nullptr;
  q.base.unwinder = KernelUnwinder::FramePointer;
  const auto w = walk_from_nmi_stop(mem, q);
  BOOST_REQUIRE(w);
  BOOST_REQUIRE_GE(w->frames.size(), 3u);
  BOOST_TEST(w->frames[0].pc == handler_ret);
  BOOST_TEST(w->frames[0].trust == Trust::NmiStopHandler);
  BOOST_TEST(w->frames[1].pc == fn(kNmiEntry) + 0x10);
  BOOST_TEST(w->frames[1].reason == Reason::FramePointer);
  BOOST_TEST(w->frames[2].from_regs);
  BOOST_TEST((w->frames[2].regs == regs_at));
  // Without the saved frame pointer the chain cannot be started there.
  mem.put_u64(regs_at - 32, 0);
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
}

BOOST_AUTO_TEST_CASE(the_handlers_first_byte_is_a_function_pointer_never_its_frame) {
  // Read as a return address, the handler's first byte would lead to the pt_regs here.
  mem.put_u64(regs_at - 24, fn(kMid));
  BOOST_TEST(!walk_from_nmi_stop(mem, query()));
}

BOOST_AUTO_TEST_CASE(a_candidate_whose_chain_misses_the_pt_regs_is_not_taken) {
  mem.put_u64(regs_at - 8, 0);   // the handler's return into the entry is gone
  mem.put_u64(regs_at - 64, 0);  // and no older return address helps
  BOOST_TEST(!walk_from_nmi_stop(mem, query()));
}

BOOST_AUTO_TEST_CASE(registers_that_no_pt_regs_on_the_nmi_stack_holds_give_no_nmi_frames) {
  auto q = query();
  q.base.regs["r12"] = 0xdead;
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
}

BOOST_AUTO_TEST_CASE(a_misread_nmi_stack_or_handler_is_refused_without_reading_it) {
  auto q = query();
  q.nmi.begin = 0;  // a 16 EiB range: no NMI stack is that large
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
  q = query();
  q.nmi.end = q.nmi.begin;
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
  q = query();
  q.handler_end = q.handler;
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
  q = query();
  q.nmi = {StackKind::Exception, "NMI", 0x1000, 0x3000};  // not in the dump
  BOOST_TEST(!walk_from_nmi_stop(mem, q));
}

BOOST_AUTO_TEST_SUITE_END()
