// Walks one CPU's stacks the way the kernel's show_trace_log_lvl() does:
// scan every word from SP to the end of each stack, print kernel text
// addresses, and mark as reliable exactly the slots the ORC unwinder reaches;
// then follow the stack's backlink (the IRQ stack's top word, an exception
// stack's saved pt_regs) to the next stack. Every transition is recorded.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "unwind/orc_table.h"

namespace btaudit {

struct WalkStack {
  std::string kind;  // "task", "irq", "exception", "entry"
  std::string name;  // "#DF", "NMI", ... for exception stacks
  std::uint64_t begin = 0, end = 0;
};

struct WalkFrame {
  std::uint64_t address = 0;
  std::uint64_t slot = 0;  // where on the stack the word was found (0: a register)
  bool reliable = false;   // the unwinder's return-address slot
  bool from_regs = false;  // the interrupted RIP of a pt_regs (printed as a RIP: line by the kernel)
  std::string stack, stack_name;
};

struct WalkTransition {
  std::string from, to;     // stack kinds ("irq", "task", "NMI", ...)
  std::uint64_t slot = 0;   // where the backlink was read
  std::uint64_t value = 0;  // the stack pointer it holds
};

struct WalkResult {
  std::vector<WalkFrame> frames;
  std::vector<WalkTransition> transitions;
  std::vector<std::string> problems;  // unwinder errors, as the kernel would warn
};

struct WalkInput {
  std::map<std::string, std::uint64_t> regs;  // the CPU's registers ("rip", "rsp", "rbp", ...)
  std::vector<WalkStack> stacks;              // every stack the CPU owns
  const OrcTable* orc = nullptr;
  std::function<bool(std::uint64_t)> is_kernel_text;
  // A task the scheduler switched out: `regs` hold the unwinder state its
  // inactive_task_frame gives (rip = ret_addr, rsp just above the frame, rbp),
  // there is no register frame to print, and the scan starts here (thread.sp),
  // as the kernel's show_stack() of a sleeping task does.
  std::optional<std::uint64_t> blocked_scan_from;
  // A kernel built without ORC (CONFIG_UNWINDER_FRAME_POINTER): frame pointers are its
  // own unwinder, not a fallback, and its entry code encodes pt_regs in RBP.
  bool frame_pointer_kernel = false;
  // Above every word of a CPU's stacks (task and IRQ 16 KiB each, the IST stacks):
  // reached only when a stack's size is corrupt, then said as a problem.
  std::size_t max_frames = 16384;
};

WalkResult walk_stacks(MemorySource& m, const WalkInput& in);

}  // namespace btaudit
