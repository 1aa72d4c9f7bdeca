// A frame's verdict and the reason code that justifies it.
//
// Every reason has a stable snake_case code (JSON, man page) and a one-line
// description (text output). Adding a reason: extend the enum, the table in
// verdict.cpp and the RULES section of man/btaudit.1.
#pragma once
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
};

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
