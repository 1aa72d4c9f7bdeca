// The unwinder's state between frames and the methods that step it to the
// caller, each a function of its own (Breakpad's GetCallerBy*, drgn's
// fallback_unwind): the ORC step, the frame-pointer step, the pt_regs step of
// entry code whose RBP encodes its pt_regs, and the backlink step that takes
// the scan from one stack to the next. Each returns a StepOutcome that keeps
// "this method does not apply", "the chain ends here" and "error" apart, and
// stamps the state it produces with its Trust. The orchestrator is unwinder.h.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "model/walked_stack.h"
#include "unwind/code_frame.h"
#include "unwind/orc_table.h"

namespace btaudit {

// struct pt_regs on x86-64 (arch/x86/include/asm/ptrace.h).
namespace pt_regs {
constexpr std::uint64_t kSize = 168;
constexpr std::uint64_t kIp = 128, kSp = 152, kBp = 32, kR10 = 56, kR13 = 16, kAx = 80, kDi = 112, kDx = 96;
constexpr std::uint64_t kIretFrame = 128;  // a partial pt_regs (the iret frame alone) starts this far into one
}  // namespace pt_regs

constexpr std::uint64_t page_up(std::uint64_t a) { return (a + 4095) & ~std::uint64_t{4095}; }

// Where the current frame's registers come from (the kernel's state->regs).
struct RegsRef {
  enum Kind { None, Initial, Memory } kind = None;
  std::uint64_t addr = 0;  // Memory: where the pt_regs starts
  bool full = false;       // false: only the iret frame is valid
};

struct UnwindState {
  std::uint64_t ip = 0, sp = 0, bp = 0;
  RegsRef regs, prev_regs;
  bool signal = false;             // ip is an exact PC (a RIP of registers): ORC is looked up at ip, not ip - 1
  Trust trust = Trust::Registers;  // how the method that produced this state found it
};

struct StepOutcome {
  enum Kind { Frame, NotApplicable, EndOfStack, Error } kind = NotApplicable;
  UnwindState state;            // Frame: the caller's state
  std::string error;            // Error: what went wrong, as the kernel would warn
  bool undefined_rule = false;  // Error: ORC's entry for the address is undefined (objtool skipped its function)
  static StepOutcome not_applicable() { return {}; }
  static StepOutcome end() { return {EndOfStack, {}, {}}; }
  static StepOutcome fail(std::string what) { return {Error, {}, std::move(what)}; }
};

// Reads only from the stacks of the context being walked (the kernel's
// stack_access_ok()), and hands out the registers of the initial frame.
class StackAccess {
 public:
  StackAccess(MemorySource& m, const std::vector<StackRange>& stacks, const std::map<std::string, std::uint64_t>& regs)
      : m_(m), stacks_(stacks), regs_(regs) {}
  const StackRange* stack_of(std::uint64_t a) const;
  bool on_stack(std::uint64_t a, std::uint64_t len) const;
  std::optional<std::uint64_t> deref(std::uint64_t a, std::uint64_t len = 8);
  std::optional<std::uint64_t> initial(const std::string& name) const;
  MemorySource& memory() { return m_; }

 private:
  MemorySource& m_;
  const std::vector<StackRange>& stacks_;
  const std::map<std::string, std::uint64_t>& regs_;
};

// The ORC step (arch/x86/kernel/unwind_orc.c): the entry for ip (ip - 1 after a call) says where
// the caller's SP, BP and return address are. NotApplicable when ORC has no entry for ip.
StepOutcome orc_step(const UnwindState& s, const OrcTable& orc, StackAccess& access);

// The machine-code step: the frame code_frame.h read from the function's instructions, for an
// address whose ORC entry is undefined. Its frames are stamped Trust::MachineCode.
StepOutcome code_frame_step(const UnwindState& s, const CodeFrame& f, StackAccess& access);

// The pt_regs step of a frame-pointer kernel (unwind_frame.c, 4.10+): entry code that calls C
// sets RBP to its pt_regs + 1 (ENCODE_FRAME_POINTER). NotApplicable unless RBP has bit 0 set.
StepOutcome pt_regs_step(const UnwindState& s, StackAccess& access);

// The frame-pointer step: the caller's SP is RBP + 16, its RBP the word at RBP and its return
// address the word at RBP + 8. On a frame-pointer kernel a zero RBP ends the chain.
StepOutcome frame_pointer_step(const UnwindState& s, StackAccess& access, bool frame_pointer_kernel);

// The backlink step of the stack scan (get_stack_info()'s next_sp): the IRQ stack's top word
// (irq_stack_end[-1]), an exception stack's saved pt_regs->sp. NotApplicable for stacks without
// one (the task stack) or when it is zero; a backlink into no known stack is an Error carrying
// the transition, which the walk records before it stops.
struct BacklinkOutcome {
  StepOutcome::Kind kind = StepOutcome::NotApplicable;
  Transition transition;
  std::optional<StackRange> next;  // the stack it leads to
};
BacklinkOutcome backlink_step(const StackRange& from, StackAccess& access);

}  // namespace btaudit
