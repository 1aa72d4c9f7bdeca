#include "unwind/unwinder.h"

#include <cstdio>

namespace btaudit {

void Unwinder::start_from_registers() {
  state_ = UnwindState{};
  state_.ip = access_.initial("rip").value_or(0);
  state_.sp = access_.initial("rsp").value_or(0);
  state_.bp = access_.initial("rbp").value_or(0);
  state_.regs = RegsRef{RegsRef::Initial, 0, true};
  state_.signal = true;
  state_.trust = Trust::Registers;
  if (access_.stack_of(state_.sp)) return;
  // Overflowed into a guard page: the kernel tries the next page up (unwind_orc.c).
  if (access_.stack_of(page_up(state_.sp))) {
    problems_.push_back("the stack pointer is in a guard page below a stack (stack overflow)");
  } else {
    done_ = true;
    problems_.push_back("the stack pointer is on no known stack: nothing can be unwound");
  }
}

void Unwinder::start_blocked() {
  start_from_registers();
  state_.regs = RegsRef{};
  state_.signal = false;
}

std::optional<std::uint64_t> Unwinder::return_address_slot() const {
  if (done_) return std::nullopt;
  if (state_.regs.kind == RegsRef::Memory) return state_.regs.addr + pt_regs::kIp;
  if (state_.regs.kind == RegsRef::Initial) return std::nullopt;
  return state_.sp - 8;
}

std::optional<std::uint64_t> Unwinder::entry_regs() const {
  return state_.regs.kind == RegsRef::Memory ? std::optional<std::uint64_t>(state_.regs.addr) : std::nullopt;
}

void Unwinder::warn(const std::string& what, std::uint64_t ip) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(ip));
  problems_.push_back("unwinder: " + what + " at " + buf);
}

void Unwinder::fail(const std::string& what, std::uint64_t ip) {
  warn(what, ip);
  failed_ = true;
  done_ = true;
}

void Unwinder::next() {
  if (done_) return;
  StepOutcome step = orc_ ? orc_step(state_, *orc_, access_) : StepOutcome::not_applicable();
  // A function objtool skipped (STACK_FRAME_NON_STANDARD): its frame from its machine code, if
  // the code says it without doubt; else the kernel's warning and the scan, as before.
  if (step.kind == StepOutcome::Error && step.undefined_rule && code_frames_)
    if (auto f = code_frames_(state_.ip, state_.signal)) step = code_frame_step(state_, *f, access_);
  if (step.kind == StepOutcome::NotApplicable && frame_pointer_kernel_) {
    // A frame-pointer kernel: pt_regs behind an encoded RBP, else the frame record.
    step = pt_regs_step(state_, access_);
    if (step.kind == StepOutcome::NotApplicable) step = frame_pointer_step(state_, access_, true);
  } else if (step.kind == StepOutcome::NotApplicable) {
    warn("no ORC entry", state_.ip);
    step = frame_pointer_step(state_, access_, false);
  }
  switch (step.kind) {
    case StepOutcome::EndOfStack:
    case StepOutcome::NotApplicable: done_ = true; return;
    case StepOutcome::Error: return fail(step.error, state_.ip);
    case StepOutcome::Frame: break;
  }
  // Bad unwind data must not make the walk loop: on one stack SP only grows.
  const StackRange* before = access_.stack_of(state_.sp);
  const StackRange* after = access_.stack_of(step.state.sp);
  const std::uint64_t ip = state_.ip;
  const bool backwards = before && after && before->begin == after->begin && step.state.sp <= state_.sp;
  state_ = step.state;
  if (backwards) return fail("stack going in the wrong direction", ip);
  if (++steps_ > max_steps_) return fail("frame budget exhausted", ip);
}

}  // namespace btaudit
