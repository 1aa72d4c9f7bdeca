// Each unwind method on its own (unwind/unwind_step.h), then the orchestrator
// (unwind/unwinder.h), on stacks planted word by word: a method that applies
// gives the caller's state stamped with its trust, one that does not says so,
// and the end of a chain and an error are told apart.
#include <array>
#include <boost/test/unit_test.hpp>

#include "planted_memory.h"
#include "unwind/orc_loader.h"
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

// The ORC formats as kernel-facts.md section 7.2 tabulates them, written here independently of
// orc_table.cpp: register numbers per version (v1-v3 with 96f3b16a9de5's AX 10; v4 renumbered
// by 1735858caa4b), the type numbers and the flag bits.
const std::map<OrcReg, unsigned>& register_numbers(int version) {
  static const std::map<OrcReg, unsigned> v1_to_v3 = {
      {OrcReg::Undefined, 0},  {OrcReg::PrevSp, 1},     {OrcReg::Dx, 2},  {OrcReg::Di, 3},
      {OrcReg::Bp, 4},         {OrcReg::Sp, 5},         {OrcReg::R10, 6}, {OrcReg::R13, 7},
      {OrcReg::BpIndirect, 8}, {OrcReg::SpIndirect, 9}, {OrcReg::Ax, 10}};
  static const std::map<OrcReg, unsigned> v4 = {{OrcReg::Undefined, 0},  {OrcReg::Ax, 1},         {OrcReg::Dx, 2},
                                                {OrcReg::Sp, 3},         {OrcReg::Bp, 4},         {OrcReg::Di, 5},
                                                {OrcReg::R10, 6},        {OrcReg::R13, 7},        {OrcReg::PrevSp, 8},
                                                {OrcReg::SpIndirect, 9}, {OrcReg::BpIndirect, 10}};
  return version >= 4 ? v4 : v1_to_v3;
}

constexpr int kVersions[] = {1, 2, 3, 4};

// The six bytes of an entry in a version's format.
std::array<std::uint8_t, 6> encode(const OrcEntry& e, int version) {
  const auto& regs = register_numbers(version);
  const auto reg = [&](OrcReg r) { return r == OrcReg::Other ? 15u : regs.at(r); };
  unsigned bits = reg(e.sp_reg) | (reg(e.bp_reg) << 4);
  if (version >= 3) {  // UNDEFINED 0, END_OF_STACK 1, CALL 2, REGS 3, REGS_PARTIAL 4; signal bit 11
    static const std::map<OrcType, unsigned> types = {{OrcType::Undefined, 0},
                                                      {OrcType::EndOfStack, 1},
                                                      {OrcType::Call, 2},
                                                      {OrcType::Regs, 3},
                                                      {OrcType::RegsPartial, 4}};
    bits |= types.at(e.type) << 8 | (e.signal ? 1u << 11 : 0u);
  } else {  // CALL 0, REGS 1, REGS_PARTIAL 2; v1 end bit 10; v2 signal bit 10, end bit 11
    static const std::map<OrcType, unsigned> types = {{OrcType::Undefined, 3},
                                                      {OrcType::EndOfStack, 0},
                                                      {OrcType::Call, 0},
                                                      {OrcType::Regs, 1},
                                                      {OrcType::RegsPartial, 2}};
    const bool end = e.end || e.type == OrcType::EndOfStack;
    bits |= types.at(e.type) << 8;
    if (version == 2) bits |= (e.signal ? 1u << 10 : 0u) | (end ? 1u << 11 : 0u);
    if (version == 1) bits |= end ? 1u << 10 : 0u;
  }
  std::array<std::uint8_t, 6> out{};
  const auto sp = static_cast<std::uint16_t>(e.sp_offset), bp = static_cast<std::uint16_t>(e.bp_offset);
  out = {static_cast<std::uint8_t>(sp),      static_cast<std::uint8_t>(sp >> 8), static_cast<std::uint8_t>(bp),
         static_cast<std::uint8_t>(bp >> 8), static_cast<std::uint8_t>(bits),    static_cast<std::uint8_t>(bits >> 8)};
  return out;
}

// An ORC table of memory-resident rows, as the kernel keeps them, in a version's format.
struct OrcRows {
  std::vector<std::pair<std::uint64_t, OrcEntry>> rows;
  OrcTable table;
  void build(SyntheticMemory& m, int version = 3) {
    constexpr std::uint64_t kIp = 0xffffffff82000000, kEnt = 0xffffffff82100000;
    test::Image ips(kIp), ents(kEnt);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ips.s32(kIp + 4 * i, static_cast<std::int32_t>(rows[i].first - (kIp + 4 * i)));
      const auto bytes = encode(rows[i].second, version);
      ents.put(kEnt + 6 * i, bytes.data(), bytes.size());
    }
    ips.map_into(m);
    ents.map_into(m);
    BOOST_REQUIRE(table.add(m, kIp, kEnt, rows.size(), version));
  }
};

// An ORC table whose rows at and above fn(1) are undefined (a function objtool skipped), and
// defined from fn(2) on when `defined_after` says so.
OrcRows undefined_from_fn1(SyntheticMemory& mem, bool defined_after) {
  OrcEntry undefined;
  undefined.type = OrcType::Call;  // sp_reg undefined
  OrcRows orc;
  orc.rows = {{fn(1), undefined}};
  if (defined_after) orc.rows.push_back({fn(2), call(8)});
  orc.build(mem);
  return orc;
}

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
  // One step from the registers stops on the kernel's "undefined ORC entry", machine code or not.
  void expect_undefined_entry_error(const OrcTable& orc, const CodeFrames& code) {
    StackAccess a = access();
    Unwinder u(a, &orc, false, 64, problems);
    if (code) u.read_code_frames(code);
    u.start_from_registers();
    u.next();
    BOOST_TEST(u.failed());
    BOOST_REQUIRE_EQUAL(problems.size(), 1u);
    BOOST_TEST(problems[0].find("undefined ORC entry") != std::string::npos);
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

BOOST_AUTO_TEST_CASE(UnwinderReadsTheFrameFromMachineCodeWhereOrcIsUndefined) {
  // kdump's registers in __crash_kexec, a function objtool skipped: its whole range is undefined.
  task.push(fn(9) + 1, "panic's return address, 0x18 bytes above SP");
  task.push(0, "saved rbx");
  task.push(0, "local");
  const std::uint64_t sp = task.push(0, "local (SP)");
  const OrcRows orc = undefined_from_fn1(mem, true);
  regs = {{"rip", fn(1) + 0x20}, {"rsp", sp}, {"rbp", 0x1234}};
  std::vector<std::pair<std::uint64_t, bool>> asked;
  const CodeFrames code = [&asked](std::uint64_t ip, bool exact) -> std::optional<CodeFrame> {
    asked.emplace_back(ip, exact);
    return CodeFrame{0x18, std::nullopt};
  };
  {
    StackAccess a = access();
    Unwinder u(a, &orc.table, false, 64, problems);
    u.read_code_frames(code);
    u.start_from_registers();
    u.next();
    BOOST_TEST(!u.failed());
    BOOST_TEST(u.state().trust == Trust::MachineCode);
    BOOST_TEST(u.state().ip == fn(9) + 1);
    BOOST_TEST(u.state().sp == sp + 0x20);
    BOOST_TEST(u.state().bp == 0x1234u);  // RBP untouched: the caller's is the CPU's
    BOOST_TEST(*u.return_address_slot() == sp + 0x18);
    BOOST_REQUIRE_EQUAL(asked.size(), 1u);
    BOOST_TEST(asked[0].first == fn(1) + 0x20);
    BOOST_TEST(asked[0].second);  // a CPU's RIP: the exact address
    BOOST_TEST(problems.empty());
  }
  // Without machine code to read, the kernel's error, as before.
  expect_undefined_entry_error(orc.table, {});
}

BOOST_AUTO_TEST_CASE(UnwinderKeepsTheErrorWhenTheMachineCodeGivesNoFrame) {
  const std::uint64_t sp = task.push(fn(9) + 1, "a return address");
  const OrcRows orc = undefined_from_fn1(mem, false);
  regs = {{"rip", fn(1) + 0x20}, {"rsp", sp}, {"rbp", 0}};
  expect_undefined_entry_error(orc.table, [](std::uint64_t, bool) -> std::optional<CodeFrame> { return std::nullopt; });
}

BOOST_AUTO_TEST_CASE(OrcUndefinedEntrySaysSoForTheMachineCodeStep) {
  const OrcRows orc = undefined_from_fn1(mem, true);
  StackAccess a = access();
  BOOST_TEST(orc_step(at(fn(1) + 1, kTask + 0x100), orc.table, a).undefined_rule);
  BOOST_TEST(!orc_step(at(fn(2) + 1, kTask + 0x100), orc.table, a).undefined_rule);
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

// ---- every ORC format version x every register kind ----

BOOST_AUTO_TEST_CASE(EveryVersionDecodesEveryRegisterNumberAsItsFormatNamesIt) {
  for (int v : kVersions) {
    for (unsigned n = 0; n < 16; ++n) {
      OrcReg expected = OrcReg::Other;
      for (const auto& [reg, number] : register_numbers(v))
        if (number == n) expected = reg;
      const std::uint8_t bytes[6] = {8, 0, 0, 0, static_cast<std::uint8_t>(n | n << 4), 0};
      const OrcEntry e = decode_orc_entry(bytes, v);
      BOOST_TEST_CONTEXT("ORC v" << v << ", register number " << n) {
        BOOST_TEST((e.sp_reg == expected));
        BOOST_TEST((e.bp_reg == expected));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(EveryVersionRoundTripsEveryTypeAndFlag) {
  const OrcType types[] = {OrcType::Call, OrcType::Regs, OrcType::RegsPartial, OrcType::EndOfStack, OrcType::Undefined};
  for (int v : kVersions) {
    for (OrcType t : types) {
      for (bool signal : {false, true}) {
        if (signal && v == 1) continue;  // v1 has no signal bit
        OrcEntry e = call(-24, t == OrcType::EndOfStack ? OrcReg::Undefined : OrcReg::Sp);
        e.bp_offset = -16;
        e.bp_reg = OrcReg::PrevSp;
        e.type = t;
        e.signal = signal;
        const auto bytes = encode(e, v);
        const OrcEntry d = decode_orc_entry(bytes.data(), v);
        BOOST_TEST_CONTEXT("ORC v" << v << ", type " << static_cast<int>(t) << ", signal " << signal) {
          BOOST_TEST((d.type == t));
          BOOST_TEST(d.signal == signal);
          BOOST_TEST(d.sp_offset == -24);
          BOOST_TEST(d.bp_offset == -16);
          BOOST_TEST((d.sp_reg == e.sp_reg));
          BOOST_TEST((d.bp_reg == OrcReg::PrevSp));
        }
      }
    }
  }
}

namespace {

// Where the registers of the frame being unwound come from: the walk's initial registers, a full
// pt_regs on the stack, or an iret frame after one (the kernel then reads the full one).
enum class RegsSource { Initial, FullPtRegs, IretOverFullPtRegs };

// The registers ORC may take the CFA from as saved, each with a value of its own.
const std::map<OrcReg, std::pair<const char*, std::uint64_t>> kSaved = {{OrcReg::Ax, {"rax", pt_regs::kAx}},
                                                                        {OrcReg::Dx, {"rdx", pt_regs::kDx}},
                                                                        {OrcReg::Di, {"rdi", pt_regs::kDi}},
                                                                        {OrcReg::R10, {"r10", pt_regs::kR10}},
                                                                        {OrcReg::R13, {"r13", pt_regs::kR13}}};

struct SpCase {
  int version;
  OrcReg sp_reg;
  RegsSource source;
};

struct SpResult {
  StepOutcome outcome;
  std::optional<std::uint64_t> cfa;  // what the kernel computes; none: it refuses
};

// One ORC step from fn(1) with `sp_reg` as the CFA's base, the memory planted so that each base
// gives a CFA of its own with the return address fn(8) + 1 below it.
SpResult step_with_sp_reg(const SpCase& c) {
  Fixture f;
  constexpr std::int16_t kOff = 16;
  const std::uint64_t sp = kTask + 0x400, bp = kTask + 0x600, regs_at = kTask + 0x3000;
  std::optional<std::uint64_t> cfa;
  switch (c.sp_reg) {
    case OrcReg::Sp: cfa = sp + kOff; break;
    case OrcReg::Bp: cfa = bp + kOff; break;
    case OrcReg::SpIndirect:
      f.task.set(sp, kTask + 0x900, "the saved stack pointer at SP");
      cfa = kTask + 0x900 + kOff;
      break;
    case OrcReg::BpIndirect:
      f.task.set(bp + kOff, kTask + 0x980, "the saved stack pointer at BP + offset");
      cfa = kTask + 0x980;
      break;
    default: break;
  }
  std::uint64_t value = kTask + 0xa00;
  for (const auto& [reg, name_offset] : kSaved) {
    value += 0x40;
    f.regs[name_offset.first] = value;
    f.task.set(regs_at + name_offset.second, value, "pt_regs: a saved register");
    if (reg == c.sp_reg) cfa = value;
  }
  if (cfa) f.task.set(*cfa - 8, fn(8) + 1, "the return address below the CFA");
  OrcRows orc;
  orc.rows = {{fn(1), call(kOff, c.sp_reg)}};
  orc.build(f.mem, c.version);
  StackAccess a = f.access();
  UnwindState s = Fixture::at(fn(1) + 3, sp, bp);
  switch (c.source) {
    case RegsSource::Initial: s.regs = RegsRef{RegsRef::Initial, 0, true}; break;
    case RegsSource::FullPtRegs: s.regs = RegsRef{RegsRef::Memory, regs_at, true}; break;
    case RegsSource::IretOverFullPtRegs:
      s.regs = RegsRef{RegsRef::Memory, kTask + 0x3800, false};
      s.prev_regs = RegsRef{RegsRef::Memory, regs_at, true};
      break;
  }
  return {orc_step(s, orc.table, a), cfa};
}

}  // namespace

BOOST_AUTO_TEST_CASE(EveryVersionAndSpRegisterKindGivesTheCfaTheKernelComputes) {
  // unwind_orc.c: SP/BP + offset; SP_INDIRECT *(SP) + offset; BP_INDIRECT *(BP + offset); DX, DI,
  // R10, R13 and AX the value saved in the last full pt_regs (no offset); anything else an error.
  int steps = 0;
  for (int v : kVersions) {
    for (const auto& [reg, number] : register_numbers(v)) {
      for (RegsSource source : {RegsSource::Initial, RegsSource::FullPtRegs, RegsSource::IretOverFullPtRegs}) {
        const SpResult r = step_with_sp_reg({v, reg, source});
        ++steps;
        BOOST_TEST_CONTEXT("ORC v" << v << ", sp_reg number " << number << ", regs source "
                                   << static_cast<int>(source)) {
          if (reg == OrcReg::Undefined) {
            BOOST_TEST(r.outcome.error == "undefined ORC entry");
          } else if (reg == OrcReg::PrevSp) {
            BOOST_TEST(r.outcome.error == "unknown ORC sp_reg");
          } else {
            BOOST_REQUIRE(r.cfa.has_value());
            BOOST_REQUIRE_EQUAL(r.outcome.kind, StepOutcome::Frame);
            BOOST_TEST(r.outcome.state.sp == *r.cfa);
            BOOST_TEST(r.outcome.state.ip == fn(8) + 1);
          }
        }
      }
    }
  }
  BOOST_TEST(steps == 4 * 11 * 3);
}

BOOST_AUTO_TEST_CASE(ASavedRegisterBaseWithoutRegistersIsTheKernelsMissingValueError) {
  const std::map<OrcReg, std::string> warnings = {{OrcReg::Ax, "missing AX value"},
                                                  {OrcReg::Dx, "missing DX value"},
                                                  {OrcReg::Di, "missing DI value"},
                                                  {OrcReg::R10, "missing R10 value"},
                                                  {OrcReg::R13, "missing R13 value"}};
  for (int v : kVersions) {
    for (const auto& [reg, warning] : warnings) {
      Fixture f;
      OrcRows orc;
      orc.rows = {{fn(1), call(0, reg)}};
      orc.build(f.mem, v);
      StackAccess a = f.access();
      // No registers known at all, then only an iret frame with no full pt_regs before it.
      UnwindState s = Fixture::at(fn(1) + 3, kTask + 0x100);
      BOOST_TEST_CONTEXT("ORC v" << v << ", " << warning) {
        BOOST_TEST(orc_step(s, orc.table, a).error == warning);
        s.regs = RegsRef{RegsRef::Memory, kTask + 0x800, false};
        BOOST_TEST(orc_step(s, orc.table, a).error == warning);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(EveryVersionAndBpRegisterKindGivesTheCallersBpOrAnError) {
  // unwind_orc.c: UNDEFINED keeps BP (or takes it from full regs), PREV_SP reads *(CFA + offset),
  // BP reads *(BP + offset); any other base is "unknown BP base reg".
  for (int v : kVersions) {
    for (const auto& [reg, number] : register_numbers(v)) {
      Fixture f;
      const std::uint64_t sp = kTask + 0x400, bp = kTask + 0x600;
      f.task.set(sp + 8, fn(8) + 1, "the return address");
      f.task.set(sp + 16 - 16, 0xcafe, "the caller's RBP below the CFA");
      f.task.set(bp - 8, 0xbeef, "the caller's RBP in the frame record");
      f.regs = {{"rbp", 0xf00d}};
      OrcEntry e = call(16);
      e.bp_reg = reg;
      e.bp_offset = reg == OrcReg::Bp ? -8 : -16;
      OrcRows orc;
      orc.rows = {{fn(1), e}};
      orc.build(f.mem, v);
      StackAccess a = f.access();
      UnwindState s = Fixture::at(fn(1) + 3, sp, bp);
      s.regs = RegsRef{RegsRef::Initial, 0, true};
      const StepOutcome r = orc_step(s, orc.table, a);
      BOOST_TEST_CONTEXT("ORC v" << v << ", bp_reg number " << number) {
        if (reg == OrcReg::Undefined) {
          BOOST_TEST(r.state.bp == bp);  // a call frame leaves no registers to take BP from
        } else if (reg == OrcReg::PrevSp) {
          BOOST_TEST(r.state.bp == 0xcafeu);
        } else if (reg == OrcReg::Bp) {
          BOOST_TEST(r.state.bp == 0xbeefu);
        } else {
          BOOST_TEST(r.error == "unknown ORC bp_reg");
        }
      }
    }
  }
}

// ---- telling the ORC version of a kernel ----

namespace {

// What a kernel of an ORC version may show of it: an .orc_header hash (6.3.10+; here "known"
// for the two hashes drgn lists, "unknown" for any other, as 7.1's is to btaudit), its
// orc_fp_entry (5.2+), and orc_entry's DWARF members.
struct VersionEvidence {
  int version;
  enum { NoHeader, KnownHeader, UnknownHeader } header;
  bool fp_entry;
};

OrcVersion detect(const VersionEvidence& ev, std::int64_t kaslr) {
  SyntheticMemory mem;
  test::FakeSymbols symbols;
  test::FakeTypes types;
  constexpr std::uint64_t kHeader = 0xffffffff81d52f74, kFpEntry = 0xffffffff81c3b540;
  if (ev.header != VersionEvidence::NoHeader) {
    // drgn orc_info.c's hashes of 6.3's and 6.4's orc_types.h; anything else for an unknown one.
    const char* hex = ev.header == VersionEvidence::UnknownHeader ? "0123456789abcdef0123456789abcdef01234567"
                      : ev.version == 2                           ? "db84aed4103b31dd51e017f8f79783ca985c2c51"
                                                                  : "fe5d32bf581bd63b2ca9a5c65ba5a625eab3fe24";
    test::Image header(kHeader + static_cast<std::uint64_t>(kaslr));
    for (int i = 0; i < 20; ++i)
      header.u8(header.at(static_cast<std::size_t>(i)),
                static_cast<std::uint8_t>(std::stoi(std::string(hex + 2 * i, 2), nullptr, 16)));
    header.map_into(mem);
    symbols.add("__start_orc_header", kHeader, 0, 'R').add("__stop_orc_header", kHeader + 20, 0, 'R');
  }
  if (ev.fp_entry) {
    OrcEntry e = call(16, OrcReg::Bp);
    e.bp_reg = OrcReg::PrevSp;
    e.bp_offset = -16;
    const auto bytes = encode(e, ev.version);
    test::Image entry(kFpEntry + static_cast<std::uint64_t>(kaslr));
    entry.put(entry.base(), bytes.data(), bytes.size());
    entry.map_into(mem);
    symbols.add("orc_fp_entry", kFpEntry, 6, 'd');
  }
  if (ev.version >= 2) types.member("orc_entry.signal", 5, 1);
  if (ev.version <= 2) types.member("orc_entry.end", 5, 1);
  return orc_version_of(mem, symbols, types, kaslr);
}

}  // namespace

BOOST_AUTO_TEST_CASE(EveryVersionIsToldFromWhateverEvidenceItsKernelsCarry) {
  // Which evidence each version's kernels can have: v1 (4.14-6.2) no header; v2 (6.3) with or
  // without one (6.3.10 backport); v3 (6.4-7.0) with the 6.4 hash or a stable tree's unknown one;
  // v4 (7.1+) a hash btaudit does not know. orc_fp_entry from 5.2 on, or absent.
  const std::vector<VersionEvidence> cases = {
      {1, VersionEvidence::NoHeader, false},     {1, VersionEvidence::NoHeader, true},
      {2, VersionEvidence::NoHeader, true},      {2, VersionEvidence::KnownHeader, true},
      {3, VersionEvidence::KnownHeader, true},   {3, VersionEvidence::KnownHeader, false},
      {3, VersionEvidence::UnknownHeader, true}, {3, VersionEvidence::NoHeader, true},
      {4, VersionEvidence::UnknownHeader, true}, {4, VersionEvidence::NoHeader, true}};
  for (const VersionEvidence& ev : cases) {
    for (std::int64_t kaslr : {std::int64_t{0}, std::int64_t{0x2a000000}}) {
      const OrcVersion got = detect(ev, kaslr);
      BOOST_TEST_CONTEXT("ORC v" << ev.version << ", header " << ev.header << ", orc_fp_entry " << ev.fp_entry
                                 << ", KASLR " << kaslr) {
        BOOST_TEST(got.version == ev.version);
        const std::string rule = got.rule;
        if (ev.header == VersionEvidence::KnownHeader)
          BOOST_TEST(rule == ".orc_header hash");
        else if (ev.version == 4)
          BOOST_TEST(rule.find("orc_fp_entry") == 0);
        else
          BOOST_TEST(rule == "orc_entry DWARF members");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(AV4TableUnwindsWithTheRenumberedRegistersEndToEnd) {
  // The same frame-pointer function as in every synthetic era, its rows in v4's numbers
  // (SP 3, BP 4, PREV_SP 8): entry, after push %rbp, after mov %rsp,%rbp.
  task.push(fn(9) + 1, "the caller's return address");
  const std::uint64_t bp = task.push(0x4321, "the caller's saved RBP");
  OrcEntry pushed = call(16);
  pushed.bp_reg = OrcReg::PrevSp;
  pushed.bp_offset = -16;
  OrcEntry framed = pushed;
  framed.sp_reg = OrcReg::Bp;
  OrcRows orc;
  orc.rows = {{fn(1), call(8)}, {fn(1) + 1, pushed}, {fn(1) + 4, framed}};
  orc.build(mem, 4);
  StackAccess a = access();
  const StepOutcome r = orc_step(at(fn(1) + 0x20, bp - 32, bp), orc.table, a);
  BOOST_REQUIRE_EQUAL(r.kind, StepOutcome::Frame);
  BOOST_TEST(r.state.ip == fn(9) + 1);
  BOOST_TEST(r.state.sp == bp + 16);
  BOOST_TEST(r.state.bp == 0x4321u);
  // Read as v3, v4's BP number 4 is still BP but PREV_SP 8 is BP_INDIRECT: the bp rule fails.
  OrcRows wrong;
  wrong.rows = orc.rows;
  SyntheticMemory other;
  wrong.build(other, 4);
  OrcTable as_v3;
  BOOST_REQUIRE(as_v3.add(other, 0xffffffff82000000, 0xffffffff82100000, 3, 3));
  BOOST_TEST(orc_step(at(fn(1) + 0x20, bp - 32, bp), as_v3, a).error == "unknown ORC bp_reg");
}

BOOST_AUTO_TEST_SUITE_END()
