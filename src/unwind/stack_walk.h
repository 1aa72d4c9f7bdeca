// Walks one CPU's (or a switched-out task's) stacks the way the kernel's
// show_trace_log_lvl() does: scan every word from SP to the end of each
// stack, report kernel text addresses, and mark as reliable exactly the slots
// the unwinder (unwinder.h) reaches; then follow the stack's backlink to the
// next stack (backlink_step). Each frame comes out as a model StackFrame
// stamped with the trust of the method that found it and, for the '?'
// entries of the scan, with the dump reason the unwinder's state gives it.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "model/walked_stack.h"
#include "unwind/orc_table.h"
#include "unwind/unwinder.h"

namespace btaudit {

struct WalkResult {
  std::vector<StackSegment> segments;
  std::vector<StackFrame> frames;
  std::vector<Transition> transitions;
  std::vector<std::string> problems;  // unwinder errors, as the kernel would warn
};

struct WalkInput {
  std::map<std::string, std::uint64_t> regs;  // the CPU's registers ("rip", "rsp", "rbp", ...)
  std::vector<StackRange> stacks;             // every stack the CPU owns
  const OrcTable* orc = nullptr;
  std::function<bool(std::uint64_t)> is_kernel_text;
  // A task the scheduler switched out: `regs` hold the unwinder state its
  // inactive_task_frame gives (rip = ret_addr, rsp just above the frame, rbp),
  // there is no register frame to print, and the scan starts here (thread.sp),
  // as the kernel's show_stack() of a sleeping task does.
  std::optional<std::uint64_t> blocked_scan_from;
  // The kernel's unwinder. FramePointer: frame pointers are its own unwinder, not a fallback,
  // and its entry code encodes pt_regs in RBP. Guess: no word is vouched for, every text
  // address is a scanned one (unwind_guess.c's return-address pointer is NULL).
  KernelUnwinder unwinder = KernelUnwinder::Orc;
  // Frames read from machine code where ORC's entry is undefined (unwinder.h); none when empty.
  CodeFrames code_frames;
  // Above every word of a CPU's stacks (task and IRQ 16 KiB each, the IST stacks):
  // reached only when a stack's size is corrupt, then said as a problem.
  std::size_t max_frames = 16384;
};

WalkResult walk_stacks(MemorySource& m, const WalkInput& in);

// The stack kind a frame on this stack is shown as (the NMI stack is an exception stack of its own kind).
StackKind frame_stack_kind(const StackRange& r);

}  // namespace btaudit
