#include "analysis/call_site_verdict.h"

namespace btaudit {

bool stays_stale_with_a_call_site(Reason r) {
  switch (r) {
    case Reason::SkippedByUnwinder:
    case Reason::AfterChainEnd:
    case Reason::DuplicateOfAbove:
    case Reason::FunctionStart:
    case Reason::StaleByOrc:
    case Reason::StaleByFramePointer:
    case Reason::AfterStackEnd: return true;
    default: return false;
  }
}

bool apply_call_site_evidence(bool reliable, bool asm_frame, Verdict& verdict, Reason& reason, FrameDebugInfo& debug,
                              const CallSiteEvidence& e) {
  const bool no_call = e.finding.site.kind == CallKind::None;
  const bool mismatch = e.finding.site.kind == CallKind::Direct && e.reach == Reach::No;
  if (no_call && e.finding.after_padded_original && !e.at_symbol_end) {
    // The file has no call, but the code that ran may (the replacement patched at boot): the
    // machine code proves nothing either way, and the verdict stays the unwinder's.
    debug.note = "preceded by an ALTERNATIVE's NOP-padded original: the replacement patched at boot may be the call";
    return verdict != Verdict::Stale;
  }
  if (reliable) {
    if ((no_call || mismatch) && !asm_frame) {
      debug.corruption_evidence = true;
      debug.note = no_call ? "reliable frame not preceded by a call: evidence of stack corruption"
                           : "reliable frame whose call cannot reach the frame above: evidence of stack "
                             "corruption or a missed tail call";
    }
    return true;
  }
  if (reason == Reason::FunctionStart) {
    // Already certain without the code: a function's first byte is a pointer, not a return address.
  } else if (no_call && e.at_symbol_end) {
    // Padding, not a call, before the next symbol's first byte: what the word holds is that
    // function's address. (A return address after a noreturn call that ends a function, such as
    // "nmi_panic.cold+0xc/0xc", has its call before it and is not taken for one.)
    verdict = Verdict::Stale;
    reason = Reason::FunctionStart;
  } else if (no_call) {
    verdict = Verdict::Stale;
    reason = Reason::NoCallBefore;
  } else if (mismatch) {
    verdict = Verdict::Stale;
    reason = Reason::CallTargetMismatch;
    debug.note = "direct call to " + e.finding.site.target.value_or("?") + " cannot reach " + e.above;
  } else if (verdict == Verdict::Stale && stays_stale_with_a_call_site(reason)) {
    // A real call site, but the slot is already shown not to be on the live chain.
  } else if (reason != Reason::ReportingPath) {
    verdict = Verdict::Plausible;
    reason = Reason::CallSitePlausible;
  }
  return verdict != Verdict::Stale;
}

}  // namespace btaudit
