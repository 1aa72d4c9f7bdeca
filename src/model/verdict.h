// A frame's verdict and the reason code that justifies it.
//
// Every reason has a stable snake_case code (JSON, man page) and a one-line
// description (text output). Adding a reason: extend the enum, the table in
// verdict.cpp and the RULES section of man/btaudit.1.
//
// Reasons come in three scopes: text rules judge printed traces (what the '?'
// mark and the order of frames say), dump rules judge walked stacks (what the
// unwinder that vouched for a slot did, or why it did not), and code rules
// (the machine code before a return address) judge both.
#pragma once
#include <cstddef>
#include <string_view>

namespace btaudit {

enum class Verdict { Reliable, Stale, Plausible, Unknown };

enum class Reason {
  // Reliable.
  Unwinder,       // printed without '?': the kernel's unwinder reached it
  ExactUnwinder,  // architecture whose unwinder never guesses (arm64, arm)
  // Stale.
  FunctionStart,       // '?' word points at the first byte of a function
  DuplicateOfAbove,    // '?' word repeats the frame printed just above it
  SkippedByUnwinder,   // a reliable frame follows in the same stack: the unwinder passed this slot
  AfterChainEnd,       // '?' word after the bottom frame of this stack (entry/ret_from_fork)
  NoCallBefore,        // (debuginfo) the instruction before the return address is not a call
  CallTargetMismatch,  // (debuginfo) a direct call whose target cannot lead to the frame above
  // Plausible.
  ReportingPath,         // '?' frame of the die/warn path below the faulting frame
  AfterUnwinderStopped,  // '?' words after the last reliable frame, chain not finished
  EntryCode,             // '?' frame in interrupt/exception entry code the unwinder cannot vouch for
  CallSitePlausible,     // (debuginfo) preceded by an indirect call, or a direct call that reaches the frame above
  // Unknown.
  NoReliableFrames,  // nothing in this stack was reliable (guess unwinder, no frame pointers)
  NoAddress,         // a line that names no code location
  // Any verdict: the text rules' (their reason is in the frame's debug note).
  UncheckedBudget,  // (debuginfo) the call-site check did not run: the report's or dump's time budget ran out

  // Dump rules: frames of a walked stack (btaudit vmcore), stamped by the walker.
  CpuRegisters,      // (reliable) the RIP of the CPU's saved registers
  SchedulerFrame,    // (reliable) the return address a switched-out task's inactive_task_frame holds
  Orc,               // (reliable) the ORC unwinder reached this return-address slot
  FramePointer,      // (reliable) the frame-pointer chain reached this slot
  PtRegs,            // (reliable) the interrupted RIP saved in a pt_regs on this stack
  Backlink,          // (reliable) reached after the unwinder crossed stacks through a saved stack pointer
  MachineCodeFrame,  // (reliable) the function's machine code gives the frame where ORC has none (objtool skipped it)
  NmiStopHandler,    // (reliable) a stopped CPU's handler frame on its NMI stack, whose ORC chain reaches the NMI's
                     // pt_regs
  StaleByOrc,        // (stale) the ORC unwinder was alive and its chain went through another slot
  StaleByFramePointer,  // (stale) the frame-pointer chain was alive and went through another slot
  AfterStackEnd,        // (stale) after the unwinder reached the end of the chain
  AfterUnwindError,     // (plausible) after the unwinder failed: may be a caller it lost
  GuessUnwinder,  // (unknown) a kernel built with the guess unwinder (no ORC, no frame pointers) vouches for no word
  ScannedTextAddress,  // (unknown) a text address on a stack no unwinder reached
};
// The number of reasons: tables indexed by a Reason (the renderers') size themselves by it. Keep
// ScannedTextAddress the last enumerator, or move this to the new last one.
inline constexpr std::size_t kReasonCount = static_cast<std::size_t>(Reason::ScannedTextAddress) + 1;

enum class ReasonScope { Text, Dump, Code };

// Text reasons belong to printed traces, dump reasons to walked stacks, code
// reasons (the machine code before a return address, function_start) to both.
ReasonScope reason_scope(Reason r);

constexpr std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Reliable: return "reliable";
    case Verdict::Stale: return "stale";
    case Verdict::Plausible: return "plausible";
    case Verdict::Unknown: return "unknown";
  }
  return "unknown";
}

std::string_view reason_code(Reason r);
std::string_view reason_description(Reason r);

}  // namespace btaudit
