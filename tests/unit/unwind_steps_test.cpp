// Each unwind method on its own (unwind/unwind_step.h), then the orchestrator
// (unwind/unwinder.h), on stacks planted word by word: a method that applies
// gives the caller's state stamped with its trust, one that does not says so,
// and the end of a chain and an error are told apart.
#include <boost/test/unit_test.hpp>

#include "planted_memory.h"
#include "unwind/unwind_step.h"
#include "unwind/unwinder.h"

namespace {

using namespace btaudit;

constexpr std::uint64_t kText = 0xffffffff81000000;
constexpr std::uint64_t kTask = 0xffffc90000010000;
constexpr std::uint64_t kIrq = 0xffffc90000100000;
constexpr std::uint64_t kDf = 0xfffffe0000010000;
constexpr std::uint64_t kSize = 16384;

constexpr std::uint64_t fn(int i) { return kText + 0x100 * static_cast<std::uint64_t>(i); }

OrcEntry call(std::int16_t sp_offset, OrcReg sp_reg = OrcReg::Sp) {
  OrcEntry e;
  e.sp_reg = sp_reg;
  e.sp_offset = sp_offset;
  e.bp_reg = OrcReg::Undefined;
  e.type = OrcType::Call;
  return e;
}

// An ORC table of memory-resident rows, as the kernel keeps them.
struct OrcRows {
  std::vector<std::pair<std::uint64_t, OrcEntry>> rows;
  OrcTable table;
  void build(SyntheticMemory& m) {
    constexpr std::uint64_t kIp = 0xffffffff82000000, kEnt = 0xffffffff82100000;
    test::Image ips(kIp), ents(kEnt);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ips.s32(kIp + 4 * i, static_cast<std::int32_t>(rows[i].first - (kIp + 4 * i)));
      const OrcEntry& e = rows[i].second;
      auto reg = [](OrcReg r) -> unsigned {
        switch (r) {
          case OrcReg::Undefined: return 0;
          case OrcReg::PrevSp: return 1;
          case OrcReg::Dx: return 2;
          case OrcReg::Di: return 3;
          case OrcReg::Bp: return 4;
          case OrcReg::Sp: return 5;
          case OrcReg::R10: return 6;
          case OrcReg::R13: return 7;
          case OrcReg::BpIndirect: return 8;
          case OrcReg::SpIndirect: return 9;
          default: return 15;
        }
      };
      unsigned type = 0;  // v3: UNDEFINED 0, END_OF_STACK 1, CALL 2, REGS 3, REGS_PARTIAL 4
      switch (e.type) {
        case OrcType::Undefined: type = 0; break;
        case OrcType::EndOfStack: type = 1; break;
        case OrcType::Call: type = 2; break;
        case OrcType::Regs: type = 3; break;
        case OrcType::RegsPartial: type = 4; break;
      }
      ents.s32(kEnt + 6 * i, 0);
      ents.u16(kEnt + 6 * i, static_cast<std::uint16_t>(e.sp_offset));
      ents.u16(kEnt + 6 * i + 2, static_cast<std::uint16_t>(e.bp_offset));
      ents.u16(kEnt + 6 * i + 4, static_cast<std::uint16_t>(reg(e.sp_reg) | (reg(e.bp_reg) << 4) | (type << 8) |
                                                            (e.signal ? 1u << 11 : 0u)));
    }
    ips.map_into(m);
    ents.map_into(m);
    BOOST_REQUIRE(table.add(m, kIp, kEnt, rows.size(), 3));
  }
};

struct Fixture {
  SyntheticMemory mem;
  test::PlantedStack task{StackKind::Task, "", kTask, kSize};
  test::PlantedStack irq{StackKind::Irq, "", kIrq, kSize};
  test::PlantedStack df{StackKind::Exception, "#DF", kDf, 8192};
  std::vector<StackRange> stacks{task.range(), irq.range(), df.range()};
  std::map<std::string, std::uint64_t> regs;
  std::vector<std::string> problems;

  StackAccess access() {
    task.map_into(mem);
    irq.map_into(mem);
    df.map_into(mem);
    return StackAccess(mem, stacks, regs);
  }
  static UnwindState at(std::uint64_t ip, std::uint64_t sp, std::uint64_t bp = 0) {
    UnwindState s;
    s.ip = ip;
    s.sp = sp;
    s.bp = bp;
    return s;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(unwind_steps, Fixture)

// ---- the ORC step ----

BOOST_AUTO_TEST_CASE(OrcCallFrameReadsTheReturnAddressBelowTheCfa) {
  const std::uint64_t sp = task.push(fn(2) + 0x10, "leaf -> mid: the return address");
  OrcRows orc;
  orc.rows = {{fn(1), call(8)}};
  orc.build(mem);
  StackAccess a = access();
  const StepOutcome r = orc_step(at(fn(1) + 4, sp), orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(2) + 0x10);
  BOOST_TEST(r.state.sp == sp + 8);
  BOOST_TEST(r.state.trust == Trust::Orc);
  BOOST_TEST(!r.state.signal);
}

BOOST_AUTO_TEST_CASE(OrcLooksUpTheCallersIpMinusOneUnlessItIsAnExactPc) {
  // Two rows meet at fn(2): ip fn(2) after a call belongs to fn(1)'s row.
  const std::uint64_t sp = task.push(fn(5), "return address");
  task.push(0, "fn(1)'s local");
  OrcRows orc;
  orc.rows = {{fn(1), call(16)}, {fn(2), call(8)}};
  orc.build(mem);
  StackAccess a = access();
  const std::uint64_t sp_now = sp - 8;
  UnwindState s = at(fn(2), sp_now);
  BOOST_TEST(orc_step(s, orc.table, a).state.sp == sp_now + 16);  // a return address: fn(1)'s row
  s.signal = true;
  BOOST_TEST(orc_step(s, orc.table, a).state.sp == sp_now + 8);  // an exact PC: fn(2)'s row
}

BOOST_AUTO_TEST_CASE(OrcWithoutAnEntryIsNotApplicable) {
  OrcRows orc;
  orc.rows = {{fn(3), call(8)}};
  orc.build(mem);
  StackAccess a = access();
  BOOST_TEST(orc_step(at(fn(1), kTask + 0x100), orc.table, a).kind == StepOutcome::NotApplicable);
}

BOOST_AUTO_TEST_CASE(OrcEndOfStackEndsTheChain) {
  OrcEntry end;
  end.type = OrcType::EndOfStack;
  OrcRows orc;
  orc.rows = {{fn(1), end}};
  orc.build(mem);
  StackAccess a = access();
  BOOST_TEST(orc_step(at(fn(1) + 1, kTask + 0x100), orc.table, a).kind == StepOutcome::EndOfStack);
}

BOOST_AUTO_TEST_CASE(OrcUndefinedEntryIsAnError) {
  OrcEntry undefined;
  undefined.type = OrcType::Call;  // sp_reg undefined
  OrcRows orc;
  orc.rows = {{fn(1), undefined}};
  orc.build(mem);
  StackAccess a = access();
  const StepOutcome r = orc_step(at(fn(1) + 1, kTask + 0x100), orc.table, a);
  BOOST_TEST(r.kind == StepOutcome::Error);
  BOOST_TEST(r.error == "undefined ORC entry");
}

BOOST_AUTO_TEST_CASE(OrcRefusesToReadOffTheStacks) {
  OrcRows orc;
  orc.rows = {{fn(1), call(8)}};
  orc.build(mem);
  StackAccess a = access();
  // SP at the very top: the return address would be read past the stack's end.
  const StepOutcome r = orc_step(at(fn(1) + 1, kTask + kSize + 64), orc.table, a);
  BOOST_TEST(r.kind == StepOutcome::Error);
  BOOST_TEST(r.error == "cannot read the return address");
}

BOOST_AUTO_TEST_CASE(OrcIndirectSpCrossesTheIrqBacklinkAndIsStampedBacklink) {
  // call_on_irqstack: the IRQ stack's top word is the interrupted task SP.
  const std::uint64_t tsp = task.push(fn(4) + 0x22, "the IRQ entry's return address on the task stack") + 8;
  irq.set(kIrq + kSize - 8, tsp - 8, "irq_stack_end[-1]: the backlink");
  OrcRows orc;
  orc.rows = {{fn(3), call(8, OrcReg::SpIndirect)}};
  orc.build(mem);
  StackAccess a = access();
  UnwindState s = at(fn(3) + 0x18, kIrq + kSize - 8);
  s.signal = true;
  const StepOutcome r = orc_step(s, orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.sp == tsp);
  BOOST_TEST(r.state.ip == fn(4) + 0x22);
  BOOST_TEST(r.state.trust == Trust::Backlink);
}

BOOST_AUTO_TEST_CASE(OrcBpBasedFrameAndSavedBp) {
  // push %rbp; mov %rsp,%rbp: the CFA is BP + 16, the saved BP at CFA - 16.
  task.push(fn(9) + 1, "the return address");
  const std::uint64_t bp = task.push(0x1234, "the caller's saved RBP");
  OrcEntry e = call(16, OrcReg::Bp);
  e.bp_reg = OrcReg::PrevSp;
  e.bp_offset = -16;
  OrcRows orc;
  orc.rows = {{fn(1), e}};
  orc.build(mem);
  StackAccess a = access();
  const StepOutcome r = orc_step(at(fn(1) + 8, bp - 40, bp), orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(9) + 1);
  BOOST_TEST(r.state.bp == 0x1234u);
}

BOOST_AUTO_TEST_CASE(OrcRegsEntryFindsAFullPtRegs) {
  // An interrupt's pt_regs at SP: the next frame is the interrupted RIP, exact.
  const std::uint64_t regs_at = df.top() - pt_regs::kSize;
  df.set(regs_at + pt_regs::kIp, fn(6) + 5, "pt_regs->ip: the interrupted function");
  df.set(regs_at + pt_regs::kSp, kTask + 0x800, "pt_regs->sp: the task stack");
  df.set(regs_at + pt_regs::kBp, 0xbbbb, "pt_regs->bp");
  OrcEntry e = call(0);
  e.type = OrcType::Regs;
  OrcRows orc;
  orc.rows = {{fn(1), e}};
  orc.build(mem);
  StackAccess a = access();
  const StepOutcome r = orc_step(at(fn(1) + 3, regs_at), orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(6) + 5);
  BOOST_TEST(r.state.sp == kTask + 0x800);
  BOOST_TEST(r.state.bp == 0xbbbbu);  // bp_reg undefined: from the regs
  BOOST_TEST(r.state.signal);
  BOOST_TEST(r.state.trust == Trust::PtRegs);
  BOOST_TEST(r.state.regs.kind == RegsRef::Memory);
  BOOST_TEST(r.state.regs.addr == regs_at);
  BOOST_TEST(r.state.regs.full);
}

BOOST_AUTO_TEST_CASE(OrcRegsPartialIsAnIretFrameAndKeepsThePreviousFullRegs) {
  const std::uint64_t iret = irq.top() - 40;  // ip, cs, flags, sp, ss
  irq.set(iret, fn(7) + 2, "iret frame: ip");
  irq.set(iret + 24, kTask + 0x900, "iret frame: sp");
  OrcEntry e = call(0);
  e.type = OrcType::RegsPartial;
  OrcRows orc;
  orc.rows = {{fn(1), e}};
  orc.build(mem);
  StackAccess a = access();
  UnwindState s = at(fn(1) + 3, iret);
  s.regs = RegsRef{RegsRef::Memory, df.top() - pt_regs::kSize, true};
  const StepOutcome r = orc_step(s, orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(7) + 2);
  BOOST_TEST(r.state.sp == kTask + 0x900);
  BOOST_TEST(!r.state.regs.full);
  BOOST_TEST(r.state.regs.addr == iret - pt_regs::kIretFrame);
  BOOST_TEST(r.state.prev_regs.addr == df.top() - pt_regs::kSize);
}

BOOST_AUTO_TEST_CASE(OrcRegisterBasedSpComesFromTheInitialRegisters) {
  regs = {{"r10", kTask + 0x400}};
  task.set(kTask + 0x3f8, fn(8) + 1, "the return address below R10's SP");
  OrcRows orc;
  orc.rows = {{fn(1), call(0, OrcReg::R10)}};
  orc.build(mem);
  StackAccess a = access();
  UnwindState s = at(fn(1) + 3, kTask + 0x100);
  s.regs = RegsRef{RegsRef::Initial, 0, true};
  const StepOutcome r = orc_step(s, orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(8) + 1);
  s.regs = RegsRef{};  // no registers known: the step cannot be taken
  BOOST_TEST(orc_step(s, orc.table, a).error == "missing R10 value");
}

// ---- the frame-pointer step ----

BOOST_AUTO_TEST_CASE(FramePointerFollowsTheFrameRecord) {
  task.push(fn(3) + 0x30, "mid -> top");
  const std::uint64_t bp = task.push(0x5678, "top's saved RBP");
  StackAccess a = access();
  const StepOutcome r = frame_pointer_step(at(fn(2), bp - 16, bp), a, false);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(3) + 0x30);
  BOOST_TEST(r.state.sp == bp + 16);
  BOOST_TEST(r.state.bp == 0x5678u);
  BOOST_TEST(r.state.trust == Trust::FramePointer);
}

BOOST_AUTO_TEST_CASE(FramePointerZeroEndsTheChainOnlyOnAFramePointerKernel) {
  StackAccess a = access();
  BOOST_TEST(frame_pointer_step(at(fn(2), kTask + 0x100, 0), a, true).kind == StepOutcome::EndOfStack);
  // As an ORC kernel's fallback, a zero RBP is just a frame that cannot be read.
  BOOST_TEST(frame_pointer_step(at(fn(2), kTask + 0x100, 0), a, false).kind == StepOutcome::Error);
}

BOOST_AUTO_TEST_CASE(FramePointerIntoNowhereIsAnError) {
  StackAccess a = access();
  const StepOutcome r = frame_pointer_step(at(fn(2), kTask + 0x100, 0xdead0000), a, true);
  BOOST_TEST(r.kind == StepOutcome::Error);
}

// ---- the pt_regs step (ENCODE_FRAME_POINTER) ----

BOOST_AUTO_TEST_CASE(PtRegsStepTakesAnEncodedRbp) {
  const std::uint64_t regs_at = kTask + kSize - 512;
  task.set(regs_at + pt_regs::kIp, fn(5) + 0x22, "pt_regs->ip");
  task.set(regs_at + pt_regs::kSp, kTask + kSize - 64, "pt_regs->sp");
  task.set(regs_at + pt_regs::kBp, kTask + kSize - 48, "pt_regs->bp");
  StackAccess a = access();
  const StepOutcome r = pt_regs_step(at(fn(4), regs_at - 64, regs_at | 1), a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(5) + 0x22);
  BOOST_TEST(r.state.regs.addr == regs_at);
  BOOST_TEST(r.state.trust == Trust::PtRegs);
  BOOST_TEST(r.state.bp == kTask + kSize - 48);
}

BOOST_AUTO_TEST_CASE(PtRegsStepDoesNotApplyToAPlainRbp) {
  StackAccess a = access();
  BOOST_TEST(pt_regs_step(at(fn(4), kTask + 0x100, kTask + 0x200), a).kind == StepOutcome::NotApplicable);
}

BOOST_AUTO_TEST_CASE(PtRegsStepRefusesRegsThatOverrunTheStack) {
  StackAccess a = access();
  const StepOutcome r = pt_regs_step(at(fn(4), kTask + 0x100, (kTask + kSize - 64) | 1), a);
  BOOST_TEST(r.kind == StepOutcome::Error);
  BOOST_TEST(r.error == "can't access registers");
}

// ---- the backlink step ----

BOOST_AUTO_TEST_CASE(BacklinkOfTheIrqStackIsItsTopWord) {
  irq.set(kIrq + kSize - 8, kTask + 0x1000, "irq_stack_end[-1]");
  StackAccess a = access();
  const BacklinkOutcome r = backlink_step(irq.range(), a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.transition.from == "irq");
  BOOST_TEST(r.transition.to == "task");
  BOOST_TEST(r.transition.slot == kIrq + kSize - 8);
  BOOST_TEST(r.transition.value == kTask + 0x1000);
  BOOST_TEST(r.next->kind == StackKind::Task);
}

BOOST_AUTO_TEST_CASE(BacklinkOfAnExceptionStackIsItsPtRegsSp) {
  const std::uint64_t regs_at = kDf + 8192 - pt_regs::kSize;
  df.set(regs_at + pt_regs::kSp, kTask - 8, "pt_regs->sp: in the guard page below the task stack");
  StackAccess a = access();
  const BacklinkOutcome r = backlink_step(df.range(), a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.transition.from == "#DF");
  BOOST_TEST(r.transition.to == "task");  // an overflowed stack: the next page up
  BOOST_TEST(r.transition.slot == regs_at + pt_regs::kSp);
}

BOOST_AUTO_TEST_CASE(TheTaskStackHasNoBacklink) {
  StackAccess a = access();
  BOOST_TEST(backlink_step(task.range(), a).kind == StepOutcome::NotApplicable);
  BOOST_TEST(backlink_step(irq.range(), a).kind == StepOutcome::NotApplicable);  // a zero top word
}

BOOST_AUTO_TEST_CASE(ABacklinkIntoNoStackIsAnErrorThatKeepsItsTransition) {
  irq.set(kIrq + kSize - 8, 0xdead000000000000, "a corrupted backlink");
  StackAccess a = access();
  const BacklinkOutcome r = backlink_step(irq.range(), a);
  BOOST_TEST(r.kind == StepOutcome::Error);
  BOOST_TEST(r.transition.to == "unknown");
  BOOST_TEST(r.transition.value == 0xdead000000000000);
}

// ---- the orchestrator ----

BOOST_AUTO_TEST_CASE(UnwinderPrefersOrcAndFallsBackToFramePointersWithAWarning) {
  task.push(fn(9) + 1, "fp caller");
  const std::uint64_t bp = task.push(0, "saved RBP");
  const std::uint64_t sp = task.push(fn(2) + 4, "leaf -> fn(2), which ORC does not describe (a JIT, BPF)");
  OrcRows orc;
  orc.rows = {{fn(5), call(8)}};  // only the leaf, above fn(2): ORC has nothing at or below fn(2)
  orc.build(mem);
  regs = {{"rip", fn(5) + 1}, {"rsp", sp}, {"rbp", bp}};
  StackAccess a = access();
  Unwinder u(a, &orc.table, false, 64, problems);
  u.start_from_registers();
  u.next();  // ORC: the leaf returns into fn(2)
  BOOST_TEST(u.state().trust == Trust::Orc);
  BOOST_TEST(*u.return_address_slot() == sp);
  u.next();  // fn(2) has no ORC entry: frame pointers
  BOOST_TEST(u.state().trust == Trust::FramePointer);
  BOOST_TEST(u.state().ip == fn(9) + 1);
  BOOST_REQUIRE_EQUAL(problems.size(), 1u);
  BOOST_TEST(problems[0].find("no ORC entry") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(UnwinderOnAFramePointerKernelTriesPtRegsBeforeTheFrameRecord) {
  const std::uint64_t regs_at = kTask + kSize - 512;
  task.set(regs_at + pt_regs::kIp, fn(5) + 0x22, "pt_regs->ip");
  task.set(regs_at + pt_regs::kSp, kTask + kSize - 64, "pt_regs->sp");
  regs = {{"rip", fn(4)}, {"rsp", regs_at - 64}, {"rbp", regs_at | 1}};
  StackAccess a = access();
  Unwinder u(a, nullptr, true, 64, problems);
  u.start_from_registers();
  u.next();
  BOOST_TEST(u.state().trust == Trust::PtRegs);
  BOOST_TEST(*u.entry_regs() == regs_at);
  BOOST_TEST(*u.return_address_slot() == regs_at + pt_regs::kIp);
  BOOST_TEST(problems.empty());  // frame pointers are this kernel's unwinder, not a fallback
}

BOOST_AUTO_TEST_CASE(UnwinderStopsWhenSpGoesTheWrongWay) {
  const std::uint64_t sp = task.push(fn(1) + 4, "a return address into a function whose CFA is SP");
  OrcRows orc;
  orc.rows = {{fn(1), call(0)}};
  orc.build(mem);
  regs = {{"rip", fn(1) + 4}, {"rsp", sp}, {"rbp", 0}};
  StackAccess a = access();
  Unwinder u(a, &orc.table, false, 64, problems);
  u.start_from_registers();
  u.next();
  BOOST_TEST(u.done());
  BOOST_TEST(u.failed());
  BOOST_TEST(problems.back().find("wrong direction") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(UnwinderKeepsToItsBudget) {
  // Twenty frames of a recursion, a budget of five steps.
  std::uint64_t sp = 0;
  for (int i = 0; i < 20; ++i) sp = task.push(fn(1) + 4, "recursion");
  OrcRows orc;
  orc.rows = {{fn(1), call(8)}};
  orc.build(mem);
  regs = {{"rip", fn(1) + 4}, {"rsp", sp}, {"rbp", 0}};
  StackAccess a = access();
  Unwinder u(a, &orc.table, false, 5, problems);
  u.start_from_registers();
  int steps = 0;
  while (!u.done() && steps < 100) {
    u.next();
    ++steps;
  }
  BOOST_TEST(steps == 6);
  BOOST_TEST(problems.back().find("budget") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(UnwinderFromASpInTheGuardPageWarnsAndGoesOn) {
  regs = {{"rip", fn(1)}, {"rsp", kTask - 8}, {"rbp", 0}};
  StackAccess a = access();
  Unwinder u(a, nullptr, true, 64, problems);
  u.start_from_registers();
  BOOST_TEST(!u.done());
  BOOST_TEST(problems.back().find("guard page") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(UnwinderFromASpOnNoStackIsDone) {
  regs = {{"rip", fn(1)}, {"rsp", 0x1000}, {"rbp", 0}};
  StackAccess a = access();
  Unwinder u(a, nullptr, true, 64, problems);
  u.start_from_registers();
  BOOST_TEST(u.done());
  BOOST_TEST(!u.return_address_slot().has_value());
}

BOOST_AUTO_TEST_CASE(ABlockedTasksFirstSlotIsJustBelowItsSp) {
  regs = {{"rip", fn(3) + 9}, {"rsp", kTask + 0x200}, {"rbp", 0}};
  StackAccess a = access();
  Unwinder u(a, nullptr, true, 64, problems);
  u.start_blocked();
  BOOST_TEST(*u.return_address_slot() == kTask + 0x1f8);
  BOOST_TEST(!u.state().signal);
  BOOST_TEST(u.state().trust == Trust::Registers);
}

BOOST_AUTO_TEST_SUITE_END()
