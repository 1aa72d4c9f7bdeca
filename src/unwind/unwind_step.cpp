#include "unwind/unwind_step.h"

#include <cstdio>

#include "provider/return_address.h"

namespace btaudit {

namespace {

std::uint64_t plus(std::uint64_t v, std::int16_t off) { return v + static_cast<std::uint64_t>(std::int64_t{off}); }

// The registers an ORC entry may take the caller's SP from as they were saved: the value
// comes from the last full pt_regs (unwind_orc.c, get_reg() in unwind_next_frame(); AX since
// 96f3b16a9de5, 7.1), or from the initial registers of the walk.
struct SavedRegister {
  OrcReg reg;
  std::uint64_t offset;  // in struct pt_regs
  const char* initial;   // its name among the initial registers
  const char* missing;   // the kernel's warning when it is not known
};
constexpr SavedRegister kSavedRegisters[] = {
    {OrcReg::R10, pt_regs::kR10, "r10", "missing R10 value"}, {OrcReg::R13, pt_regs::kR13, "r13", "missing R13 value"},
    {OrcReg::Di, pt_regs::kDi, "rdi", "missing DI value"},    {OrcReg::Dx, pt_regs::kDx, "rdx", "missing DX value"},
    {OrcReg::Ax, pt_regs::kAx, "rax", "missing AX value"},
};

const SavedRegister* saved_register(OrcReg r) {
  for (const SavedRegister& s : kSavedRegisters)
    if (s.reg == r) return &s;
  return nullptr;
}

// A register of the current frame: from the initial registers, or from the pt_regs
// the unwinder stands on (an iret frame holds only ip, cs, flags, sp, ss: the rest
// comes from the full pt_regs before it, as the kernel's get_reg()).
bool get_reg(const UnwindState& s, StackAccess& a, std::uint64_t off, std::uint64_t& v) {
  const RegsRef& r = s.regs.kind != RegsRef::None ? s.regs : s.prev_regs;
  if (r.kind == RegsRef::Initial) {
    const char* name = off == pt_regs::kBp ? "rbp" : nullptr;
    for (const SavedRegister& saved : kSavedRegisters)
      if (saved.offset == off) name = saved.initial;
    if (!name) return false;
    auto val = a.initial(name);
    if (!val) return false;
    v = *val;
    return true;
  }
  if (r.kind != RegsRef::Memory) return false;
  if (!r.full && off < pt_regs::kIp) {
    if (s.prev_regs.kind != RegsRef::Memory) return false;
    auto val = a.deref(s.prev_regs.addr + off);
    if (!val) return false;
    v = *val;
    return true;
  }
  auto val = a.deref(r.addr + off);
  if (!val) return false;
  v = *val;
  return true;
}

// Evaluates one unwind rule (an ORC entry, or the rule a frame-pointer or pt_regs step
// stands for): the caller's SP, then by type its IP (and registers), then its BP.
StepOutcome apply_rule(const UnwindState& s, const OrcEntry& e, StackAccess& a, Trust trust) {
  if (e.type == OrcType::EndOfStack) return StepOutcome::end();
  if (e.type == OrcType::Undefined || e.sp_reg == OrcReg::Undefined) {
    StepOutcome undefined = StepOutcome::fail("undefined ORC entry");
    undefined.undefined_rule = true;
    return undefined;
  }
  std::uint64_t sp = 0;
  bool indirect = false;
  switch (e.sp_reg) {
    case OrcReg::Sp: sp = plus(s.sp, e.sp_offset); break;
    case OrcReg::Bp: sp = plus(s.bp, e.sp_offset); break;
    case OrcReg::SpIndirect:
      sp = s.sp;
      indirect = true;
      break;
    case OrcReg::BpIndirect:
      sp = plus(s.bp, e.sp_offset);
      indirect = true;
      break;
    default: {
      const SavedRegister* r = saved_register(e.sp_reg);
      if (!r) return StepOutcome::fail("unknown ORC sp_reg");
      if (!get_reg(s, a, r->offset, sp)) return StepOutcome::fail(r->missing);
      break;
    }
  }
  if (indirect) {
    auto v = a.deref(sp);
    if (!v) return StepOutcome::fail("cannot read the indirect stack pointer");
    sp = *v;
    if (e.sp_reg == OrcReg::SpIndirect) sp = plus(sp, e.sp_offset);
  }
  StepOutcome out;
  out.kind = StepOutcome::Frame;
  UnwindState& n = out.state;
  n.bp = s.bp;
  switch (e.type) {
    case OrcType::Call: {
      auto ip = a.deref(sp - 8);
      if (!ip) return StepOutcome::fail("cannot read the return address");
      n.ip = *ip;
      n.sp = sp;
      n.signal = false;
      // A call frame whose return address is on another stack: the unwinder crossed through a
      // saved stack pointer. (The caller's SP itself may be a stack's very end.)
      const StackRange* from = a.stack_of(s.sp);
      const StackRange* to = a.stack_of(sp - 8);
      n.trust = from && to && from->begin != to->begin ? Trust::Backlink : trust;
      break;
    }
    case OrcType::Regs: {
      auto ip = a.deref(sp + pt_regs::kIp, pt_regs::kSize - pt_regs::kIp);
      auto nsp = a.deref(sp + pt_regs::kSp);
      if (!ip || !nsp || !a.on_stack(sp, pt_regs::kSize)) return StepOutcome::fail("can't access registers");
      n.ip = *ip;
      n.sp = *nsp;
      n.regs = RegsRef{RegsRef::Memory, sp, true};
      n.signal = true;
      n.trust = Trust::PtRegs;
      break;
    }
    case OrcType::RegsPartial: {
      auto ip = a.deref(sp);
      auto nsp = a.deref(sp + (pt_regs::kSp - pt_regs::kIp));
      if (!ip || !nsp) return StepOutcome::fail("can't access iret registers");
      n.ip = *ip;
      n.sp = *nsp;
      n.prev_regs = s.regs.full ? s.regs : s.prev_regs;
      n.regs = RegsRef{RegsRef::Memory, sp - pt_regs::kIretFrame, false};
      n.signal = true;
      n.trust = Trust::PtRegs;
      break;
    }
    default: return StepOutcome::fail("unknown ORC type");
  }
  // The new registers are read through the new regs (as the kernel does after updating state->regs).
  UnwindState reg_view = s;
  reg_view.regs = n.regs;
  reg_view.prev_regs = n.prev_regs;
  switch (e.bp_reg) {
    case OrcReg::Undefined: {
      std::uint64_t v = 0;
      if (get_reg(reg_view, a, pt_regs::kBp, v)) n.bp = v;
      break;
    }
    case OrcReg::PrevSp: {
      auto v = a.deref(plus(sp, e.bp_offset));
      if (!v) return StepOutcome::fail("cannot read the saved frame pointer");
      n.bp = *v;
      break;
    }
    case OrcReg::Bp: {
      auto v = a.deref(plus(s.bp, e.bp_offset));
      if (!v) return StepOutcome::fail("cannot read the saved frame pointer");
      n.bp = *v;
      break;
    }
    default: return StepOutcome::fail("unknown ORC bp_reg");
  }
  return out;
}

}  // namespace

const StackRange* StackAccess::stack_of(std::uint64_t a) const {
  for (const StackRange& s : stacks_)
    if (s.contains(a)) return &s;
  return nullptr;
}

bool StackAccess::on_stack(std::uint64_t a, std::uint64_t len) const {
  const StackRange* s = stack_of(a);
  return s && a + len <= s->end;
}

std::optional<std::uint64_t> StackAccess::deref(std::uint64_t a, std::uint64_t len) {
  if (!on_stack(a, len < 8 ? 8 : len)) return std::nullopt;
  return m_.read_u64(a);
}

std::optional<std::uint64_t> StackAccess::initial(const std::string& name) const {
  auto it = regs_.find(name);
  if (it == regs_.end()) return std::nullopt;
  return it->second;
}

StepOutcome orc_step(const UnwindState& s, const OrcTable& orc, StackAccess& access) {
  // ORC, like kallsyms, describes a return address by the call before it (provider/return_address.h).
  auto e = orc.find(symbol_lookup_address(s.ip, s.signal));
  if (!e) return StepOutcome::not_applicable();
  return apply_rule(s, *e, access, Trust::Orc);
}

StepOutcome code_frame_step(const UnwindState& s, const CodeFrame& f, StackAccess& access) {
  // The rule an ORC entry would have given: the caller's SP just above the return address, the
  // caller's RBP where the function pushed it (or RBP untouched).
  OrcEntry e;
  e.sp_reg = OrcReg::Sp;
  e.sp_offset = static_cast<std::int16_t>(f.depth + 8);
  e.type = OrcType::Call;
  e.bp_reg = f.saved_bp ? OrcReg::PrevSp : OrcReg::Undefined;
  e.bp_offset = static_cast<std::int16_t>(f.saved_bp.value_or(0));
  return apply_rule(s, e, access, Trust::MachineCode);
}

StepOutcome pt_regs_step(const UnwindState& s, StackAccess& access) {
  if (!(s.bp & 1)) return StepOutcome::not_applicable();
  OrcEntry e;
  e.sp_reg = OrcReg::Bp;
  e.sp_offset = -1;
  e.bp_reg = OrcReg::Undefined;
  e.type = OrcType::Regs;
  return apply_rule(s, e, access, Trust::PtRegs);
}

StepOutcome frame_pointer_step(const UnwindState& s, StackAccess& access, bool frame_pointer_kernel) {
  // The first frame of a stack saved no frame pointer: on a frame-pointer kernel the chain ends.
  if (frame_pointer_kernel && s.bp == 0) return StepOutcome::end();
  OrcEntry e;
  e.sp_reg = OrcReg::Bp;
  e.sp_offset = 16;
  e.bp_reg = OrcReg::PrevSp;
  e.bp_offset = -16;
  e.type = OrcType::Call;
  return apply_rule(s, e, access, Trust::FramePointer);
}

BacklinkOutcome backlink_step(const StackRange& from, StackAccess& access) {
  BacklinkOutcome out;
  std::uint64_t slot = 0;
  if (from.kind == StackKind::Irq) {
    slot = from.end - 8;
  } else if (from.kind == StackKind::Exception) {
    slot = from.end - pt_regs::kSize + pt_regs::kSp;
  } else {
    return out;
  }
  const std::uint64_t next = access.memory().read_u64(slot).value_or(0);
  if (!next) return out;
  const StackRange* to = access.stack_of(next);
  if (!to) to = access.stack_of(page_up(next));  // an overflowed stack: its SP is in the guard page
  out.transition = {from.label(), to ? to->label() : std::string("unknown"), slot, next};
  if (!to) {
    out.kind = StepOutcome::Error;
    return out;
  }
  out.kind = StepOutcome::Frame;
  out.next = *to;
  return out;
}

}  // namespace btaudit
