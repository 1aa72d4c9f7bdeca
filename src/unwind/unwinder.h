// The orchestrator of the unwind steps (unwind_step.h), as the kernel's
// unwind_next_frame() runs them: ORC first; on a frame-pointer kernel the
// pt_regs step of an encoded RBP, then the frame-pointer step; on an ORC
// kernel with no entry for an address (BPF, JIT, a bad address) the
// frame-pointer fallback, with a warning. Then the shared invariants: SP only
// grows on one stack, and a budget of steps.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "unwind/unwind_step.h"

namespace btaudit {

// The frame a function's machine code gives at an address (code_frame.h), when the address's
// ORC entry is undefined: `exact` for a CPU's stopped RIP, false for a return address.
using CodeFrames = std::function<std::optional<CodeFrame>(std::uint64_t ip, bool exact)>;

class Unwinder {
 public:
  Unwinder(StackAccess& access, const OrcTable* orc, bool frame_pointer_kernel, std::size_t max_steps,
           std::vector<std::string>& problems)
      : access_(access),
        orc_(orc),
        frame_pointer_kernel_(frame_pointer_kernel),
        max_steps_(max_steps),
        problems_(problems) {}

  // From a CPU's registers (rip, rsp, rbp): the kernel's unwind_start() with regs.
  void start_from_registers();
  // From a switched-out task's saved frame: no registers, ip a return address.
  void start_blocked();
  // Where an ORC entry is undefined, the frame from the machine code (none by default).
  void read_code_frames(CodeFrames frames) { code_frames_ = std::move(frames); }
  // One step to the caller.
  void next();
  // No step at all from here: a kernel whose unwinder vouches for nothing (the guess unwinder).
  void stop() { done_ = true; }

  bool done() const { return done_; }
  bool failed() const { return failed_; }
  bool frame_pointer_kernel() const { return frame_pointer_kernel_; }
  const UnwindState& state() const { return state_; }
  // The slot the next reliable return address must be read from (unwind_get_return_address_ptr()).
  std::optional<std::uint64_t> return_address_slot() const;
  // The pt_regs the current frame's registers are in (unwind_get_entry_regs()).
  std::optional<std::uint64_t> entry_regs() const;

 private:
  void fail(const std::string& what, std::uint64_t ip);
  void warn(const std::string& what, std::uint64_t ip);

  StackAccess& access_;
  const OrcTable* orc_;
  bool frame_pointer_kernel_;
  std::size_t max_steps_;
  std::vector<std::string>& problems_;
  CodeFrames code_frames_;
  UnwindState state_;
  bool done_ = false, failed_ = false;
  std::size_t steps_ = 0;
};

}  // namespace btaudit
