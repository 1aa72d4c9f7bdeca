// The verdict the machine code before a return address gives a frame, for
// printed traces (debug_analysis.h) and walked stacks (walk_verdicts.h) alike:
// not preceded by a call, proven stale (a function pointer when the word is the next symbol's
// first byte); a direct call that cannot reach the
// frame above, likely stale; otherwise plausible, unless a text or dump rule
// already showed the slot is not on the live chain. A reliable frame that
// fails the check keeps its verdict and is flagged as corruption evidence.
#pragma once
#include <optional>
#include <string>

#include "analysis/call_site_check.h"
#include "model/debug_info.h"
#include "model/verdict.h"

namespace btaudit {

struct CallSiteEvidence {
  const CallSiteFinding& finding;
  Reach reach = Reach::Unknown;  // of a direct call, to the frame above
  std::string above;             // the frame above's function, for the note
  // The word is where the symbol printed for it ends (offset == size, kernel-style sizes): the
  // next symbol's first byte. Before 6.2 (no __pfx_ padding symbols) %pB prints a pointer to a
  // function f as "g+size/size", g the function laid out before f.
  bool at_symbol_end = false;
};

// Stale verdicts that a real call site does not overturn: the unwinder (or the
// text) already shows the slot is off the live chain, a leftover of an earlier call.
bool stays_stale_with_a_call_site(Reason r);

// Applies a decided finding to one frame. `asm_frame`: entry or start-up
// assembly, whose pushed return addresses prove nothing. Returns whether the
// frame can be "the frame above" of the next one (it is not stale).
bool apply_call_site_evidence(bool reliable, bool asm_frame, Verdict& verdict, Reason& reason, FrameDebugInfo& debug,
                              const CallSiteEvidence& e);

}  // namespace btaudit
